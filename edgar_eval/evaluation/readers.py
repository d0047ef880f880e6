"""The offline readers on the same passages: how many answerable questions each answers right, beside the share
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
from edgar_eval.evaluation.judge import judge_case
from edgar_eval.stats.proportions import wilson

READER_COLUMNS = [
    "reader",
    "documents",  # "all", or how many filings a question's gold needs ("1", "2": golden.two_documents)
    "kind",  # "" for every question of `documents`; a kind of question whose gold needs two filings, its own row
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
            # answered: a generation
            right = answered and judge_case(cast(Generation, checked.generation).text, case).correct
            rows.append(
                {
                    "reader": reader.generator_id,
                    "question_id": question_id,
                    "outcome": checked.outcome,
                    "answered": answered,
                    "right": bool(right),
                    "gold_chunk_retrieved": bool(retrieval.chunk_hit),
                    "document_count": int(getattr(case, "document_count", 1) or 1),
                    "kind": str(getattr(case, "kind", "") or ""),
                    "answer_text": cast(Generation, checked.generation).text if answered else "",
                }
            )
    columns = [
        "reader",
        "question_id",
        "outcome",
        "answered",
        "right",
        "gold_chunk_retrieved",
        "document_count",
        "kind",
        "answer_text",
    ]
    return pd.DataFrame(rows, columns=columns)


def summarise_readers(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Per reader, over all its questions, then per document count (a question whose gold needs one filing, or two),
    then per kind of the questions that need two filings (a part of a year, a change, a comparison, a restatement):
    right (Wilson 95%), right where the gold chunk was retrieved, wrong and declined."""
    rows = []
    counts = outcomes.document_count if "document_count" in outcomes else pd.Series(1, index=outcomes.index)
    kinds = outcomes.kind if "kind" in outcomes else pd.Series("", index=outcomes.index)
    outcomes = outcomes.assign(document_count=counts, kind=kinds.fillna("").astype(str))
    groups = []
    for reader in dict.fromkeys(outcomes.reader):  # in the order the readers ran
        own = outcomes[outcomes.reader == reader]
        groups.append((reader, "all", "", own))
        if counts.nunique() > 1:
            groups += [(reader, str(n), "", own[own.document_count == n]) for n in sorted(own.document_count.unique())]
        several = cast(pd.DataFrame, own[(own.document_count > 1) & (own.kind != "")])
        groups += [
            (reader, str(int(group.document_count.iloc[0])), kind, group)
            for kind, group in several.groupby("kind", sort=True)
        ]
    for reader, documents, kind, group in groups:
        right = int(group.right.sum())
        share = wilson(right, len(group))
        hit = group[group.gold_chunk_retrieved]
        rows.append(
            {
                "reader": reader,
                "documents": documents,
                "kind": kind,
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
