"""Freezing a golden set: a dev/eval split by company, fixed by a seed, and a versioned export whose
content hash a later run can name."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.domain.routes import exchange_route

SPLITS = ("dev", "eval")


def split_by_company(ciks: list[str], seed: int) -> dict[str, str]:
    """Half the companies (rounded down, at least one when there are two or more) go to dev, the rest to eval."""
    companies = sorted(set(ciks))
    random.Random(seed).shuffle(companies)
    dev_count = len(companies) // 2 if len(companies) > 1 else 0
    return {cik: ("dev" if i < dev_count else "eval") for i, cik in enumerate(companies)}


def _quotes(row, filing: str) -> list[str]:
    """The quotes a case's evidence in one filing holds: each gold figure's line there (a two-document case), else the
    gold line where it was tagged first."""
    figures = json.loads(getattr(row, "gold_figures", "") or "[]")
    if figures:
        return list(dict.fromkeys(f["quote"] for f in figures if f["filing_id"] == filing and f["quote"]))
    return [row.gold_quote] if isinstance(row.gold_quote, str) and filing == row.source_filing_id else []


def case_record(row, split: str, filing_sha: dict[str, str]) -> dict:
    """One golden case in the brief's exchange schema."""
    evidence = [
        {
            "document_sha256": filing_sha[filing],
            "filing_id": filing,
            "chunk_ids": sorted(c for c in row.gold_chunk_ids if c.startswith(f"{filing}:")),
            "pages": sorted(p.split("#", 1)[1] for p in row.gold_pages if p.startswith(f"{filing}#")),
            "quotes": _quotes(row, filing),
        }
        for filing in row.gold_filing_ids
    ]
    return {
        "id": row.question_id,
        "question": row.question,
        "reference_answer": row.gold_answer if isinstance(row.gold_answer, str) else None,
        "expected_route": exchange_route(row.expected_route),
        "evidence": evidence,
        "question_type": row.kind,
        "pattern": None,
        "difficulty": "template",
        "period": row.period,
        "company_cik": row.cik,
        "split": split,
        "provenance": row.provenance,
        "notes": "",
    }


@dataclass(frozen=True)
class FrozenSet:
    content_hash: str
    jsonl: str
    split_of_company: dict[str, str]
    split_counts: dict[str, int]


def freeze(golden: pd.DataFrame, filing_sha: dict[str, str], seed: int) -> FrozenSet:
    splits = split_by_company(golden.cik.tolist(), seed)
    records = [case_record(row, splits[row.cik], filing_sha) for row in iter_rows(golden.sort_values("question_id"))]
    jsonl = "".join(
        json.dumps(record, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n" for record in records
    )
    counts = {split: sum(r["split"] == split for r in records) for split in SPLITS}
    return FrozenSet(hashlib.sha256(jsonl.encode()).hexdigest(), jsonl, splits, counts)
