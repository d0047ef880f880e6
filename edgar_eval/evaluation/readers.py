"""Both offline readers on the same passages: how many answerable questions each answers right, beside the share
whose gold chunk the answerer's retriever put in its top K, the ceiling no reader of those passages can pass.

A reader is judged as under arm A (no gate): its answer must pass the citation check and state the gold figure by the
one figure policy. The gold-chunk hit is the reader's ceiling only loosely: a figure printed in two places can be
read from a chunk that is not the gold one, and a retrieved gold chunk can hold the figure without its row label or
column header.
"""

from __future__ import annotations

from typing import Iterable, cast

import pandas as pd

from edgar_eval.answering.answerer import ANSWERED, answer_question
from edgar_eval.domain.generation import Generation, GenerationRequest, Generator
from edgar_eval.evaluation.judge import judge_answer
from edgar_eval.stats.proportions import wilson

READER_COLUMNS = [
    "reader",
    "questions",
    "gold_chunk_retrieved",
    "right",
    "right_share",
    "right_low",
    "right_high",
    "right_when_gold_retrieved",
    "wrong",
    "declined",
]


def reader_outcomes(
    cases: pd.DataFrame, retrieved: pd.DataFrame, texts: pd.Series, readers: Iterable[Generator]
) -> pd.DataFrame:
    """Per reader and answerable question: the citation-checked outcome and whether it states the gold.
    `cases`: golden questions (answer route) indexed by question_id; `retrieved`: the answerer's retrievals, indexed
    likewise."""
    rows = []
    for reader in readers:
        for question_id, case in cases.sort_index().iterrows():
            retrieval = retrieved.loc[question_id]
            request = GenerationRequest(
                case.question,
                cast(tuple[tuple[str, str], ...], tuple((c, texts[c]) for c in retrieval.chunk_ids)),
                cik=case.cik,
                fiscal_year=int(case.fiscal_year),
            )
            checked = answer_question(request, reader, in_scope=len(case.scope_filing_ids) > 0)
            answered = checked.outcome == ANSWERED
            right = (
                answered
                and judge_answer(
                    cast(Generation, checked.generation).text,  # answered: a generation
                    case.gold_value,
                    case.gold_answer,
                    case.label,
                    int(case.fiscal_year),
                ).correct
            )
            rows.append(
                {
                    "reader": reader.generator_id,
                    "question_id": question_id,
                    "outcome": checked.outcome,
                    "answered": answered,
                    "right": bool(right),
                    "gold_chunk_retrieved": bool(retrieval.chunk_hit),
                }
            )
    return pd.DataFrame(rows, columns=["reader", "question_id", "outcome", "answered", "right", "gold_chunk_retrieved"])


def reader_accuracy(outcomes: pd.DataFrame) -> pd.DataFrame:
    """One row per reader: right (Wilson 95%), right where the gold chunk was retrieved, wrong and declined."""
    rows = []
    for reader, group in outcomes.groupby("reader", sort=False):
        right = int(group.right.sum())
        share = wilson(right, len(group))
        hit = group[group.gold_chunk_retrieved]
        rows.append(
            {
                "reader": reader,
                "questions": len(group),
                "gold_chunk_retrieved": int(len(hit)),
                "right": right,
                "right_share": share.rate,
                "right_low": share.low,
                "right_high": share.high,
                "right_when_gold_retrieved": float(hit.right.mean()) if len(hit) else float("nan"),
                "wrong": int((group.answered & ~group.right).sum()),
                "declined": int((~group.answered).sum()),
            }
        )
    return pd.DataFrame(rows, columns=READER_COLUMNS)
