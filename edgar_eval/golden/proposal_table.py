"""The golden_proposals table: one row per proposal, readable or not, and the candidates read back from it."""

from __future__ import annotations

import json
from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.golden.candidates import Candidate, CandidateProblem, candidate_from_record

PROPOSAL_COLUMNS = [
    "candidate_id",
    "pattern",
    "question",
    "answer_type",
    "gold_answer",
    "evidence",
    "requires_documents",
    "source",
    "prompt_version",
    "excerpt_ids",
    "expected",
    "unreadable_reason",
]


def proposal_row(made: Candidate | CandidateProblem, pattern: str | None = None) -> dict:
    """A proposal as a row of the golden_proposals table: a readable candidate's record, or an unreadable one's
    reason (kept, so the funnel counts it)."""
    if isinstance(made, CandidateProblem):
        return {
            "candidate_id": made.candidate_id,
            "pattern": pattern or made.pattern,
            "source": made.source,
            "unreadable_reason": made.reason,
        }
    record = made.to_record()
    return {
        **record,
        "evidence": json.dumps(record["evidence"], ensure_ascii=False),
        "expected": json.dumps(record["expected"], sort_keys=True) if record["expected"] else "",
        "unreadable_reason": "",
    }


def proposals_frame(rows: list[dict]) -> pd.DataFrame:
    """The golden_proposals table of these rows, in order. A readable proposal whose id an earlier one (from any
    source) already holds is kept as unreadable, with the reason: the gates judge one candidate per id, and every row
    stored is counted once in the funnel."""
    frame = pd.DataFrame(rows, columns=PROPOSAL_COLUMNS).fillna(
        {"unreadable_reason": "", "prompt_version": "", "expected": ""}
    )
    frame["excerpt_ids"] = [list(v) if isinstance(v, (list, tuple)) else [] for v in frame.excerpt_ids]
    first_source: dict[str, str] = {}
    reasons = []
    for candidate_id, source, reason in zip(frame.candidate_id, frame.source, frame.unreadable_reason):
        if not reason and candidate_id in first_source:
            reason = f"duplicate candidate id: {first_source[candidate_id]} proposed {candidate_id} first"
        elif not reason:
            first_source[candidate_id] = source
        reasons.append(reason)
    frame["unreadable_reason"] = reasons
    return frame


def proposal_candidates(proposals: pd.DataFrame) -> list[Candidate]:
    """The readable candidates of a golden_proposals table, as the admission gates read them. A readable row is one
    the proposals asset read as a candidate, so reading it back cannot fail; if it did, the funnel would count less
    than the table holds, and the read stops with the reason instead."""
    readable = cast(pd.DataFrame, proposals[proposals.unreadable_reason == ""])
    made = []
    for row in iter_rows(readable):
        record = {
            "id": row.candidate_id,
            "pattern": row.pattern,
            "question": row.question,
            "answer_type": row.answer_type,
            "gold_answer": row.gold_answer,
            "evidence": json.loads(row.evidence),
            "requires_documents": int(row.requires_documents),
            "expected": json.loads(row.expected) if row.expected else None,
        }
        candidate = candidate_from_record(
            record, row.candidate_id, row.source, prompt_version=row.prompt_version, excerpt_ids=tuple(row.excerpt_ids)
        )
        if isinstance(candidate, CandidateProblem):
            raise ValueError(
                f"golden_proposals row {row.candidate_id} was stored readable but reads back as: {candidate.reason}"
            )
        made.append(candidate)
    return made
