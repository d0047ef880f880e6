"""The regression gate as a Dagster asset check on arm_outcomes: the CI gate is `dagster asset materialize` of the
evaluation, which runs this check and fails when the dev split worsened against the committed baseline."""

import dagster as dg
import pandas as pd

from edgar_eval.defs.settings import EvalSettings, GeneratorResource
from edgar_eval.defs.source_files import BASELINE_FILES
from edgar_eval.evaluation.regression_gate import NET_WORSENING_LIMIT, compare_to_baseline, dev_cases, read_baseline


@dg.asset_check(
    asset="arm_outcomes",
    additional_ins={"golden_set": dg.AssetIn("golden_set")},
    additional_deps=[BASELINE_FILES.key],
    blocking=True,
    description="Replays the dev split and judges each case under each arm against "
    "`baselines/<corpus>/<generator>.json`; fails "
    f"when any arm x route group (answerable, unanswerable) has {NET_WORSENING_LIMIT} or more net cases gone from "
    "right to "
    "wrong. Blocking: the statistics and the report are not built on a regression.",
)
def regression_gate(
    context: dg.AssetCheckExecutionContext,
    settings: EvalSettings,
    generator: GeneratorResource,
    arm_outcomes: pd.DataFrame,
    golden_set: pd.DataFrame,
) -> dg.AssetCheckResult:
    current = dev_cases(arm_outcomes, golden_set)
    path = generator.baseline_path(settings)
    if not path.is_file():  # a corpus nobody has baselined yet: say so, without blocking its report
        return dg.AssetCheckResult(
            passed=False,
            severity=dg.AssetCheckSeverity.WARN,
            description=(
                f"gate not applied: no baseline at {path}; create it from a run you trust with `edgar-eval baseline`"
            ),
            metadata={"dev_cases": len(current)},
        )
    result = compare_to_baseline(current, read_baseline(path.read_text()))
    return dg.AssetCheckResult(
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
