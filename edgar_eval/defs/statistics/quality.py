"""The instrument's own quality: stage latency, citation mutations, determinism and the answering noise band."""

from collections.abc import Set
from typing import cast

import dagster as dg
import pandas as pd

from edgar_eval.corpus.frames import iter_groups, iter_rows
from edgar_eval.defs.common import table_head, table_output
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.shards import answerer_shard_rows, materialize_shards, passage_slices, shard_asset
from edgar_eval.evaluation import mutation_power, run_profile
from edgar_eval.evaluation.noise_band import answer_band, answer_deltas
from edgar_eval.evaluation.shards import ORDER_COLUMN


@dg.asset(
    group_name="statistics",
    description="P50/P95 latency per stage (embed, search, gate, generate); generation latency is the original call's, "
    "also when replayed from a tape.",
)
def stage_latency(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    answerer_retrievals: pd.DataFrame,
    abstention_scores: pd.DataFrame,
    generations: pd.DataFrame,
    reranked_retrievals: pd.DataFrame,
    expanded_retrievals: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    retrieved, generated = answerer_retrievals, generations
    reranks = {
        f"rerank {candidates} to {kept}": group.rerank_seconds.to_numpy()
        for (candidates, kept), group in iter_groups(reranked_retrievals.groupby(["candidates", "kept"], sort=True))
    }
    expanded = cast(pd.DataFrame, expanded_retrievals[expanded_retrievals.order == "reranked"])
    expansions = {
        f"expand {candidates} to {kept}": group.expand_seconds.to_numpy()
        for (candidates, kept), group in iter_groups(expanded.groupby(["candidates", "kept"], sort=True))
    }
    table = run_profile.stage_latency(
        {
            "embed": retrieved.embed_seconds.to_numpy(),
            "search": retrieved.search_seconds.to_numpy(),
            **reranks,
            **expansions,
            "gate": abstention_scores.gate_seconds.to_numpy(),
            "generate": generated.generate_seconds[generated.outcome != "out_of_scope"].to_numpy(),
        }
    )
    return table_output(table, {"head": table_head(table, rows=4)})


@shard_asset(
    "The mutation test of the citation check and the judge: every answer arm A got right, with one figure changed in "
    "five ways (last digit, sign flipped, scale word, the other column of its table row, rounded to one significant "
    "digit), checked again against the passages it was generated from (withheld?) and judged again against its golden "
    "case (wrong?).",
    group_name="statistics",
)
def citation_mutations(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    generations: pd.DataFrame,
    arm_outcomes: pd.DataFrame,
    answerer_retrievals: pd.DataFrame,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
) -> dg.MaterializeResult:
    outcomes = arm_outcomes
    right = cast(pd.DataFrame, outcomes[(outcomes.arm == "A") & outcomes.answered & outcomes.correct])
    texts = search_index.set_index("chunk_id").text
    golden = golden_questions.set_index("question_id")
    of_right = cast(pd.DataFrame, answerer_retrievals[answerer_retrievals.question_id.isin(right.question_id)])
    retrieved = of_right.sort_values("question_id")
    answered = generations.set_index("question_id")

    def slices(shard: str) -> dict[str, pd.DataFrame]:
        own = answerer_shard_rows(golden_questions, retrieved, shard)
        return {
            **passage_slices(golden, own, texts),
            "answers": pd.DataFrame(
                {
                    "question_id": own.question_id.to_numpy(),
                    "answer_text": answered.answer_text.loc[own.question_id].to_numpy(),
                }
            ),
        }

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        own = answerer_shard_rows(golden_questions, retrieved, shard, only)
        answers = [
            mutation_power.MutatedAnswer(
                r.question_id,
                answered.answer_text[r.question_id],
                [texts[c] for c in r.chunk_ids],
                float(golden.gold_value[r.question_id]),
                golden.gold_answer[r.question_id],
                golden.label[r.question_id],
                int(golden.fiscal_year[r.question_id]),
                golden.gold_figures[r.question_id],
                golden.gold_direction[r.question_id],
            )
            for r in iter_rows(own)
        ]
        table = mutation_power.citation_mutations(answers)  # empty when arm A got nothing right: the report says n/a
        # with its columns when empty: a run whose arm A got nothing right still has the table the report reads
        return table.assign(**{ORDER_COLUMN: table.question_id.astype(str)}) if len(table) else table

    def figures(table: pd.DataFrame) -> dict:
        table = table if len(table.columns) else pd.DataFrame(columns=mutation_power.MUTATION_COLUMNS)
        summary = mutation_power.mutation_summary(table)
        return {
            "answers": len(right),
            "mutants": len(table),
            "withheld": int(table.withheld.sum()),
            "judged_wrong": int(table.judged_wrong.sum()),
            "per_kind": table_head(summary, ["kind", "mutants", "withheld", "judged_wrong"], rows=5),
        }

    return materialize_shards(context, settings, "citation_mutations", work, slices, {}, figures)


@dg.asset(
    group_name="statistics",
    description="Determinism: the share of a seeded sample of prompts that gave the same text when sent twice, with a "
    "Wilson 95% interval (replayed: the two recorded calls compared); not applicable to a deterministic generator.",
)
def determinism(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    generations: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    table = run_profile.determinism(generations)
    share = {"share": float(table.share.iloc[0])} if int(table.prompts.iloc[0]) else {}  # undefined: no entry
    return table_output(
        table, {"applicable": bool(table.applicable.iloc[0]), "prompts": int(table.prompts.iloc[0]), **share}
    )


@dg.asset(
    group_name="statistics",
    description="The noise band of the answering figures: per figure of arm A (answer accuracy, false-answer rate), "
    "the lowest and highest difference any index replica made against the measurement on the same questions, in "
    "points; empty when the generator's replicas were not measured.",
)
def answering_noise_band(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    answering_noise: pd.DataFrame,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    band = answer_band(answer_deltas(answering_noise, cast(pd.DataFrame, arm_outcomes[arm_outcomes.arm == "A"])))
    return table_output(band, {"head": table_head(band, ["figure", "arm", "band_low", "band_high"])})


ASSETS = [citation_mutations, stage_latency, determinism, answering_noise_band]
