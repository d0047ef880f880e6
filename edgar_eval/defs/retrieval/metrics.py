"""Retrieval figures: page and chunk hits per retriever, scope and depth, their noise bands, reranking and expansion,
slices, scope changes and hits per evidence filing."""

import dagster as dg
import pandas as pd

from edgar_eval.defs.common import figure_metadata, table_head, table_output
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.evaluation.headline_figures import (
    page_hit_figures,
)
from edgar_eval.evaluation.noise_band import noise_band, rerank_band, rerank_deltas, retrieval_deltas
from edgar_eval.evaluation.summaries import (
    SLICES,
    expansion_statistics,
    page_position,
    rerank_statistics,
    retrieval_statistics,
    scope_changes,
    summarise_slices,
)
from edgar_eval.evaluation.summaries import (
    evidence_filing_hits as summarise_evidence_filings,
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
    retriever_rankings: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    band = noise_band(retrieval_deltas(retrieval_noise, retriever_rankings))
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
    reranked_retrievals: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    band = rerank_band(rerank_deltas(rerank_noise, reranked_retrievals))
    return table_output(
        band, {"head": table_head(band, ["search_scope", "candidates", "kept", "after_low", "after_high"])}
    )


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
    "read, of one, and of none (Wilson 95% on both). A two-document question needs both; a one-document question "
    "whose figure two filings print is not counted.",
)
def evidence_filing_hits(
    context: dg.AssetExecutionContext, retriever_rankings: pd.DataFrame, golden_questions: pd.DataFrame
) -> dg.Output[pd.DataFrame]:
    two_document = set(golden_questions.question_id[golden_questions.document_count >= 2].astype(str))
    table = summarise_evidence_filings(retriever_rankings, two_document)
    return table_output(
        table,
        {
            "questions": int(table.questions.max()) if len(table) else 0,
            "head": table_head(table, ["retriever", "k", "questions", "both", "one", "none"], rows=12),
        },
    )


ASSETS = [
    evidence_filing_hits,
    retrieval_metrics,
    retrieval_scope_changes,
    rerank_metrics,
    expansion_metrics,
    retrieval_noise_band,
    rerank_noise_band,
    retrieval_slices,
]
