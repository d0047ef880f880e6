"""Statistics group: per-arm rates, retrieval metrics and slices, each with its intervals."""

import dagster as dg

from edgar_eval.defs.common import table_head, unpartitioned_result
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.evaluation.summaries import SLICES, retrieval_statistics
from edgar_eval.evaluation.summaries import arm_statistics as summarise_arms
from edgar_eval.evaluation.summaries import retrieval_slices as summarise_slices


@dg.asset(deps=["arm_outcomes"], group_name="statistics", code_version="1",
          description="Per arm: false-answer rate on unanswerable questions, recall cost and accuracy on answerable ones, "
                      "each with a Wilson 95% interval.")
def arm_statistics(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
    store = settings.store()
    stats = summarise_arms(store.read("arm_outcomes"))
    return unpartitioned_result(store, "arm_statistics", stats, {
        "head": table_head(stats, ["arm", "gates", "false_answer_rate", "recall_cost", "answer_accuracy"], rows=6)})


@dg.asset(deps=["retrieval_runs"], group_name="statistics", code_version="2",
          description="Per retriever and depth, over answerable questions: document and page hit rates with Wilson 95% intervals, "
                      "recall@K, precision@K, MRR and nDCG@10; searches that errored are counted apart, and a run that scored nothing fails.")
def retrieval_metrics(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
    store = settings.store()
    metrics = retrieval_statistics(store.read("retrieval_runs"))
    if metrics.empty or metrics.questions.max() == 0:
        raise dg.Failure("no answerable question was scored: the retrieval run measured nothing")
    return unpartitioned_result(store, "retrieval_metrics", metrics, {
        "head": table_head(metrics, ["retriever", "k", "document_hit_rate", "page_hit_rate", "recall", "rr", "ndcg10"], rows=6)})


@dg.asset(deps=["retrieval_runs", "golden_questions"], group_name="statistics", code_version="1",
          description="Retrieval by slice (form of the source filing, statement type, company) x retriever x depth: page hit "
                      "rate with a Wilson 95% interval and the median rank of the first gold chunk, over answerable questions.")
def retrieval_slices(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
    store = settings.store()
    attributes = store.read("golden_questions")[["question_id", *SLICES.values()]]
    slices = summarise_slices(store.read("retrieval_runs").merge(attributes, on="question_id", validate="many_to_one"))
    return unpartitioned_result(store, "retrieval_slices", slices, {
        "slices": len(slices), "head": table_head(slices, ["slice", "value", "retriever", "k", "page_hit_rate", "median_gold_rank"], rows=10)})


ASSETS = [arm_statistics, retrieval_metrics, retrieval_slices]
