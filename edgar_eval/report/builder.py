"""The evaluation report: every number from an asset table, every table with its provenance. build_report assembles
the sections, each family in its own module, in the report's order."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from edgar_eval.report.corpus_tables import corpus_table
from edgar_eval.report.experiment_tables import (
    TIMINGS_NOTE,
    arms_table,
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
    md_cell,
    render_report,
)
from edgar_eval.report.reader_tables import _in_sample, readers_table, tuned_extent, wrong_answers_table
from edgar_eval.report.readme import PRIMARY
from edgar_eval.report.release_tables import fixture_tables, receipts_table, release_table, routes_table
from edgar_eval.report.retrieval_tables import (
    depth_tables,
    evidence_filing_table,
    expansion_tables,
    noise_tables,
    rerank_tables,
    retrieval_table,
    scope_tables,
    slice_tables,
)
from edgar_eval.report.summary import summary_table
from edgar_eval.report.svg import interval_bars_svg, risk_coverage_svg
from edgar_eval.retrieval.bm25 import INDEX_ID as BM25_INDEX_ID
from edgar_eval.retrieval.scope import COMPANY_YEAR, SCOPE_WORDS


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
    rejections = inputs.rejections
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
            f"{tuned_extent(inputs, in_sample[0])}: every answering figure below (readers, routes, arms, "
            "gates, statistics) is in-sample there, and says little of filings the reader was not tuned on."
        )
    if left_out:
        preface.append(
            "- Filings left out of this run: "
            + "; ".join(f"{md_cell(k)} ({md_cell(v)})" for k, v in sorted(left_out.items()))
            + "."
        )

    receipt = run_receipt(inputs)
    tables = [
        corpus_table(filings, rejections, inputs.fact_rejections, partitions),
        *golden_tables(golden, rejections, partitions, inputs.absence_review, filings),
        *pattern_tables(inputs),
        retrieval_table(inputs),
        *depth_tables(inputs),
        *noise_tables(inputs),
        *scope_tables(inputs),
        *rerank_tables(inputs),
        *expansion_tables(inputs),
        *slice_tables(inputs),
        *([evidence_filing_table(inputs.evidence_filings)] if len(inputs.evidence_filings) else []),
        *([wrong_answers_table(inputs.wrong_answers)] if len(inputs.wrong_answers) else []),
        *([readers_table(inputs)] if len(inputs.readers) else []),
        *([routes_table(inputs.routes)] if len(inputs.routes) else []),
        *([receipts_table(inputs.receipts)] if len(inputs.receipts) else []),
        *([release_table(inputs.release)] if len(inputs.release) else []),
        *(fixture_tables(inputs.fixture) if len(inputs.fixture) else []),
        arms_table(inputs),
        *experiment_tables(inputs),
        receipt_table(receipt),
    ]
    figures = {
        **_primary_kind_figure(inputs),
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


def _primary_kind_figure(inputs: ReportInputs) -> dict[str, tuple[str, str]]:
    """The chart beside the per-kind false-answer table: the primary hypothesis's kind per arm, with its Wilson
    bounds (never a rate pooled over the kinds); none where the run holds no question of that kind."""
    comparisons, rates = inputs.comparisons, inputs.false_answers_by_kind
    if "hypothesis" not in comparisons or not len(rates):
        return {}
    primary = comparisons[(comparisons.hypothesis == PRIMARY) & (comparisons.metric == "false_answer_rate")]
    kind = str(primary.kind.iloc[0]) if len(primary) else ""
    own = rates[rates.kind == kind]
    if not len(own):
        return {}
    title = f"False-answer rate on {kind.replace('_', '-')} questions by arm"
    return {
        f"False-answer rate per unanswerable kind ({split_words(rates)})": (
            title,
            interval_bars_svg(
                list(own.arm),
                own.false_answer_rate,
                own.false_answer_rate_low,
                own.false_answer_rate_high,
                f"{title} (Wilson 95%)",
                "false-answer rate",
            ),
        )
    }
