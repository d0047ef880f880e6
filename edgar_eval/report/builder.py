"""The evaluation report: every number from an asset table, every table with its provenance. build_report assembles
the sections, each family in its own module, in the report's order."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import pandas as pd

from edgar_eval.answering.answerer import tuned_on
from edgar_eval.corpus.frames import iter_groups
from edgar_eval.domain.versioning import content_version
from edgar_eval.evaluation.noise_band import band_can_move
from edgar_eval.golden.fairness import STATEMENTS_ELSEWHERE
from edgar_eval.report.corpus_tables import _facts_dropped
from edgar_eval.report.experiment_tables import (
    TIMINGS_NOTE,
    _companies,
    _method,
    cluster_warning,
    experiment_tables,
    receipt_table,
    run_receipt,
    split_words,
    timing_tables,
)
from edgar_eval.report.golden_tables import golden_tables, pattern_tables
from edgar_eval.report.html import render_html
from edgar_eval.report.inputs import ReportInputs
from edgar_eval.report.markdown import (
    Provenance,
    ReportTable,
    _ratio,
    _share_cell,
    interval,
    md_cell,
    percent,
    render_report,
)
from edgar_eval.report.reader_tables import _in_sample, readers_table, wrong_answers_table
from edgar_eval.report.release_tables import fixture_tables, receipts_table, release_table, routes_table
from edgar_eval.report.retrieval_tables import (
    _band_words,
    _bands,
    _slice_table,
    evidence_filing_table,
    expansion_tables,
    noise_tables,
    rerank_tables,
    scope_tables,
)
from edgar_eval.report.summary import summary_table
from edgar_eval.report.svg import interval_bars_svg, risk_coverage_svg
from edgar_eval.retrieval.bm25 import INDEX_ID as BM25_INDEX_ID
from edgar_eval.retrieval.scope import COMPANY_YEAR, SCOPE_WORDS, SEARCH_SCOPES


@dataclass(frozen=True)
class RenderedReport:
    markdown: str
    html: str
    timings: str  # wall-clock figures, kept out of the byte-identical report
    receipt: dict


def build_report(inputs: ReportInputs) -> RenderedReport:
    corpus_name, filings, left_out, golden, golden_set = (
        inputs.corpus_name,
        inputs.filings,
        inputs.left_out,
        inputs.golden,
        inputs.golden_set,
    )
    rejections, retrieval, slices, arms = inputs.rejections, inputs.retrieval, inputs.slices, inputs.arms
    index_fingerprint, settings = inputs.index_fingerprint, inputs.settings
    filings = filings.sort_values("filing_id")
    partitions = f"{len(filings)} filing partitions"
    fingerprint = json.loads(index_fingerprint)
    preface = [
        f"Evaluation of retrieval and answering on the `{md_cell(corpus_name)}` corpus: "
        f"{len(filings)} filings of {filings.cik.nunique()} companies.",
        "",
        f"- Golden set `{md_cell(golden_set.version.iloc[0])}`: {len(golden)} questions, provenance "
        f"`{md_cell(golden.provenance.iloc[0])}`, "
        f"export sha256 `{golden_set.content_hash.iloc[0]}`; split by company: "
        + ", ".join(f"{split} {count}" for split, count in golden_set.split.value_counts().sort_index().items())
        + ".",
        f"- Index: embedder `{md_cell(fingerprint['embedder_id'])}`, {md_cell(fingerprint['normalisation'])} "
        "normalised, "
        f"chunks of {fingerprint['chunk_size']} characters with {fingerprint['chunk_overlap']} overlap"
        + (
            "; a chunk that starts inside a table carries its scale line and header rows."
            if fingerprint.get("table_headers")
            else "."
        ),
        f"- Retrieval measured at K = {', '.join(map(str, settings['retrieval_depths']))}, each depth its own search, "
        "by dense "
        f"(exact cosine), BM25 (`{BM25_INDEX_ID}`) and hybrid retrievers (reciprocal rank fusion, k = "
        f"{settings['rrf_k']}); "
        f"the answerer reads the top {settings['top_k']} {settings['answer_retriever']} passages; golden seed "
        f"{settings['golden_seed']}.",
        "- The answerer searches one company's filings of the fiscal year asked (its latest annual report when it "
        "has none); the retrieval measurement searches "
        + "; ".join(f"`{scope}` ({SCOPE_WORDS[scope]})" for scope in settings.get("search_scopes", [COMPANY_YEAR]))
        + ", each with the gold and the fairness rules of its scope. Every search reads only what the asking role may "
        "read.",
    ]
    in_sample = _in_sample(inputs)
    if in_sample:
        preface.append(
            f"- In-sample: the arms read {', '.join(f'`{md_cell(g)}`' for g in in_sample)}, whose rules were tuned on "
            f"this corpus ({', '.join(tuned_on(in_sample[0]))}): every answering figure below (readers, routes, arms, "
            "gates, statistics) is in-sample, and says little of filings the reader was not tuned on."
        )
    if left_out:
        preface.append(
            "- Filings left out of this run: "
            + "; ".join(f"{md_cell(k)} ({md_cell(v)})" for k, v in sorted(left_out.items()))
            + "."
        )

    receipt = run_receipt(inputs)
    elsewhere = rejections[(rejections.rule == STATEMENTS_ELSEWHERE) & (rejections.concept == "")]
    statements = dict(zip(elsewhere.filing_id, elsewhere.detail))
    facts_dropped, facts_dropped_note = _facts_dropped(filings, inputs.fact_rejections)
    corpus_table = pd.DataFrame(
        {
            "filing": filings.filing_id,
            "company": filings.company,
            "form": filings.form,
            "fiscal year": filings.fiscal_year,
            "period end": filings.period_end,
            "statements": [
                f"not in the filing: {statements[f]} (no absent question)" if f in statements else "in the filing"
                for f in filings.filing_id
            ],
            "facts dropped": facts_dropped,
            "sha256": filings.sha256,
        }
    )
    bands = _bands(inputs)
    retrieval_table = pd.DataFrame(
        {
            "scope": retrieval.search_scope,
            "retriever": retrieval.retriever,
            "K": retrieval.k,
            "document hit": list(
                map(_share_cell, retrieval.document_hit_rate, retrieval.document_hits, retrieval.questions)
            ),
            "document Wilson 95%": [
                interval(lo, hi) for lo, hi in zip(retrieval.document_low, retrieval.document_high)
            ],
            "document hit by chance": [percent(v) for v in retrieval.document_chance],
            "page hit": list(map(_share_cell, retrieval.page_hit_rate, retrieval.page_hits, retrieval.questions)),
            "page Wilson 95%": [interval(lo, hi) for lo, hi in zip(retrieval.page_low, retrieval.page_high)],
            "page hit by chance": [percent(v) for v in retrieval.page_chance],
            "recall@K": [f"{v:.3f}" for v in retrieval.recall],
            "precision@K": [f"{v:.3f}" for v in retrieval.precision],
            "MRR": [f"{v:.3f}" for v in retrieval.rr],
            "nDCG@10": [f"{v:.3f}" for v in retrieval.ndcg10],
            "errors": retrieval.errors,
            "noise band": [
                _band_words(bands.get((str(s), str(r), int(k))))
                if band_can_move(str(s), str(r))
                else "none: cannot move here"
                for s, r, k in zip(retrieval.search_scope, retrieval.retriever, retrieval.k)
            ],
        }
    )
    depths = sorted(retrieval.k.unique())
    gain_rows = []
    if len(depths) >= 2:
        shallow, deep = depths[0], depths[-1]
        scopes = [scope for scope in SEARCH_SCOPES if scope in set(retrieval.search_scope)]
        groups = sorted(
            iter_groups(retrieval.groupby(["search_scope", "retriever"])),
            key=lambda item: (scopes.index(item[0][0]), item[0][1]),
        )
        for (scope, retriever), own in groups:
            by_depth = own.set_index("k")
            gain_rows.append(
                {
                    "scope": scope,
                    "retriever": retriever,
                    f"page hit gain, K {shallow} to "
                    f"{deep}": f"{100 * (by_depth.page_hit_rate[deep] - by_depth.page_hit_rate[shallow]):+.1f} points",
                    f"document hit gain, K {shallow} to "
                    f"{deep}": f"{100 * (by_depth.document_hit_rate[deep] - by_depth.document_hit_rate[shallow]):+.1f} "
                    "points",
                }
            )
    slice_table = _slice_table(slices)
    arms_table = pd.DataFrame(
        {
            "arm": arms.arm,
            "gates": arms.gates,
            "false answers": [_ratio(k, n) for k, n in zip(arms.false_answer_rate_k, arms.false_answer_rate_n)],
            "FAR": [percent(v) for v in arms.false_answer_rate],
            "FAR Wilson 95%": [
                interval(lo, hi) for lo, hi in zip(arms.false_answer_rate_low, arms.false_answer_rate_high)
            ],
            f"FAR company bootstrap 95% ({_method(inputs.comparisons)})": [
                interval(lo, hi)
                for lo, hi in zip(arms.false_answer_rate_cluster_low, arms.false_answer_rate_cluster_high)
            ],
            "recall cost": [
                f"{percent(v)} ({_ratio(k, n)})"
                for v, k, n in zip(arms.recall_cost, arms.recall_cost_k, arms.recall_cost_n)
            ],
            "recall cost Wilson 95%": [interval(lo, hi) for lo, hi in zip(arms.recall_cost_low, arms.recall_cost_high)],
            f"recall cost company bootstrap 95% ({_method(inputs.comparisons)})": [
                interval(lo, hi) for lo, hi in zip(arms.recall_cost_cluster_low, arms.recall_cost_cluster_high)
            ],
            "correct on answerable": [
                f"{percent(v)} ({_ratio(k, n)})"
                for v, k, n in zip(arms.answer_accuracy, arms.answer_accuracy_k, arms.answer_accuracy_n)
            ],
        }
    )
    tables = [
        ReportTable(
            "Corpus",
            corpus_table,
            Provenance("filings", content_version(filings.reset_index(drop=True)), partitions),
            note=facts_dropped_note,
        ),
        *golden_tables(golden, rejections, partitions, inputs.absence_review, filings),
        *pattern_tables(inputs),
        ReportTable(
            "Retrieval",
            retrieval_table,
            Provenance("retrieval_metrics", content_version(retrieval), "retriever_rankings over search_index"),
            note="Over answerable questions, per search scope: the gold document or a gold page among the top K; "
            "recall, precision, MRR and nDCG@10 of the gold chunks (every chunk of the scope that prints the asked "
            "figure for its period). A wider scope counts the questions that stay fair there (see the next tables). "
            "By chance: the mean hit a random ranking of each question's scope reaches at K (a hypergeometric draw of "
            "K of the scope's chunks, those on a gold page or in a gold filing counting as hits), per question: "
            "the floor a hit rate stands on. In a one-filing scope the document hit is 100% by chance, and a figure "
            "printed on many pages puts the page floor high.",
        ),
        *(
            [
                ReportTable(
                    "Retrieval depth: finding or ranking",
                    pd.DataFrame(gain_rows),
                    Provenance("retrieval_metrics", content_version(retrieval), "retriever_rankings over search_index"),
                    note="What the deeper search adds: a gain means gold pages were found but ranked too low; "
                    "no gain means they were not found at all.",
                )
            ]
            if gain_rows
            else []
        ),
        *noise_tables(inputs),
        *scope_tables(inputs),
        *rerank_tables(inputs),
        *expansion_tables(inputs),
        *(
            [
                ReportTable(
                    "Retrieval by slice",
                    slice_table,
                    Provenance("retrieval_slices", content_version(slices), "retriever_rankings x golden_questions"),
                    note="Page hit at each depth with its Wilson 95% interval, the gain from the shallow to the deep "
                    "search, and the median rank of the first gold chunk at the deep search, per slice and retriever, "
                    "in the answerer's scope (`company_year`).",
                )
            ]
            if len(slice_table)
            else []
        ),
        *([evidence_filing_table(inputs.evidence_filings)] if len(inputs.evidence_filings) else []),
        *([wrong_answers_table(inputs.wrong_answers)] if len(inputs.wrong_answers) else []),
        *([readers_table(inputs)] if len(inputs.readers) else []),
        *([routes_table(inputs.routes)] if len(inputs.routes) else []),
        *([receipts_table(inputs.receipts)] if len(inputs.receipts) else []),
        *([release_table(inputs.release)] if len(inputs.release) else []),
        *(fixture_tables(inputs.fixture) if len(inputs.fixture) else []),
        ReportTable(
            f"Arms ({split_words(arms)})",
            arms_table,
            Provenance("arm_statistics", content_version(arms), "arm_outcomes (abstention_scores x generations)"),
            note="FAR: answers given to unanswerable questions. Recall cost: answerable questions arm A answers "
            "correctly and the arm declines. "
            "The dev split fits the thresholds and the relevance model (two-fold by company within it) and feeds the "
            "CI gate; these rows read the questions nothing was fitted on."
            + cluster_warning(_companies(inputs.comparisons), _method(inputs.comparisons)),
        ),
        *experiment_tables(inputs),
        receipt_table(receipt),
    ]
    figures = {
        f"Arms ({split_words(arms)})": (
            "False-answer rate by arm",
            interval_bars_svg(
                list(arms.arm),
                arms.false_answer_rate,
                arms.false_answer_rate_low,
                arms.false_answer_rate_high,
                "False-answer rate by arm (Wilson 95%)",
                "false-answer rate",
            ),
        ),
        f"Abstention gate quality ({split_words(inputs.gates)})": (
            "Risk against coverage per gate score",
            risk_coverage_svg(
                {
                    f"{gate} (AURC {aurc:.3f})": inputs.risk_curves[gate]
                    for gate, aurc in zip(inputs.gates.gate, inputs.gates.aurc)
                },
                "Risk of arm A's kept answers as each gate admits more questions",
            ),
        ),
    }
    # each plot beside the table whose figures it draws (at the end, should that table be missing)
    tables = [replace(t, figures=(figures[t.title],)) if t.title in figures else t for t in tables]
    unplaced = [figure for key, figure in figures.items() if key not in {t.title for t in tables}]
    tables = [summary_table(inputs, tables), *tables]
    title = f"edgar-eval report: {corpus_name}"
    return RenderedReport(
        render_report(title, preface, tables, contents_after=1),
        render_html(title, preface, tables, unplaced, contents_after=1),
        render_report(f"edgar-eval timings: {corpus_name}", [TIMINGS_NOTE, ""], timing_tables(inputs)),
        receipt,
    )
