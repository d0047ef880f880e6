"""The index's own noise: the retrievals repeated over replicas of the index that leave companies out and store rows in
another order, with and without the reranker."""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.answering.rerank import LexicalFigureReranker
from edgar_eval.defs.common import checked_index, question_vectors, table_output
from edgar_eval.defs.executors import MODEL_ENDPOINT_POOL
from edgar_eval.defs.retrieval.runs import _rerank_cuts, chunk_columns, corpus_sample, measured_cases
from edgar_eval.defs.settings import EmbedderResource, EvalSettings
from edgar_eval.defs.source_files import POLICY_FILES
from edgar_eval.domain.routes import ANSWER
from edgar_eval.evaluation.noise_band import noise_sample, perturbed_index, replica_deltas, rerank_deltas
from edgar_eval.evaluation.search_scopes import search_runs
from edgar_eval.retrieval.bm25 import ChunkTokens
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.searches import RETRIEVERS, Search, searches


@dg.asset(
    deps=[POLICY_FILES.key],
    group_name="runs",
    description="The noise band's replicas: the retrieval measurement repeated over indexes that differ only as a "
    "live one would (settings noise_replicas; each leaves noise_companies_left_out companies' filings out, seeded, "
    "and stores the rest in a seeded order, so ties break another way), on every answerable question of the companies "
    "still in it of the noise sample (all questions up to noise_questions, a seeded sample beyond); per replica, "
    "scope, retriever and depth, page hits there and in the measurement on the same questions, and the difference in "
    "points.",
)
def retrieval_noise(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    question_embeddings: pd.DataFrame,
    gold_by_search_scope: pd.DataFrame,
    retriever_rankings: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    checked_index(settings, embedder, search_index)  # an index built differently is refused, as the measurement does
    sample = sampled_questions(settings, golden_questions)
    answerable = cast(pd.DataFrame, sample[sample.expected_route == ANSWER])
    vectors = dict(zip(answerable.question_id, question_vectors(question_embeddings, answerable.question_id)))
    # the corpus scope's questions are the measurement's sample, not drawn from the band's
    in_corpus_scope = corpus_sample(settings, golden_questions, gold_by_search_scope)
    runs, left_out = [], {}
    for replica in index_replicas(settings, search_index):
        left_out[replica.number] = replica.left_out
        kept = cast(pd.DataFrame, answerable[~answerable.cik.isin(replica.left_out)])
        cases = measured_cases(settings, kept, gold_by_search_scope, replica.rows, in_corpus_scope)
        found = replica.searches(settings.rrf_k)
        for run in search_runs(replica.rows, found, cases, vectors, settings.retrieval_depths):
            runs.append({"replica": replica.number, **{key: run[key] for key in NOISE_KEYS}})
    measured = cast(pd.DataFrame, retriever_rankings[retriever_rankings.error.isna()])
    deltas = replica_deltas(pd.DataFrame(runs, columns=["replica", *NOISE_KEYS]), measured)
    if len(deltas):
        deltas["left_out"] = deltas.replica.map(lambda replica: list(left_out[replica]))
    return table_output(
        deltas,
        {
            "replicas": settings.noise_replicas,
            "questions_sampled": sample_words(sample, golden_questions),
            "left_out": dg.MetadataValue.json({str(r): companies for r, companies in left_out.items()}),
            "largest_swing_points": float(deltas.delta_points.abs().max()) if len(deltas) else 0.0,
        },
    )


NOISE_KEYS = ["question_id", "search_scope", "retriever", "k", "page_hit"]


def sampled_questions(settings: EvalSettings, golden_questions: pd.DataFrame) -> pd.DataFrame:
    """The golden questions every noise band measures, the same in each asset that measures one (settings
    noise_questions: all of them up to that many, a seeded sample beyond)."""
    return noise_sample(golden_questions, settings.noise_questions, settings.golden_seed)


def sample_words(sample: pd.DataFrame, golden_questions: pd.DataFrame) -> str:
    """The noise sample's size in the asset's metadata: '170 of 170 (all)', or '2500 of 31044 (seeded sample)'."""
    whole = len(sample) == len(golden_questions)
    return f"{len(sample)} of {len(golden_questions)} ({'all' if whole else 'seeded sample'})"


@dataclass(frozen=True)
class IndexReplica:
    """One of the noise band's replicas of the index: its number, its rows, the companies it leaves out, its dense
    index, and the index's chunks tokenised once for every replica (its BM25 index is built from them)."""

    number: int
    rows: pd.DataFrame
    left_out: list[str]
    dense: DenseIndex
    tokens: ChunkTokens

    def searches(self, rrf_k: int, wanted: tuple[str, ...] = RETRIEVERS) -> dict[str, Search]:
        return searches(self.rows, self.dense, rrf_k, wanted, self.tokens)


def index_replicas(settings: EvalSettings, search_index: pd.DataFrame) -> Iterator[IndexReplica]:
    """The noise band's replicas of the index, the same in every asset that reads them. The chunks are tokenised
    once, when the first replica's BM25 index is built, not once per replica."""
    tokens = ChunkTokens(search_index.chunk_id, search_index.text)  # the columns, not copies of them
    for replica in range(settings.noise_replicas):
        rows, left_out = perturbed_index(
            search_index, settings.golden_seed * 1000 + replica, settings.noise_companies_left_out
        )
        dense = DenseIndex(np.stack(rows.embedding.to_numpy()), rows.filing_id.tolist())
        yield IndexReplica(replica, rows, left_out, dense, tokens)


@dg.asset(
    deps=[POLICY_FILES.key],
    group_name="runs",
    pool=MODEL_ENDPOINT_POOL,
    description="The noise band of the rerank stage: each cut of rerank_cuts repeated over the noise band's index "
    "replicas (retrieval_noise's), the answerer's retriever's candidates of every answerable question of the noise "
    "sample (retrieval_noise's) of the companies still in it reranked as reranked_retrievals does; per replica, scope "
    "and cut, page hit among the kept passages before and after the reranker there and in the measurement on the same "
    "questions, and each difference in points. An endpoint reranker is called once more per replica.",
)
def rerank_noise(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    question_embeddings: pd.DataFrame,
    gold_by_search_scope: pd.DataFrame,
    reranked_retrievals: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    checked_index(settings, embedder, search_index)
    sample = sampled_questions(settings, golden_questions)
    answerable = cast(pd.DataFrame, sample[sample.expected_route == ANSWER])
    vectors = dict(zip(answerable.question_id, question_vectors(question_embeddings, answerable.question_id)))
    retriever, depths = settings.answer_search(), sorted({candidates for candidates, _ in settings.cuts()})
    reranker, runs = settings.reranker_adapter(), []
    if isinstance(reranker, LexicalFigureReranker):  # deterministic: the replicas' repeated passages scored once
        reranker = LexicalFigureReranker(remember_scores=True)
    chunks = chunk_columns(search_index)  # a replica holds some of the index's chunks, each as the index has it
    in_corpus_scope = corpus_sample(settings, golden_questions, gold_by_search_scope)
    try:
        for replica in index_replicas(settings, search_index):
            rows = replica.rows
            kept = cast(pd.DataFrame, answerable[~answerable.cik.isin(replica.left_out)])
            cases = {
                (c.question_id, c.search_scope): c
                for c in measured_cases(settings, kept, gold_by_search_scope, rows, in_corpus_scope)
            }
            found = search_runs(rows, replica.searches(settings.rrf_k, (retriever,)), cases.values(), vectors, depths)
            ranked = pd.DataFrame(run for run in found if run["error"] is None)
            for run in _rerank_cuts(settings, reranker, ranked, chunks, cases) if len(ranked) else []:
                runs.append({"replica": replica.number, **{key: run[key] for key in RERANK_NOISE_KEYS}})
    finally:
        reranker.close()
    deltas = rerank_deltas(pd.DataFrame(runs, columns=["replica", *RERANK_NOISE_KEYS]), reranked_retrievals)
    return table_output(
        deltas,
        {
            "reranker": reranker.reranker_id,
            "replicas": settings.noise_replicas,
            "questions_sampled": sample_words(sample, golden_questions),
            "largest_swing_points": float(deltas[["delta_before_points", "delta_after_points"]].abs().to_numpy().max())
            if len(deltas)
            else 0.0,
        },
    )


RERANK_NOISE_KEYS = ["question_id", "search_scope", "candidates", "kept", "page_hit_before", "page_hit_after"]


ASSETS = [retrieval_noise, rerank_noise]
