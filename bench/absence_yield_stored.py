"""bench/absence_yield.py's count, on a corpus's stored tables instead of its parsed filings (no parse: minutes less).

    python bench/absence_yield_stored.py <tables folder> --built-on ../shared/corpus/edgar [--corpus-name edgar-wide]
        [--per-filing] [--save out.parquet]

`<tables folder>` holds the partitioned tables a run stores (filings/, xbrl_facts/, chunks/, filing_text/, sections/,
one parquet file per filing), e.g. a copy of data/edgar-wide. The golden set is built as the golden_questions asset
builds it (current revisions only, the settings' default seed, the person's verdicts of
reviews/<corpus name>/absent-concept-v1.jsonl) and the absent-concept yield printed per form, held-out companies and
built-on ones apart, as bench/absence_yield.py prints it. `--save` writes the absent-concept rejections and admitted
questions, to compare two rule versions.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.absence_yield import SEED, TARGETS, per_filing  # noqa: E402
from edgar_eval.adapters.local_corpus import read_manifest  # noqa: E402
from edgar_eval.corpus.revisions import current_only, superseded_by  # noqa: E402
from edgar_eval.golden.absence import read_absent_concept_reviews  # noqa: E402
from edgar_eval.golden.templates import build_golden_questions  # noqa: E402

TABLES = {
    "filings": "filings",
    "facts": "xbrl_facts",
    "chunks": "chunks",
    "texts": "filing_text",
    "sections": "sections",
}


def stored_tables(folder: Path) -> dict[str, pd.DataFrame]:
    frames = {}
    for name, stored in TABLES.items():
        parts = [pd.read_parquet(p) for p in sorted((folder / stored).glob("*.parquet"))]
        frames[name] = pd.concat(parts, ignore_index=True)
    superseded = superseded_by(frames["filings"])
    return {name: current_only(frame, superseded) for name, frame in frames.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("tables", type=Path)
    parser.add_argument("--built-on", type=Path, help="the corpus the rules were written on (its companies)")
    parser.add_argument("--corpus-name", default="edgar-wide", help="reviews/<name>/absent-concept-v1.jsonl")
    parser.add_argument("--per-filing", action="store_true")
    parser.add_argument("--save", type=Path, help="write the absent-concept outcomes here (parquet)")
    args = parser.parse_args()
    started = time.perf_counter()
    tables = stored_tables(args.tables)
    reviews_file = Path(__file__).resolve().parents[1] / "reviews" / args.corpus_name / "absent-concept-v1.jsonl"
    reviews = read_absent_concept_reviews(reviews_file.read_text(), str(reviews_file)) if reviews_file.is_file() else {}
    build = build_golden_questions(
        tables["filings"],
        tables["facts"],
        tables["chunks"],
        tables["texts"],
        tables["sections"],
        seed=SEED,
        absence_reviews=reviews,
    )
    print(f"golden set built in {time.perf_counter() - started:.0f} s")
    built_on: set[str] = set()
    if args.built_on:
        built_on = {str(row["cik"]).lstrip("0") for row in read_manifest(args.built_on).values()}
    table = per_filing(tables["filings"], build.questions, build.rejections)
    table["held_out"] = ~table.cik.astype(str).str.lstrip("0").isin(built_on)
    queue = build.review_queue
    print(f"review queue: {len(queue)} cases, " + ", ".join(f"{n} {s}" for s, n in queue.status.value_counts().items()))
    if args.per_filing:
        print(table.drop(columns="cik").to_string(index=False))
    summary = (
        table.groupby(["held_out", "form"])
        .agg(
            filings=("filing", "size"),
            companies=("cik", "nunique"),
            candidates=("candidates", "sum"),
            admitted=("admitted", "sum"),
            awaiting_review=("awaiting_review", "sum"),
        )
        .reset_index()
    )
    summary["admitted_per_filing"] = (summary.admitted / summary.filings).round(2)
    summary["target"] = summary.form.map(TARGETS)
    summary["held_out"] = summary.held_out.map({True: "held out", False: "built on"})
    print(summary.to_string(index=False))
    rejected = build.rejections[build.rejections.kind == "absent_concept"]
    print(rejected.rule.value_counts().to_string())
    if args.save:
        absent = build.questions[build.questions.kind == "absent_concept"]
        admitted = pd.DataFrame(
            {
                "outcome": "admitted",
                "rule": "",
                "filing_id": absent.source_filing_id,
                "cik": absent.cik,
                "concept": absent.concept,
                "question": absent.question,
                "detail": absent.review_note,
            }
        )
        saved = pd.concat(
            [admitted, rejected.assign(outcome="rejected", question="")[list(admitted.columns)]], ignore_index=True
        )
        saved["held_out"] = ~saved.cik.astype(str).str.lstrip("0").isin(built_on)
        saved.to_parquet(args.save)
        queue.to_parquet(args.save.with_suffix(".queue.parquet"))


if __name__ == "__main__":
    main()
