"""The answering sections on the readers: which generators the arms read (and which are in-sample), why wrong
answers are wrong, and reader accuracy."""

from __future__ import annotations

import pandas as pd

from edgar_eval.answering.answerer import tuned_on
from edgar_eval.answering.tuned_filings import tuned_filings
from edgar_eval.corpus.frames import iter_groups
from edgar_eval.domain.versioning import content_version
from edgar_eval.evaluation.wrong_answers import CATEGORIES as WRONG_ANSWER_CATEGORIES
from edgar_eval.report.inputs import ReportInputs
from edgar_eval.report.markdown import (
    Provenance,
    ReportTable,
    _ratio,
    _share_cell,
    interval,
    md_cell,
    percent,
)


def _generators_in_use(inputs: ReportInputs) -> set[str]:
    """The generators whose answers the arms read (none when nothing was generated)."""
    return set(inputs.generations.generator_id) if len(inputs.generations) else set()


def tuned_share(inputs: ReportInputs, reader: str) -> tuple[int, int]:
    """How many of this run's filings the reader's rules were tuned on (by sha256: not by the corpus's name), of how
    many filings the run read."""
    hashes = list(inputs.filings.sha256) if "sha256" in inputs.filings else []
    tuned = tuned_filings(tuned_on(reader))
    return sum(sha256 in tuned for sha256 in hashes), len(hashes)


def tuned_extent(inputs: ReportInputs, reader: str) -> str:
    """Which of this run's filings the reader was tuned on, in words: every one, or k of n (and on which corpora)."""
    tuned, filings = tuned_share(inputs, reader)
    corpora = ", ".join(tuned_on(reader))
    return (
        f"every filing of this corpus ({corpora})"
        if tuned == filings
        else f"{tuned} of its {filings} filings ({corpora})"
    )


def _in_sample(inputs: ReportInputs) -> list[str]:
    """The generators the arms read whose rules were tuned on some filing of this run."""
    return sorted(g for g in _generators_in_use(inputs) if tuned_share(inputs, g)[0])


def _in_sample_label(inputs: ReportInputs, reader: str) -> str:
    tuned, filings = tuned_share(inputs, reader)
    if not tuned:
        return ""
    return " (in-sample)" if tuned == filings else f" (in-sample on {tuned} of {filings} filings)"


def wrong_answers_table(categories: pd.DataFrame) -> ReportTable:
    """Per reader and arm and per kind: how many questions ended in each outcome category (wrong_answers)."""
    present = [c for c in WRONG_ANSWER_CATEGORIES if c in set(categories.category)]
    rows = []
    for (system, kind), group in iter_groups(categories.groupby(["system", "kind"], sort=True)):
        row = {"system": md_cell(str(system)), "kind": kind, "questions": len(group)}
        for category in present:
            row[category] = int((group.category == category).sum())
        rows.append(row)
    return ReportTable(
        "Why wrong answers are wrong",
        pd.DataFrame(rows, columns=["system", "kind", "questions", *present]),
        Provenance("wrong_answers", content_version(categories), "generations, arm_outcomes, answerer_retrievals"),
        note="Each reader (on the answerable questions) and each arm (on every question), by the category its outcome "
        "falls in, from provenance (edgar_eval/evaluation/wrong_answers.py): the answer's figures against the gold and "
        "the passages read. A figure from another column of the gold row is a wrong period, from another row beside "
        "it a wrong line, from a filing without gold a wrong filing (another company's: wrong company); a figure in "
        "none of the passages is printed nowhere read. A false answer to an unanswerable twin given from what was read "
        "is its kind's mis-selection (wrong period, wrong company, wrong line). Arm A's category is on each case's "
        "receipt.",
    )


def _reader_labels(inputs: ReportInputs) -> list[str]:
    """Each reader as the Readers table names it: in-sample, and which one the arms read."""
    in_use = _generators_in_use(inputs)
    return [
        f"{md_cell(r)}{_in_sample_label(inputs, r)}{' (the arms read this one)' if r in in_use else ''}"
        for r in inputs.readers.reader
    ]


def _reader_documents(readers: pd.DataFrame) -> list[str]:
    """Which questions each Readers row counts: all, those of one filing, those of two, and those of two of one kind
    ("two filings: granularity")."""
    documents = readers.documents if "documents" in readers else ["all"] * len(readers)
    kinds = readers.kind.fillna("") if "kind" in readers else [""] * len(readers)
    named = [{"all": "all", "1": "one filing", "2": "two filings"}.get(str(d), str(d)) for d in documents]
    return [f"{n}: {md_cell(str(k))}" if k else n for n, k in zip(named, kinds)]


def readers_table(inputs: ReportInputs) -> ReportTable:
    """The offline readers on the passages the answerer read, beside the gold-chunk hit at the answerer's K: every
    answerable question, per filings the gold needs, and per kind of two-document question."""
    readers, settings = inputs.readers, inputs.settings
    labels = _reader_labels(inputs)
    in_sample = (
        "In-sample (a reader marked so): its rules were tuned on these filings (on those the mark counts, where it "
        "counts some), so its figures there say how it reads the filings it was fitted to, not filings in general. "
        if any("(in-sample" in label for label in labels)
        else "No reader's rules were tuned on these filings (by sha256): every reader is out of sample here. "
    )
    table = pd.DataFrame(
        {
            "reader": labels,
            "documents": _reader_documents(readers),
            f"gold chunk in the top {settings['top_k']}": [
                f"{percent(k / n)} ({_ratio(k, n)})" for k, n in zip(readers.gold_chunk_retrieved, readers.questions)
            ],
            "right": list(map(_share_cell, readers.right_share, readers.right, readers.questions)),
            "right Wilson 95%": [interval(lo, hi) for lo, hi in zip(readers.right_low, readers.right_high)],
            "right where the gold chunk was retrieved": [percent(v) for v in readers.right_when_gold_retrieved],
            "wrong": readers.wrong,
            "declined or withheld": readers.declined,
        }
    )
    return ReportTable(
        "Readers",
        table,
        Provenance("reader_accuracy", content_version(readers), "answerer_retrievals x golden_questions"),
        note=f"Every answerable question, the top {settings['top_k']} {settings['answer_retriever']} passages, "
        "judged as under arm A (citation check, then the gold figure). The gold-chunk hit is the readers' "
        "ceiling: what the reader of these passages could at best find. Arm A's correct-on-answerable and "
        f"every gate's recall cost describe the reader marked. {in_sample}The "
        "composing reader answers a two-document question (a part of a year, a change, a comparison of two companies, "
        "a restatement) from two table reads composed as the question asks, and any other question as the table "
        "reader does; the arms do not read it. A two-document kind's rows count its questions only: right means every "
        "required figure and the direction word.",
    )
