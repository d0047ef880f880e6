"""How fast the ten admission gates judge golden-question candidates against a real corpus (target: 1,000 in under a
minute).

    python bench/golden_gates.py ../shared/corpus/edgar [--candidates ../shared/golden/real_candidates.jsonl] [--n 1000]

The candidates are built from the corpus itself so every gate has work to do: for each filing, table rows paired
with prose sentences far away (D1 shapes), statement rows with notes sentences (D2), rows of a 10-Q and a 10-K of one
company (D4), each with a question and an answer that quotes a figure of the row; a quarter of them have one quote
altered by a word, and every hand-written candidate (if given) is included as is. Parsing the filings is timed
apart: the gates' own work is building the quote index and judging.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import cast

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgar_eval.adapters.local_corpus import list_filings, read_manifest  # noqa: E402
from edgar_eval.corpus.frames import iter_rows  # noqa: E402
from edgar_eval.corpus.parse import parse_filing  # noqa: E402
from edgar_eval.corpus.tables import filing_frame, sections_frame, text_frame  # noqa: E402
from edgar_eval.domain.filings import FilingError  # noqa: E402
from edgar_eval.golden.admission import build_gate_corpus, run_gates  # noqa: E402
from edgar_eval.golden.candidates import read_jsonl  # noqa: E402
from edgar_eval.golden.pattern_set import candidate_outcomes, verdict_frame  # noqa: E402
from edgar_eval.golden.quotes import row_cells  # noqa: E402

_FIGURE = re.compile(r"^\(?\d{1,3}(?:,\d{3})+\)?$")


def _parse(corpus: Path):
    """The filings, filing_text and sections tables, as the corpus assets build them."""
    manifest = read_manifest(corpus)
    frames: dict[str, list[pd.DataFrame]] = {"filings": [], "texts": [], "sections": []}
    for key, relative in sorted(list_filings(corpus).items()):
        data = (corpus / relative).read_bytes()
        try:
            parsed = parse_filing(data)
        except FilingError:
            continue
        sha = hashlib.sha256(data).hexdigest()
        frames["filings"].append(
            filing_frame(key, relative, sha, len(data), parsed, (manifest.get(relative) or {}).get("filed"))
        )
        frames["texts"].append(text_frame(key, sha, parsed))
        frames["sections"].append(sections_frame(key, sha, parsed))
    return tuple(pd.concat(frames[name], ignore_index=True) for name in ("filings", "texts", "sections"))


def _rows_and_sentences(text: str):
    rows, sentences, offset = [], [], 0
    for line in text.splitlines(keepends=True):
        body = line.strip()
        if body.startswith("|"):
            cells = row_cells(body)
            if len(cells) >= 2 and _FIGURE.match(cells[1]) and cells[0][:1].isalpha():
                rows.append((offset, cells))
        elif 80 < len(body) < 400 and body.endswith("."):
            sentences.append((offset, body))
        offset += len(line)
    return rows, sentences


def synthetic_candidates(
    filings: pd.DataFrame, texts: pd.DataFrame, sections: pd.DataFrame, n: int, seed: int = 7
) -> list[dict]:
    rng = random.Random(seed)
    text_of = dict(zip(texts.filing_id, texts.text))
    notes = dict(zip(sections.filing_id, sections.notes_start))
    pool: list[dict] = []
    for filing in iter_rows(filings):
        rows, sentences = _rows_and_sentences(text_of[filing.filing_id])
        for _ in range(30):
            if not rows or not sentences:
                break
            (row_at, cells), (sentence_at, sentence) = rng.choice(rows), rng.choice(sentences)
            notes_at = notes.get(filing.filing_id)
            pattern = "D2" if notes_at and row_at < notes_at <= sentence_at else "D1"
            label = cells[0]
            pool.append(
                {
                    "pattern": pattern,
                    "question": f"What was {filing.company}'s {label.lower()} for fiscal 2024, and why did it change?",
                    "answer_type": "string",
                    "gold_answer": f"${cells[1]} million; {sentence.split(',')[0].lower()}.",
                    "evidence": [
                        {"document": filing.path, "quote": " | ".join(cells[:2])},
                        {"document": filing.path, "quote": sentence},
                    ],
                    "requires_documents": 1,
                }
            )
    by_company = filings.groupby("cik")
    for _, group in by_company:
        quarterly, annual = (
            cast(pd.DataFrame, group[group.form == "10-Q"]),
            cast(pd.DataFrame, group[group.form == "10-K"]),
        )
        for q, k in zip(iter_rows(quarterly), iter_rows(annual)):
            q_rows, _ = _rows_and_sentences(text_of[q.filing_id])
            k_rows, _ = _rows_and_sentences(text_of[k.filing_id])
            for _ in range(40):
                if not q_rows or not k_rows:
                    break
                (_, qc), (_, kc) = rng.choice(q_rows), rng.choice(k_rows)
                pool.append(
                    {
                        "pattern": "D4",
                        "question": f"How did {q.company}'s {qc[0].lower()} for the first nine months of fiscal 2024 "
                        "compare with the year?",
                        "answer_type": "list",
                        "gold_answer": f"${qc[1]} million against ${kc[1]} million.",
                        "evidence": [
                            {"document": q.path, "quote": " | ".join(qc[:2])},
                            {"document": k.path, "quote": " | ".join(kc[:2])},
                        ],
                        "requires_documents": 2,
                    }
                )
    rng.shuffle(pool)
    chosen = pool[:n]
    for i, record in enumerate(chosen):
        record["id"] = f"BENCH-{i:04d}"
        if i % 4 == 3:  # a word changed: quote verification has misses to explain
            quote = record["evidence"][-1]["quote"]
            record["evidence"][-1]["quote"] = (
                quote.replace(" the ", " a ", 1) if " the " in quote else quote + " indeed"
            )
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=cast(str, __doc__).split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--candidates", type=Path, default=None, help="hand-written candidates to include (JSON Lines)")
    parser.add_argument("--n", type=int, default=1000)
    args = parser.parse_args()
    started = time.perf_counter()
    filings, texts, sections = _parse(args.corpus)
    parse_seconds = time.perf_counter() - started
    records = []
    if args.candidates:
        records += [json.loads(line) for line in args.candidates.read_text().splitlines() if line.strip()]
    records += synthetic_candidates(filings, texts, sections, args.n - len(records))
    candidates, problems = read_jsonl("".join(json.dumps(r) + "\n" for r in records), "bench")
    started = time.perf_counter()
    corpus = build_gate_corpus(filings, texts, sections)
    index_seconds = time.perf_counter() - started
    started = time.perf_counter()
    run = run_gates(candidates, corpus)
    gate_seconds = time.perf_counter() - started
    outcomes = candidate_outcomes(verdict_frame(candidates, run))
    total = index_seconds + gate_seconds
    print(f"filings parsed: {len(filings)} in {parse_seconds:.1f} s (not part of the gates' time)")
    print(f"candidates: {len(candidates)} ({len(problems)} unreadable)")
    print(f"quote index built over {sum(map(len, texts.text)):,} characters: {index_seconds:.2f} s")
    print(
        f"ten gates over {len(candidates)} candidates: {gate_seconds:.2f} s "
        f"({1000 * gate_seconds / max(len(candidates), 1):.1f} ms each)"
    )
    print(f"total: {total:.1f} s (target: under 60 s) -> {'OK' if total < 60 else 'MISSED'}")
    print(
        "first failing gate: "
        + ", ".join(
            f"{gate} {count}"
            for gate, count in outcomes.failing_gate.fillna("accepted").value_counts().sort_index().items()
        )
    )


if __name__ == "__main__":
    main()
