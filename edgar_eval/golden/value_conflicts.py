"""One figure, two values: a figure a filing reports for its own period that a later filing prints with another value
(a restatement, a split, a revised estimate). The pairs become review cases here, and restatement questions in
golden.templates.
"""

from __future__ import annotations

from typing import cast

import pandas as pd

from edgar_eval.corpus.figure_match import values_differ
from edgar_eval.corpus.frames import iter_groups, iter_rows
from edgar_eval.golden.figure_selection import _describe
from edgar_eval.golden.labels import is_boilerplate, label_for
from edgar_eval.golden.template_scope import _Scope

CONFLICTING = "conflicting_values"  # one figure tagged with two values for the same period: review
CONFLICTS_PER_COMPANY = 2


def _value_conflicts(candidates: pd.DataFrame, scope: _Scope, reject) -> list[tuple]:
    """(original, later) facts: a figure a filing reports for its own period that a later filing of the company prints
    with another value for the same period (a restatement, a stock split, a revised estimate): the first such later
    filing per concept and period, in filing and concept order. Kept: undimensioned, labelled, printed facts, the later
    of a report of a later period (corpus.figure_match.values_differ). Rejected with the rule: values that differ only
    by rounding."""
    facts = cast(
        pd.DataFrame,
        candidates[
            (candidates.dimensions == "")
            & candidates.offset.notna()
            & candidates.value.notna()
            & candidates.concept.map(lambda c: label_for(c) is not None and not is_boilerplate(c))
        ],
    )
    # Only a figure printed in two filings, one of them for its own period, can conflict: the rest (nearly all of
    # ~40,000 groups) are left out before the per-group loop, whose pandas cost was over half the golden build.
    keys = ["cik", "concept", "period_key"]
    grouped = facts.groupby(keys, sort=False)
    facts = cast(
        pd.DataFrame,
        facts[(grouped.filing_id.transform("nunique") > 1) & grouped.own_period.transform("any").astype(bool)],
    )
    pairs: list[tuple] = []
    for (cik, concept, period_key), group in iter_groups(facts.groupby(keys, sort=True)):
        own = cast(pd.DataFrame, group[group.own_period])
        if own.empty:
            continue
        original = next(iter(iter_rows(own.sort_values(["filing_id", "offset_order"]))))
        first = scope.filing[original.filing_id]
        later = [
            fact
            for fact in iter_rows(group.sort_values(["filing_id", "offset_order"]))
            if str(scope.filing[fact.filing_id].period_end) > str(first.period_end)  # a report of a later period
        ]
        for fact in later:
            if not values_differ(float(original.value), float(fact.value)):
                if original.value != fact.value:
                    reject(
                        CONFLICTING,
                        "rounding_only",
                        fact.filing_id,
                        cik,
                        concept,
                        period_key,
                        f"{original.displayed} and {fact.displayed} differ by rounding only",
                    )
                continue
            pairs.append((original, fact))
            break
    return pairs


def _conflicting_values(pairs: list[tuple], scope: _Scope) -> list[dict]:
    """Review cases, up to CONFLICTS_PER_COMPANY per company: asked over both filings of a value conflict
    (_value_conflicts), the passages disagree, and which value holds is for a person to say; the case's review note
    names both."""
    out: list[dict] = []
    taken: dict[str, int] = {}
    for original, fact in pairs:
        cik = str(original.cik)
        if taken.get(cik, 0) >= CONFLICTS_PER_COMPANY:
            continue
        question = _describe(original, scope)
        shown = (
            f"{original.filing_id} prints {original.displayed} and the later {fact.filing_id} prints {fact.displayed}"
        )
        out.append(
            {
                **{k: question[k] for k in ("cik", "company", "fiscal_year", "period", "concept", "label")},
                "kind": CONFLICTING,
                "question": question["question"],
                "scope_filing_ids": [original.filing_id, fact.filing_id],
                "gold_filing_ids": [original.filing_id, fact.filing_id],
                "source_filing_id": original.filing_id,
                "source_form": question["source_form"],
                "source_sha256": question["source_sha256"],
                "statement_type": question["statement_type"],
                "gold_quote": question["gold_quote"],  # the line as first published
                "review_note": f"one figure, two values for {question['period']}: {shown} (a restatement, a "
                "split or a revised estimate); say which holds, or that the answer must give both",
            }
        )
        taken[cik] = taken.get(cik, 0) + 1
    return out
