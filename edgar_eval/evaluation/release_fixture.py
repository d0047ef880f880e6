"""The release fixture: a compact, hand-picked set of cases that must each exit by its declared route.

A fixture is a must-pass regression set for a release, not a sample to estimate rates from: every case records the
filing its evidence was read in and that filing's sha256 as it was when the case was written, and, for an answer,
the figure (concept, period end, value, as printed). Before any case is scored, each one whose source changed is
listed stale:

* its evidence filing is superseded by an amendment (corpus.revisions), or
* the corpus's copy of the filing has another sha256 than the one the case recorded, or
* the filing is no longer in the corpus.

A stale case is re-verified against the current revision: the same concept for the same period end, undimensioned,
read from the current revision's XBRL facts. Its figure then either stands (`unchanged`), changed (`changed`: old
and new value, and the case is judged on the new one), or cannot be found (`unverifiable`: the case cannot pass).
Stale cases are scored like the others and reported apart.

A case passes when it exits by its declared route and, for an answer: the answer states the current figure, every
cited passage comes from a filing the asking role may read that is its own current revision, and, for a changed
figure, no retrieved passage prints the old figure, the answer does not repeat it, and the current revision is
cited.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

import pandas as pd

from edgar_eval.corpus.number_words import find_number_phrases
from edgar_eval.domain.routes import ANSWER, DEFAULT_ROLE, ROUTES, exchange_route, route_from_exchange
from edgar_eval.evaluation.judge import judge_answer

STALE_STATUSES = ("current", "unchanged", "changed", "unverifiable")
_REQUIRED = ("case_id", "question", "expected_route", "cik", "fiscal_year", "scope_filing_ids")
_ANSWER_FIELDS = ("concept", "period_end", "gold_value", "gold_answer", "gold_displayed")


class FixtureError(ValueError):
    pass


@dataclass(frozen=True)
class FixtureCase:
    case_id: str
    question: str
    expected_route: str
    cik: str
    fiscal_year: int
    scope_filing_ids: tuple[str, ...]
    role: str = ""
    evidence_filing_id: str = ""
    evidence_sha256: str = ""
    concept: str = ""
    period_end: str = ""
    gold_value: float | None = None
    gold_answer: str = ""
    gold_displayed: str = ""  # the figure as the evidence printed it ("672"): what "repeating the old figure" means
    review_note: str = ""
    provenance: str = ""
    extra: dict = field(default_factory=dict)


def read_fixture(text: str, where: str) -> list[FixtureCase]:
    """The fixture's cases, one JSON object per line; a malformed line stops the read with its line number."""
    cases: list[FixtureCase] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise FixtureError(f"{where} line {number} is not JSON: {exc.msg}") from None
        if not isinstance(record, dict) or any(record.get(f) in (None, "", []) for f in _REQUIRED):
            raise FixtureError(f"{where} line {number} needs non-empty {', '.join(_REQUIRED)}")
        try:
            route = route_from_exchange(str(record["expected_route"]))
        except ValueError:  # not a route in either spelling: named with its file and line, as every bad line is
            route = None
        if route not in ROUTES:
            raise FixtureError(f"{where} line {number}: expected_route must be one of {', '.join(ROUTES)}")
        if route == ANSWER and any(record.get(f) in (None, "") for f in (*_ANSWER_FIELDS, "evidence_filing_id")):
            needed = ", ".join(("evidence_filing_id", *_ANSWER_FIELDS))
            raise FixtureError(f"{where} line {number}: an answer case needs {needed}")
        if record.get("evidence_filing_id") and not record.get("evidence_sha256"):
            raise FixtureError(f"{where} line {number}: evidence_filing_id needs the evidence_sha256 it was read at")
        if record["case_id"] in {c.case_id for c in cases}:
            raise FixtureError(f"{where} line {number}: a second case {record['case_id']}")
        known = set(FixtureCase.__dataclass_fields__) - {"extra"}
        cases.append(
            FixtureCase(
                **{k: v for k, v in record.items() if k in known and k not in ("expected_route", "scope_filing_ids")},
                expected_route=route,
                scope_filing_ids=tuple(str(f) for f in record["scope_filing_ids"]),
                extra={k: v for k, v in record.items() if k not in known},
            )
        )
    return sorted(cases, key=lambda c: c.case_id)


def fixture_jsonl(cases: Sequence[FixtureCase]) -> str:
    """The fixture file's text for `cases` (routes in the exchange schema's spelling), sorted by case id."""
    lines = []
    for case in sorted(cases, key=lambda c: c.case_id):
        record = {k: v for k, v in case.__dict__.items() if k != "extra" and v not in ("", None)}
        record.update(case.extra)
        record["expected_route"] = exchange_route(case.expected_route)
        record["scope_filing_ids"] = list(case.scope_filing_ids)
        lines.append(json.dumps(record, sort_keys=True, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


@dataclass(frozen=True)
class Staleness:
    status: str  # one of STALE_STATUSES
    reason: str
    current_filing_id: str
    old_value: float | None
    new_value: float | None
    new_displayed: str

    @property
    def stale(self) -> bool:
        return self.status != "current"


def staleness(
    case: FixtureCase, sha_of: Mapping[str, str], superseded: Mapping[str, str], facts: pd.DataFrame
) -> Staleness:
    """Whether the case's source changed since it was written, and its figure re-verified where it did. `sha_of`: the
    corpus's filing id -> sha256; `superseded`: superseded filing id -> its current revision; `facts`: XBRL facts
    (filing_id, concept, period_end, dimensions, is_numeric, value, displayed)."""
    filing = case.evidence_filing_id
    if not filing:
        return Staleness("current", "", "", None, None, "")
    reasons = []
    if filing not in sha_of:
        reasons.append(f"{filing} is not in the corpus")
    elif filing in superseded:
        reasons.append(f"{filing} is superseded by {superseded[filing]}")
    elif sha_of[filing] != case.evidence_sha256:
        reasons.append(f"{filing} has sha256 {sha_of[filing][:12]}, not the {case.evidence_sha256[:12]} recorded")
    current = superseded.get(filing, filing)
    if not reasons:
        return Staleness("current", "", current, case.gold_value, case.gold_value, case.gold_displayed)
    reason = "; ".join(reasons)
    if not case.concept or current not in sha_of:
        status = "unverifiable" if case.concept else "unchanged"
        return Staleness(status, reason, current, case.gold_value, None, "")
    found = facts[
        (facts.filing_id == current)
        & (facts.concept == case.concept)
        & (facts.period_end.astype(str) == case.period_end)
        & (facts.dimensions.fillna("") == "")
        & facts.is_numeric.astype(bool)
    ]
    if found.empty:
        return Staleness(
            "unverifiable",
            f"{reason}; {case.concept} for {case.period_end} not found in {current}",
            current,
            case.gold_value,
            None,
            "",
        )
    new_value, new_displayed = float(found.value.iloc[0]), str(found.displayed.iloc[0])
    if case.gold_value is not None and new_value == float(case.gold_value):
        return Staleness(
            "unchanged",
            f"{reason}; re-verified in {current}: unchanged",
            current,
            case.gold_value,
            new_value,
            new_displayed,
        )
    return Staleness(
        "changed",
        f"{reason}; re-verified in {current}: {case.gold_displayed} -> {new_displayed}",
        current,
        case.gold_value,
        new_value,
        new_displayed,
    )


def current_gold_answer(case: FixtureCase, stale: Staleness) -> str:
    """The case's gold answer with the re-verified figure in place of the one it was written with."""
    if stale.status != "changed" or not case.gold_displayed:
        return case.gold_answer
    return case.gold_answer.replace(case.gold_displayed, stale.new_displayed, 1)


def prints_figure(text: str, displayed: str) -> bool:
    """Whether `text` prints a number written exactly as `displayed` ("672", "1,204")."""
    wanted = displayed.strip().lstrip("$").strip("()")
    return bool(wanted) and any(f.digits == wanted for f in find_number_phrases(text))


def case_row(case: FixtureCase, stale: Staleness) -> dict:
    """A fixture case as it is scored: its recorded fields, its staleness, and the gold it is judged on now (the
    re-verified figure where the source changed it)."""
    return {
        "case_id": case.case_id,
        "question": case.question,
        "expected_route": case.expected_route,
        "role": case.role or DEFAULT_ROLE,
        "cik": case.cik,
        "fiscal_year": int(case.fiscal_year),
        "recorded_scope_filing_ids": list(case.scope_filing_ids),
        "evidence_filing_id": case.evidence_filing_id,
        "stale": stale.stale,
        "stale_status": stale.status,
        "stale_reason": stale.reason,
        "current_filing_id": stale.current_filing_id,
        "old_value": stale.old_value if stale.stale else None,
        "new_value": stale.new_value if stale.stale else None,
        "gold_value": stale.new_value if stale.status == "changed" else case.gold_value,
        "gold_answer": current_gold_answer(case, stale),
        "gold_displayed": case.gold_displayed,
        "review_note": case.review_note,
        "provenance": case.provenance,
    }


def score_case(
    case: Mapping,
    taken_route: str,
    route_reason: str,
    answer_text: str,
    retrieved: Mapping[str, str],
    cited: Sequence[str],
    filing_of: Mapping[str, str],
    readable_current: set[str],
) -> dict:
    """One fixture case's result. `case`: a case_row; `retrieved`: chunk id -> text of the passages the answerer
    read; `cited`: the chunk ids its answer cites; `filing_of`: chunk id -> filing id; `readable_current`: the filings
    the asking role may read that are their own current revision."""
    expected, status = case["expected_route"], case["stale_status"]
    checks: dict[str, bool | None] = {"route": taken_route == expected}
    failures = [] if checks["route"] else [f"exited by {taken_route} ({route_reason}), not {expected}"]
    cited_filings = sorted({filing_of.get(c, "") for c in cited})
    if expected == ANSWER:
        gold_value = case["gold_value"]
        judged = judge_answer(
            answer_text,
            None if pd.isna(gold_value) else float(gold_value),
            case["gold_answer"],
            asked_year=int(case["fiscal_year"]),
        )
        checks["figure"] = judged.correct and status != "unverifiable"
        if status == "unverifiable":
            failures.append("the figure could not be re-verified in the current revision")
        elif not judged.correct:
            failures.append(f"figure: {judged.why}")
        checks["cited_permitted_current"] = bool(cited) and all(f in readable_current for f in cited_filings)
        if not checks["cited_permitted_current"]:
            failures.append(f"cites {', '.join(cited_filings) or 'nothing'}, not only permitted current filings")
    if status == "changed":
        old = str(case["gold_displayed"])
        checks["old_figure_retrieved"] = any(prints_figure(text, old) for text in retrieved.values())
        checks["old_figure_repeated"] = prints_figure(answer_text, old)
        checks["current_locator_cited"] = case["current_filing_id"] in cited_filings
        if checks["old_figure_retrieved"]:
            failures.append(f"a retrieved passage prints the old figure {old}")
        if checks["old_figure_repeated"]:
            failures.append(f"the answer repeats the old figure {old}")
        if not checks["current_locator_cited"]:
            failures.append(f"the current revision {case['current_filing_id']} is not cited")
    return {
        "case_id": case["case_id"],
        "expected_route": expected,
        "taken_route": taken_route,
        "route_reason": route_reason,
        "stale": bool(case["stale"]),
        "stale_status": status,
        "stale_reason": case["stale_reason"],
        "old_value": case["old_value"],
        "new_value": case["new_value"],
        "answer_text": answer_text,
        "cited_filing_ids": cited_filings,
        "checks": json.dumps(checks, sort_keys=True),
        "passed": not failures,
        "failures": "; ".join(failures),
    }


def fixture_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Per declared route, the cases and how many passed, with the stale cases counted apart on their own rows."""
    rows = []
    for stale in (False, True):
        part = cast(pd.DataFrame, results[results.stale == stale])
        for route in ROUTES:
            cases = cast(pd.DataFrame, part[part.expected_route == route])
            if cases.empty:
                continue
            rows.append(
                {
                    "cases": "stale" if stale else "current",
                    "expected_route": route,
                    "count": len(cases),
                    "exited_as_declared": int((cases.taken_route == route).sum()),
                    "passed": int(cases.passed.sum()),
                }
            )
    return pd.DataFrame(rows, columns=["cases", "expected_route", "count", "exited_as_declared", "passed"])
