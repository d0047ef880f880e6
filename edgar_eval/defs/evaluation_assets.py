"""Index, golden, runs, statistics and report groups: unpartitioned assets reading every current filing partition."""


import hashlib
import time

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.adapters.embedders import MiniLMEmbedder
from edgar_eval.adapters.parquet_store import ParquetStore
from edgar_eval.answering.extractive import READER_ID, Passage, read
from edgar_eval.answering.period_guard import period_guard
from edgar_eval.answering.relevance import FEATURES, relevance_features
from edgar_eval.defs.common import current_partitions, table_head, unpartitioned_result
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.domain.versioning import content_version
from edgar_eval.evaluation.gates import arm_outcomes as mask_arms
from edgar_eval.evaluation.gates import cross_fit
from edgar_eval.evaluation.judge import figure_matches
from edgar_eval.evaluation.retrieval_hits import hit_record, run_record
from edgar_eval.evaluation.summaries import arm_statistics as summarise_arms
from edgar_eval.evaluation.summaries import SLICES, retrieval_statistics
from edgar_eval.evaluation.summaries import retrieval_slices as summarise_slices
from edgar_eval.golden.templates import TEMPLATE_VERSION, build_golden_questions
from edgar_eval.retrieval.bm25 import INDEX_ID as BM25_INDEX_ID
from edgar_eval.retrieval.bm25 import BM25Index
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.fingerprint import IndexFingerprint, IndexMismatch, check_fingerprint
from edgar_eval.retrieval.hybrid import HybridRetriever
from edgar_eval.report.builder import build_report

CORPUS_TABLES = ("filings", "filing_text", "xbrl_facts", "sections", "chunks", "chunk_embeddings")


def _usable(store: ParquetStore, keys: list[str], assets: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    usable, left_out = list(keys), {}
    for asset in assets:
        current, skipped = current_partitions(store, usable, asset)
        usable = current
        left_out.update(skipped)
    return usable, left_out


def _read_all(store: ParquetStore, asset: str, keys: list[str]) -> pd.DataFrame:
    frame, missing = store.read_partitions(asset, keys)
    if missing:
        raise dg.Failure(f"{asset} partitions vanished while reading: {missing}")
    return frame


def _checked_index(settings: EvalSettings) -> tuple[pd.DataFrame, DenseIndex, MiniLMEmbedder]:
    """The search index's rows, its dense index, and the embedder, refusing an index built differently."""
    index_rows = settings.store().read("search_index")
    embedder = MiniLMEmbedder()
    try:
        check_fingerprint(settings.fingerprint(embedder.embedder_id), IndexFingerprint.from_json(index_rows.fingerprint.iloc[0]), "search_index")
    except IndexMismatch as exc:
        raise dg.Failure(str(exc)) from exc
    return index_rows, DenseIndex(np.stack(index_rows.embedding.to_numpy()), index_rows.filing_id.tolist()), embedder


def build_evaluation_assets(partitions: dg.StaticPartitionsDefinition, corpus_assets: list[dg.AssetsDefinition]) -> list[dg.AssetsDefinition]:
    by_name = {a.key.to_user_string(): a for a in corpus_assets}
    all_keys = list(partitions.get_partition_keys())

    @dg.asset(deps=[by_name["chunk_embeddings"], by_name["chunks"], by_name["filings"]], group_name="index", code_version="1",
              description="Exact-cosine search index over every current chunk embedding; refuses embeddings whose fingerprint "
                          "differs from the configured embedder and chunker.")
    def search_index(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        store = settings.store()
        keys, left_out = _usable(store, all_keys, ("chunks", "chunk_embeddings"))
        if not keys:
            raise dg.Failure(f"no filing partition has current chunk embeddings: {left_out}")
        expected = settings.fingerprint(MiniLMEmbedder.embedder_id)
        embeddings = _read_all(store, "chunk_embeddings", keys)
        for found in sorted(embeddings.fingerprint.unique()):
            try:
                check_fingerprint(expected, IndexFingerprint.from_json(found), "chunk_embeddings")
            except IndexMismatch as exc:
                raise dg.Failure(str(exc)) from exc
        chunk_rows = _read_all(store, "chunks", keys)
        filing_rows = _read_all(store, "filings", keys)[["filing_id", "cik", "form", "fiscal_year", "sha256"]]
        index = (chunk_rows.drop(columns=["sha256"]).merge(embeddings[["chunk_id", "embedding"]], on="chunk_id", validate="one_to_one")
                 .merge(filing_rows, on="filing_id"))
        index["fingerprint"] = expected.as_json()
        return unpartitioned_result(store, "search_index", index, {
            "filings": len(keys), "left_out": dg.MetadataValue.json(left_out), "fingerprint": expected.as_json(),
            "fingerprint_digest": expected.digest})

    @dg.asset(deps=[by_name["xbrl_facts"], by_name["chunks"], by_name["filing_text"], by_name["filings"]], group_name="golden",
              code_version="1", description="XBRL-template golden questions: answerable ones with gold chunks and pages located by "
              "their facts' offsets, and unanswerable ones of three kinds (other year, other company, absent concept).")
    def golden_questions(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        store = settings.store()
        keys, left_out = _usable(store, all_keys, ("filing_text", "xbrl_facts", "chunks"))
        filings = _read_all(store, "filings", keys)
        text_rows = _read_all(store, "filing_text", keys)
        texts = dict(zip(text_rows.filing_id, text_rows.text))
        golden = build_golden_questions(filings, _read_all(store, "xbrl_facts", keys), _read_all(store, "chunks", keys),
                                        texts, seed=settings.golden_seed)
        if golden.empty:
            raise dg.Failure("no golden question could be built: no annual report with located facts among the current filings")
        counts = golden.kind.value_counts().sort_index().to_dict()
        return unpartitioned_result(store, "golden_questions", golden, {
            "template_version": TEMPLATE_VERSION, "golden_hash": content_version(golden), "by_kind": dg.MetadataValue.json(counts),
            "companies": int(golden.cik.nunique()), "left_out": dg.MetadataValue.json(left_out),
            "head": table_head(golden, ["kind", "question", "gold_answer"], rows=8)})

    @dg.asset(deps=[search_index, golden_questions], group_name="runs", code_version="1",
              description="Top-k chunks per golden question by exact cosine, scoped to the company's filings of the fiscal year asked, "
                          "with document, page and gold-chunk hits.")
    def retrievals(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        store = settings.store()
        index_rows, index, embedder = _checked_index(settings)
        golden = store.read("golden_questions")
        started = time.perf_counter()
        queries = embedder.embed(golden.question.tolist())
        embed_seconds = (time.perf_counter() - started) / max(len(golden), 1)
        rows = []
        for question, query in zip(golden.itertuples(), queries):
            started = time.perf_counter()
            hits = index.search(query, list(question.scope_filing_ids), settings.top_k)
            search_seconds = time.perf_counter() - started
            found = index_rows.iloc[[h.row for h in hits]]
            record = hit_record(found.chunk_id.tolist(), found.filing_id.tolist(), [list(p) for p in found.pages],
                                list(question.gold_chunk_ids), list(question.gold_filing_ids), list(question.gold_pages))
            rows.append({"question_id": question.question_id, "k": settings.top_k, "chunk_ids": found.chunk_id.tolist(),
                         "filing_ids": found.filing_id.tolist(), "scores": [h.score for h in hits],
                         "embed_seconds": embed_seconds, "search_seconds": search_seconds, **record})
        frame = pd.DataFrame(rows)
        answerable = frame[golden.expected_route.to_numpy() == "answer"]
        return unpartitioned_result(store, "retrievals", frame, {
            "questions": len(frame), "k": settings.top_k,
            "document_hit_rate": float(answerable.document_hit.mean()) if len(answerable) else float("nan"),
            "chunk_hit_rate": float(answerable.chunk_hit.mean()) if len(answerable) else float("nan")})

    @dg.asset(deps=[search_index, golden_questions], group_name="runs", code_version="1",
              description="The retrieval measurement: every golden question searched by dense (exact cosine), BM25 (bm25s) and "
                          "hybrid (reciprocal rank fusion) retrievers, each depth K its own search, scoped like the answerer's; "
                          "per question and run, document and page hits, recall@K, precision@K, reciprocal rank, nDCG@10, or the error.")
    def retrieval_runs(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        store = settings.store()
        index_rows, dense, embedder = _checked_index(settings)
        golden = store.read("golden_questions")
        lexical = BM25Index.build(index_rows.text.tolist(), index_rows.filing_id.tolist())
        hybrid = HybridRetriever(dense, lexical)
        searches = {
            "dense": lambda vector, text, scope, k: dense.search(vector, scope, k),
            "bm25": lambda vector, text, scope, k: lexical.search(text, scope, k),
            "hybrid": hybrid.search,
        }
        rows = []
        for question, vector in zip(golden.itertuples(), embedder.embed(golden.question.tolist())):
            scope = list(question.scope_filing_ids)
            for retriever, search in searches.items():
                for depth in settings.retrieval_depths:
                    error, hits = None, []
                    try:
                        hits = search(vector, question.question, scope, depth)
                    except (ValueError, RuntimeError) as exc:  # counted as an error, never as a miss
                        error = f"{type(exc).__name__}: {exc}"
                    found = index_rows.iloc[[h.row for h in hits]]
                    rows.append({"question_id": question.question_id, "retriever": retriever, "k": depth,
                                 "expected_route": question.expected_route, "chunk_ids": found.chunk_id.tolist(), "error": error,
                                 **run_record(found.chunk_id.tolist(), found.filing_id.tolist(), [list(p) for p in found.pages],
                                              list(question.gold_chunk_ids), list(question.gold_filing_ids), list(question.gold_pages), depth)})
        frame = pd.DataFrame(rows)
        return unpartitioned_result(store, "retrieval_runs", frame, {
            "runs": len(frame), "errors": int(frame.error.notna().sum()), "bm25": BM25_INDEX_ID,
            "depths": ", ".join(map(str, settings.retrieval_depths))})

    @dg.asset(deps=[retrievals], group_name="runs", code_version="1",
              description="One generation per question from the offline extractive baseline reader: the cited figure or a decline, with latency.")
    def generations(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        store = settings.store()
        golden = store.read("golden_questions").set_index("question_id")
        texts = store.read("search_index").set_index("chunk_id").text
        rows = []
        for retrieval in store.read("retrievals").itertuples():
            passages = [Passage(c, texts[c]) for c in retrieval.chunk_ids]
            started = time.perf_counter()
            answer = read(golden.loc[retrieval.question_id, "question"], passages)
            rows.append({"question_id": retrieval.question_id, "reader": READER_ID, "answered": answer.answered,
                         "answer_text": answer.text, "figure": answer.figure, "cited_chunk_ids": list(answer.cited_chunk_ids),
                         "decline_reason": answer.decline_reason, "generate_seconds": time.perf_counter() - started})
        frame = pd.DataFrame(rows)
        latency = frame.generate_seconds.to_numpy()
        return unpartitioned_result(store, "generations", frame, {
            "reader": READER_ID, "answered_share": float(frame.answered.mean()),
            "generate_p50_ms": float(np.percentile(latency, 50) * 1000), "generate_p95_ms": float(np.percentile(latency, 95) * 1000),
            "head": table_head(frame, ["question_id", "answered", "answer_text", "decline_reason"])})

    @dg.asset(deps=[retrievals, by_name["xbrl_facts"]], group_name="runs", code_version="1",
              description="Per question: the period guard's verdict, the top cosine score and the relevance model's score, "
                          "each with its threshold cross-fitted by company (two folds, admitting 90% of the other fold's answerable questions).")
    def gate_scores(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        store = settings.store()
        golden = store.read("golden_questions")
        retrieved = store.read("retrievals").set_index("question_id")
        texts = store.read("search_index").set_index("chunk_id").text
        keys, _ = _usable(store, all_keys, ("xbrl_facts",))
        facts = _read_all(store, "xbrl_facts", keys)
        reported = facts[facts.is_numeric & facts.period_kind.isin(["FY", "instant"])].groupby("filing_id").fiscal_year.agg(lambda s: set(map(int, s)))
        rows = []
        for question in golden.itertuples():
            retrieval = retrieved.loc[question.question_id]
            years = set().union(*(reported.get(f, set()) for f in question.scope_filing_ids))
            guard = period_guard(question.question, years)
            features = relevance_features(question.question, [texts[c] for c in retrieval.chunk_ids], list(retrieval.scores))
            rows.append({"question_id": question.question_id, "cik": question.cik, "answerable": question.expected_route == "answer",
                         "period_pass": guard.passes, "period_reason": guard.reason, **features})
        scored = cross_fit(pd.DataFrame(rows))
        brier = float(np.mean((scored.relevance_score - scored.answerable.astype(float)) ** 2))
        return unpartitioned_result(store, "gate_scores", scored, {
            "relevance_brier": brier, "period_pass_rate": float(scored.period_pass.mean()),
            "cosine_pass_rate": float(scored.cosine_pass.mean()), "relevance_pass_rate": float(scored.relevance_pass.mean()),
            "features": ", ".join(FEATURES)})

    @dg.asset(deps=[gate_scores, generations, golden_questions], group_name="runs", code_version="1",
              description="The six arms A-F as masks over the one generation per question; each outcome right or wrong against the golden case.")
    def arm_outcomes(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        store = settings.store()
        golden = store.read("golden_questions")
        judged = store.read("generations").merge(golden[["question_id", "expected_route", "kind", "gold_value", "gold_decimals"]], on="question_id")
        judged["figure_correct"] = [figure_matches(f, g, d) for f, g, d in zip(judged.figure, judged.gold_value, judged.gold_decimals)]
        gates = store.read("gate_scores")[["question_id", "cik", "period_pass", "cosine_pass", "relevance_pass"]]
        outcomes = mask_arms(gates, judged[["question_id", "answered", "figure_correct", "expected_route", "kind"]])
        return unpartitioned_result(store, "arm_outcomes", outcomes, {
            "questions": int(outcomes.question_id.nunique()),
            "correct_share_by_arm": dg.MetadataValue.json(outcomes.groupby("arm").correct.mean().round(4).to_dict())})

    @dg.asset(deps=[arm_outcomes], group_name="statistics", code_version="1",
              description="Per arm: false-answer rate on unanswerable questions, recall cost and accuracy on answerable ones, "
                          "each with a Wilson 95% interval.")
    def arm_statistics(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        store = settings.store()
        stats = summarise_arms(store.read("arm_outcomes"))
        return unpartitioned_result(store, "arm_statistics", stats, {
            "head": table_head(stats, ["arm", "gates", "false_answer_rate", "recall_cost", "answer_accuracy"], rows=6)})

    @dg.asset(deps=[retrieval_runs], group_name="statistics", code_version="2",
              description="Per retriever and depth, over answerable questions: document and page hit rates with Wilson 95% intervals, "
                          "recall@K, precision@K, MRR and nDCG@10; searches that errored are counted apart, and a run that scored nothing fails.")
    def retrieval_metrics(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        store = settings.store()
        metrics = retrieval_statistics(store.read("retrieval_runs"))
        if metrics.empty or metrics.questions.max() == 0:
            raise dg.Failure("no answerable question was scored: the retrieval run measured nothing")
        return unpartitioned_result(store, "retrieval_metrics", metrics, {
            "head": table_head(metrics, ["retriever", "k", "document_hit_rate", "page_hit_rate", "recall", "rr", "ndcg10"], rows=6)})

    @dg.asset(deps=[retrieval_runs, golden_questions], group_name="statistics", code_version="1",
              description="Retrieval by slice (form of the source filing, statement type, company) x retriever x depth: page hit "
                          "rate with a Wilson 95% interval and the median rank of the first gold chunk, over answerable questions.")
    def retrieval_slices(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        store = settings.store()
        attributes = store.read("golden_questions")[["question_id", *SLICES.values()]]
        slices = summarise_slices(store.read("retrieval_runs").merge(attributes, on="question_id", validate="many_to_one"))
        return unpartitioned_result(store, "retrieval_slices", slices, {
            "slices": len(slices), "head": table_head(slices, ["slice", "value", "retriever", "k", "page_hit_rate", "median_gold_rank"], rows=10)})

    @dg.asset(deps=[arm_statistics, retrieval_metrics, retrieval_slices, golden_questions, search_index], group_name="report", code_version="1",
              description="reports/<corpus>/report.md, built only from the assets above; each table names the asset and data version it came from.")
    def report(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
        store = settings.store()
        keys, left_out = _usable(store, all_keys, CORPUS_TABLES)
        text = build_report(
            corpus_name=settings.corpus_name,
            filings=_read_all(store, "filings", keys),
            left_out=left_out,
            golden=store.read("golden_questions"),
            retrieval=store.read("retrieval_metrics"),
            slices=store.read("retrieval_slices"),
            arms=store.read("arm_statistics"),
            index_fingerprint=store.read("search_index").fingerprint.iloc[0],
            settings={"chunk_size": settings.chunk_size, "chunk_overlap": settings.chunk_overlap, "top_k": settings.top_k,
                      "retrieval_depths": settings.retrieval_depths,
                      "golden_seed": settings.golden_seed},
        )
        target = settings.report_dir() / "report.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        previous = target.read_text() if target.is_file() else None
        tmp = target.with_suffix(".md.tmp")
        tmp.write_text(text)
        tmp.replace(target)
        return dg.MaterializeResult(
            metadata={"path": dg.MetadataValue.path(str(target)), "changed": previous != text,
                      "report": dg.MetadataValue.md(text)},
            data_version=dg.DataVersion(hashlib.sha256(text.encode()).hexdigest()[:16]))

    return [search_index, golden_questions, retrievals, retrieval_runs, generations, gate_scores, arm_outcomes, arm_statistics, retrieval_metrics,
            retrieval_slices, report]
