"""The regression gate as a Dagster asset check on arm_outcomes: the CI gate is `dagster asset materialize` of the
evaluation, which runs this check and fails when the dev split worsened against the committed baseline."""

from collections.abc import Iterator

import dagster as dg
import pandas as pd

from edgar_eval.defs.settings import EvalSettings, GeneratorResource
from edgar_eval.defs.source_files import BASELINE_FILES
from edgar_eval.evaluation.regression_gate import NET_WORSENING_LIMIT, compare_to_baseline, dev_cases, read_baseline

REGRESSION_GATE = dg.AssetCheckSpec(
    "regression_gate",
    asset="arm_outcomes",
    additional_deps=[dg.AssetKey("golden_set"), BASELINE_FILES.key],
    blocking=True,
    description="Replays the dev split and judges each case under each arm against "
    "`baselines/<corpus>/<generator>.json`; fails "
    f"when any arm x route group (answerable, unanswerable) has {NET_WORSENING_LIMIT} or more net cases gone from "
    "right to "
    "wrong. Blocking: the statistics and the report are not built on a regression. A generator with no baseline "
    "is not gated: the check is not applied (Skipped in the UI, with a warning in the run's log), never Failed.",
)


# A check that may record no result (can_subset): where no baseline exists it is not applied, which Dagster shows as
# Skipped; a result recorded as failed, even at WARN severity, reads "Failed" in the UI.
@dg.multi_asset_check(
    specs=[REGRESSION_GATE],
    can_subset=True,
    name="regression_gate",
    ins={"arm_outcomes": dg.AssetIn("arm_outcomes"), "golden_set": dg.AssetIn("golden_set")},
)
def regression_gate(
    context: dg.AssetCheckExecutionContext,
    settings: EvalSettings,
    generator: GeneratorResource,
    arm_outcomes: pd.DataFrame,
    golden_set: pd.DataFrame,
) -> Iterator[dg.AssetCheckResult]:
    current = dev_cases(arm_outcomes, golden_set)
    path = generator.baseline_path(settings)
    if not path.is_file():  # a corpus or generator nobody has baselined yet: said, without blocking its report
        context.log.warning(
            f"regression_gate not applied: no baseline at {path} for {len(current)} dev cases; create it from a run "
            "you trust with `edgar-eval baseline`"
        )
        return
    result = compare_to_baseline(current, read_baseline(path.read_text()))
    yield dg.AssetCheckResult(
        check_name=REGRESSION_GATE.name,
        asset_key=REGRESSION_GATE.asset_key,
        passed=result.passed,
        severity=dg.AssetCheckSeverity.ERROR,
        description=result.summary(),
        metadata={
            "dev_cases": len(current),
            "new_cases": result.new_cases,
            "missing_cases": result.missing_cases,
            "net_worsening_limit": NET_WORSENING_LIMIT,
            "baseline": dg.MetadataValue.path(str(path)),
            "groups": dg.MetadataValue.md(result.groups.to_markdown(index=False)),
        },
    )


CHECKS = [regression_gate]
