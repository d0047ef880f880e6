"""What every golden case carries besides its question, route and gold: who owns it, its version, the role that asks,
the filings of its scope that role may read (its permitted sources), and, for a review case, the note a reviewer reads.

A case's version is a hash of what a reader of the case would judge: its question, expected route, role, scope and
gold. A receipt names the version, so a case that changes between two runs is seen to have changed, and a reviewer's
override pinned to one version does not silently carry over to another.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.domain.routes import ANSWER, DEFAULT_ROLE, DENY, NO_ANSWER, REVIEW, AccessPolicy, ScopeFiling

CASE_FIELDS = ["owner", "case_version", "role", "permitted_filing_ids", "review_note"]
_VERSIONED = ("question", "expected_route", "role", "scope_filing_ids", "gold_answer", "gold_chunk_ids")


def _plain(value):
    """JSON-ready: arrays and tuples become sorted lists of strings, missing values None."""
    if isinstance(value, str) or value is None:
        return value
    if hasattr(value, "__iter__"):
        return sorted(str(v) for v in value)
    return None if pd.isna(value) else value


def case_version(case: Mapping) -> str:
    """12 hex digits of sha256 over the case's judged content (the fields of _VERSIONED it has)."""
    material = [[name, _plain(case.get(name))] for name in _VERSIONED if name in case]
    return hashlib.sha256(json.dumps(material, ensure_ascii=False).encode()).hexdigest()[:12]


def scope_filings(filings: pd.DataFrame) -> dict[str, ScopeFiling]:
    """Each recorded filing as the router and the policy see it: who filed which form for which fiscal year."""
    return {
        str(f.filing_id): ScopeFiling(str(f.filing_id), str(f.cik), str(f.form), int(f.fiscal_year))
        for f in iter_rows(filings)
    }


def permitted(scope: Sequence[str], role: str, policy: AccessPolicy, known: Mapping[str, ScopeFiling]) -> list[str]:
    """The filings of `scope` that `role` may read; a filing the corpus does not record is not permitted."""
    return [f for f in scope if f in known and policy.barred(role, known[f]) is None]


def with_case_fields(
    cases: pd.DataFrame,
    owner: str,
    policy: AccessPolicy,
    filings: pd.DataFrame,
    review_notes: Mapping[str, str] | None = None,
    role: str = DEFAULT_ROLE,
) -> pd.DataFrame:
    """`cases` (question, expected_route, scope_filing_ids; a role column where the cases name one, else `role` asks
    them all) with CASE_FIELDS added. `review_notes`: the note per case id (`case_id` or `question_id`) for the review
    cases, where the cases carry none of their own (a review_note column); a review case without one is an error,
    since a reviewer must be told what to look at.

    An answer or no_answer case whose every scope filing the asking role is barred from expects deny: for that role
    the right exit is a refusal before retrieval, whatever the filings would say."""
    out = cases.copy()
    if "role" not in out.columns:
        out["role"] = role
    out["role"] = out.role.where(out.role.astype(bool), role)
    known = scope_filings(filings)
    ids = out.case_id if "case_id" in out.columns else out.question_id
    notes = review_notes or {}
    out["owner"] = owner
    out["permitted_filing_ids"] = [
        permitted(list(case.scope_filing_ids), case.role, policy, known) for case in iter_rows(out)
    ]
    barred = [
        len(scope) > 0 and not readable and route in (ANSWER, NO_ANSWER)
        for scope, readable, route in zip(out.scope_filing_ids, out.permitted_filing_ids, out.expected_route)
    ]
    out["expected_route"] = out.expected_route.where(~pd.Series(barred, index=out.index, dtype=bool), DENY)
    own_notes = out.review_note.fillna("") if "review_note" in out.columns else pd.Series("", index=out.index)
    out["review_note"] = [
        notes.get(case_id, own) if route == REVIEW else ""
        for case_id, own, route in zip(ids, own_notes, out.expected_route)
    ]
    missing = [
        case_id
        for case_id, route, note in zip(ids, out.expected_route, out.review_note)
        if route == REVIEW and not note
    ]
    if missing:
        raise ValueError(f"review cases without a review note: {', '.join(map(str, missing[:5]))}")
    out["case_version"] = [case_version(case) for case in out.to_dict("records")]
    return out
