"""What each retriever returns for each golden question: the answerer's retrievals, every retriever's rankings, reranked
and expanded retrievals."""

import functools
import json
import time
from collections.abc import Callable, Iterator, Sequence, Set
from typing import cast

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.corpus.partitioned import PartitionedTable, current_partitions
from edgar_eval.defs.common import checked_index, question_vectors
from edgar_eval.defs.executors import MODEL_ENDPOINT_POOL
from edgar_eval.defs.io_manager import columns_of
from edgar_eval.defs.settings import EmbedderResource, EvalSettings
from edgar_eval.defs.shards import company_versions, materialize_shards, rows_version, shard_asset
from edgar_eval.defs.source_files import POLICY_FILES, access_policy
from edgar_eval.domain.ports import Reranker
from edgar_eval.domain.routes import ANSWER
from edgar_eval.evaluation.retrieval_hits import hit_record
from edgar_eval.evaluation.search_scopes import (
    ScopedCase,
    corpus_scope_sample,
    scoped_cases,
    search_runs,
    searchable_filings,
)
from edgar_eval.evaluation.shards import (
    CORPUS_SHARD,
    ORDER_COLUMN,
    case_order,
    question_order,
    shard_questions,
    shard_scopes,
)
from edgar_eval.evaluation.table_expansion import PassageReader, expansion_frame, expansion_runs
from edgar_eval.retrieval.bm25 import INDEX_ID as BM25_INDEX_ID
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.scope import COMPANY_YEAR, CORPUS
from edgar_eval.retrieval.searches import Search, searches


@shard_asset(
    "The passages the answerer reads: the top K chunks per golden question from the answerer's retriever (settings "
    "answer_retriever and top_k; hybrid by default), scoped to the company's filings of the fiscal year asked that the "
    "asking role may read, with each chunk's cosine to the question (what the cosine and relevance gates read) and "
    "document, page and gold-chunk hits.",
)
def answerer_retrievals(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    question_embeddings: pd.DataFrame,
) -> dg.MaterializeResult:
    index_rows, golden = search_index, golden_questions
    index, _ = checked_index(settings, embedder, index_rows)
    retriever = settings.answer_search()
    search = searches(index_rows, index, settings.rrf_k, (retriever,))[retriever]
    slices = shard_slices(golden, index_rows, (COMPANY_YEAR,), question_embeddings=question_embeddings)

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        questions = shard_questions(golden, shard, only)
        if not len(questions) or not shard_scopes(shard, (COMPANY_YEAR,)):
            return pd.DataFrame()
        rows = _answerer_rows(settings, index_rows, index, search, questions, question_embeddings)
        frame = pd.DataFrame(rows)
        return frame.assign(**{ORDER_COLUMN: question_order(golden, frame.question_id)})

    def figures(rows: pd.DataFrame) -> dict:
        answerable = rows[golden.set_index("question_id").expected_route.loc[rows.question_id].to_numpy() == ANSWER]
        return {
            "questions": len(rows),
            "retriever": settings.answer_retriever,
            "k": settings.top_k,
            "document_hit_rate": float(answerable.document_hit.mean()) if len(answerable) else float("nan"),
            "chunk_hit_rate": float(answerable.chunk_hit.mean()) if len(answerable) else float("nan"),
        }

    return materialize_shards(context, settings, "answerer_retrievals", work, slices, {}, figures)


def _answerer_rows(
    settings: EvalSettings,
    index_rows: pd.DataFrame,
    index: DenseIndex,
    search: Search,
    golden: pd.DataFrame,
    question_embeddings: pd.DataFrame,
) -> list[dict]:
    """Each of these questions searched as the answerer searches it: the passages found, their cosines and hits."""
    queries = question_vectors(question_embeddings, golden.question_id)
    seconds = question_embeddings.set_index("question_id").embed_seconds.loc[golden.question_id.to_numpy()]
    rows = []
    for question, query, embed_seconds in zip(iter_rows(golden), queries, seconds):
        started = time.perf_counter()
        # only what the asking role may read is searched: a barred filing's passage cannot reach the answerer
        hits = search(query, question.question, list(question.permitted_filing_ids), settings.top_k)
        search_seconds = time.perf_counter() - started
        found = index_rows.iloc[[h.row for h in hits]]
        cosines = index.cosines(query, [h.row for h in hits])
        record = hit_record(
            found.chunk_id.tolist(),
            found.filing_id.tolist(),
            [list(p) for p in found.pages],
            list(question.gold_chunk_ids),
            list(question.gold_filing_ids),
            list(question.gold_pages),
        )
        rows.append(
            {
                "question_id": question.question_id,
                "retriever": settings.answer_retriever,
                "k": settings.top_k,
                "chunk_ids": found.chunk_id.tolist(),
                "filing_ids": found.filing_id.tolist(),
                "scores": [h.score for h in hits],
                "cosines": [float(c) for c in cosines],
                "embed_seconds": embed_seconds,
                "search_seconds": search_seconds,
                **record,
            }
        )
    return rows


def corpus_sample(
    settings: EvalSettings, golden_questions: pd.DataFrame, gold_by_search_scope: pd.DataFrame
) -> frozenset[str] | None:
    """The questions the corpus scope measures, drawn from the whole golden set (settings corpus_scope_questions: all
    fair there up to that many, a seeded sample beyond; None: all, or no corpus scope in search_scopes), the same in
    every step that searches it."""
    if CORPUS not in settings.search_scopes:
        return None
    return corpus_scope_sample(
        golden_questions, gold_by_search_scope, settings.corpus_scope_questions, settings.golden_seed
    )


def measured_cases(
    settings: EvalSettings,
    questions: pd.DataFrame,
    gold_by_search_scope: pd.DataFrame,
    index_rows: pd.DataFrame,
    sample: frozenset[str] | None,
    shard: str | None = None,
) -> Iterator[ScopedCase]:
    """The questions the retrieval measurement searches in each scope of the settings (of those `shard` measures,
    when given), over the filings `index_rows` holds, each with its scope's gold, searched as the asking role may; in
    the corpus scope only those of `sample` (corpus_sample: None, every one)."""
    scopes = settings.search_scopes if shard is None else shard_scopes(shard, settings.search_scopes)
    return scoped_cases(
        questions,
        gold_by_search_scope,
        searchable_filings(index_rows),
        access_policy(settings),
        scopes,
        sample,
    )


def shard_slices(
    golden: pd.DataFrame,
    index_rows: pd.DataFrame,
    scopes: Sequence[str],
    sample: frozenset[str] | None = None,
    filing_text: pd.DataFrame | None = None,
    **tables: pd.DataFrame,
) -> Callable[[str], dict[str, pd.DataFrame]]:
    """What a shard of a step measuring these search `scopes` is built from, question by question (defs/shards.py's
    question_stamps): its golden questions, these tables' rows of them, and the versions of the index rows (and of
    `filing_text`'s texts, when the step reads them) each question can search: a company shard's question those of the
    companies it searches (its own, and a two-document question's other company's); the corpus shard's questions (of
    the corpus scope's `sample`; None: every one) the whole index's. A shard that measures none of `scopes` is built
    from nothing."""
    cik_of_filing = dict(zip(index_rows.filing_id.astype(str), index_rows.cik.astype(str)))

    @functools.cache
    def versions() -> tuple[dict[str, str], dict[str, str]]:  # each company's index rows and texts, once per step
        texts = (
            {}
            if filing_text is None
            else company_versions(filing_text.assign(cik=filing_text.filing_id.map(cik_of_filing)), rows_version)
        )
        return company_versions(index_rows), texts

    def searched(questions: pd.DataFrame, of: dict[str, str]) -> pd.DataFrame:
        """Each question's version of what it searches: the versions in `of` of its company's rows and of the
        companies of the filings its role may read (a search reads no other)."""
        companies = [
            sorted({str(cik), *(cik_of_filing.get(str(f), "") for f in permitted)} - {""})
            for cik, permitted in zip(questions.cik, questions.permitted_filing_ids)
        ]
        return pd.DataFrame(
            {
                "question_id": questions.question_id.to_numpy(),
                "version": [json.dumps({c: of.get(c, "") for c in own}, sort_keys=True) for own in companies],
            }
        )

    def slices(shard: str) -> dict[str, pd.DataFrame]:
        measured = shard_scopes(shard, scopes)
        if not measured:
            return {}
        # the corpus shard measures the corpus scope's sample alone
        questions = shard_questions(golden, shard, only=sample if shard == CORPUS_SHARD else None)
        index, texts = versions()
        own = {
            "golden_questions": questions,
            **{name: _rows_in(_rows_of(table, questions), measured) for name, table in tables.items()},
        }
        if shard == CORPUS_SHARD:  # every question of the sample searches every company's filings
            own["search_index"] = pd.DataFrame({"version": [json.dumps(index, sort_keys=True)]})
            if filing_text is not None:
                own["filing_text"] = pd.DataFrame({"version": [json.dumps(texts, sort_keys=True)]})
            return own
        own["search_index"] = searched(questions, index)
        if filing_text is not None:
            own["filing_text"] = searched(questions, texts)
        return own

    return slices


def _rows_in(frame: pd.DataFrame, scopes: tuple[str, ...]) -> pd.DataFrame:
    """The rows of a per-question table in these search scopes (every row of a table without scopes)."""
    if "search_scope" not in frame.columns:
        return frame
    return cast(pd.DataFrame, frame[frame.search_scope.isin(scopes)])


def _rows_of(frame: pd.DataFrame, questions: pd.DataFrame) -> pd.DataFrame:
    """The rows of a per-question table that belong to these questions, in the table's order."""
    return cast(pd.DataFrame, frame[frame.question_id.isin(questions.question_id)])


@shard_asset(
    "The retrieval measurement: every golden question searched by dense (exact cosine), BM25 (bm25s) and hybrid "
    "(reciprocal rank fusion) retrievers, each depth K its own search, in each search scope of the settings "
    "(search_scopes): the answerer's (the company's filings of the fiscal year asked), every filing of the company "
    "and the whole corpus, each with its own gold (gold_by_search_scope); per question, scope and run, document and "
    "page hits, recall@K, precision@K, reciprocal rank, nDCG@10, or the error. Every shard searches the one "
    "corpus-wide index.",
    deps=(POLICY_FILES.key,),
)
def retriever_rankings(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    question_embeddings: pd.DataFrame,
    gold_by_search_scope: pd.DataFrame,
) -> dg.MaterializeResult:
    index_rows, golden = search_index, golden_questions
    dense, _ = checked_index(settings, embedder, index_rows)
    retrievers = searches(index_rows, dense, settings.rrf_k)
    sample = corpus_sample(settings, golden, gold_by_search_scope)
    slices = shard_slices(
        golden,
        index_rows,
        settings.search_scopes,
        sample,
        gold_by_search_scope=gold_by_search_scope,
        question_embeddings=question_embeddings,
    )

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        questions = shard_questions(golden, shard, only)
        if not len(questions):
            return pd.DataFrame()
        vectors = dict(zip(questions.question_id, question_vectors(question_embeddings, questions.question_id)))
        cases = measured_cases(settings, questions, gold_by_search_scope, index_rows, sample, shard)
        frame = pd.DataFrame(list(search_runs(index_rows, retrievers, cases, vectors, settings.retrieval_depths)))
        if len(frame):
            frame[ORDER_COLUMN] = case_order(golden, frame.question_id, frame.search_scope)
        return frame

    def figures(rows: pd.DataFrame) -> dict:
        return {
            "runs": len(rows),
            "errors": int(rows.error.notna().sum()) if len(rows) else 0,
            "questions_by_scope": dg.MetadataValue.json(
                rows.groupby("search_scope").question_id.nunique().sort_index().to_dict() if len(rows) else {}
            ),
            "bm25": BM25_INDEX_ID,
            "depths": ", ".join(map(str, settings.retrieval_depths)),
            "rrf_k": settings.rrf_k,
        }

    return materialize_shards(context, settings, "retriever_rankings", work, slices, {}, figures)


@shard_asset(
    'The rerank stage, measured: for each cut of the settings (rerank_cuts, "candidates:kept"), the answerer\'s '
    "retriever's top candidates of every answerable question in every search scope, reranked by the configured "
    "reranker (reranker: the offline lexical and figure-aware one, or a /rerank endpoint), the best kept; page and "
    "chunk hits among the kept passages before (the retriever's own first ones) and after, and the rerank's wall time "
    "per question.",
    deps=(POLICY_FILES.key,),
    pool=MODEL_ENDPOINT_POOL,
)
def reranked_retrievals(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    retriever_rankings: pd.DataFrame,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    gold_by_search_scope: pd.DataFrame,
) -> dg.MaterializeResult:
    golden = golden_questions
    chunks = chunk_columns(search_index)
    ranked = cast(
        pd.DataFrame,
        retriever_rankings[
            (retriever_rankings.retriever == settings.answer_retriever)
            & (retriever_rankings.expected_route == ANSWER)
            & retriever_rankings.error.isna()
        ],
    )
    sample = corpus_sample(settings, golden, gold_by_search_scope)
    slices = shard_slices(
        golden,
        search_index,
        settings.search_scopes,
        sample,
        gold_by_search_scope=gold_by_search_scope,
        retriever_rankings=ranked,
    )
    reranker = settings.reranker_adapter()

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        questions = shard_questions(golden, shard, only)
        cases = {
            (case.question_id, case.search_scope): case
            for case in measured_cases(settings, questions, gold_by_search_scope, search_index, sample, shard)
        }
        own = _rows_in(_rows_of(ranked, questions), shard_scopes(shard, settings.search_scopes))
        frame = pd.DataFrame(rerank_cut_rows(settings, reranker, own, chunks, cases))
        return with_cut_order(frame, golden, settings)

    def figures(rows: pd.DataFrame) -> dict:
        return {
            "reranker": reranker.reranker_id,
            "cuts": ", ".join(settings.rerank_cuts),
            "questions": int(rows.question_id.nunique()) if len(rows) else 0,
            "rerank_p50_ms": float(np.percentile(rows.rerank_seconds, 50) * 1000) if len(rows) else 0.0,
        }

    try:
        with_reranker = {"reranker": reranker.reranker_id}
        return materialize_shards(context, settings, "reranked_retrievals", work, slices, with_reranker, figures)
    finally:
        reranker.close()


def with_cut_order(frame: pd.DataFrame, golden: pd.DataFrame, settings: EvalSettings) -> pd.DataFrame:
    """A shard's rows of a step that goes cut by cut (rerank_cuts), with their corpus order."""
    if not len(frame):
        return frame
    cuts = {cut: place for place, cut in enumerate(settings.cuts())}
    place = np.array([cuts[(c, k)] for c, k in zip(frame.candidates, frame.kept)], dtype="int64")
    return frame.assign(**{ORDER_COLUMN: case_order(golden, frame.question_id, frame.search_scope, place)})


def chunk_columns(index_rows: pd.DataFrame) -> dict[str, dict]:
    """The text, filing and pages of each chunk by its id, for the rerank cuts: built once per step (a label lookup in
    the frame per run was most of the step's time, and every shard and replica reads the same chunks)."""
    return {column: dict(zip(index_rows.chunk_id, index_rows[column])) for column in ("text", "filing_id", "pages")}


def rerank_cut_rows(
    settings: EvalSettings, reranker: Reranker, ranked: pd.DataFrame, chunks: dict[str, dict], cases: dict
) -> list[dict]:
    """Each rerank cut over the answerer's retriever's runs of answerable questions (`ranked`): the kept passages and
    their hits before (the retriever's first ones) and after the reranker, and its wall time. `chunks`:
    chunk_columns of the index searched."""
    rows = []
    text, filing_id, pages = chunks["text"], chunks["filing_id"], chunks["pages"]
    for candidates, kept in settings.cuts():
        for run in iter_rows(cast(pd.DataFrame, ranked[ranked.k == candidates])):
            case = cases.get((run.question_id, run.search_scope))
            if case is None:
                raise ValueError(
                    f"retriever_rankings searched question {run.question_id} in the {run.search_scope} scope, which "
                    "these settings do not measure there (search_scopes, corpus_scope_questions or the golden set "
                    "changed since): materialise retriever_rankings again"
                )
            found = list(run.chunk_ids)
            started = time.perf_counter()
            order = [found[r.index] for r in reranker.rerank(case.question, [text[c] for c in found], kept)]
            seconds = time.perf_counter() - started
            hits = {}
            for when, chosen in (("before", found[:kept]), ("after", order)):
                record = hit_record(
                    chosen,
                    [filing_id[c] for c in chosen],
                    [list(pages[c]) for c in chosen],
                    case.gold_chunk_ids,
                    case.gold_filing_ids,
                    case.gold_pages,
                )
                hits.update({f"{name}_{when}": value for name, value in record.items()})
            rows.append(
                {
                    "question_id": run.question_id,
                    "search_scope": run.search_scope,
                    "retriever": settings.answer_retriever,
                    "candidates": candidates,
                    "kept": kept,
                    "reranker": reranker.reranker_id,
                    "kept_chunk_ids": order,
                    **hits,
                    "rerank_seconds": seconds,
                }
            )
    return rows


@shard_asset(
    "Table-chunk expansion, measured: for each rerank cut, the passages kept in the retriever's order and in the "
    "reranker's, each read as it is and expanded (a passage with an end inside a table reaches table_expansion_rows "
    "rows further, within the table, and opens with the table's scale line and header rows); per answerable question "
    "and scope, page hit, whether the gold row as printed is read, and the characters read, both ways.",
    deps=(POLICY_FILES.key,),
    ins={
        # every filing for every shard: a question may read any filing's text
        "filings": dg.AssetIn(metadata=columns_of("filing_id", "sha256"), partition_mapping=dg.AllPartitionMapping()),
        "filing_text": dg.AssetIn(partition_mapping=dg.AllPartitionMapping()),
        "search_index": dg.AssetIn(
            metadata=columns_of("chunk_id", "filing_id", "cik", "form", "fiscal_year", "start", "end", "text", "pages")
        ),
    },
)
def expanded_retrievals(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    retriever_rankings: pd.DataFrame,
    reranked_retrievals: pd.DataFrame,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    gold_by_search_scope: pd.DataFrame,
    filings: PartitionedTable,
    filing_text: PartitionedTable,
) -> dg.MaterializeResult:
    golden = golden_questions
    keys, _ = current_partitions(filings, (filing_text,))
    texts = filing_text.frame(keys)
    ranked = cast(pd.DataFrame, retriever_rankings[retriever_rankings.retriever == settings.answer_retriever])
    sample = corpus_sample(settings, golden, gold_by_search_scope)
    slices = shard_slices(
        golden,
        search_index,
        settings.search_scopes,
        sample,
        texts,
        gold_by_search_scope=gold_by_search_scope,
        retriever_rankings=ranked,
        reranked_retrievals=reranked_retrievals,
    )

    @functools.cache
    def reader() -> PassageReader:  # every shard reads passages of the same index and filings: their tables once
        return PassageReader(search_index, texts, settings.table_expansion_rows)

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        questions = shard_questions(golden, shard, only)
        cases = measured_cases(settings, questions, gold_by_search_scope, search_index, sample, shard)
        answerable = (case for case in cases if case.expected_route == ANSWER)
        scopes = shard_scopes(shard, settings.search_scopes)
        frame = expansion_frame(
            expansion_runs(
                settings.table_expansion_rows,
                settings.cuts(),
                _rows_in(_rows_of(ranked, questions), scopes),
                _rows_in(_rows_of(reranked_retrievals, questions), scopes),
                search_index,
                texts,
                questions.set_index("question_id").gold_quote,
                answerable,
                reader() if settings.table_expansion_rows > 0 else None,
            )
        )
        return with_cut_order(frame, golden, settings)

    def figures(rows: pd.DataFrame) -> dict:
        return {
            "rows_each_way": settings.table_expansion_rows,
            "questions": int(rows.question_id.nunique()) if len(rows) else 0,
            "passages_expanded": int(rows.passages_expanded.sum()) if len(rows) else 0,
        }

    return materialize_shards(context, settings, "expanded_retrievals", work, slices, {}, figures)


ASSETS = [answerer_retrievals, retriever_rankings, reranked_retrievals, expanded_retrievals]
