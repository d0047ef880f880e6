"""The routes and release sections: the route confusion matrix, case receipts, the release decision and the
release fixture."""

from __future__ import annotations

import pandas as pd

from edgar_eval.domain.routes import ROUTES
from edgar_eval.domain.versioning import content_version
from edgar_eval.evaluation.release import release_decision
from edgar_eval.evaluation.release_fixture import fixture_summary
from edgar_eval.report.markdown import Provenance, ReportTable, interval, percent


def routes_table(routes: pd.DataFrame) -> ReportTable:
    """The route confusion matrix: expected route x route taken, and the share that exited as expected."""
    taken = [column for column in routes.columns if column.startswith("taken_")]
    table = pd.DataFrame(
        {
            "expected route": routes.expected_route,
            "cases": routes.cases,
            **{column.removeprefix("taken_"): routes[column] for column in taken},
            "exited as expected": [
                f"{percent(v)} ({interval(lo, hi)})"
                for v, lo, hi in zip(routes.exit_share, routes.exit_low, routes.exit_high)
            ],
        }
    )
    from_flag = int(routes.read_from_flag.sum())
    flag_note = (
        f" {from_flag} of the exits after retrieval were read from the generator's abstained flag and the citation "
        "check (answered: answer; withheld: no_answer): its replies carry no route field. Review after retrieval "
        "comes from the passages read disagreeing on the asked figure, whatever the generator said."
        if from_flag
        else ""
    )
    return ReportTable(
        "Routes (expected x taken)",
        table,
        Provenance(
            "route_matrix", content_version(routes), "route_outcomes (route_cases, golden_questions, generations)"
        ),
        note="Rows: the route a golden case expects; columns: the route it took (Wilson 95% interval on the share "
        "that exited as expected). answer, no_answer (and deny, where the asking role may read no filing of a "
        "question's scope) are the golden questions, by the router and then the generation (answered or withheld, "
        "right or wrong alike); clarify, review and deny are also the route cases (golden/route_cases.py), decided by "
        "the router before retrieval, whose rules share the router's readings of company and period: those rows are "
        "right by construction for this router and measure other systems. retrieval: a route case the router let "
        "through." + flag_note,
    )


def receipts_table(receipts: pd.DataFrame) -> ReportTable:
    """Per expected route: the cases, the evaluator's passes, the reviewer's overrides, and the passes after them."""
    rows = []
    for route in ROUTES:
        cases = receipts[receipts.expected_route == route]
        if cases.empty:
            continue
        rows.append(
            {
                "expected route": route,
                "cases": len(cases),
                "evaluator passed": int((cases.result == "pass").sum()),
                "overrides applied": int((cases.override_status == "applied").sum()),
                "overrides stale": int((cases.override_status == "stale").sum()),
                "passed after review": int((cases.final_result == "pass").sum()),
            }
        )
    return ReportTable(
        "Case receipts",
        pd.DataFrame(rows),
        Provenance("case_receipts", content_version(receipts), "route_outcomes, generations, answerer_retrievals"),
        note="One receipt per golden case in `data/<corpus>/case_receipts.jsonl`: routes expected and taken, the "
        "passages retrieved and cited (filing, its sha256, pages, chunk), the answer and the evaluator's result. An "
        "answer case passes when it answered with the gold figure, any other when it exited by its expected route. A "
        "reviewer's override (`reviews/<corpus>/receipts-v1.jsonl`) applies to the case version it names; one for "
        "another version is stale.",
    )


def release_title(checks: pd.DataFrame) -> str:
    return f"Release decision: {release_decision(checks)}"


def release_table(checks: pd.DataFrame) -> ReportTable:
    """The run's release decision and every rule behind it."""
    table = pd.DataFrame(
        {
            "rule": checks.rule,
            "forces": checks.decision,
            "fired": ["yes" if fired else "no" for fired in checks.fired],
            "evidence": checks.evidence,
        }
    )
    return ReportTable(
        release_title(checks),
        table,
        Provenance(
            "release_checks",
            content_version(checks),
            f"route_outcomes, generations, release_fixture_results; {checks.version.iloc[0]}",
        ),
        note=f"The rules are versioned (`protocol/{checks.version.iloc[0]}.toml`). The run's decision is the strictest "
        "that a fired rule forces (hold, then human review, then investigate); release when none fires.",
    )


def fixture_tables(results: pd.DataFrame) -> list[ReportTable]:
    """The release fixture route by route (stale cases on their own rows), then each stale case with its reason."""
    provenance = Provenance("release_fixture_results", content_version(results), "release_fixture_cases")
    summary = fixture_summary(results).rename(
        columns={"expected_route": "declared route", "exited_as_declared": "exited as declared"}
    )
    stale = results[results.stale]
    tables = [
        ReportTable(
            f"Release fixture: {int(results.passed.sum())} of {len(results)} cases passed",
            summary,
            provenance,
            note="A hand-picked must-pass set (`fixtures/<corpus>/release-v1.jsonl`), not a sample: each case must "
            "exit by its declared route, and an answer must state the current figure citing only filings its role may "
            "read that are their own current revision. Before scoring, a case whose evidence filing was superseded by "
            "an amendment or whose sha256 differs from the one it recorded is listed stale, re-verified in the current "
            "revision, and counted on its own rows; a changed figure must be neither retrieved nor repeated.",
        )
    ]
    if len(stale):
        tables.append(
            ReportTable(
                "Release fixture: stale cases",
                pd.DataFrame(
                    {
                        "case": stale.case_id,
                        "re-verified": stale.stale_status,
                        "why stale": stale.stale_reason,
                        "taken route": stale.taken_route,
                        "passed": ["yes" if p else "no" for p in stale.passed],
                        "failures": stale.failures,
                    }
                ),
                provenance,
                note="Old and new figure as printed in the filings; `unchanged`: the source changed but the figure "
                "stands.",
            )
        )
    return tables
