"""The index's own noise: the retrievals repeated over replicas of the index that leave companies out and store rows in
another order, with and without the reranker. Each is sharded as the measurement is (defs/shards.py), so a night that
changed one filing searches the replicas again only for the questions that search its company; the bands' assets
(statistics) pair the replicas' rows with the measurement's."""

import json
from collections.abc import Callable, Iterator, Set
from dataclasses import dataclass, field
from typing import cast

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.answering.rerank import LexicalFigureReranker
from edgar_eval.defs.common import checked_index, question_vectors
from edgar_eval.defs.executors import MODEL_ENDPOINT_POOL
from edgar_eval.defs.retrieval.runs import (
    chunk_columns,
    corpus_sample,
    measured_cases,
    rerank_cut_rows,
    shard_slices,
    with_cut_order,
)
from edgar_eval.defs.settings import EmbedderResource, EvalSettings
from edgar_eval.defs.shards import materialize_shards, shard_asset
from edgar_eval.defs.source_files import POLICY_FILES
from edgar_eval.domain.routes import ANSWER
from edgar_eval.evaluation.noise_band import left_out_companies, noise_sample, perturbed_index
from edgar_eval.evaluation.search_scopes import ScopedCase, search_runs
from edgar_eval.evaluation.shards import ORDER_COLUMN, case_order, shard_questions
from edgar_eval.retrieval.bm25 import ChunkTokens
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.searches import RETRIEVERS, Search, searches


@shard_asset(
    "The noise band's replicas: the retrieval measurement repeated over indexes that differ only as a live one would "
    "(settings noise_replicas; each leaves noise_companies_left_out companies' filings out, seeded, and stores the "
    "rest in a seeded order, so ties break another way), on every answerable question of the companies still in it of "
    "the noise sample (all questions up to noise_questions, a seeded sample beyond; in the corpus scope those of its "
    "sample); per replica, question, scope, retriever and depth, the page hit, and the companies the replica left "
    "out. retrieval_noise_band pairs them with the measurement.",
    deps=(POLICY_FILES.key,),
)
def retrieval_noise(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    question_embeddings: pd.DataFrame,
    gold_by_search_scope: pd.DataFrame,
) -> dg.MaterializeResult:
    checked_index(settings, embedder, search_index)  # an index built differently is refused, as the measurement does
    band = NoiseBand.of(settings, search_index, golden_questions, question_embeddings, gold_by_search_scope)
    replicas = band.replicas

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        runs = []
        for replica, cases, vectors in band.cases(shard, only):
            found = search_runs(
                replica.rows, replica.searches(settings.rrf_k), cases.values(), vectors, settings.retrieval_depths
            )
            runs.extend({"replica": replica.number, **{key: run[key] for key in NOISE_KEYS}} for run in found)
        frame = pd.DataFrame(runs, columns=["replica", *NOISE_KEYS])
        frame["left_out"] = frame.replica.map(lambda number: replicas.left_out[number])
        return frame.assign(**{ORDER_COLUMN: case_order(golden_questions, frame.question_id, frame.search_scope)})

    def figures(rows: pd.DataFrame) -> dict:
        return {
            "replicas": settings.noise_replicas,
            "questions_sampled": sample_words(band.sample, golden_questions),
            "left_out": dg.MetadataValue.json({str(r): companies for r, companies in replicas.left_out.items()}),
            "searches": len(rows),
        }

    return materialize_shards(context, settings, "retrieval_noise", work, band.slices, replicas.stamp(), figures)


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
class NoiseBand:
    """What the retrieval and rerank bands share: the noise sample, its answerable questions, the corpus scope's
    sample, the replicas, and the slices each shard is stamped with (the measurement's, over these questions)."""

    settings: EvalSettings
    sample: pd.DataFrame
    answerable: pd.DataFrame
    in_corpus_scope: frozenset[str] | None
    replicas: "IndexReplicas"
    question_embeddings: pd.DataFrame
    gold_by_search_scope: pd.DataFrame
    slices: Callable[[str], dict[str, pd.DataFrame]]

    @classmethod
    def of(
        cls,
        settings: EvalSettings,
        search_index: pd.DataFrame,
        golden_questions: pd.DataFrame,
        question_embeddings: pd.DataFrame,
        gold_by_search_scope: pd.DataFrame,
    ) -> "NoiseBand":
        sample = sampled_questions(settings, golden_questions)
        answerable = cast(pd.DataFrame, sample[sample.expected_route == ANSWER])
        # the corpus scope's questions are the measurement's sample, not drawn from the band's
        in_corpus_scope = corpus_sample(settings, golden_questions, gold_by_search_scope)
        slices = shard_slices(
            answerable,
            search_index,
            settings.search_scopes,
            in_corpus_scope,
            gold_by_search_scope=gold_by_search_scope,
            question_embeddings=question_embeddings,
        )
        replicas = IndexReplicas(settings, search_index)
        return cls(
            settings, sample, answerable, in_corpus_scope, replicas, question_embeddings, gold_by_search_scope, slices
        )

    def cases(
        self, shard: str, only: Set[str] | None
    ) -> Iterator[tuple["IndexReplica", dict[tuple[str, str], ScopedCase], dict[str, np.ndarray]]]:
        """Per replica, the shard's questions (of `only`, when given) of the companies still in it as the measurement
        searches them there, by (question, scope), and their vectors; nothing for a shard without questions."""
        questions = shard_questions(self.answerable, shard, only)
        if not len(questions):
            return
        vectors = dict(zip(questions.question_id, question_vectors(self.question_embeddings, questions.question_id)))
        for replica in self.replicas:
            kept = cast(pd.DataFrame, questions[~questions.cik.isin(replica.left_out)])
            found = measured_cases(
                self.settings, kept, self.gold_by_search_scope, replica.rows, self.in_corpus_scope, shard
            )
            yield replica, {(case.question_id, case.search_scope): case for case in found}, vectors


@dataclass(frozen=True)
class IndexReplica:
    """One of the noise band's replicas of the index: its number, its rows, the companies it leaves out, its dense
    index, and the index's chunks tokenised once for every replica (its BM25 indexes are built from them). Its
    searches are kept for the step, so each company's BM25 index is built once per replica, not once per shard."""

    number: int
    rows: pd.DataFrame
    left_out: list[str]
    dense: DenseIndex
    tokens: ChunkTokens
    _searches: dict[tuple[int, tuple[str, ...]], dict[str, Search]] = field(default_factory=dict, compare=False)

    def searches(self, rrf_k: int, wanted: tuple[str, ...] = RETRIEVERS) -> dict[str, Search]:
        if (rrf_k, wanted) not in self._searches:
            self._searches[(rrf_k, wanted)] = searches(self.rows, self.dense, rrf_k, wanted, self.tokens)
        return self._searches[(rrf_k, wanted)]


class IndexReplicas:
    """The noise band's replicas of the index, the same in every asset that reads them, built when a shard first
    needs them (a step whose shards are all kept builds none) and kept for the step. The chunks are tokenised once,
    when the first replica's BM25 index is built, not once per replica."""

    def __init__(self, settings: EvalSettings, search_index: pd.DataFrame) -> None:
        self._settings, self._index = settings, search_index
        self._built: list[IndexReplica] | None = None
        companies = search_index.cik.astype(str)
        self.left_out = {
            replica: left_out_companies(companies, self._seed(replica), settings.noise_companies_left_out)
            for replica in range(settings.noise_replicas)
        }

    def _seed(self, replica: int) -> int:
        return self._settings.golden_seed * 1000 + replica

    def stamp(self) -> dict[str, str]:
        """What every shard of a noise step shares beyond the settings: the companies each replica leaves out (they
        are drawn from every company, so a company added or removed redraws them and remakes every shard)."""
        return {"left_out": json.dumps(self.left_out, sort_keys=True)}

    def __iter__(self):
        if self._built is None:
            tokens = ChunkTokens(self._index.chunk_id, self._index.text)  # the columns, not copies of them
            self._built = []
            for replica in range(self._settings.noise_replicas):
                left_out = self.left_out[replica]
                rows = perturbed_index(self._index, self._seed(replica), left_out)
                dense = DenseIndex(np.stack(rows.embedding.to_numpy()), rows.filing_id.tolist())
                self._built.append(IndexReplica(replica, rows, left_out, dense, tokens))
        return iter(self._built)


@shard_asset(
    "The noise band of the rerank stage: each cut of rerank_cuts repeated over the noise band's index replicas "
    "(retrieval_noise's), the answerer's retriever's candidates of every answerable question of the noise sample "
    "(retrieval_noise's) of the companies still in it reranked as reranked_retrievals does; per replica, question, "
    "scope and cut, page hit among the kept passages before and after the reranker. rerank_noise_band pairs them with "
    "the measurement. An endpoint reranker is called once more per replica.",
    deps=(POLICY_FILES.key,),
    pool=MODEL_ENDPOINT_POOL,
)
def rerank_noise(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    question_embeddings: pd.DataFrame,
    gold_by_search_scope: pd.DataFrame,
) -> dg.MaterializeResult:
    checked_index(settings, embedder, search_index)
    band = NoiseBand.of(settings, search_index, golden_questions, question_embeddings, gold_by_search_scope)
    replicas = band.replicas
    retriever, depths = settings.answer_search(), sorted({candidates for candidates, _ in settings.cuts()})
    reranker = settings.reranker_adapter()
    if isinstance(reranker, LexicalFigureReranker):  # deterministic: the replicas' repeated passages scored once
        reranker = LexicalFigureReranker(remember_scores=True)
    chunks = chunk_columns(search_index)  # a replica holds some of the index's chunks, each as the index has it

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        runs = []
        for replica, cases, vectors in band.cases(shard, only):
            search = replica.searches(settings.rrf_k, (retriever,))
            found = search_runs(replica.rows, search, cases.values(), vectors, depths)
            ranked = pd.DataFrame(run for run in found if run["error"] is None)
            for run in rerank_cut_rows(settings, reranker, ranked, chunks, cases) if len(ranked) else []:
                runs.append({"replica": replica.number, **{key: run[key] for key in RERANK_NOISE_KEYS}})
        return with_cut_order(pd.DataFrame(runs, columns=["replica", *RERANK_NOISE_KEYS]), golden_questions, settings)

    def figures(rows: pd.DataFrame) -> dict:
        return {
            "reranker": reranker.reranker_id,
            "replicas": settings.noise_replicas,
            "questions_sampled": sample_words(band.sample, golden_questions),
            "reranked": len(rows),
        }

    try:
        shared = {**replicas.stamp(), "reranker": reranker.reranker_id}
        return materialize_shards(context, settings, "rerank_noise", work, band.slices, shared, figures)
    finally:
        reranker.close()


RERANK_NOISE_KEYS = ["question_id", "search_scope", "candidates", "kept", "page_hit_before", "page_hit_after"]


ASSETS = [retrieval_noise, rerank_noise]
