"""Retrieval speed on a real corpus: embedding throughput, index build times, search latency per retriever,
and what re-materialising after one filing changes costs.

    .venv/bin/python bench/retrieval.py [CORPUS_DIR] [--limit-chunks N] [--questions N] [--runtimes]
        [--store DATA_DIR/NAME]

1. Parses every filing, chunks it with the default settings and embeds every chunk with all-MiniLM-L6-v2
   on the CPU: chunks per second and the minutes the whole corpus takes (target: under 15 minutes).
2. Builds the dense (exact cosine) and BM25 indexes and times each build.
3. Searches 400 questions in the shape of the golden set ("What was <company>'s <label> for fiscal <year>?")
   in each search scope (the company's filings of the year asked, as the answerer's; all of the company's filings;
   the whole corpus), at K=30 and K=50: median and 95th percentile latency per scope and retriever (target: median
   under 50 ms). Query embedding is timed apart from the search. Then the rerank stage's cost per question: the
   offline lexical reranker over each question's hybrid top 30, keeping 15, and the table expansion of the 15 kept
   (3 rows each way; each filing's tables found once beforehand) (a /rerank endpoint's cost is the
   server's: time it with that server running).
   With --runtimes, the same chunks again through onnxruntime (the bench extra): the
   shipped weights exported to ONNX by torch, run as exported and after onnxruntime's BERT fusions, with each one's
   chunks per second and its largest difference from torch's vectors. The local embedder stays on torch while
   torch is the faster of them on the machine that runs the nightly jobs.
4. With --store (a materialised corpus store such as data/edgar), copies it and the corpus into a temporary
   folder, changes one filing's bytes, re-runs the corpus job and counts the partitions re-embedded
   (target: only the changed filing).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, cast

import numpy as np

from edgar_eval.adapters.embedders import MiniLMEmbedder
from edgar_eval.adapters.local_corpus import list_filings
from edgar_eval.answering.rerank import LexicalFigureReranker
from edgar_eval.answering.table_expansion import FilingTables
from edgar_eval.corpus.chunking import chunk_filing
from edgar_eval.corpus.company_names import display_name
from edgar_eval.corpus.parse import parse_filing
from edgar_eval.domain.filings import FilingError
from edgar_eval.golden.labels import CONCEPT_LABELS
from edgar_eval.retrieval.bm25 import BM25Index
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.hybrid import HybridRetriever
from edgar_eval.retrieval.scope import COMPANY_YEAR, SEARCH_SCOPES, ScopedFiling, filings_of_scope

EMBED_TARGET_MINUTES = 15
SEARCH_TARGET_MS = 50
CORPUS_ASSETS = ("filings", "filing_text", "xbrl_facts", "fact_rejections", "sections", "chunks", "chunk_embeddings")


def _verdict(ok: bool) -> str:
    return "meets target" if ok else "MISSES target"


def _percentile_ms(samples: list[float], q: float) -> float:
    return float(np.percentile(np.array(samples) * 1000, q))


def main() -> int:
    parser = argparse.ArgumentParser(description=cast(str, __doc__).split("\n\n")[0])
    parser.add_argument(
        "corpus", nargs="?", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus" / "edgar")
    )
    parser.add_argument(
        "--limit-chunks", type=int, default=0, help="embed only the first N chunks (a quick look; not the target)"
    )
    parser.add_argument(
        "--questions", type=int, default=400, help="questions searched (default 400; fewer: a quick look)"
    )
    parser.add_argument("--runtimes", action="store_true", help="also time onnxruntime on the same chunks")
    parser.add_argument(
        "--store", help="a materialised store of this corpus (e.g. data/edgar) for the one-filing-changed run"
    )
    args = parser.parse_args()
    corpus = Path(args.corpus)

    started = time.perf_counter()
    texts, filing_ids, scoped, names, spans, filing_texts = [], [], [], {}, [], {}
    for key, relative in sorted(list_filings(corpus).items()):
        try:
            parsed = parse_filing((corpus / relative).read_bytes())
        except FilingError as exc:
            print(f"{key}: left out ({exc})")
            continue
        scoped.append(ScopedFiling(key, parsed.meta.cik, parsed.meta.form, parsed.meta.fiscal_year))
        names.setdefault(parsed.meta.cik, display_name(parsed.meta.company))
        filing_texts[key] = parsed.text
        for chunk in chunk_filing(key, parsed.text, parsed.sections, parsed.pages, 1000, 200):
            texts.append(chunk.text)
            filing_ids.append(key)
            spans.append((chunk.start, chunk.end))
    print(f"parsed and chunked {len(scoped)} filings into {len(texts)} chunks in {time.perf_counter() - started:.1f} s")

    embedder = MiniLMEmbedder()
    embedder.embed(["warm-up"])  # the model load is not embedding throughput
    sample = texts[: args.limit_chunks] if args.limit_chunks else texts
    started = time.perf_counter()
    vectors = embedder.embed(sample)
    seconds = time.perf_counter() - started
    rate = len(sample) / seconds
    whole_minutes = len(texts) / rate / 60
    print(
        f"embedding: {len(sample)} chunks in {seconds:.1f} s = {rate:.1f} chunks/s; the whole corpus ({len(texts)} "
        "chunks) "
        f"{'takes' if not args.limit_chunks else 'would take'} {whole_minutes:.1f} min "
        f"({_verdict(whole_minutes < EMBED_TARGET_MINUTES)} of {EMBED_TARGET_MINUTES} min)"
    )
    if args.runtimes:
        _onnxruntime_comparison(sample, vectors, rate)
    if args.limit_chunks:
        texts, filing_ids = texts[: len(sample)], filing_ids[: len(sample)]
        scoped = [f for f in scoped if f.filing_id in set(filing_ids)]

    started = time.perf_counter()
    dense = DenseIndex(vectors, filing_ids)
    dense_build = time.perf_counter() - started
    started = time.perf_counter()
    lexical = BM25Index.build(texts, filing_ids)
    bm25_build = time.perf_counter() - started
    hybrid = HybridRetriever(dense, lexical)
    print(f"index build: dense {dense_build * 1000:.0f} ms, bm25 {bm25_build:.2f} s over {len(texts)} chunks")

    rng = random.Random(7)
    labels = sorted(set(CONCEPT_LABELS.values()))
    questions = []
    for _ in range(args.questions):
        filing = scoped[rng.randrange(len(scoped))]
        question = (
            f"What was {names[filing.cik]}'s {labels[rng.randrange(len(labels))]} for fiscal {filing.fiscal_year}?"
        )
        questions.append(
            (question, {s: filings_of_scope(s, scoped, filing.cik, filing.fiscal_year) for s in SEARCH_SCOPES})
        )
    embed_times: list[float] = []
    latency: dict[tuple[str, str], list[float]] = {
        (s, r): [] for s in SEARCH_SCOPES for r in ("dense", "bm25", "hybrid")
    }
    reranker, rerank_times, expand_times = LexicalFigureReranker(), [], []
    started = time.perf_counter()
    tables = {key: FilingTables(text) for key, text in filing_texts.items()}  # found once, as an index would store
    print(f"table expansion: the tables of {len(tables)} filings found in {time.perf_counter() - started:.2f} s")
    for question, scopes in questions:
        t0 = time.perf_counter()
        query = embedder.embed([question])[0]
        embed_times.append(time.perf_counter() - t0)
        for scope_name, scope in scopes.items():
            for depth in (30, 50):
                for name, search in (
                    ("dense", lambda: dense.search(query, scope, depth)),
                    ("bm25", lambda: lexical.search(question, scope, depth)),
                    ("hybrid", lambda: hybrid.search(query, question, scope, depth)),
                ):
                    t0 = time.perf_counter()
                    search()
                    latency[(scope_name, name)].append(time.perf_counter() - t0)
        found = [hit.row for hit in hybrid.search(query, question, scopes[COMPANY_YEAR], 30)]
        t0 = time.perf_counter()
        kept = [found[r.index] for r in reranker.rerank(question, [texts[row] for row in found], 15)]
        rerank_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for row in kept:
            start, end = spans[row]
            tables[filing_ids[row]].expand(start, end, texts[row], rows=3)
        expand_times.append(time.perf_counter() - t0)
    print(f"query embedding: median {_percentile_ms(embed_times, 50):.1f} ms per question")
    for (scope_name, name), samples in latency.items():
        median = _percentile_ms(samples, 50)
        print(
            f"search {scope_name:12} {name:6}: median {median:.2f} ms, p95 {_percentile_ms(samples, 95):.2f} ms over "
            f"{len(samples)} searches (K=30 and K=50; {_verdict(median < SEARCH_TARGET_MS)} of {SEARCH_TARGET_MS} ms)"
        )
    print(
        f"rerank {reranker.reranker_id} (hybrid top 30 of the company_year scope, keep 15): median "
        f"{_percentile_ms(rerank_times, 50):.2f} ms, p95 {_percentile_ms(rerank_times, 95):.2f} ms per question"
    )
    print(
        f"table expansion (the 15 kept, 3 rows each way): median {_percentile_ms(expand_times, 50):.2f} ms, "
        f"p95 {_percentile_ms(expand_times, 95):.2f} ms per question"
    )

    if args.store:
        return _one_filing_changed(corpus, Path(args.store))
    return 0


def _onnxruntime_comparison(texts: list[str], torch_vectors: np.ndarray, torch_rate: float) -> None:
    """The same weights and the same pooling on onnxruntime's CPU provider, against torch's chunks per second."""
    try:
        import onnxruntime  # pyright: ignore[reportMissingImports]  # optional: the bench extra
        from onnxruntime.transformers import optimizer  # pyright: ignore[reportMissingImports]  # likewise
    except ImportError:
        print("onnxruntime: not installed (pip install -e '.[bench]')")
        return
    import torch

    from edgar_eval.adapters.embedders import _load_minilm

    model = _load_minilm()
    transformer: Any = model[0]  # sentence-transformers' Transformer module, typed by torch as Tensor | Module
    bert, tokenizer = transformer.auto_model.eval(), model.tokenizer
    bert.set_attn_implementation("eager")  # the attention ONNX export traces into plain operators
    bert.requires_grad_(False)  # inference weights: the tracer may not take a tensor that requires grad as a constant

    class LastHiddenState(torch.nn.Module):
        """BERT's last hidden state, BERT held as a submodule: its weights export as the graph's initializers, not as
        constants traced through a closure."""

        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)[0]

    names = ["input_ids", "attention_mask", "token_type_ids"]
    with tempfile.TemporaryDirectory() as folder:
        exported, fused = Path(folder) / "minilm.onnx", Path(folder) / "minilm-fused.onnx"
        example = tokenizer(texts[:2], padding=True, truncation=True, max_length=256, return_tensors="pt")
        with torch.no_grad():  # export traces inference only: no autograd state in the graph
            torch.onnx.export(
                LastHiddenState().eval(),
                tuple(example[name] for name in names),
                str(exported),
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes={name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]},
                opset_version=17,
                dynamo=False,
            )
        hidden = bert.config.hidden_size
        optimizer.optimize_model(
            str(exported), model_type="bert", num_heads=bert.config.num_attention_heads, hidden_size=hidden
        ).save_model_to_file(str(fused))
        for label, path in (("as exported", exported), ("BERT fusions", fused)):
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = torch.get_num_threads()
            session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            order = np.argsort([-len(text) for text in texts], kind="stable")  # batches of like length, as torch
            vectors = np.zeros((len(texts), hidden), dtype=np.float32)
            started = time.perf_counter()
            for start in range(0, len(texts), 32):
                rows = order[start : start + 32]
                batch = tokenizer(
                    [texts[i] for i in rows], padding=True, truncation=True, max_length=256, return_tensors="np"
                )
                states = session.run(None, {name: batch[name].astype(np.int64) for name in names})[0]
                mask = batch["attention_mask"][..., None].astype(np.float32)
                pooled = (states * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
                vectors[rows] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
            rate = len(texts) / (time.perf_counter() - started)
            print(
                f"onnxruntime {onnxruntime.__version__} ({label}): {rate:.1f} chunks/s = {rate / torch_rate:.2f}x "
                f"torch {torch.__version__}; largest difference from torch's vectors "
                f"{np.abs(vectors - torch_vectors).max():.1e}"
            )


def _one_filing_changed(corpus: Path, store: Path) -> int:
    """Copy the store and the corpus, change one filing's bytes, re-run the corpus job: what is re-embedded?"""
    import dagster as dg

    warnings.filterwarnings("ignore", module="dagster")  # beta notices, not figures

    from edgar_eval.defs.factory import build_definitions
    from edgar_eval.defs.runner import materialise_corpus
    from edgar_eval.defs.settings import EvalSettings

    with tempfile.TemporaryDirectory(prefix="edgar-eval-bench-") as tmp:
        work = Path(tmp)
        shutil.copytree(corpus, work / "corpus")
        for asset in CORPUS_ASSETS:
            if (store / asset).is_dir():
                shutil.copytree(store / asset, work / "data" / "bench" / asset)
        keys = sorted(list_filings(work / "corpus"))
        changed_key = keys[0]
        path = work / "corpus" / list_filings(work / "corpus")[changed_key]
        data = path.read_bytes()
        at = data.rfind(b"</body>")
        path.write_bytes(data[:at] + b"<!-- changed by bench/retrieval.py -->" + data[at:])
        (work / "corpus" / "manifest.csv").unlink(missing_ok=True)  # its pins name the filing as it was
        settings = EvalSettings(
            corpus_dir=str(work / "corpus"),
            corpus_name="bench",
            data_dir=str(work / "data"),
            reports_dir=str(work / "reports"),
        )
        instance = dg.DagsterInstance.ephemeral()
        started = time.perf_counter()
        failed = materialise_corpus(build_definitions(settings), instance)
        seconds = time.perf_counter() - started
        embedded = []
        for key in keys:
            records = instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=dg.AssetKey("chunk_embeddings"), asset_partitions=[key]), limit=1
            ).records
            if records and not cast(dg.AssetMaterialization, records[0].asset_materialization).metadata["reused"].value:
                embedded.append(key)
        print(
            f"one filing changed ({changed_key}): corpus job over {len(keys)} partitions in {seconds:.1f} s, "
            f"{len(failed)} failed; re-embedded {len(embedded)}: {', '.join(embedded) or 'none'} "
            f"({_verdict(embedded == [changed_key])}: only the changed filing)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
