"""Per-case receipts: for each golden case, what was asked, by whom, how it exited against how it should have, what was
retrieved and cited (filing, its sha256, pages, chunk), the evaluator's result, and a reviewer's override.

A receipt is what a reader checks one case by: every locator names the filing's sha256, so the receipt ties the
verdict to the exact bytes it was reached from. A reviewer overrides the evaluator's result in a versioned file of
decisions (reviews/<corpus>/receipts-v1.jsonl), one per case and pinned to the case's version: an override given for
another version of the case is shown as stale and not applied.

The evaluator's result: an answer case passes when it exited by answer and the answer states the gold figure (the
judge of arm A); every other case passes when it exited by its expected route.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.domain.routes import ANSWER
from edgar_eval.golden.absence import read_decision_lines

PASS, FAIL = "pass", "fail"
RESULTS = (PASS, FAIL)
APPLIED, STALE, NONE = "applied", "stale", "none"


@dataclass(frozen=True)
class Override:
    case_id: str
    case_version: str
    result: str
    reason: str
    reviewer: str


class OverrideFileError(ValueError):
    pass


def read_override_file(text: str, where: str) -> dict[str, Override]:
    """case id -> a reviewer's override; a malformed line stops the read with its line number."""
    fields = ("case_id", "case_version", "result", "reason", "reviewer")
    read = read_decision_lines(text, where, fields, "result", RESULTS, OverrideFileError)
    return {key: Override(*(record[f] for f in fields)) for key, record in read.items()}


@dataclass(frozen=True)
class Locator:
    filing_id: str
    sha256: str
    pages: tuple[str, ...]
    chunk_id: str

    def as_json(self) -> dict:
        return {"filing": self.filing_id, "sha256": self.sha256, "pages": list(self.pages), "chunk": self.chunk_id}


def locators(chunk_ids: Iterable[str], pages: Mapping[str, tuple[str, ...]], sha_of: Mapping[str, str]) -> list[dict]:
    """Each chunk as a locator: its filing (the chunk id's prefix), the filing's sha256, the pages it spans."""
    out = []
    for chunk_id in chunk_ids:
        filing_id = chunk_id.rsplit(":", 1)[0]
        out.append(Locator(filing_id, sha_of.get(filing_id, ""), pages.get(chunk_id, ()), chunk_id).as_json())
    return out


def _evaluated(expected: str, taken: str, correct: bool | None) -> tuple[str, str]:
    if expected == ANSWER:
        if taken != ANSWER:
            return FAIL, f"expected an answer, exited by {taken}"
        return (PASS, "answered with the gold figure") if correct else (FAIL, "answered, but not with the gold figure")
    if taken == expected:
        return PASS, f"exited by {expected} as expected"
    return FAIL, f"expected {expected}, exited by {taken}"


def build_receipts(
    outcomes: pd.DataFrame,
    cases: pd.DataFrame,
    retrieved: Mapping[str, list[str]],
    generations: pd.DataFrame,
    correct: Mapping[str, bool],
    pages: Mapping[str, tuple[str, ...]],
    sha_of: Mapping[str, str],
    overrides: Mapping[str, Override],
    categories: Mapping[str, str] | None = None,
) -> list[dict]:
    """One receipt per route outcome, in case order.

    `cases`: every case by id (golden questions and route cases) with question, role, owner, case_version;
    `retrieved`: chunk ids the answerer read per question id; `generations`: by question id (answer_text,
    cited_chunk_ids); `correct`: arm A's judgement per question id; `categories`: arm A's outcome category per question
    id (evaluation.wrong_answers: why a wrong answer is wrong)."""
    by_id = cases.set_index("case_id")
    generated = generations.set_index("question_id")
    receipts = []
    for outcome in iter_rows(outcomes.sort_values(["source", "case_id"])):
        case = by_id.loc[outcome.case_id]
        generation = generated.loc[outcome.case_id] if outcome.case_id in generated.index else None
        result, detail = _evaluated(outcome.expected_route, outcome.taken_route, correct.get(outcome.case_id))
        override = overrides.get(outcome.case_id)
        status = NONE if override is None else APPLIED if override.case_version == case.case_version else STALE
        receipts.append(
            {
                "case_id": outcome.case_id,
                "case_version": case.case_version,
                "source": outcome.source,
                "rule": outcome.rule,
                "owner": case.owner,
                "role": case.role,
                "question": case.question,
                "expected_route": outcome.expected_route,
                "taken_route": outcome.taken_route,
                "route_reason": outcome.reason,
                "route_from": outcome.route_from,
                "retrieved": locators(retrieved.get(outcome.case_id, []), pages, sha_of),
                "cited": locators(list(generation.cited_chunk_ids) if generation is not None else [], pages, sha_of),
                "answer": str(generation.answer_text) if generation is not None else "",
                "result": result,
                "result_detail": detail,
                "category": (categories or {}).get(outcome.case_id, ""),
                "override": None
                if override is None
                else {"result": override.result, "reason": override.reason, "reviewer": override.reviewer},
                "override_status": status,
                "final_result": override.result if status == APPLIED and override is not None else result,
            }
        )
    return receipts


def receipts_jsonl(receipts: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n" for r in receipts)
