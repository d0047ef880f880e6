"""The tables the corpus assets hold, built from a parsed filing. One concept, one place."""

from __future__ import annotations

import json
from typing import cast

import pandas as pd

from edgar_eval.corpus.chunking import chunk_filing
from edgar_eval.corpus.fiscal import FiscalCalendar, period_kind
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.corpus.parse import ParsedFiling


def filing_frame(
    key: str, relative_path: str, sha256: str, size: int, parsed: ParsedFiling, filed: str | None
) -> pd.DataFrame:
    meta = parsed.meta
    return pd.DataFrame(
        [
            {
                "filing_id": key,
                "path": relative_path,
                "sha256": sha256,
                "bytes": size,
                "company": meta.company,
                "cik": meta.cik,
                "form": meta.form,
                "fiscal_year": meta.fiscal_year,
                "fiscal_period": meta.fiscal_period,
                "period_end": meta.period_end.isoformat(),
                "fiscal_year_end": meta.fiscal_year_end,
                "fiscal_year_offset": meta.fiscal_year_offset,
                "filed": filed,
                "ticker": meta.ticker,
                "amendment": meta.amendment,
                "parse_warnings": list(parsed.warnings),
            }
        ]
    )


def text_frame(key: str, sha256: str, parsed: ParsedFiling) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "filing_id": key,
                "sha256": sha256,
                "text": parsed.text,
                "page_starts": [p.start for p in parsed.pages],
                "page_ends": [p.end for p in parsed.pages],
                "printed_pages": [p.printed for p in parsed.pages],
            }
        ]
    )


FACT_COLUMNS = [
    "filing_id",
    "sha256",
    "cik",
    "concept",
    "value",
    "text_value",
    "displayed",
    "unit",
    "decimals",
    "scale",
    "is_numeric",
    "period_start",
    "period_end",
    "period_kind",
    "fiscal_year",
    "dimensions",
    "offset",
    "end",
]


def facts_frame(key: str, sha256: str, parsed: ParsedFiling) -> pd.DataFrame:
    calendar = FiscalCalendar.of(parsed.meta)
    rows = [
        {
            "filing_id": key,
            "sha256": sha256,
            "cik": parsed.meta.cik,
            "concept": f.concept,
            "value": f.value,
            "text_value": f.text_value,
            "displayed": f.displayed,
            "unit": f.unit,
            "decimals": f.decimals,
            "scale": f.scale,
            "is_numeric": f.is_numeric,
            "period_start": f.context.period_start.isoformat() if f.context.period_start else None,
            "period_end": f.context.period_end.isoformat(),
            "period_kind": period_kind(f.context),
            "fiscal_year": calendar.year_of(f.context.period_end),
            "dimensions": json.dumps(f.context.dimensions) if f.context.dimensions else "",
            "offset": f.offset,
            "end": f.end,
        }
        for f in parsed.facts
    ]
    return pd.DataFrame(rows, columns=FACT_COLUMNS)


FACT_REJECTION_COLUMNS = ["filing_id", "sha256", "concept", "fact_id", "context_id", "displayed", "format", "reason"]


def fact_rejections_frame(key: str, sha256: str, parsed: ParsedFiling) -> pd.DataFrame:
    """One row per fact the parser dropped, with why; no row when every fact was read."""
    rows = [
        {
            "filing_id": key,
            "sha256": sha256,
            "concept": r.concept,
            "fact_id": r.fact_id,
            "context_id": r.context_id,
            "displayed": r.displayed,
            "format": r.format,
            "reason": r.reason,
        }
        for r in parsed.rejected_facts
    ]
    return pd.DataFrame(rows, columns=FACT_REJECTION_COLUMNS)


def numeric_facts_at_offset(facts: pd.DataFrame, text: str) -> tuple[int, int]:
    """How many located numeric facts show their displayed text at their offset, of how many."""
    located = cast(pd.DataFrame, facts[facts.is_numeric & facts.offset.notna()])
    found = sum(text[int(r.offset) : int(r.end)] == r.displayed for r in iter_rows(located))
    return found, len(located)


def sections_frame(key: str, sha256: str, parsed: ParsedFiling) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "filing_id": key,
                "sha256": sha256,
                "part": s.part,
                "item": s.item,
                "key": s.key,
                "title": s.title,
                "start": s.start,
                "end": s.end,
                "cross_reference_target": s.cross_reference_target,
                "notes_start": parsed.notes_start,
            }
            for s in parsed.sections
        ]
    )


def chunks_frame(
    key: str, sha256: str, parsed: ParsedFiling, size: int, overlap: int, table_headers: bool = True
) -> pd.DataFrame:
    made = chunk_filing(key, parsed.text, parsed.sections, parsed.pages, size, overlap, table_headers)
    return pd.DataFrame(
        [
            {
                "chunk_id": c.chunk_id,
                "filing_id": key,
                "sha256": sha256,
                "index": c.index,
                "start": c.start,
                "end": c.end,
                "section": c.section,
                "pages": list(c.pages),
                "page_starts": list(c.page_starts),
                "text": c.text,
            }
            for c in made
        ]
    )
