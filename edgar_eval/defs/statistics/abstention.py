"""How well the gates abstain: quality per gate and per kind, and their comparisons."""

from typing import cast

import dagster as dg
import pandas as pd

from edgar_eval.defs.common import table_head, table_output
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.source_files import PROTOCOL_FILES
from edgar_eval.defs.statistics.arms import read_protocol
from edgar_eval.evaluation import gate_quality


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Per gate score (cosine, relevance model, period guard), on the protocol's split: AUROC for answerable "
    "vs unanswerable with a DeLong 95% interval, and the AURC of admitting arm A's generations in that score's order, "
    "beside arm A's accuracy on answerable questions (what the AURC grades along with the gate).",
)
def abstention_quality(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    abstention_scores: pd.DataFrame,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    outcomes = protocol.questions(arm_outcomes)
    scores = protocol.questions(abstention_scores)
    table = gate_quality.abstention_quality(scores, cast(pd.DataFrame, outcomes[outcomes.arm == "A"])).assign(
        split=protocol.split
    )
    return table_output(table, {"head": table_head(table, rows=3)})


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Per unanswerable kind (other year, other company, absent concept), each gate score's AUROC against "
    "the answerable questions alone, with DeLong 95% intervals: a kind a surface feature gives away measures the "
    "twin's ease, not the gate.",
)
def abstention_quality_by_kind(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    abstention_scores: pd.DataFrame,
    golden_questions: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    table = gate_quality.abstention_quality_by_kind(
        protocol.questions(abstention_scores),
        cast(pd.DataFrame, golden_questions[["question_id", "kind"]]),
    ).assign(split=protocol.split)
    return table_output(table, {"head": table_head(table, rows=9)})


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Paired AUROC differences between the abstention gate scores on the same questions, with DeLong 95% "
    "intervals.",
)
def abstention_comparisons(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    abstention_scores: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    table = gate_quality.abstention_comparisons(protocol.questions(abstention_scores)).assign(split=protocol.split)
    return table_output(table, {"head": table_head(table, rows=3)})


ASSETS = [abstention_quality, abstention_quality_by_kind, abstention_comparisons]
