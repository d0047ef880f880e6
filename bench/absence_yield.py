"""How many absent-concept questions the golden builder admits per filing, on companies its rules were not built on.

    python bench/absence_yield.py ../shared/corpus/edgar-wide --built-on ../shared/corpus/edgar [--per-filing]
        [--stored data/edgar-wide] [--save outcomes.parquet]

Parses every filing of the corpus as the corpus assets do, builds the template golden set (golden/templates.py), and
prints, per form, the absent-concept questions admitted per filing for the companies of `--built-on` (the corpus the
rules were written on) and for the rest (held out), beside the candidates and where they went: printed (rejected,
by rule), awaiting a person's review, or over the per-filing quota. A person's verdicts on the review queue
(reviews/<corpus folder name>/absent-concept-v1.jsonl) are read as a run reads them. Every list the absence rule
learns from the corpus (the names other companies print beside a concept, the row-label word counts) already leaves
the asked company out, so every company is measured leave-one-company-out; held-out companies are those the
hand-written parts (the label table, the totals and taxonomy families, the thresholds) were not written on. Targets
(issue 44): at least 2 admitted per 10-K and 1 per 10-Q on average over held-out companies.

`--stored`: read the tables a run of this corpus stored (a copy of `data/<name>`) instead of parsing the filings
(minutes less; the tables of the code that stored them). `--save`: write each absent-concept candidate's outcome
(admitted or rejected, by rule) and the review queue beside it, to compare two versions of the rules.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path
from typing import cast

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgar_eval.adapters.local_corpus import list_filings, read_manifest  # noqa: E402
from edgar_eval.corpus.parse import parse_filing  # noqa: E402
from edgar_eval.corpus.revisions import current_only, superseded_by  # noqa: E402
from edgar_eval.corpus.tables import chunks_frame, facts_frame, filing_frame, sections_frame, text_frame  # noqa: E402
from edgar_eval.defs.settings import EvalSettings  # noqa: E402
from edgar_eval.domain.filings import FilingError  # noqa: E402
from edgar_eval.golden.absence import read_absent_concept_reviews  # noqa: E402
from edgar_eval.golden.templates import build_golden_questions  # noqa: E402

TARGETS = {"10-K": 2.0, "10-Q": 1.0}
SEED = EvalSettings.model_fields["golden_seed"].default  # the seed a run uses unless a settings file names another


def corpus_tables(corpus: Path) -> dict[str, pd.DataFrame]:
    """filings, facts, chunks, texts and sections, as the corpus assets build them (default chunking)."""
    manifest = read_manifest(corpus)
    frames: dict[str, list[pd.DataFrame]] = {k: [] for k in ("filings", "facts", "chunks", "texts", "sections")}
    for key, relative in sorted(list_filings(corpus).items()):
        data = (corpus / relative).read_bytes()
        try:
            parsed = parse_filing(data)
        except FilingError as exc:
            print(f"left out {key}: {exc}")
            continue
        sha = hashlib.sha256(data).hexdigest()
        filed = (manifest.get(relative) or {}).get("filed")
        frames["filings"].append(filing_frame(key, relative, sha, len(data), parsed, filed))
        frames["facts"].append(facts_frame(key, sha, parsed))
        frames["chunks"].append(chunks_frame(key, sha, parsed, 1000, 200, True))
        frames["texts"].append(text_frame(key, sha, parsed))
        frames["sections"].append(sections_frame(key, sha, parsed))
    return {name: pd.concat(parts, ignore_index=True) for name, parts in frames.items()}


def per_filing(filings: pd.DataFrame, questions: pd.DataFrame, rejections: pd.DataFrame) -> pd.DataFrame:
    """One row per 10-K and 10-Q: candidates, admitted, awaiting review, and the rejections by rule."""
    absent = questions[questions.kind == "absent_concept"]
    rejected = cast(pd.DataFrame, rejections[(rejections.kind == "absent_concept") & (rejections.concept != "")])
    rows = []
    periodic = cast(pd.DataFrame, filings[filings.form.isin(list(TARGETS))])
    for filing_id, cik, form in zip(periodic.filing_id, periodic.cik, periodic.form, strict=True):
        mine = cast(pd.DataFrame, rejected[rejected.filing_id == filing_id])
        admitted = int((absent.source_filing_id == filing_id).sum())
        by_rule = mine.rule.value_counts().to_dict()
        rows.append(
            {
                "filing": filing_id,
                "cik": cik,
                "form": form,
                "candidates": admitted + len(mine),
                "admitted": admitted,
                "awaiting_review": int(by_rule.get("awaiting_review", 0)),
                "rejected": "; ".join(f"{rule} {n}" for rule, n in sorted(by_rule.items())),
            }
        )
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--built-on", type=Path, help="the corpus the rules were written on (its companies)")
    parser.add_argument("--per-filing", action="store_true", help="print every filing's row")
    parser.add_argument("--stored", type=Path, help="a store's tables folder (data/<name>), read instead of parsing")
    parser.add_argument("--save", type=Path, help="write the absent-concept outcomes here (parquet)")
    args = parser.parse_args()
    started = time.perf_counter()
    tables = current_revisions(stored_tables(args.stored) if args.stored else corpus_tables(args.corpus))
    parsed = time.perf_counter() - started
    # a person's verdicts on the candidates the rule left open, as a run of this corpus reads them
    reviews_file = Path(__file__).resolve().parents[1] / "reviews" / args.corpus.name / "absent-concept-v1.jsonl"
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
    built = time.perf_counter() - started - parsed
    built_on: set[str] = set()
    if args.built_on:
        built_on = {str(row["cik"]).lstrip("0") for row in read_manifest(args.built_on).values()}
    table = per_filing(tables["filings"], build.questions, build.rejections)
    table["held_out"] = ~table.cik.astype(str).str.lstrip("0").isin(built_on)
    print(
        f"{args.corpus}: {len(tables['filings'])} filings {'read' if args.stored else 'parsed'} in {parsed:.0f} s, "
        f"golden set built in {built:.0f} s"
    )
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
    held = summary[summary.held_out == "held out"]
    met = bool((held.admitted_per_filing >= held.target).all())
    print(f"held-out target {'met' if met and len(held) else 'NOT met'}")
    if args.save:
        save_outcomes(build, built_on, args.save)


STORED = {
    "filings": "filings",
    "facts": "xbrl_facts",
    "chunks": "chunks",
    "texts": "filing_text",
    "sections": "sections",
}


def stored_tables(folder: Path) -> dict[str, pd.DataFrame]:
    """The tables `corpus_tables` parses, as a run stored them (one parquet file per filing)."""
    return {
        name: pd.concat([pd.read_parquet(p) for p in sorted((folder / stored).glob("*.parquet"))], ignore_index=True)
        for name, stored in STORED.items()
    }


def current_revisions(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The tables without the filings a later amendment supersedes, as the golden builder's asset reads them."""
    superseded = superseded_by(tables["filings"])
    return {name: current_only(frame, superseded) for name, frame in tables.items()}


def save_outcomes(build, built_on: set[str], path: Path) -> None:
    """Each absent-concept candidate's outcome (admitted, or rejected by its rule) to `path`, the queue beside it."""
    absent = build.questions[build.questions.kind == "absent_concept"]
    rejected = build.rejections[build.rejections.kind == "absent_concept"]
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
    saved = pd.concat([admitted, rejected.assign(outcome="rejected", question="")[list(admitted.columns)]])
    saved["held_out"] = ~saved.cik.astype(str).str.lstrip("0").isin(built_on)
    saved.reset_index(drop=True).to_parquet(path)
    build.review_queue.to_parquet(path.with_suffix(".queue.parquet"))


if __name__ == "__main__":
    main()
