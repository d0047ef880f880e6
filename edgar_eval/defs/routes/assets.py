"""Routes: golden cases for clarify, review and deny, the route each golden case takes, and the route matrix."""

import json
from typing import cast

import dagster as dg
import pandas as pd

from edgar_eval.adapters.files import replace_file
from edgar_eval.corpus.company_names import aliases_by_company
from edgar_eval.corpus.partitioned import PartitionedTable
from edgar_eval.corpus.revisions import current_only, superseded_by
from edgar_eval.defs.common import table_head, table_output
from edgar_eval.defs.io_manager import columns_of
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.source_files import POLICY_FILES, PROTOCOL_FILES, REVIEW_FILES, access_policy
from edgar_eval.evaluation.receipts import OverrideFileError, build_receipts, read_override_file, receipts_jsonl
from edgar_eval.evaluation.release import ReleaseRules, ReleaseRulesError, check_release, release_decision
from edgar_eval.evaluation.routes import summarise_routes, take_routes
from edgar_eval.golden.route_cases import build_route_cases


@dg.asset(
    deps=[POLICY_FILES.key],
    group_name="golden",
    description="Golden cases for the routes besides answer and no_answer, made from the template questions and kept "
    "by rules (golden/route_cases.py): clarify when the company or the period is taken out of a question whose scope "
    "then holds several, review for requests for investment advice, deny for a company the permitted-source policy "
    "(`policies/<corpus>/access-v1.toml`) bars a role from. Every rejected candidate is kept with its reason.",
)
def route_cases(
    context: dg.AssetExecutionContext, settings: EvalSettings, golden_questions: pd.DataFrame, filings: PartitionedTable
) -> dg.Output[pd.DataFrame]:
    everything = filings.frame()  # every filing whose `filings` row is materialised
    recorded = current_only(everything, superseded_by(everything))  # a superseded filing is in no case's scope
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
    deps=[POLICY_FILES.key],
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
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="The run's release decision (release, investigate, human review or hold): each rule of the versioned "
    "`protocol/release-v2.toml` (the route matrix's misses, unsupported claims, a failed release-fixture case), "
    "with whether it fired and its evidence; the strictest decision a fired rule forces "
    "is the run's.",
)
def release_checks(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    route_outcomes: pd.DataFrame,
    generations: pd.DataFrame,
    release_fixture_results: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    path = settings.release_rules_path()
    try:
        rules = ReleaseRules.from_toml(path.read_text(encoding="utf-8"), f"protocol/{path.name}")
    except (OSError, ReleaseRulesError) as exc:
        raise dg.Failure(f"release rules {settings.release_rules!r}: {exc}") from exc
    checks = check_release(rules, route_outcomes, generations, release_fixture_results)
    return table_output(
        checks,
        {"decision": release_decision(checks), "rules": rules.version, "checks": table_head(checks, rows=10)},
    )


@dg.asset(
    deps=[REVIEW_FILES.key],
    group_name="statistics",
    description="One receipt per golden case (template questions and route cases): case id and version, owner, role, "
    "question, routes expected and taken (and why), the passages retrieved and cited as locators (filing, its sha256, "
    "pages, chunk), the answer, the evaluator's result and arm A's outcome category (wrong_answers: why a wrong "
    "answer is wrong), and a reviewer's override from the versioned "
    "`reviews/<corpus>/receipts-v1.jsonl` (pinned to the case version; an override for another version is stale and "
    "not applied). Also written as JSON Lines to `data/<corpus>/case_receipts.jsonl`.",
    ins={
        "search_index": dg.AssetIn(metadata=columns_of("chunk_id", "pages")),
        "answerer_retrievals": dg.AssetIn(metadata=columns_of("question_id", "chunk_ids")),
        "arm_outcomes": dg.AssetIn(metadata=columns_of("question_id", "arm", "correct")),
        "wrong_answers": dg.AssetIn(metadata=columns_of("system", "question_id", "category")),
    },
)
def case_receipts(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    route_outcomes: pd.DataFrame,
    route_cases: pd.DataFrame,
    golden_questions: pd.DataFrame,
    answerer_retrievals: pd.DataFrame,
    generations: pd.DataFrame,
    arm_outcomes: pd.DataFrame,
    wrong_answers: pd.DataFrame,
    search_index: pd.DataFrame,
    filings: PartitionedTable,
) -> dg.Output[pd.DataFrame]:
    path = settings.receipt_review_path()
    where = str(path.relative_to(path.parents[2]))
    try:
        overrides = read_override_file(path.read_text(encoding="utf-8"), where) if path.is_file() else {}
    except OverrideFileError as exc:
        raise dg.Failure(str(exc)) from exc
    fields = ["case_id", "question", "owner", "case_version", "role"]
    cases = pd.concat(
        [
            cast(pd.DataFrame, golden_questions.rename(columns={"question_id": "case_id"})[fields]),
            cast(pd.DataFrame, route_cases[fields]),
        ],
        ignore_index=True,
    )
    recorded = filings.frame()
    arm_a = cast(pd.DataFrame, arm_outcomes[arm_outcomes.arm == "A"])
    receipts = build_receipts(
        route_outcomes,
        cases,
        dict(zip(answerer_retrievals.question_id, map(list, answerer_retrievals.chunk_ids))),
        generations,
        dict(zip(arm_a.question_id, arm_a.correct.astype(bool))),
        {chunk: tuple(str(p) for p in pages) for chunk, pages in zip(search_index.chunk_id, search_index.pages)},
        dict(zip(recorded.filing_id, recorded.sha256)),
        overrides,
        dict(
            zip(
                wrong_answers[wrong_answers.system == "arm A"].question_id,
                wrong_answers[wrong_answers.system == "arm A"].category,
            )
        ),
    )
    replace_file(settings.store().file("case_receipts.jsonl"), receipts_jsonl(receipts).encode())
    frame = pd.DataFrame(
        [
            {k: json.dumps(v, ensure_ascii=False, sort_keys=True) if k in _NESTED else v for k, v in r.items()}
            for r in receipts
        ]
    )
    status = frame.override_status.value_counts().to_dict() if len(frame) else {}
    return table_output(
        frame,
        {
            "cases": len(frame),
            "passed": int((frame.final_result == "pass").sum()) if len(frame) else 0,
            "overrides_applied": int(status.get("applied", 0)),
            "overrides_stale": int(status.get("stale", 0)),
            "review_file": where,
            "jsonl": dg.MetadataValue.path(str(settings.store().root / "case_receipts.jsonl")),
            "head": table_head(frame, ["case_id", "expected_route", "taken_route", "final_result"], rows=8),
        },
    )


_NESTED = ("retrieved", "cited", "override")  # lists and objects: JSON text in the table, nested in the JSON Lines


ASSETS = [route_cases, route_outcomes, route_matrix, release_checks, case_receipts]
