"""Routes: golden cases for clarify, review and deny, the route each golden case takes, and the route matrix."""

from typing import cast

import dagster as dg
import pandas as pd

from edgar_eval.corpus.company_names import aliases_by_company
from edgar_eval.corpus.partitioned import PartitionedTable
from edgar_eval.defs.common import table_head, table_output
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.domain.routes import NO_POLICY, AccessPolicy, PolicyError
from edgar_eval.evaluation.release import ReleaseRules, ReleaseRulesError, release_decision
from edgar_eval.evaluation.release import release_checks as check_release
from edgar_eval.evaluation.routes import route_matrix as summarise_routes
from edgar_eval.evaluation.routes import route_outcomes as take_routes
from edgar_eval.golden.route_cases import build_route_cases


def access_policy(settings: EvalSettings) -> AccessPolicy:
    """The corpus's permitted-source policy; none (no role barred from anything) when the file does not exist."""
    path = settings.access_policy_path()
    if not path.is_file():
        return NO_POLICY
    try:
        return AccessPolicy.from_toml(path.read_text(encoding="utf-8"), str(path.relative_to(path.parents[2])))
    except PolicyError as exc:
        raise dg.Failure(str(exc)) from exc


@dg.asset(
    group_name="golden",
    description="Golden cases for the routes besides answer and no_answer, made from the template questions and kept "
    "by rules (golden/route_cases.py): clarify when the company or the period is taken out of a question whose scope "
    "then holds several, review for requests for investment advice, deny for a company the permitted-source policy "
    "(`policies/<corpus>/access-v1.toml`) bars a role from. Every rejected candidate is kept with its reason.",
)
def route_cases(
    context: dg.AssetExecutionContext, settings: EvalSettings, golden_questions: pd.DataFrame, filings: PartitionedTable
) -> dg.Output[pd.DataFrame]:
    recorded = filings.frame()  # every filing whose `filings` row is materialised
    policy = access_policy(settings)
    cases = build_route_cases(golden_questions, recorded, aliases_by_company(recorded), policy)
    kept = cases[cases.rejected == ""]
    return table_output(
        cases,
        {
            "policy": policy.version,
            "kept_by_route": dg.MetadataValue.json(kept.expected_route.value_counts().sort_index().to_dict()),
            "rejected_by_rule": dg.MetadataValue.json(
                cases[cases.rejected != ""].rule.value_counts().sort_index().to_dict()
            ),
            "head": table_head(cases, ["case_id", "expected_route", "question", "rejected"], rows=8),
        },
    )


@dg.asset(
    group_name="runs",
    description="The route each golden case exits by against the route it expects: the router's deny, review or "
    "clarify before retrieval, else the route the generation exits by (its reply's route field, or its abstained flag "
    "and the citation check; `route_from` says which); a route case the router lets through counts as `retrieval`, "
    "a miss.",
)
def route_outcomes(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    route_cases: pd.DataFrame,
    golden_questions: pd.DataFrame,
    generations: pd.DataFrame,
    filings: PartitionedTable,
) -> dg.Output[pd.DataFrame]:
    recorded = filings.frame()  # every filing whose `filings` row is materialised
    outcomes = take_routes(
        route_cases, golden_questions, generations, recorded, aliases_by_company(recorded), access_policy(settings)
    )
    missed = cast(pd.DataFrame, outcomes[outcomes.expected_route != outcomes.taken_route])
    return table_output(
        outcomes,
        {
            "cases": len(outcomes),
            "exited_as_expected": int(len(outcomes) - len(missed)),
            "head": table_head(missed, ["case_id", "expected_route", "taken_route", "reason"], rows=8),
        },
    )


@dg.asset(
    group_name="statistics",
    description="The route confusion matrix: per expected route, the cases and the route each took, with the share "
    "that exited by its expected route and a Wilson 95% interval.",
)
def route_matrix(context: dg.AssetExecutionContext, route_outcomes: pd.DataFrame) -> dg.Output[pd.DataFrame]:
    matrix = summarise_routes(route_outcomes)
    return table_output(matrix, {"matrix": table_head(matrix, rows=5)})


@dg.asset(
    group_name="statistics",
    description="The run's release decision (release, investigate, human review or hold): each rule of the versioned "
    "`protocol/release-v1.toml`, with whether it fired and its evidence; the strictest decision a fired rule forces "
    "is the run's.",
)
def release_checks(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    route_outcomes: pd.DataFrame,
    generations: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    path = settings.release_rules_path()
    try:
        rules = ReleaseRules.from_toml(path.read_text(encoding="utf-8"), f"protocol/{path.name}")
    except (OSError, ReleaseRulesError) as exc:
        raise dg.Failure(f"release rules {settings.release_rules!r}: {exc}") from exc
    checks = check_release(rules, route_outcomes, generations)
    return table_output(
        checks,
        {"decision": release_decision(checks), "rules": rules.version, "checks": table_head(checks, rows=10)},
    )


ASSETS = [route_cases, route_outcomes, route_matrix, release_checks]
