"""How each golden case exits (the route taken against the route expected) and the route confusion matrix.

The golden questions exit by the router first (a question it routes never reaches the answerer), then by the route
the answerer's generation exits by (answering.answerer.exit_route: the reply's route field where it has one, else
answered is answer and anything withheld is no_answer). A route case the router does not route
goes on to retrieval; this harness does not yet answer route cases, so that exit is counted as `retrieval`, a miss of
its expected route, never as a pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import pandas as pd

from edgar_eval.answering.answerer import ROUTE_FROM_FLAG
from edgar_eval.answering.routing import route_before_retrieval
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.domain.routes import NO_ANSWER, ROUTES, AccessPolicy, ScopeFiling
from edgar_eval.golden.case_schema import scope_filings
from edgar_eval.stats.proportions import wilson

RETRIEVAL = "retrieval"  # went on to retrieval: not answered by this harness for a route case
TAKEN = (*ROUTES, RETRIEVAL)
OUTCOME_COLUMNS = ["case_id", "source", "rule", "expected_route", "taken_route", "reason", "route_from"]
ROUTER = "router"


def take_routes(
    route_cases: pd.DataFrame,
    golden: pd.DataFrame,
    generations: pd.DataFrame,
    filings: pd.DataFrame,
    aliases: Mapping[str, tuple[str, ...]],
    policy: AccessPolicy,
) -> pd.DataFrame:
    """One row per kept route case and per golden question: the route expected, the route taken, and why."""
    scope_filing = scope_filings(filings)

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
                ROUTER,
            )
        )
    exits = generations.set_index("question_id")
    for question in iter_rows(golden.sort_values("question_id")):
        expected = question.expected_route
        decision = route_before_retrieval(
            question.question, scope_of(question.scope_filing_ids), aliases, question.role, policy
        )
        if decision:
            taken, reason, read_from = decision.route, decision.reason, ROUTER
        elif question.question_id in exits.index:
            generated = exits.loc[question.question_id]
            taken, reason, read_from = generated.route, generated.route_reason, generated.route_from
        else:
            taken, reason, read_from = NO_ANSWER, "no generation for the question", ROUTER
        rows.append((question.question_id, "golden_questions", question.kind, expected, taken, reason, read_from))
    return pd.DataFrame(rows, columns=OUTCOME_COLUMNS)


def summarise_routes(outcomes: pd.DataFrame) -> pd.DataFrame:
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
                "read_from_flag": int((cases.route_from == ROUTE_FROM_FLAG).sum()),
                "exit_low": share.low,
                "exit_high": share.high,
            }
        )
    return pd.DataFrame(rows)
