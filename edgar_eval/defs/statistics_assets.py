"""Statistics group: per-arm rates, paired arm comparisons under the protocol, abstention gate quality, latency and
determinism, retrieval metrics and slices, each with its intervals."""

import hashlib
import tomllib
from typing import cast

import dagster as dg
import pandas as pd

from edgar_eval.corpus.frames import iter_groups, iter_rows
from edgar_eval.defs.common import figure_metadata, table_head, table_output
from edgar_eval.defs.settings import EvalSettings, GeneratorResource
from edgar_eval.defs.source_files import PROTOCOL_FILES
from edgar_eval.evaluation import confirmatory, gate_quality, mutation_power, paired_comparisons, run_profile
from edgar_eval.evaluation.headline_figures import (
    arm_figures,
    false_answer_kind_figures,
    page_hit_figures,
    primary_endpoint_description,
)
from edgar_eval.evaluation.noise_band import answer_band, noise_band, rerank_band
from edgar_eval.evaluation.protocol import Protocol
from edgar_eval.evaluation.summaries import (
    SLICES,
    answers_by_kind,
    expansion_statistics,
    false_answers_by_kind,
    page_position,
    rerank_statistics,
    retrieval_statistics,
    scope_changes,
    summarise_arms,
    summarise_slices,
)
from edgar_eval.evaluation.summaries import (
    evidence_filing_hits as summarise_evidence_filings,
)


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Per arm, on the protocol's split (eval): false-answer rate on unanswerable questions, recall cost and "
    "accuracy on answerable ones, each with a Wilson and a company-cluster bootstrap-t 95% interval.",
)
def arm_statistics(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    stats = summarise_arms(
        protocol.questions(arm_outcomes), seed=settings.golden_seed, method=paired_comparisons.EXPLORATORY_METHOD
    ).assign(split=protocol.split)
    return table_output(
        stats,
        {
            "split": protocol.split,
            **figure_metadata(arm_figures(stats)),
            "head": table_head(stats, ["arm", "gates", "false_answer_rate", "recall_cost", "answer_accuracy"], rows=6),
        },
    )


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Per arm and unanswerable kind, on the protocol's split: false answers over the kind's questions "
    "(Wilson 95%) and the companies holding them. Each kind on its own line, never pooled: a pooled rate is mostly "
    "the most numerous, easiest kind.",
)
def arm_false_answers_by_kind(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    table = false_answers_by_kind(protocol.questions(arm_outcomes)).assign(split=protocol.split)
    return table_output(
        table,
        {
            "split": protocol.split,
            "primary_endpoint": primary_endpoint_description(protocol),
            **figure_metadata(false_answer_kind_figures(table, protocol)),
            "head": table_head(table, ["arm", "kind", "false_answer_rate_k", "false_answer_rate_n"], rows=12),
        },
    )


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Per arm and answerable kind (single-figure questions and each two-document kind), on the protocol's "
    "split: right answers over the kind's questions (Wilson 95%) and the companies holding them.",
)
def arm_answers_by_kind(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    table = answers_by_kind(protocol.questions(arm_outcomes)).assign(split=protocol.split)
    head = table_head(table, ["arm", "kind", "correct_rate_k", "correct_rate_n"], rows=12)
    return table_output(table, {"head": head})


def read_protocol(settings: EvalSettings) -> tuple[Protocol, str]:
    """The pre-registered protocol and the sha256 of the file it was read from."""
    path = settings.protocol_path()
    data = path.read_bytes()
    return Protocol.from_mapping(tomllib.loads(data.decode())), hashlib.sha256(data).hexdigest()


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Protocol v3: per confirmatory hypothesis, null boundary (false-answer-rate difference 0; accuracy "
    "difference at minus the margin) and interval method, how often the truth lies beyond each end of the protocol's "
    "interval over simulated splits with the split's own companies and question counts; the decision tail's miss rate "
    "is the rule's type-I error. Chooses each hypothesis's interval method (bootstrap, few-cluster, or for a gated arm "
    "against the arm it gates Korn-Graubard). Reads the questions of arm_outcomes, and of their outcomes only whether "
    "the testability split shows a discordant pair. Empty for v1 and v2 protocols, for untestable hypotheses, and for "
    "a run that is not the generator and corpus the protocol registers (v4).",
)
def decision_simulation(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    generator: GeneratorResource,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    registered = protocol.registers(generator.kind, settings.corpus_name)
    table = confirmatory.decision_simulation(arm_outcomes, protocol, settings.golden_seed, registered)
    chosen = {h.id: confirmatory.chosen_method(table, h.id) for h in protocol.hypotheses}
    return table_output(
        table,
        {
            "protocol": protocol.version,
            "registered_system": protocol.registered_system,
            "chosen": dg.MetadataValue.json(
                {h: f"{m} ({'holds' if ok else 'does not hold'} alpha)" for h, (m, ok) in chosen.items() if m}
            ),
            "head": table_head(table, ["hypothesis", "boundary", "method", "type_one", "holds", "chosen"], rows=9),
        },
    )


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Protocol v3: per confirmatory hypothesis, the power of its decision at true false-answer-rate "
    "differences up to the assumed discordance, simulated at the split's companies and question counts with the "
    "method the decision simulation chose; the smallest difference reaching the protocol's power is the minimum "
    "detectable effect, with the design effect of clustering beside it. Empty for v1 and v2 protocols.",
)
def design_power(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    arm_outcomes: pd.DataFrame,
    decision_simulation: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    table = confirmatory.design_power(arm_outcomes, protocol, decision_simulation, settings.golden_seed)
    detected = table[table.minimum_detectable]
    return table_output(
        table,
        {
            "protocol": protocol.version,
            "minimum_detectable_effect": dg.MetadataValue.json(
                {str(h): round(abs(float(t)), 4) for h, t in zip(detected.hypothesis, detected.truth)}
            ),
            "head": table_head(table, rows=6),
        },
    )


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Paired differences between arms on the same questions of the protocol's split (every arm against A, "
    "and the protocol's pairs; the false-answer rate per unanswerable kind, none pooled): an interval at the "
    "protocol's level (exploratory rows: company bootstrap-t; confirmatory rows: the method their decision simulation "
    "chose), exact McNemar on the discordant pairs (exploratory: it assumes independent questions), the minimum "
    "detectable effect; confirmatory where the protocol names the comparison and registers the run's generator and "
    "corpus, decided by the protocol's rule.",
)
def arm_comparisons(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    generator: GeneratorResource,
    arm_outcomes: pd.DataFrame,
    decision_simulation: pd.DataFrame,
    design_power: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, protocol_sha = read_protocol(settings)
    table = paired_comparisons.arm_comparisons(
        arm_outcomes,
        protocol,
        seed=settings.golden_seed,
        simulation=decision_simulation,
        power=design_power,
        registered=protocol.registers(generator.kind, settings.corpus_name),
    )
    confirmatory = table[table.status == "confirmatory"]
    return table_output(
        table.assign(protocol=protocol.version, protocol_sha256=protocol_sha),
        {
            "protocol": protocol.version,
            "protocol_sha256": protocol_sha,
            "decisions": dg.MetadataValue.json(dict(zip(confirmatory.hypothesis, confirmatory.decision))),
            "head": table_head(
                table, ["arm", "baseline", "metric", "difference", "low", "high", "mcnemar_p", "status"], rows=10
            ),
        },
    )


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


@dg.asset(
    group_name="statistics",
    description="Generator seconds per question per arm (a question gated out before generation costs none); "
    "wall-clock, so the report prints it in timings.md, not in its byte-identical body.",
)
def arm_costs(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    table = run_profile.arm_costs(arm_outcomes)
    return table_output(table, {"head": table_head(table, rows=6)})


@dg.asset(
    group_name="statistics",
    description="The mutation test of the citation check and the judge: every answer arm A got right, with one figure "
    "changed in five ways (last digit, sign flipped, scale word, the other column of its table row, rounded to one "
    "significant digit), checked again against the passages it was generated from (withheld?) and judged again "
    "against its golden case (wrong?).",
)
def citation_mutations(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    generations: pd.DataFrame,
    arm_outcomes: pd.DataFrame,
    answerer_retrievals: pd.DataFrame,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    outcomes = arm_outcomes
    right = set(outcomes[(outcomes.arm == "A") & outcomes.answered & outcomes.correct].question_id)
    texts = search_index.set_index("chunk_id").text
    chunk_ids = answerer_retrievals.set_index("question_id").chunk_ids
    golden = golden_questions.set_index("question_id")
    generated = generations
    answers = [
        mutation_power.MutatedAnswer(
            g.question_id,
            g.answer_text,
            [texts[c] for c in chunk_ids[g.question_id]],
            float(golden.gold_value[g.question_id]),
            golden.gold_answer[g.question_id],
            golden.label[g.question_id],
            int(golden.fiscal_year[g.question_id]),
            golden.gold_figures[g.question_id],
            golden.gold_direction[g.question_id],
        )
        for g in iter_rows(cast(pd.DataFrame, generated[generated.question_id.isin(right)]).sort_values("question_id"))
    ]
    table = mutation_power.citation_mutations(answers)  # empty when arm A got nothing right: the report says n/a
    summary = mutation_power.mutation_summary(table)
    return table_output(
        table,
        {
            "answers": len(answers),
            "mutants": len(table),
            "withheld": int(table.withheld.sum()),
            "judged_wrong": int(table.judged_wrong.sum()),
            "per_kind": table_head(summary, ["kind", "mutants", "withheld", "judged_wrong"], rows=5),
        },
    )


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
    description="Per retriever and depth, over answerable questions: document and page hit rates with Wilson 95% "
    "intervals, recall@K, precision@K, MRR and nDCG@10; searches that errored are counted apart, and a run that "
    "scored nothing fails.",
)
def retrieval_metrics(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    retriever_rankings: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    metrics = retrieval_statistics(retriever_rankings)
    if metrics.empty or metrics.questions.max() == 0:
        raise dg.Failure("no answerable question was scored: the retrieval run measured nothing")
    return table_output(
        metrics,
        {
            **figure_metadata(page_hit_figures(metrics)),
            "head": table_head(
                metrics,
                ["search_scope", "retriever", "k", "document_hit_rate", "page_hit_rate", "recall", "rr", "ndcg10"],
                rows=18,
            ),
        },
    )


@dg.asset(
    group_name="statistics",
    description="The noise band of each retrieval figure: per search scope, retriever and depth, the lowest and "
    "highest difference in page hit (points) that any replica's index made against the measurement on the same "
    "questions. A comparison whose difference is inside the band is marked so in the report.",
)
def retrieval_noise_band(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    retrieval_noise: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    band = noise_band(retrieval_noise)
    return table_output(band, {"head": table_head(band, ["search_scope", "retriever", "k", "band_low", "band_high"])})


@dg.asset(
    group_name="statistics",
    description="The noise band of the rerank stage: per search scope and cut, the widest swing any index replica made "
    "of the page hit among the kept passages before the reranker and after it, in points.",
)
def rerank_noise_band(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    rerank_noise: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    band = rerank_band(rerank_noise)
    return table_output(
        band, {"head": table_head(band, ["search_scope", "candidates", "kept", "after_low", "after_high"])}
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
) -> dg.Output[pd.DataFrame]:
    band = answer_band(answering_noise)
    return table_output(band, {"head": table_head(band, ["figure", "arm", "band_low", "band_high"])})


@dg.asset(
    group_name="statistics",
    description="The rerank stage against the retriever's own order, paired on the same questions: per search scope "
    "and cut (candidates reranked, passages kept), page and chunk hits among the kept passages before and after the "
    "reranker, and the questions lost and gained.",
)
def rerank_metrics(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    reranked_retrievals: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    metrics = rerank_statistics(reranked_retrievals)
    return table_output(
        metrics,
        {"head": table_head(metrics, ["search_scope", "candidates", "kept", "page_hits_before", "page_hits_after"])},
    )


@dg.asset(
    group_name="statistics",
    description="Table-chunk expansion against the passages read as they are, paired on the same questions: per "
    "search scope, rerank cut and order (the retriever's kept passages, the reranker's), page hits and gold rows read "
    "both ways, the questions lost and gained, and the mean characters read per question both ways.",
)
def expansion_metrics(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    expanded_retrievals: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    metrics = expansion_statistics(expanded_retrievals)
    return table_output(
        metrics,
        {
            "rows_each_way": settings.table_expansion_rows,
            "head": table_head(
                metrics, ["search_scope", "kept", "order", "page_hits_plain", "page_hits_expanded"], rows=6
            ),
        },
    )


@dg.asset(
    group_name="statistics",
    description="What widening the search scope costs, paired on the same questions: per wider scope (every filing "
    "of the company, the whole corpus), retriever and depth, page hits there and in the answerer's scope over the "
    "answerable questions measured in both, and how many were lost or gained.",
)
def retrieval_scope_changes(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    retriever_rankings: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    changes = scope_changes(retriever_rankings)
    return table_output(
        changes,
        {"head": table_head(changes, ["search_scope", "retriever", "k", "questions", "lost", "gained"], rows=6)},
    )


@dg.asset(
    group_name="statistics",
    description="Retrieval by slice (form of the source filing, statement type, page position, company) x retriever "
    "x depth: page hit rate with a Wilson 95% interval and the median rank of the first gold chunk, over answerable "
    "questions searched in the answerer's scope (company_year).",
)
def retrieval_slices(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    retriever_rankings: pd.DataFrame,
    golden_questions: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    positioned = golden_questions.assign(page_position=page_position(golden_questions.on_first_page))
    attributes = positioned[["question_id", *SLICES.values()]]
    slices = summarise_slices(retriever_rankings.merge(attributes, on="question_id", validate="many_to_one"))
    return table_output(
        slices,
        {
            "slices": len(slices),
            "head": table_head(
                slices, ["slice", "value", "retriever", "k", "page_hit_rate", "median_gold_rank"], rows=10
            ),
        },
    )


@dg.asset(
    group_name="statistics",
    description="Retrieval per evidence filing: over the two-document questions (golden.two_documents) in the "
    "answerer's scope, per retriever and depth, how many had a gold page of both evidence filings among the passages "
    "read, of one, and of none (Wilson 95% on both). A two-document question needs both.",
)
def evidence_filing_hits(
    context: dg.AssetExecutionContext, retriever_rankings: pd.DataFrame
) -> dg.Output[pd.DataFrame]:
    table = summarise_evidence_filings(retriever_rankings)
    return table_output(
        table,
        {
            "questions": int(table.questions.max()) if len(table) else 0,
            "head": table_head(table, ["retriever", "k", "questions", "both", "one", "none"], rows=12),
        },
    )


ASSETS = [
    evidence_filing_hits,
    arm_answers_by_kind,
    arm_statistics,
    arm_false_answers_by_kind,
    arm_costs,
    decision_simulation,
    design_power,
    arm_comparisons,
    citation_mutations,
    abstention_quality,
    abstention_quality_by_kind,
    abstention_comparisons,
    stage_latency,
    determinism,
    retrieval_metrics,
    retrieval_scope_changes,
    rerank_metrics,
    expansion_metrics,
    retrieval_noise_band,
    answering_noise_band,
    rerank_noise_band,
    retrieval_slices,
]
