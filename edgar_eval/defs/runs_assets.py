"""Runs group: answerer_retrievals, the retrieval measurement, generations, abstention gate scores and the six arms'
outcomes."""

import json
import random
import time
from collections.abc import Iterator
from typing import cast

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.answering.answerer import (
    ANSWERED,
    OFFLINE_READERS,
    answer_question,
    exit_route,
)
from edgar_eval.answering.conflicts import passages_disagree
from edgar_eval.answering.extractive import Passage
from edgar_eval.answering.period_guard import period_guard, printed_years
from edgar_eval.answering.relevance import FEATURES, relevance_features
from edgar_eval.answering.rerank import LexicalFigureReranker
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.corpus.partitioned import PartitionedTable, current_partitions
from edgar_eval.defs.common import checked_index, figure_metadata, question_vectors, table_head, table_output
from edgar_eval.defs.executors import MODEL_ENDPOINT_POOL
from edgar_eval.defs.io_manager import columns_of
from edgar_eval.defs.route_assets import access_policy
from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource
from edgar_eval.defs.source_files import POLICY_FILES, TAPE_FILES
from edgar_eval.domain.generation import Generation, GenerationRequest
from edgar_eval.domain.ports import Reranker
from edgar_eval.domain.routes import ANSWER, NO_ANSWER
from edgar_eval.evaluation.abstention import cross_fit, judge_exits, mask_arms
from edgar_eval.evaluation.headline_figures import reader_figures
from edgar_eval.evaluation.judge import judge_case
from edgar_eval.evaluation.noise_band import answer_deltas, perturbed_index, replica_deltas, rerank_deltas
from edgar_eval.evaluation.readers import reader_outcomes, summarise_readers
from edgar_eval.evaluation.retrieval_hits import hit_record
from edgar_eval.evaluation.search_scopes import ScopedCase, scoped_cases, search_runs, searchable_filings
from edgar_eval.evaluation.table_expansion import expansion_frame, expansion_runs
from edgar_eval.evaluation.wrong_answers import RIGHT, categories_of, category_table
from edgar_eval.retrieval.bm25 import INDEX_ID as BM25_INDEX_ID
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.searches import searches


@dg.asset(
    group_name="runs",
    description="The passages the answerer reads: the top K chunks per golden question from the answerer's retriever "
    "(settings answer_retriever and top_k; hybrid by default), scoped to the company's filings of the fiscal year "
    "asked that the asking role may read, with each chunk's cosine to the question (what the cosine and relevance "
    "gates read) and document, page and gold-chunk hits.",
)
def answerer_retrievals(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    question_embeddings: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    index_rows, golden = search_index, golden_questions
    index, _ = checked_index(settings, embedder, index_rows)
    retriever = settings.answer_search()
    search = searches(index_rows, index, settings.rrf_k, (retriever,))[retriever]
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
    frame = pd.DataFrame(rows)
    answerable = frame[golden.expected_route.to_numpy() == "answer"]
    return table_output(
        frame,
        {
            "questions": len(frame),
            "retriever": settings.answer_retriever,
            "k": settings.top_k,
            "document_hit_rate": float(answerable.document_hit.mean()) if len(answerable) else float("nan"),
            "chunk_hit_rate": float(answerable.chunk_hit.mean()) if len(answerable) else float("nan"),
        },
    )


def measured_cases(
    settings: EvalSettings, golden: pd.DataFrame, gold_by_search_scope: pd.DataFrame, index_rows: pd.DataFrame
) -> Iterator[ScopedCase]:
    """The questions the retrieval measurement searches in each scope of the settings, over the filings `index_rows`
    holds, each with its scope's gold, searched as the asking role may."""
    return scoped_cases(
        golden, gold_by_search_scope, searchable_filings(index_rows), access_policy(settings), settings.search_scopes
    )


@dg.asset(
    deps=[POLICY_FILES.key],
    group_name="runs",
    description="The retrieval measurement: every golden question searched by dense (exact cosine), BM25 (bm25s) and "
    "hybrid (reciprocal rank fusion) retrievers, each depth K its own search, in each search scope of the settings "
    "(search_scopes): the answerer's (the company's filings of the fiscal year asked), every filing of the company "
    "and the whole corpus, each with its own gold (gold_by_search_scope); per question, scope and run, document and "
    "page hits, recall@K, precision@K, reciprocal rank, nDCG@10, or the error.",
)
def retriever_rankings(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    question_embeddings: pd.DataFrame,
    gold_by_search_scope: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    index_rows, golden = search_index, golden_questions
    dense, _ = checked_index(settings, embedder, index_rows)
    retrievers = searches(index_rows, dense, settings.rrf_k)
    vectors = dict(zip(golden.question_id, question_vectors(question_embeddings, golden.question_id)))
    cases = measured_cases(settings, golden, gold_by_search_scope, index_rows)
    rows = list(search_runs(index_rows, retrievers, cases, vectors, settings.retrieval_depths))
    frame = pd.DataFrame(rows)
    return table_output(
        frame,
        {
            "runs": len(frame),
            "errors": int(frame.error.notna().sum()),
            "questions_by_scope": dg.MetadataValue.json(
                frame.groupby("search_scope").question_id.nunique().sort_index().to_dict()
            ),
            "bm25": BM25_INDEX_ID,
            "depths": ", ".join(map(str, settings.retrieval_depths)),
            "rrf_k": settings.rrf_k,
        },
    )


@dg.asset(
    deps=[POLICY_FILES.key],
    group_name="runs",
    pool=MODEL_ENDPOINT_POOL,
    description='The rerank stage, measured: for each cut of the settings (rerank_cuts, "candidates:kept"), the '
    "answerer's retriever's top candidates of every answerable question in every search scope, reranked by the "
    "configured reranker (reranker: the offline lexical and figure-aware one, or a /rerank endpoint), the best kept; "
    "page and chunk hits among the kept passages before (the retriever's own first ones) and after, and the rerank's "
    "wall time per question.",
)
def reranked_retrievals(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    retriever_rankings: pd.DataFrame,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    gold_by_search_scope: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    reranker = settings.reranker_adapter()
    chunks = search_index.set_index("chunk_id")
    cases = {
        (case.question_id, case.search_scope): case
        for case in measured_cases(settings, golden_questions, gold_by_search_scope, search_index)
    }
    ranked = cast(
        pd.DataFrame,
        retriever_rankings[
            (retriever_rankings.retriever == settings.answer_retriever)
            & (retriever_rankings.expected_route == ANSWER)
            & retriever_rankings.error.isna()
        ],
    )
    try:
        rows = _rerank_cuts(settings, reranker, ranked, chunks, cases)
    finally:
        reranker.close()
    frame = pd.DataFrame(rows)
    return table_output(
        frame,
        {
            "reranker": reranker.reranker_id,
            "cuts": ", ".join(settings.rerank_cuts),
            "questions": int(frame.question_id.nunique()) if len(frame) else 0,
            "rerank_p50_ms": float(np.percentile(frame.rerank_seconds, 50) * 1000) if len(frame) else 0.0,
        },
    )


def _rerank_cuts(
    settings: EvalSettings, reranker: Reranker, ranked: pd.DataFrame, chunks: pd.DataFrame, cases: dict
) -> list[dict]:
    """Each rerank cut over the answerer's retriever's runs of answerable questions (`ranked`): the kept passages and
    their hits before (the retriever's first ones) and after the reranker, and its wall time."""
    rows = []
    for candidates, kept in settings.cuts():
        for run in iter_rows(cast(pd.DataFrame, ranked[ranked.k == candidates])):
            case = cases[(run.question_id, run.search_scope)]
            found = list(run.chunk_ids)
            started = time.perf_counter()
            order = [found[r.index] for r in reranker.rerank(case.question, chunks.text.loc[found].tolist(), kept)]
            seconds = time.perf_counter() - started
            hits = {}
            for when, chosen in (("before", found[:kept]), ("after", order)):
                record = hit_record(
                    chosen,
                    chunks.filing_id.loc[chosen].tolist(),
                    [list(p) for p in chunks.pages.loc[chosen]],
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


@dg.asset(
    deps=[POLICY_FILES.key],
    group_name="runs",
    ins={
        "filings": dg.AssetIn(metadata=columns_of("filing_id", "sha256")),
        "search_index": dg.AssetIn(
            metadata=columns_of("chunk_id", "filing_id", "cik", "form", "fiscal_year", "start", "end", "text", "pages")
        ),
    },
    description="Table-chunk expansion, measured: for each rerank cut, the passages kept in the retriever's order and "
    "in the reranker's, each read as it is and expanded (a passage with an end inside a table reaches "
    "table_expansion_rows rows further, within the table, and opens with the table's scale line and header rows); "
    "per answerable question and scope, page hit, whether the gold row as printed is read, and the characters read, "
    "both ways.",
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
) -> dg.Output[pd.DataFrame]:
    keys, _ = current_partitions(filings, (filing_text,))
    cases = measured_cases(settings, golden_questions, gold_by_search_scope, search_index)
    answerable = (case for case in cases if case.expected_route == ANSWER)
    frame = expansion_frame(
        expansion_runs(
            settings.table_expansion_rows,
            settings.cuts(),
            cast(pd.DataFrame, retriever_rankings[retriever_rankings.retriever == settings.answer_retriever]),
            reranked_retrievals,
            search_index,
            filing_text.frame(keys),
            golden_questions.set_index("question_id").gold_quote,
            answerable,
        )
    )
    return table_output(
        frame,
        {
            "rows_each_way": settings.table_expansion_rows,
            "questions": int(frame.question_id.nunique()) if len(frame) else 0,
            "passages_expanded": int(frame.passages_expanded.sum()) if len(frame) else 0,
        },
    )


@dg.asset(
    deps=[POLICY_FILES.key],
    group_name="runs",
    description="The noise band's replicas: the retrieval measurement repeated over indexes that differ only as a live "
    "one would (settings noise_replicas; each leaves noise_companies_left_out companies' filings out, seeded, and "
    "stores the rest in a seeded order, so ties break another way), on every answerable question of the companies "
    "still in it; per replica, scope, retriever and depth, page hits there and in the measurement on the same "
    "questions, and the difference in points.",
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
    answerable = cast(pd.DataFrame, golden_questions[golden_questions.expected_route == ANSWER])
    vectors = dict(zip(answerable.question_id, question_vectors(question_embeddings, answerable.question_id)))
    runs, left_out = [], {}
    for replica, rows, left_out[replica], dense in index_replicas(settings, search_index):
        kept = cast(pd.DataFrame, answerable[~answerable.cik.isin(left_out[replica])])
        cases = measured_cases(settings, kept, gold_by_search_scope, rows)
        for run in search_runs(rows, searches(rows, dense, settings.rrf_k), cases, vectors, settings.retrieval_depths):
            runs.append({"replica": replica, **{key: run[key] for key in NOISE_KEYS}})
    measured = cast(pd.DataFrame, retriever_rankings[retriever_rankings.error.isna()])
    deltas = replica_deltas(pd.DataFrame(runs, columns=["replica", *NOISE_KEYS]), measured)
    if len(deltas):
        deltas["left_out"] = deltas.replica.map(lambda replica: list(left_out[replica]))
    return table_output(
        deltas,
        {
            "replicas": settings.noise_replicas,
            "left_out": dg.MetadataValue.json({str(r): companies for r, companies in left_out.items()}),
            "largest_swing_points": float(deltas.delta_points.abs().max()) if len(deltas) else 0.0,
        },
    )


NOISE_KEYS = ["question_id", "search_scope", "retriever", "k", "page_hit"]


def index_replicas(
    settings: EvalSettings, search_index: pd.DataFrame
) -> Iterator[tuple[int, pd.DataFrame, list[str], DenseIndex]]:
    """The noise band's replicas of the index, the same in every asset that reads them: (replica, its rows, the
    companies left out, its dense index)."""
    for replica in range(settings.noise_replicas):
        rows, left_out = perturbed_index(
            search_index, settings.golden_seed * 1000 + replica, settings.noise_companies_left_out
        )
        yield replica, rows, left_out, DenseIndex(np.stack(rows.embedding.to_numpy()), rows.filing_id.tolist())


@dg.asset(
    deps=[POLICY_FILES.key],
    group_name="runs",
    pool=MODEL_ENDPOINT_POOL,
    description="The noise band of the rerank stage: each cut of rerank_cuts repeated over the noise band's index "
    "replicas (retrieval_noise's), the answerer's retriever's candidates of every answerable question of the "
    "companies still in it reranked as reranked_retrievals does; per replica, scope and cut, page hit among the kept "
    "passages before and after the reranker there and in the measurement on the same questions, and each "
    "difference in points. An endpoint reranker is called once more per replica.",
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
    answerable = cast(pd.DataFrame, golden_questions[golden_questions.expected_route == ANSWER])
    vectors = dict(zip(answerable.question_id, question_vectors(question_embeddings, answerable.question_id)))
    retriever, depths = settings.answer_search(), sorted({candidates for candidates, _ in settings.cuts()})
    reranker, runs = settings.reranker_adapter(), []
    if isinstance(reranker, LexicalFigureReranker):  # deterministic: the replicas' repeated passages scored once
        reranker = LexicalFigureReranker(remember_scores=True)
    try:
        for replica, rows, left_out, dense in index_replicas(settings, search_index):
            kept = cast(pd.DataFrame, answerable[~answerable.cik.isin(left_out)])
            cases = {
                (c.question_id, c.search_scope): c for c in measured_cases(settings, kept, gold_by_search_scope, rows)
            }
            found = search_runs(
                rows, searches(rows, dense, settings.rrf_k, (retriever,)), cases.values(), vectors, depths
            )
            ranked = pd.DataFrame(run for run in found if run["error"] is None)
            for run in (
                _rerank_cuts(settings, reranker, ranked, rows.set_index("chunk_id"), cases) if len(ranked) else []
            ):
                runs.append({"replica": replica, **{key: run[key] for key in RERANK_NOISE_KEYS}})
    finally:
        reranker.close()
    deltas = rerank_deltas(pd.DataFrame(runs, columns=["replica", *RERANK_NOISE_KEYS]), reranked_retrievals)
    return table_output(
        deltas,
        {
            "reranker": reranker.reranker_id,
            "replicas": settings.noise_replicas,
            "largest_swing_points": float(deltas[["delta_before_points", "delta_after_points"]].abs().to_numpy().max())
            if len(deltas)
            else 0.0,
        },
    )


RERANK_NOISE_KEYS = ["question_id", "search_scope", "candidates", "kept", "page_hit_before", "page_hit_after"]


@dg.asset(
    deps=[TAPE_FILES.key],
    group_name="runs",
    pool=MODEL_ENDPOINT_POOL,
    description="The noise band of the answering figures: arm A (no gate) repeated over the noise band's index "
    "replicas (retrieval_noise's: companies left out, rows in another order), every question of the companies still in "
    "it searched by the answerer's retriever at its K in the answerer's scope, answered by the generator and judged "
    "as arm A is; per replica, answer accuracy and false-answer rate there and in the measurement on the same "
    "questions, and the difference in points. Measured for a deterministic offline generator only: a model's "
    "replicas would be new calls no tape holds, so for one the table is empty and the report says not measured.",
)
def answering_noise(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    generator: GeneratorResource,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    question_embeddings: pd.DataFrame,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    checked_index(settings, embedder, search_index)
    model = generator.adapter(settings)
    measured = cast(pd.DataFrame, arm_outcomes[arm_outcomes.arm == "A"])
    runs = []
    deterministic = bool(getattr(model, "deterministic", False))
    if deterministic:
        retriever = settings.answer_search()
        vectors = dict(
            zip(golden_questions.question_id, question_vectors(question_embeddings, golden_questions.question_id))
        )
        for replica, rows, left_out, dense in index_replicas(settings, search_index):
            search = searches(rows, dense, settings.rrf_k, (retriever,))[retriever]
            chunk_ids, texts = rows.chunk_id.to_numpy(), rows.set_index("chunk_id").text
            for case in iter_rows(cast(pd.DataFrame, golden_questions[~golden_questions.cik.isin(left_out)])):
                hits = search(vectors[case.question_id], case.question, list(case.permitted_filing_ids), settings.top_k)
                _, _, row = generation_row(model, case, [str(c) for c in chunk_ids[[h.row for h in hits]]], texts)
                answered = bool(row["answered"])
                runs.append(
                    {
                        "replica": replica,
                        "question_id": case.question_id,
                        "expected_route": case.expected_route,
                        "answered": answered,
                        "figure_correct": answered and figure_correct(row["answer_text"], case),
                    }
                )
    replica_runs = pd.DataFrame(
        runs, columns=["replica", "question_id", "expected_route", "answered", "figure_correct"]
    )
    replica_runs["correct"], replica_runs["false_answer"] = judge_exits(  # as arm A judges: no gate keeps any back
        replica_runs.expected_route.to_numpy() == ANSWER,
        replica_runs.answered.to_numpy(bool),
        replica_runs.figure_correct.to_numpy(bool),
    )
    deltas = answer_deltas(replica_runs, measured)
    return table_output(
        deltas,
        {
            "generator": model.generator_id,
            "measured": deterministic,
            "replicas": settings.noise_replicas if deterministic else 0,
            "largest_swing_points": float(deltas.delta_points.abs().max()) if len(deltas) else 0.0,
        },
    )


def figure_correct(answer_text: str, case) -> bool:
    """Whether an answer states the golden question's figures (`case`: its gold_value, gold_answer, label, fiscal_year,
    gold_figures and gold_direction), by the judge every arm is scored with."""
    return judge_case(answer_text, case).correct


def generation_row(
    model, case, chunk_ids: list[str], texts: pd.Series
) -> tuple[GenerationRequest, Generation | None, dict]:
    """One question put to the generator over the passages read, the citation check, and the route it exits by.
    `case`: a golden question's fields (question, cik, fiscal_year, role, scope_filing_ids, permitted_filing_ids)."""
    request = GenerationRequest(
        case.question,
        tuple((c, str(texts[c])) for c in chunk_ids),
        cik=case.cik,
        fiscal_year=int(case.fiscal_year),
        role=case.role,
    )
    denied = (
        f"role {case.role!r} may read no filing of the scope"
        if len(case.scope_filing_ids) and not len(case.permitted_filing_ids)
        else None
    )
    checked = answer_question(request, model, in_scope=len(case.scope_filing_ids) > 0, denied=denied)
    disagreement = passages_disagree(case.question, [Passage(c, t) for c, t in request.passages])
    generation = checked.generation
    return (
        request,
        generation,
        {
            "generator_id": model.generator_id,
            "model_id": generation.model_id if generation else "",
            "parameters": json.dumps(generation.parameters if generation else {}, sort_keys=True),
            "prompt_version": generation.prompt_version if generation else None,
            "outcome": checked.outcome,
            "answered": checked.outcome == ANSWERED,
            "detail": checked.detail,
            **dict(zip(("route", "route_reason", "route_from"), exit_route(checked, disagreement))),
            "answer_text": generation.text if generation else "",
            "figure": checked.figure,
            "cited_chunk_ids": list(generation.citations) if generation else [],
            "generate_seconds": generation.latency_seconds if generation else 0.0,
            "replayed": bool(generation.replayed) if generation else False,
            "tape_key": generation.tape_key if generation else None,
        },
    )


DETERMINISM_SAMPLE = 40  # questions asked twice to measure whether the same prompt gives the same text


@dg.asset(
    deps=[TAPE_FILES.key],
    group_name="runs",
    pool=MODEL_ENDPOINT_POOL,
    description="One generation per question from the configured generator (the table reader by default; the "
    "extractive reader, an OpenAI-compatible chat model or an external RAG service through a record/replay tape), then "
    "the citation check: answered, model_declined, no_valid_citation or unsupported_claim, with the stated figure and "
    "latency, and the route it exits by (review where the passages read disagree on the asked figure). A seeded "
    "sample is generated twice to measure determinism (not for a deterministic generator, which "
    "would only be compared with itself).",
)
def generations(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    generator: GeneratorResource,
    answerer_retrievals: pd.DataFrame,
    golden_questions: pd.DataFrame,
    search_index: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    golden = golden_questions.set_index("question_id")
    texts = search_index.set_index("chunk_id").text
    model, repeat_model = generator.adapter(settings), generator.adapter(settings, repeat=True)
    retrieved = answerer_retrievals.sort_values("question_id")
    deterministic = bool(getattr(model, "deterministic", False))
    repeat = (
        set()
        if deterministic
        else set(
            random.Random(settings.golden_seed).sample(
                sorted(retrieved.question_id), min(DETERMINISM_SAMPLE, len(retrieved))
            )
        )
    )
    rows = []
    for retrieval in iter_rows(retrieved):
        case = golden.loc[retrieval.question_id]
        request, generation, row = generation_row(model, case, list(retrieval.chunk_ids), texts)
        same_again = None
        if generation is not None and retrieval.question_id in repeat:
            same_again = repeat_model.generate(request).text == generation.text
        rows.append(
            {"question_id": retrieval.question_id, **row, "same_text_again": same_again, "deterministic": deterministic}
        )
    frame = pd.DataFrame(rows)
    latency = frame.generate_seconds.to_numpy()
    return table_output(
        frame,
        {
            "generator": model.generator_id,
            "answered_share": float(frame.answered.mean()),
            "outcomes": dg.MetadataValue.json(frame.outcome.value_counts().sort_index().to_dict()),
            "replayed": int(frame.replayed.sum()),
            "generate_p50_ms": float(np.percentile(latency, 50) * 1000),
            "generate_p95_ms": float(np.percentile(latency, 95) * 1000),
            "head": table_head(frame, ["question_id", "outcome", "answer_text"]),
        },
    )


@dg.asset(
    group_name="runs",
    description="The offline readers (extractive-baseline, table-reader, and the eager reader that errs as language "
    "models do) on the passages the answerer read, for "
    "every answerable question, judged as under arm A: right (Wilson 95%), wrong, declined, beside the share whose "
    "gold chunk was retrieved at the answerer's K (the readers' ceiling).",
)
def reader_accuracy(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    answerer_retrievals: pd.DataFrame,
    golden_questions: pd.DataFrame,
    search_index: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    golden = golden_questions.set_index("question_id")
    retrieved = answerer_retrievals.set_index("question_id")
    texts = search_index.set_index("chunk_id").text
    outcomes = reader_outcomes(
        cast(pd.DataFrame, golden[golden.expected_route == "answer"]),
        retrieved,
        texts,
        OFFLINE_READERS,
    )
    frame = summarise_readers(outcomes)
    return table_output(
        frame,
        {
            "retriever": settings.answer_retriever,
            "k": settings.top_k,
            "right_share": dg.MetadataValue.json(
                {f"{r} ({d})": v for r, d, v in zip(frame.reader, frame.documents, frame.right_share.round(4))}
            ),
            **figure_metadata(reader_figures(frame)),
            "head": table_head(
                frame, ["reader", "documents", "questions", "gold_chunk_retrieved", "right", "wrong", "declined"]
            ),
        },
    )


# What the gates read, and all they read: the question (its text, its company for the folds, and its route, the label
# the relevance model and thresholds are fitted on within dev) and the passages the generator read. Not the tagged
# facts, the filings' company names, or a golden column the twins were built from (fiscal year, kind, concept, scope):
# edgar_eval_tests/test_vocabularies.py fails when one is added.
GATE_INPUTS = {
    "golden_questions": dg.AssetIn(metadata=columns_of("question_id", "question", "cik", "expected_route")),
    "answerer_retrievals": dg.AssetIn(metadata=columns_of("question_id", "chunk_ids", "cosines")),
    "search_index": dg.AssetIn(metadata=columns_of("chunk_id", "text")),
    "golden_set": dg.AssetIn(metadata=columns_of("question_id", "split")),
}


@dg.asset(
    group_name="runs",
    ins=GATE_INPUTS,
    description="Per question: the period guard's verdict (the years the passages the generator read print as "
    "periods: table header years, fiscal years and period ends in sentences; no filing metadata or tagged fact), the "
    "top cosine score and the relevance model's score (retrieval features and the question's capitalised names "
    "against the passages; no company-name resolver), each with its threshold admitting 90% of the fitting "
    "questions' answerable ones. The dev split fits: eval questions are scored by a model and thresholds fitted on "
    "the whole dev split, dev questions two-fold by company within dev.",
)
def abstention_scores(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    answerer_retrievals: pd.DataFrame,
    golden_questions: pd.DataFrame,
    search_index: pd.DataFrame,
    golden_set: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    # The gates read the question and the passages the generator read, nothing the golden builder made its twins
    # from (tagged facts' fiscal years, the company-name resolver): a gate that did would be right by construction.
    # They decide answer against no_answer: a question expected to exit by review or deny is not theirs to score.
    golden = cast(pd.DataFrame, golden_questions[golden_questions.expected_route.isin([ANSWER, NO_ANSWER])])
    retrieved = answerer_retrievals.set_index("question_id")
    texts = search_index.set_index("chunk_id").text
    rows = []
    for question in iter_rows(golden):
        retrieval = retrieved.loc[question.question_id]
        started = time.perf_counter()
        passages = [texts[c] for c in retrieval.chunk_ids]
        guard = period_guard(question.question, printed_years(passages))
        features = relevance_features(question.question, passages, sorted(retrieval.cosines, reverse=True))
        rows.append(
            {
                "question_id": question.question_id,
                "cik": question.cik,
                "answerable": question.expected_route == "answer",
                "period_pass": guard.passes,
                "period_reason": guard.reason,
                **features,
                "gate_seconds": time.perf_counter() - started,
            }
        )
    split = golden_set[["question_id", "split"]]
    scored = cross_fit(pd.DataFrame(rows).merge(split, on="question_id", how="left", validate="one_to_one"))
    brier = float(np.mean((scored.relevance_score - scored.answerable.astype(float)) ** 2))
    return table_output(
        scored,
        {
            "relevance_brier": brier,
            "period_pass_rate": float(scored.period_pass.mean()),
            "cosine_pass_rate": float(scored.cosine_pass.mean()),
            "relevance_pass_rate": float(scored.relevance_pass.mean()),
            "features": ", ".join(FEATURES),
        },
    )


@dg.asset(
    group_name="runs",
    description="The six arms A-F as masks over the one generation per question; each outcome right or wrong against "
    "the golden case, with the question's split (dev or eval).",
)
def arm_outcomes(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    abstention_scores: pd.DataFrame,
    generations: pd.DataFrame,
    golden_questions: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    golden = golden_questions
    judged = generations.merge(
        golden[
            [
                "question_id",
                "expected_route",
                "kind",
                "gold_value",
                "gold_answer",
                "label",
                "fiscal_year",
                "gold_figures",
                "gold_direction",
            ]
        ],
        on="question_id",
    )
    judged["figure_correct"] = [figure_correct(g.answer_text, g) for g in iter_rows(judged)]
    gates = abstention_scores[["question_id", "cik", "split", "period_pass", "cosine_pass", "relevance_pass"]]
    judgements = ["question_id", "answered", "outcome", "figure_correct", "expected_route", "kind", "generate_seconds"]
    outcomes = mask_arms(cast(pd.DataFrame, gates), cast(pd.DataFrame, judged[judgements]))
    return table_output(
        outcomes,
        {
            "questions": int(outcomes.question_id.nunique()),
            "correct_share_by_arm": dg.MetadataValue.json(outcomes.groupby("arm").correct.mean().round(4).to_dict()),
        },
    )


@dg.asset(
    group_name="runs",
    description="Why each wrong answer is wrong, for every reader and every arm (evaluation.wrong_answers): per system "
    "and question, its category from provenance: right; superseded value, scale or sign slip, wrong period (another "
    "column of the gold row), wrong filing, wrong company, wrong line (another row beside the gold row), another "
    "figure read, printed nowhere read; declined with or without the gold passage read; withheld by a gate.",
)
def wrong_answers(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    answerer_retrievals: pd.DataFrame,
    golden_questions: pd.DataFrame,
    search_index: pd.DataFrame,
    generations: pd.DataFrame,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    golden = golden_questions.set_index("question_id")
    retrieved = answerer_retrievals.set_index("question_id")
    texts = search_index.set_index("chunk_id").text
    read = {q: list(ids) for q, ids in zip(answerer_retrievals.question_id, answerer_retrievals.chunk_ids)}
    gold_read = dict(zip(answerer_retrievals.question_id, answerer_retrievals.chunk_hit.astype(bool)))
    company_of = dict(zip(search_index.filing_id, search_index.cik.astype(str)))
    text_of = dict(zip(search_index.chunk_id, search_index.text))
    frames = []
    readers = reader_outcomes(
        cast(pd.DataFrame, golden[golden.expected_route == ANSWER]),
        retrieved,
        texts,
        OFFLINE_READERS,
    )
    for reader, own in readers.groupby("reader", sort=True):
        frames.append(categories_of(f"reader {reader}", own, golden, read, gold_read, text_of, company_of))
    answers = generations.set_index("question_id")
    for arm, own in arm_outcomes.groupby("arm", sort=True):
        scored = own.assign(
            right=own.correct.astype(bool),
            answer_text=[str(answers.answer_text.get(q, "")) for q in own.question_id],
            generated=[bool(answers.answered.get(q, False)) for q in own.question_id],
        )
        frames.append(categories_of(f"arm {arm}", scored, golden, read, gold_read, text_of, company_of))
    frame = pd.concat(frames, ignore_index=True)
    table = category_table(frame)
    wrong = cast(pd.DataFrame, frame[~frame.category.isin([RIGHT])])
    return table_output(
        frame,
        {
            "systems": int(frame.system.nunique()),
            "by_category": dg.MetadataValue.json(
                wrong[wrong.system == "arm A"].category.value_counts().sort_index().to_dict()
            ),
            "head": table_head(table, ["system", "kind", "category", "questions"], rows=12),
        },
    )


ASSETS = [
    wrong_answers,
    answerer_retrievals,
    retriever_rankings,
    retrieval_noise,
    answering_noise,
    reranked_retrievals,
    rerank_noise,
    expanded_retrievals,
    generations,
    reader_accuracy,
    abstention_scores,
    arm_outcomes,
]
