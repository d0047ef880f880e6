"""How each golden case exits (the route taken against the route expected) and the route confusion matrix.

The golden answer and no_answer questions exit by the router first (a question it routes never reaches the
answerer), then by arm A: answered is answer, anything withheld is no_answer. A route case the router does not route
goes on to retrieval; this harness does not yet answer route cases, so that exit is counted as `retrieval`, a miss of
its expected route, never as a pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import pandas as pd

from edgar_eval.answering.routing import route_before_retrieval
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.domain.routes import ANSWER, NO_ANSWER, ROUTES, AccessPolicy, ScopeFiling
from edgar_eval.stats.proportions import wilson

RETRIEVAL = "retrieval"  # went on to retrieval: not answered by this harness for a route case
TAKEN = (*ROUTES, RETRIEVAL)
OUTCOME_COLUMNS = ["case_id", "source", "rule", "expected_route", "taken_route", "reason"]


def route_outcomes(
    route_cases: pd.DataFrame,
    golden: pd.DataFrame,
    arm_a: pd.DataFrame,
    filings: pd.DataFrame,
    aliases: Mapping[str, tuple[str, ...]],
    policy: AccessPolicy,
) -> pd.DataFrame:
    """One row per kept route case and per golden question: the route expected, the route taken, and why."""
    scope_filing = {
        str(f.filing_id): ScopeFiling(str(f.filing_id), str(f.cik), str(f.form), int(f.fiscal_year))
        for f in iter_rows(filings)
    }

    def scope_of(ids) -> list[ScopeFiling]:
        return [scope_filing[i] for i in ids if i in scope_filing]

    rows = []
    for case in iter_rows(cast(pd.DataFrame, route_cases[route_cases.rejected == ""]).sort_values("case_id")):
        decision = route_before_retrieval(case.question, scope_of(case.scope_filing_ids), aliases, case.role, policy)
        rows.append(
            (
                case.case_id,
                "route_cases",
                case.rule,
                case.expected_route,
                decision.route if decision else RETRIEVAL,
                decision.reason if decision else "not routed before retrieval",
            )
        )
    answered = dict(zip(arm_a.question_id, arm_a.answered.astype(bool)))
    for question in iter_rows(golden.sort_values("question_id")):
        expected = ANSWER if question.expected_route == ANSWER else NO_ANSWER
        decision = route_before_retrieval(question.question, scope_of(question.scope_filing_ids), aliases)
        if decision:
            taken, reason = decision.route, decision.reason
        else:
            taken = ANSWER if answered.get(question.question_id, False) else NO_ANSWER
            reason = "arm A answered" if taken == ANSWER else "arm A withheld its answer"
        rows.append((question.question_id, "golden_questions", question.kind, expected, taken, reason))
    return pd.DataFrame(rows, columns=OUTCOME_COLUMNS)


def route_matrix(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Expected route x route taken, with the share that exited by its expected route and its Wilson 95% interval,
    one row per expected route that has cases."""
    rows = []
    for expected in ROUTES:
        cases = outcomes[outcomes.expected_route == expected]
        if cases.empty:
            continue
        counts = cases.taken_route.value_counts()
        share = wilson(int(counts.get(expected, 0)), len(cases))
        rows.append(
            {
                "expected_route": expected,
                "cases": len(cases),
                **{f"taken_{taken}": int(counts.get(taken, 0)) for taken in TAKEN},
                "exit_share": share.rate,
                "exit_low": share.low,
                "exit_high": share.high,
            }
        )
    return pd.DataFrame(rows)
