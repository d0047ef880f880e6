"""The evaluation report: every number from an asset table, every table with its provenance."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import cast

import pandas as pd

from edgar_eval.answering.answerer import tuned_on
from edgar_eval.corpus.company_names import display_name
from edgar_eval.corpus.frames import iter_groups, iter_rows
from edgar_eval.domain.routes import ANSWER, ROUTES
from edgar_eval.domain.versioning import content_version
from edgar_eval.evaluation.noise_band import band_can_move, beyond_band
from edgar_eval.evaluation.release import release_decision
from edgar_eval.evaluation.release_fixture import fixture_summary
from edgar_eval.evaluation.summaries import golden_mix
from edgar_eval.evaluation.wrong_answers import CATEGORIES as WRONG_ANSWER_CATEGORIES
from edgar_eval.golden.audit import RULES_AUTHOR, audit_summary, reviewer_summary
from edgar_eval.golden.fairness import AWAITING_REVIEW, RULES, STATEMENTS_ELSEWHERE
from edgar_eval.golden.patterns import PATTERN_CONTRACTS
from edgar_eval.golden.two_documents import (
    CHANGE_OVER_TIME,
    CROSS_COMPANY,
    GRANULARITY,
    RESTATEMENT,
    TWO_DOCUMENT_KINDS,
)
from edgar_eval.report.experiment_tables import (
    CLUSTER_WARNING_BELOW,
    TIMINGS_NOTE,
    cluster_warning,
    comparison_difference,
    comparison_interval,
    experiment_tables,
    is_v3,
    kind_rate,
    largest_power,
    metric_name,
    power_words,
    receipt_table,
    run_receipt,
    simulated_mde,
    split_words,
    timing_tables,
)
from edgar_eval.report.html import render_html
from edgar_eval.report.markdown import Provenance, ReportTable, interval, md_cell, percent, render_report
from edgar_eval.report.readme import PRIMARY
from edgar_eval.report.svg import interval_bars_svg, risk_coverage_svg
from edgar_eval.retrieval.bm25 import INDEX_ID as BM25_INDEX_ID
from edgar_eval.retrieval.scope import COMPANY_YEAR, CORPUS, SCOPE_WORDS, SEARCH_SCOPES


def _ratio(k: int, n: int) -> str:
    return f"{k}/{n}"


def _share_cell(share: float, k: int, n: int) -> str:
    """A share as the report prints it with its count: "93.5% (303/324)"."""
    return f"{percent(share)} ({_ratio(k, n)})"


def _slice_table(slices: pd.DataFrame) -> pd.DataFrame:
    if slices.empty:
        return pd.DataFrame()
    depths = sorted(slices.k.unique())
    shallow, deep = depths[0], depths[-1]
    rows = []
    for (slice_name, value, retriever), group in iter_groups(
        slices.groupby(["slice", "value", "retriever"], sort=True)
    ):
        by_depth = group.set_index("k")
        row = {"slice": slice_name, "value": value, "retriever": retriever}
        for depth in (shallow, deep):
            own = by_depth.loc[depth]
            row[f"page hit@{depth}"] = f"{percent(own.page_hit_rate)} ({_ratio(own.page_hits, own.questions)})"
            row[f"Wilson 95% @{depth}"] = interval(own.page_low, own.page_high)
            row[f"by chance @{depth}"] = percent(own.page_chance)
        if deep != shallow:
            row["gain"] = f"{100 * (by_depth.page_hit_rate[deep] - by_depth.page_hit_rate[shallow]):+.1f} points"
        median = by_depth.median_gold_rank[deep]
        row[f"median gold rank@{deep}"] = "n/a" if pd.isna(median) else f"{median:g}"
        rows.append(row)
    return pd.DataFrame(rows)


def absence_by_filing(golden: pd.DataFrame, rejections: pd.DataFrame) -> pd.DataFrame:
    """Per 10-K and 10-Q: the absent-concept candidates (common line items the scope neither tags nor the company
    reports), how many are admitted, how many await a person's review, and the rest by the rule that rejected them."""
    absent = golden[golden.kind == "absent_concept"]
    rejected = cast(pd.DataFrame, rejections[(rejections.kind == "absent_concept") & (rejections.concept != "")])
    filings = sorted(set(absent.source_filing_id) | set(rejected.filing_id))
    rows = []
    for filing_id in filings:
        mine = cast(pd.DataFrame, rejected[rejected.filing_id == filing_id])
        admitted = int((absent.source_filing_id == filing_id).sum())
        by_rule = mine.rule.value_counts().to_dict()
        awaiting = int(by_rule.pop(AWAITING_REVIEW, 0))
        order = {rule: i for i, rule in enumerate(RULES)}
        rows.append(
            {
                "filing": filing_id,
                "candidates": admitted + len(mine),
                "admitted": admitted,
                "awaiting review": awaiting,
                "rejected, by rule": "; ".join(
                    f"{rule} {n}" for rule, n in sorted(by_rule.items(), key=lambda kv: (order.get(kv[0], 99), kv[0]))
                )
                or "none",
            }
        )
    return pd.DataFrame(rows, columns=["filing", "candidates", "admitted", "awaiting review", "rejected, by rule"])


def _companies_phrase(n: int) -> str:
    return f"{n} {'company' if n == 1 else 'companies'}"


def two_document_supply(golden: pd.DataFrame, rejections: pd.DataFrame, filings: pd.DataFrame) -> pd.DataFrame:
    """Per two-document kind: the questions asked, their companies, the pairs tried and why the rest were not asked,
    beside what the corpus holds for the kind (a 10-K and a 10-Q of one fiscal year; two annual reports; a later
    filing printing another value for a period; two companies reporting one fiscal year)."""
    periodic = cast(pd.DataFrame, filings[filings.form.isin(["10-K", "10-Q"])])
    annual = cast(pd.DataFrame, periodic[periodic.form == "10-K"])
    quarterly = cast(pd.DataFrame, periodic[periodic.form == "10-Q"])
    with_quarter = set(zip(quarterly.cik, quarterly.fiscal_year))
    paired = len({c for c, y in zip(annual.cik, annual.fiscal_year) if (c, y) in with_quarter})
    holds = {
        GRANULARITY: f"{_companies_phrase(paired)} with a 10-K and a 10-Q of one fiscal year",
        CHANGE_OVER_TIME: f"{_companies_phrase(sum(n >= 2 for n in annual.cik.value_counts()))} with two or more 10-Ks",
        RESTATEMENT: "the periods a later filing prints with another value",
        CROSS_COMPANY: f"{_companies_phrase(int(annual.cik.nunique()))} with a 10-K",
    }
    rows = []
    for kind in TWO_DOCUMENT_KINDS:
        asked = cast(pd.DataFrame, golden[golden.kind == kind])
        turned = cast(pd.DataFrame, rejections[rejections.kind == kind])
        rows.append(
            {
                "kind": kind,
                "questions": len(asked),
                "companies": int(asked.cik.nunique()),
                "pairs not asked, by rule": "; ".join(
                    f"{rule} {n}" for rule, n in sorted(turned.rule.value_counts().to_dict().items())
                )
                or "none",
                "what the corpus holds": holds[kind],
            }
        )
    columns = ["kind", "questions", "companies", "pairs not asked, by rule", "what the corpus holds"]
    return pd.DataFrame(rows, columns=columns)


def golden_tables(
    golden: pd.DataFrame,
    rejections: pd.DataFrame,
    partitions: str,
    review_queue: pd.DataFrame | None = None,
    filings: pd.DataFrame | None = None,
) -> list[ReportTable]:
    """The golden set's make-up and every rule's rejection count; a test rebuilds these from the real filings."""
    source = "xbrl_facts, chunks, filing_text, sections of " + partitions
    by_kind = cast(
        pd.DataFrame,
        golden.groupby(["kind", "expected_route"], sort=True)
        .agg(questions=("question_id", "size"), companies=("cik", "nunique"))
        .reset_index()
        .rename(columns={"expected_route": "expected route"})[["kind", "questions", "companies", "expected route"]],
    )
    answerable = golden[golden.expected_route == ANSWER]
    balance = (
        cast(pd.Series, answerable.groupby(["source_form", "statement_type"], sort=True).size())
        .rename("answerable questions")
        .reset_index()
        .rename(columns={"source_form": "form", "statement_type": "printed in"})
    )
    rejected = (
        cast(pd.Series, rejections.groupby(["kind", "rule"], sort=False).size())
        .rename("rejected")
        .reset_index()
        .assign(order=lambda t: t.rule.map({rule: i for i, rule in enumerate(RULES)}))
        .sort_values(["kind", "order"])
        .drop(columns="order")
        .rename(columns={"kind": "question kind"})
    )
    tables = [
        ReportTable("Golden questions", by_kind, Provenance("golden_questions", content_version(golden), source)),
        ReportTable(
            "Golden questions by form and where the figure is printed",
            balance,
            Provenance("golden_questions", content_version(golden), source),
        ),
        ReportTable(
            "The golden mix: answerable questions per form, statement and page position",
            golden_mix(golden).assign(share=lambda t: t.share.map(percent)),
            Provenance("golden_questions", content_version(golden), source),
            note="Read before any total: a set that over-tests one form, one statement or the cover page (first page) "
            "weighs every total below towards it. Page hit per position is under Retrieval by slice.",
        ),
        ReportTable(
            "Golden candidates rejected, by rule",
            rejected,
            Provenance("golden_rejections", content_version(rejections), source),
            note="Each candidate is counted once, under the first rule it fails, in the order the rules run "
            "(edgar_eval/golden/fairness.py). The absence rule (edgar_eval/golden/might_answer.py) reads no reader's "
            "vocabulary. An absent-concept candidate is rejected only on what a careful reader takes as the filing "
            "printing it: a name of the line item (its label, or a row label at least two other companies print "
            "beside the same concept, never learned from the company asked) with all its distinctive words together "
            "in a row, a heading over rows of figures, or a sentence, with a figure for the asked period beside it "
            "(printed_in_row, heading_over_components, printed_in_sentence), or a sentence saying there is none or "
            "that it is not material (printed_as_none). Tag names, extension concepts and the cover page are not "
            "evidence. A total or computed figure is never asked as absent (cannot_be_shown_absent); nor one from a "
            "filing whose statements are incorporated from an exhibit the corpus lacks (statements_elsewhere, one row "
            "per filing with no concept); nor one whose scope tags an element of its taxonomy family. What the "
            "words leave open (a name printed for other periods only; a row of figures holding most of the label's "
            "words or two of its rare ones) awaits a person's review (awaiting_review) and is never admitted "
            "unreviewed. Blind spots: a line printed under a name no other company of the corpus uses and with none "
            "of the item's rare words, a figure printed only in an image. forward_schedule: an other-year twin whose "
            "year the company's filings print as a row or column of a table under the concept's words (an estimated "
            "amortization, a maturity, a future payment). several_fair_answers: an answerable figure whose scope "
            "prints a second row under the question's own words with another figure is not asked (one fair answer, "
            "or no question).",
        ),
    ]
    if filings is not None and golden.kind.isin(TWO_DOCUMENT_KINDS).any():
        supply = two_document_supply(golden, rejections, filings)
        short = [r.kind for r in iter_rows(supply) if r.questions < 30]
        tables.append(
            ReportTable(
                "Two-document questions: what the corpus allows",
                supply,
                Provenance("golden_questions", content_version(golden), source),
                note="Each kind needs a pair of filings (golden.two_documents): a pair whose later or annual filing "
                "prints the other figure too is one document (one_document_suffices), and is not asked. "
                + (
                    f"Under 30 questions: {', '.join(short)}, because the corpus holds few such pairs (the last "
                    "column), not because the rules reject them."
                    if short
                    else "Every kind holds 30 questions or more."
                ),
            )
        )
    by_filing = absence_by_filing(golden, rejections)
    if len(by_filing):
        queue = review_queue if review_queue is not None else pd.DataFrame(columns=["status"])
        statuses = queue.status.value_counts().to_dict() if len(queue) else {}
        tables.append(
            ReportTable(
                "Absent-concept candidates per filing",
                by_filing,
                Provenance("golden_rejections", content_version(rejections), source),
                note=f"{int(by_filing.admitted.sum())} admitted of {int(by_filing.candidates.sum())} candidates in "
                f"{len(by_filing)} filings; the builder asks up to 4 per filing (quota_per_filing beyond). Review "
                f"queue (asset absence_review_queue, verdicts in reviews/<corpus>/absent-concept-v1.jsonl): "
                + (
                    ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in sorted(statuses.items()))
                    if statuses
                    else "empty"
                )
                + ". A candidate is a line item other companies of the corpus report that the filing's scope neither "
                "tags nor its company reports anywhere.",
            )
        )
    return tables


@dataclass(frozen=True)
class ReportInputs:
    """Every asset table the report reads; nothing else reaches it."""

    corpus_name: str
    filings: pd.DataFrame
    left_out: dict[str, str]
    golden: pd.DataFrame
    golden_set: pd.DataFrame
    rejections: pd.DataFrame
    retrieval: pd.DataFrame
    slices: pd.DataFrame
    arms: pd.DataFrame
    comparisons: pd.DataFrame
    gates: pd.DataFrame
    gate_differences: pd.DataFrame
    determinism: pd.DataFrame
    latency: pd.DataFrame
    costs: pd.DataFrame
    mutations: pd.DataFrame
    generations: pd.DataFrame
    risk_curves: dict[str, tuple[list[float], list[float]]]
    index_fingerprint: str
    settings: dict
    pattern_funnel: pd.DataFrame = field(default_factory=pd.DataFrame)
    admission_agreement: pd.DataFrame = field(default_factory=pd.DataFrame)
    golden_patterns: pd.DataFrame = field(default_factory=pd.DataFrame)
    pattern_baseline: pd.DataFrame = field(default_factory=pd.DataFrame)
    gates_by_kind: pd.DataFrame = field(default_factory=pd.DataFrame)
    golden_audit: pd.DataFrame = field(default_factory=pd.DataFrame)
    readers: pd.DataFrame = field(default_factory=pd.DataFrame)
    coverage: pd.DataFrame = field(default_factory=pd.DataFrame)
    routes: pd.DataFrame = field(default_factory=pd.DataFrame)
    release: pd.DataFrame = field(default_factory=pd.DataFrame)
    receipts: pd.DataFrame = field(default_factory=pd.DataFrame)
    fixture: pd.DataFrame = field(default_factory=pd.DataFrame)
    scope_gold: pd.DataFrame = field(default_factory=pd.DataFrame)  # gold_by_search_scope
    scope_changes: pd.DataFrame = field(default_factory=pd.DataFrame)  # retrieval_scope_changes
    rerank: pd.DataFrame = field(default_factory=pd.DataFrame)  # rerank_metrics
    expansion: pd.DataFrame = field(default_factory=pd.DataFrame)  # expansion_metrics
    answer_noise_band: pd.DataFrame = field(default_factory=pd.DataFrame)  # answering_noise_band
    rerank_noise_band: pd.DataFrame = field(default_factory=pd.DataFrame)  # rerank_noise_band
    expansion_rows: int = 0  # the table_expansion_rows setting
    noise_band: pd.DataFrame = field(default_factory=pd.DataFrame)  # retrieval_noise_band
    noise: pd.DataFrame = field(default_factory=pd.DataFrame)  # retrieval_noise: the replicas
    decision_simulation: pd.DataFrame = field(default_factory=pd.DataFrame)  # protocol v3
    design_power: pd.DataFrame = field(default_factory=pd.DataFrame)  # protocol v3
    false_answers_by_kind: pd.DataFrame = field(default_factory=pd.DataFrame)  # arm_false_answers_by_kind
    fact_rejections: pd.DataFrame = field(default_factory=pd.DataFrame)  # the facts the parser dropped, per filing
    absence_review: pd.DataFrame = field(default_factory=pd.DataFrame)  # absence_review_queue
    evidence_filings: pd.DataFrame = field(default_factory=pd.DataFrame)  # evidence_filing_hits
    answers_by_kind: pd.DataFrame = field(default_factory=pd.DataFrame)  # arm_answers_by_kind
    wrong_answers: pd.DataFrame = field(default_factory=pd.DataFrame)  # wrong_answers


@dataclass(frozen=True)
class RenderedReport:
    markdown: str
    html: str
    timings: str  # wall-clock figures, kept out of the byte-identical report
    receipt: dict


def _bands(inputs: ReportInputs) -> dict[tuple[str, str, int], tuple[float, float]]:
    """The noise band per (scope, retriever, K), in points."""
    band = inputs.noise_band
    if band.empty:
        return {}
    return {
        (str(s), str(r), int(k)): (float(lo), float(hi))
        for s, r, k, lo, hi in zip(band.search_scope, band.retriever, band.k, band.band_low, band.band_high)
    }


def _hits_cell(hits: int, questions: int) -> str:
    """A page hit count as the report prints it: the share and the count, "93.5% (303/324)"."""
    return f"{percent(hits / questions)} ({_ratio(hits, questions)})"


def _band_words(band: tuple[float, float] | None) -> str:
    return "not measured" if band is None else f"{band[0]:+.1f} to {band[1]:+.1f} points"


def noise_tables(inputs: ReportInputs) -> list[ReportTable]:
    """Which companies each replica of the noise band left out of its index."""
    noise = inputs.noise
    if noise.empty:
        return []
    names = {cik: display_name(company) for cik, company in zip(inputs.filings.cik, inputs.filings.company)}
    replicas = noise.drop_duplicates("replica").sort_values("replica")
    table = pd.DataFrame(
        {
            "replica": replicas.replica,
            "companies left out of the index": [
                ", ".join(md_cell(names.get(cik, cik)) for cik in left) for left in replicas.left_out
            ],
            "answerable questions still measured (most, any scope)": [
                int(noise[noise.replica == replica].questions.max()) for replica in replicas.replica
            ],
        }
    )
    tables = [
        ReportTable(
            "Noise band: what a live index changes",
            table,
            Provenance("retrieval_noise", content_version(noise), "retriever_rankings over search_index"),
            note="Each replica repeats the retrieval measurement over an index a live one could be: a few companies' "
            "filings left out (this corpus has no spare filings to add, so only removal is measured) and the rest "
            "stored in another order. Its page hit is compared with the measurement's on the same questions, so the "
            "band (Retrieval, last column) is the index's effect alone. A difference inside the band is not evidence "
            'that either figure is better. Where a replica cannot move the figure, no band is printed ("none: cannot '
            "move here\"): a dense ranking within one company's filings reads no other company's chunk, so leaving "
            "companies out changes it only by breaking an exact tie; BM25 and hybrid read the whole index's "
            "statistics and move in every scope.",
        )
    ]
    answering = inputs.answer_noise_band
    figures = {"answer_accuracy": "answer accuracy", "false_answer_rate": "false-answer rate"}
    tables.append(
        ReportTable(
            "Noise band: answering, arm A",
            pd.DataFrame(
                {
                    "figure": [figures.get(f, f) for f in answering.figure],
                    "arm": answering.arm,
                    "replicas": answering.replicas,
                    "questions (fewest)": answering.questions,
                    "noise band": [_band_words((lo, hi)) for lo, hi in zip(answering.band_low, answering.band_high)],
                }
            )
            if len(answering)
            else pd.DataFrame({"figure": ["answer accuracy, false-answer rate"], "noise band": ["not measured"]}),
            Provenance("answering_noise_band", content_version(answering), "answering_noise (the same replicas)"),
            note="Arm A (no gate) answered again over each replica of the index: every question of the companies "
            "still in it searched by the answerer's retriever and read by the generator, judged as arm A is, and "
            "compared with the measurement on the same questions. Measured for a deterministic offline generator "
            "only; the gated arms' thresholds are fitted on the measured run and are not replicated.",
        )
    )
    return tables


def scope_tables(inputs: ReportInputs) -> list[ReportTable]:
    """How many answerable questions each wider search scope measures and why the others are not, and what widening
    costs on the questions measured in both scopes."""
    gold, changes, bands = inputs.scope_gold, inputs.scope_changes, _bands(inputs)
    if gold.empty:
        return []
    answerable = int((inputs.golden.expected_route == ANSWER).sum())
    rows = []
    for scope in [s for s in SEARCH_SCOPES if s in set(gold.search_scope)]:
        own = gold[gold.search_scope == scope]
        excluded = own.rule.value_counts().sort_index()
        measured = cast(pd.DataFrame, own[own.rule.isna()])
        rows.append(
            {
                "scope": scope,
                "searches": SCOPE_WORDS[scope],
                "answerable questions measured": f"{len(measured)} of {answerable}",
                "not measured there, by rule": ", ".join(f"{rule} {n}" for rule, n in excluded.items()) or "none",
                "measured questions whose figure another company prints": (
                    f"{int((measured.other_company_pages > 0).sum())} (distractors in this scope)"
                    if scope == CORPUS
                    else "none searched"
                ),
            }
        )
    tables = [
        ReportTable(
            "Golden questions per wider search scope",
            pd.DataFrame(rows),
            Provenance("gold_by_search_scope", content_version(gold), "golden_questions_and_rejections"),
            note="Gold follows the scope: every chunk of the company's filings that prints the figure with its meaning "
            "(a comparative year printed by a later report too). The fairness rules run again over every filing of "
            "the company: a figure printed with other meanings on more pages there, or restated by another filing of "
            "the company, is not measured in the wider scopes. Another company's page never holds the company's "
            "figure, so the whole corpus has the company's gold; another company printing the same number is a "
            "distractor the search must rank below it.",
        )
    ]
    if len(changes):
        tables.append(
            ReportTable(
                "Retrieval when the search widens (paired)",
                pd.DataFrame(
                    {
                        "scope": changes.search_scope,
                        "retriever": changes.retriever,
                        "K": changes.k,
                        "questions in both": changes.questions,
                        "page hit, company_year": list(map(_hits_cell, changes.narrow_page_hits, changes.questions)),
                        "page hit, wider": list(map(_hits_cell, changes.wide_page_hits, changes.questions)),
                        "change": [
                            f"{100 * (w - c) / n:+.1f} points"
                            for w, c, n in zip(changes.wide_page_hits, changes.narrow_page_hits, changes.questions)
                        ],
                        "found in company_year only": changes.lost,
                        "found in the wider scope only": changes.gained,
                        "beyond the index noise band": [
                            "not measured"
                            if not bands
                            else "yes"
                            if beyond_band(
                                100 * (w - c) / n,
                                [b for b in (bands.get((COMPANY_YEAR, r, k)), bands.get((s, r, k))) if b is not None],
                            )
                            else "no (inside)"
                            for s, r, k, w, c, n in zip(
                                changes.search_scope,
                                changes.retriever,
                                changes.k,
                                changes.wide_page_hits,
                                changes.narrow_page_hits,
                                changes.questions,
                            )
                        ],
                    }
                ),
                Provenance("retrieval_scope_changes", content_version(changes), "retriever_rankings"),
                note="The same questions searched in the answerer's scope and in a wider one, so the change is the "
                "scope's and not a change of questions. Beyond the index noise band: larger than any swing a replica "
                "of either figure made (see the noise band); that is not significance, since a change of a few "
                "questions can still lie within the questions' own sampling error (the Wilson intervals above).",
            )
        )
    return tables


def rerank_tables(inputs: ReportInputs) -> list[ReportTable]:
    """The rerank stage against the retriever's own order, per scope and cut, paired on the same questions."""
    rerank = inputs.rerank
    if rerank.empty:
        return []
    bands = {
        (b.search_scope, int(b.candidates), int(b.kept)): ((b.before_low, b.before_high), (b.after_low, b.after_high))
        for b in iter_rows(inputs.rerank_noise_band)
    }

    table = pd.DataFrame(
        {
            "scope": rerank.search_scope,
            "candidates": [f"{r} top {c}" for r, c in zip(rerank.retriever, rerank.candidates)],
            "kept": rerank.kept,
            "page hit, retriever's order": list(map(_hits_cell, rerank.page_hits_before, rerank.questions)),
            "page hit, reranked": list(map(_hits_cell, rerank.page_hits_after, rerank.questions)),
            "change": [
                f"{100 * (a - b) / n:+.1f} points"
                for a, b, n in zip(rerank.page_hits_after, rerank.page_hits_before, rerank.questions)
            ],
            "lost": rerank.lost,
            "gained": rerank.gained,
            "gold chunk kept, before / after": [
                f"{b} / {a}" for b, a in zip(rerank.chunk_hits_before, rerank.chunk_hits_after)
            ],
            "beyond the index noise band": [
                _rerank_band_words(bands.get((scope, c, k)), after - before, n)
                for scope, c, k, after, before, n in zip(
                    rerank.search_scope,
                    rerank.candidates,
                    rerank.kept,
                    rerank.page_hits_after,
                    rerank.page_hits_before,
                    rerank.questions,
                )
            ],
        }
    )
    return [
        ReportTable(
            f"Rerank: what the answerer would read (reranker {md_cell(rerank.reranker.iloc[0])})",
            table,
            Provenance("rerank_metrics", content_version(rerank), "reranked_retrievals (retriever_rankings)"),
            note="Each cut reranks the answerer's retriever's top candidates and keeps the best: page hit among the "
            "kept passages in the retriever's own order (its first ones) and after the reranker, on the same "
            "answerable questions; lost and gained count the questions whose gold page left or entered the kept "
            "passages. Beyond the index noise band: the change is larger than any swing a replica of the index "
            "made of either figure (not significance). A cut that keeps the answerer's K maps to what the model "
            "reads. The rerank's cost per "
            "question is in timings.md.",
        )
    ]


def _rerank_band_words(band, change_hits: int, questions: int) -> str:
    if band is None:
        return "not measured"
    widest = max(abs(v) for pair in band for v in pair)
    beyond = beyond_band(100 * change_hits / questions, band) if questions else False
    return f"{'yes' if beyond else 'no'} (widest swing {widest:.1f} points)"


def expansion_tables(inputs: ReportInputs) -> list[ReportTable]:
    """Table-chunk expansion against the passages read as they are, per scope, cut and order, paired."""
    expansion = inputs.expansion
    if expansion.empty:
        return []
    table = pd.DataFrame(
        {
            "scope": expansion.search_scope,
            "passages read": [
                f"{k} of {c}, {'reranked' if order == 'reranked' else 'retriever order'}"
                for order, k, c in zip(expansion.order, expansion.kept, expansion.candidates)
            ],
            "page hit, as chunked": list(map(_hits_cell, expansion.page_hits_plain, expansion.questions)),
            "page hit, expanded": list(map(_hits_cell, expansion.page_hits_expanded, expansion.questions)),
            "gained / lost": [f"{g} / {lost}" for g, lost in zip(expansion.gained, expansion.lost)],
            "gold row read, as chunked": list(map(_hits_cell, expansion.rows_read_plain, expansion.questions)),
            "gold row read, expanded": list(map(_hits_cell, expansion.rows_read_expanded, expansion.questions)),
            "characters read per question": [
                f"{plain:,.0f} to {grown:,.0f} ({100 * (grown / plain - 1):+.0f}%)" if plain else "0"
                for plain, grown in zip(expansion.mean_chars_plain, expansion.mean_chars_expanded)
            ],
        }
    )
    return [
        ReportTable(
            f"Table-chunk expansion: {inputs.expansion_rows} rows each way within a table",
            table,
            Provenance("expansion_metrics", content_version(expansion), "expanded_retrievals (reranked_retrievals)"),
            note="The kept passages of each rerank cut, in the retriever's order and in the reranker's, read as "
            "chunked and expanded: a passage with an end inside a table reaches that many rows further (never past "
            "the table) and opens with the table's scale line and header rows. Gold row read: the question's row, "
            "as its source filing prints it, lies whole in a passage read, so the figure is read with its label; a "
            "page hit does not promise that. The expansion buys what it buys with the characters in the last "
            "column; its cost per question is in timings.md.",
        )
    ]


def funnel_table(funnel: pd.DataFrame) -> ReportTable:
    """The funnel per pattern; a test rebuilds it from the real filings and the hand-written candidates."""
    return ReportTable(
        "Hard golden questions: the funnel per dispersion pattern",
        funnel.rename(columns=lambda c: c.replace("_", " ")),
        Provenance("pattern_funnel", content_version(funnel), "admission_verdicts over golden_proposals"),
        note="Proposed (unreadable ones included) -> every quote found verbatim -> the pattern's contract met on "
        "the text -> every answer figure quoted or one step away -> all ten admission gates passed -> selected for the "
        "frozen set (edgar_eval/golden/gates.py).",
    )


def pattern_tables(inputs: ReportInputs) -> list[ReportTable]:
    """The hard-question pipeline: the funnel per pattern, agreement with hand-written verdicts, the frozen set and
    the naive baseline scored on it."""
    funnel, agreement, frozen, baseline = (
        inputs.pattern_funnel,
        inputs.admission_agreement,
        inputs.golden_patterns,
        inputs.pattern_baseline,
    )
    if funnel.empty:
        return []
    source = "admission_verdicts over golden_proposals"
    tables = [funnel_table(funnel)]
    if len(agreement) and int(agreement.candidates.iloc[0]):
        shown = agreement.assign(agreement=[f"{a}/{n}" for a, n in zip(agreement.agree, agreement.candidates)])
        tables.append(
            ReportTable(
                "Gate verdicts against hand-written verdicts",
                cast(pd.DataFrame, shown[["gate", "agreement", "gate_only", "person_only"]]).rename(
                    columns={"gate_only": "failed by the gate only", "person_only": "failed by the person only"}
                ),
                Provenance("admission_agreement", content_version(agreement), source),
                note=f"Over the {int(agreement.candidates.iloc[0])} proposals that carry the verdict a person "
                "expected; "
                f"{int(agreement.differences.iloc[0])} overall verdict(s) differ.",
            )
        )
    if len(frozen):
        made_up = (
            cast(pd.Series, frozen.groupby(["pattern", "difficulty"], sort=True).size()).rename("cases").reset_index()
        )
        per_pattern = int(frozen.per_pattern.iloc[0])
        counts = frozen.pattern.value_counts()
        short = [f"{p} {int(counts.get(p, 0))}" for p in PATTERN_CONTRACTS if counts.get(p, 0) < per_pattern]
        by_difficulty = frozen.difficulty.value_counts()
        balance = (
            f"up to {per_pattern} accepted cases per pattern; {int(by_difficulty.get('single-document', 0))} "
            "single-document "
            f"and {int(by_difficulty.get('two-document', 0))} two-document"
            + (f"; short of {per_pattern}: {', '.join(short)} (not enough accepted proposals)" if short else "")
        )
        tables.append(
            ReportTable(
                f"Frozen pattern set {frozen.version.iloc[0]}",
                made_up,
                Provenance("golden_patterns", content_version(frozen), "admission_verdicts"),
                note=f"Export sha256 `{frozen.content_hash.iloc[0]}`; every case passed all ten admission gates; "
                f"{balance}.",
            )
        )
    if len(baseline):
        rows = []
        for (label, value), group in [(("pattern", p), g) for p, g in baseline.groupby("pattern", sort=True)] + [
            (("difficulty", d), g) for d, g in baseline.groupby("difficulty", sort=True)
        ]:
            recall, quotes = group.document_recall.dropna(), group.quote_recall.dropna()
            rows.append(
                {
                    "slice": label,
                    "value": value,
                    "cases": len(group),
                    "document recall": f"{recall.mean():.2f}" if len(recall) else "n/a",
                    "quote recall": f"{quotes.mean():.2f}" if len(quotes) else "n/a",
                    "correct": _ratio(int(group.correct.sum()), len(group)),
                    "abstained": _ratio(int(group.abstained.sum()), len(group)),
                }
            )
        tables.append(
            ReportTable(
                "Naive baseline on the frozen pattern set",
                pd.DataFrame(rows),
                Provenance("pattern_baseline", content_version(baseline), "golden_patterns x search_index"),
                note="Dense top-k over the company's filings and the extractive reader, through the same citation "
                "check as the arms. Document recall: the share of a case's evidence filings among the "
                "retrieved chunks; quote recall: the share of evidence quotes with a chunk among "
                "them. Correct: a stated figure of the reference answer, or a refusal where "
                "the case expects one.",
            )
        )
    if len(inputs.golden_audit):
        audited = inputs.golden_audit
        current = audited[audited.current.astype(bool)] if "current" in audited else audited
        tables += [audit_table(cast(pd.DataFrame, current)), audit_reviewers_table(cast(pd.DataFrame, current))]
        if "current" in audited and (~audited.current.astype(bool)).any():
            tables.append(audit_kept_table(cast(pd.DataFrame, audited[~audited.current.astype(bool)])))
    return tables


def audit_kept_table(kept: pd.DataFrame) -> ReportTable:
    """Verdicts on cases the sample no longer holds, as given: the audit's defect rate before the rules were fixed."""
    rows = []
    for kind, group in sorted(kept.groupby("kind"), key=lambda pair: str(pair[0])):
        defects = int(group.status.isin(["defect", "computable"]).sum())
        rows.append(
            {
                "kind": kind,
                "verdicts": len(group),
                "defects": defects,
                "defect rate": percent(defects / len(group)),
                "reviewers": ", ".join(sorted(set(group.reviewer_role))),
                "defects found": "; ".join(
                    f"{r.case_id}: {r.reason}"[:240] for r in iter_rows(group) if r.status in ("defect", "computable")
                )
                or "none",
            }
        )
    return ReportTable(
        "Golden set audit: verdicts kept from earlier rules",
        pd.DataFrame(rows, columns=["kind", "verdicts", "defects", "defect rate", "reviewers", "defects found"]),
        Provenance("golden_audit", content_version(kept), "reviews"),
        note="Verdicts on record whose case the current sample no longer holds: the rules changed after them (a defect "
        "found becomes a constructed test and a rule change, and its case leaves the set) or the case's evidence did. "
        "Kept as given, so the rate before a fix stays readable beside the rate after it (the audit table above).",
    )


def audit_table(judged: pd.DataFrame) -> ReportTable:
    summary = audit_summary(judged)
    frame = pd.DataFrame(
        {
            "kind": summary.kind,
            "sampled": summary.sampled,
            "reviewed": summary.reviewed,
            "defects": summary.defects,
            "of them computable": summary.computable,
            "audited defect rate": [percent(r) if n else "n/a" for r, n in zip(summary.defect_rate, summary.reviewed)],
            "Wilson 95%": [
                interval(lo, hi) if n else "n/a" for lo, hi, n in zip(summary.low, summary.high, summary.reviewed)
            ],
            "awaiting review": summary.awaiting,
        }
    )
    return ReportTable(
        "Golden set audit",
        frame,
        Provenance("golden_audit", content_version(judged), "golden_set, golden_patterns, reviews"),
        note="A seeded sample of the frozen set (per template kind, absent-concept deepest, and every hard-question "
        "case) read against the filings; verdicts in reviews/<corpus>/, each bound to its case's sha256. A defect is "
        "a wrong route or gold, or, for an unanswerable case, a scope that answers it by one computation from printed "
        "lines (computable). The defect rate is over reviewed cases; a case awaiting review is counted as awaiting, "
        "never as correct. Who gave the verdicts is the next table.",
    )


def audit_reviewers_table(judged: pd.DataFrame) -> ReportTable:
    summary = reviewer_summary(judged)
    by_authors = int(summary[summary.reviewer_role == RULES_AUTHOR].verdicts.sum())
    total = int(summary.verdicts.sum())
    if not total:
        plainly = "No verdict is recorded for this sample yet."
    elif by_authors:
        plainly = (
            f"{by_authors} of the {total} verdicts come from the team that wrote the golden rules: those are not an "
            "independent audit."
        )
    else:
        plainly = f"None of the {total} verdicts comes from the team that wrote the golden rules."
    return ReportTable(
        "Golden set audit: who gave the verdicts",
        summary.rename(columns={"reviewer_role": "role"}),
        Provenance("golden_audit", content_version(judged), "reviews"),
        note=f"{plainly} independent: a reviewer who did not write the rules, briefed to find fault and reading the "
        "filings' text rather than the rules; rules_author: the team that wrote them.",
    )


def _companies(comparisons: pd.DataFrame) -> int | None:
    return int(comparisons.companies.max()) if "companies" in comparisons and len(comparisons) else None


def _method(comparisons: pd.DataFrame) -> str:
    return (
        str(comparisons.interval_method.iloc[0])
        if "interval_method" in comparisons and len(comparisons)
        else "percentile"
    )


def _generators_in_use(inputs: ReportInputs) -> set[str]:
    """The generators whose answers the arms read (none when nothing was generated)."""
    return set(inputs.generations.generator_id) if len(inputs.generations) else set()


def _in_sample(inputs: ReportInputs) -> list[str]:
    """The generators the arms read whose rules were tuned on this corpus."""
    return sorted(g for g in _generators_in_use(inputs) if inputs.corpus_name in tuned_on(g))


def evidence_filing_table(evidence: pd.DataFrame) -> ReportTable:
    """Retrieval per evidence filing of the two-document questions: both found at K, one, none."""
    table = pd.DataFrame(
        {
            "retriever": evidence.retriever,
            "K": evidence.k,
            "questions": evidence.questions,
            "both filings": [
                f"{percent(v)} ({_ratio(k, n)})"
                for v, k, n in zip(evidence.both_share, evidence.both, evidence.questions)
            ],
            "both Wilson 95%": [interval(lo, hi) for lo, hi in zip(evidence.both_low, evidence.both_high)],
            "one filing": evidence.one,
            "neither": evidence.none,
        }
    )
    return ReportTable(
        "Retrieval per evidence filing (two-document questions)",
        table,
        Provenance("evidence_filing_hits", content_version(evidence), "retriever_rankings"),
        note="A two-document question (granularity, restatement, change over time, cross-company) needs a figure from "
        "each of two filings: found in both means a passage read spans a gold page of each. One filing found is the "
        "half-answer a reader then completes from memory or not at all. In the answerer's scope (`company_year`: the "
        "question's own scope, both filings' fiscal years).",
    )


def wrong_answers_table(categories: pd.DataFrame) -> ReportTable:
    """Per reader and arm and per kind: how many questions ended in each outcome category (wrong_answers)."""
    present = [c for c in WRONG_ANSWER_CATEGORIES if c in set(categories.category)]
    rows = []
    for (system, kind), group in iter_groups(categories.groupby(["system", "kind"], sort=True)):
        row = {"system": md_cell(str(system)), "kind": kind, "questions": len(group)}
        for category in present:
            row[category] = int((group.category == category).sum())
        rows.append(row)
    return ReportTable(
        "Why wrong answers are wrong",
        pd.DataFrame(rows, columns=["system", "kind", "questions", *present]),
        Provenance("wrong_answers", content_version(categories), "generations, arm_outcomes, answerer_retrievals"),
        note="Each reader (on the answerable questions) and each arm (on every question), by the category its outcome "
        "falls in, from provenance (edgar_eval/evaluation/wrong_answers.py): the answer's figures against the gold and "
        "the passages read. A figure from another column of the gold row is a wrong period, from another row beside "
        "it a wrong line, from a filing without gold a wrong filing (another company's: wrong company); a figure in "
        "none of the passages is printed nowhere read. A false answer to an unanswerable twin given from what was read "
        "is its kind's mis-selection (wrong period, wrong company, wrong line). Arm A's category is on each case's "
        "receipt.",
    )


def _reader_labels(inputs: ReportInputs) -> list[str]:
    """Each reader as the Readers table names it: in-sample, and which one the arms read."""
    in_use = _generators_in_use(inputs)
    return [
        f"{md_cell(r)}{' (in-sample)' if inputs.corpus_name in tuned_on(r) else ''}"
        f"{' (the arms read this one)' if r in in_use else ''}"
        for r in inputs.readers.reader
    ]


def _reader_documents(readers: pd.DataFrame) -> list[str]:
    """Which questions each Readers row counts: all, those of one filing, those of two."""
    return [
        {"all": "all", "1": "one filing", "2": "two filings"}.get(str(d), str(d))
        for d in (readers.documents if "documents" in readers else ["all"] * len(readers))
    ]


def readers_table(inputs: ReportInputs) -> ReportTable:
    """Both offline readers on the passages the answerer read, beside the gold-chunk hit at the answerer's K."""
    readers, settings = inputs.readers, inputs.settings
    table = pd.DataFrame(
        {
            "reader": _reader_labels(inputs),
            "documents": _reader_documents(readers),
            f"gold chunk in the top {settings['top_k']}": [
                f"{percent(k / n)} ({_ratio(k, n)})" for k, n in zip(readers.gold_chunk_retrieved, readers.questions)
            ],
            "right": list(map(_share_cell, readers.right_share, readers.right, readers.questions)),
            "right Wilson 95%": [interval(lo, hi) for lo, hi in zip(readers.right_low, readers.right_high)],
            "right where the gold chunk was retrieved": [percent(v) for v in readers.right_when_gold_retrieved],
            "wrong": readers.wrong,
            "declined or withheld": readers.declined,
        }
    )
    return ReportTable(
        "Readers",
        table,
        Provenance("reader_accuracy", content_version(readers), "answerer_retrievals x golden_questions"),
        note=f"Every answerable question, the top {settings['top_k']} {settings['answer_retriever']} passages, "
        "judged as under arm A (citation check, then the gold figure). The gold-chunk hit is the readers' "
        "ceiling: what the reader of these passages could at best find. Arm A's correct-on-answerable and "
        "every gate's recall cost describe the reader marked. In-sample: the reader's rules were tuned on this "
        "corpus, so its figures here say how it reads the filings it was fitted to, not filings in general.",
    )


def routes_table(routes: pd.DataFrame) -> ReportTable:
    """The route confusion matrix: expected route x route taken, and the share that exited as expected."""
    taken = [column for column in routes.columns if column.startswith("taken_")]
    table = pd.DataFrame(
        {
            "expected route": routes.expected_route,
            "cases": routes.cases,
            **{column.removeprefix("taken_"): routes[column] for column in taken},
            "exited as expected": [
                f"{percent(v)} ({interval(lo, hi)})"
                for v, lo, hi in zip(routes.exit_share, routes.exit_low, routes.exit_high)
            ],
        }
    )
    from_flag = int(routes.read_from_flag.sum())
    flag_note = (
        f" {from_flag} of the exits after retrieval were read from the generator's abstained flag and the citation "
        "check (answered: answer; withheld: no_answer): its replies carry no route field. Review after retrieval "
        "comes from the passages read disagreeing on the asked figure, whatever the generator said."
        if from_flag
        else ""
    )
    return ReportTable(
        "Routes (expected x taken)",
        table,
        Provenance(
            "route_matrix", content_version(routes), "route_outcomes (route_cases, golden_questions, generations)"
        ),
        note="Rows: the route a golden case expects; columns: the route it took (Wilson 95% interval on the share "
        "that exited as expected). answer, no_answer (and deny, where the asking role may read no filing of a "
        "question's scope) are the golden questions, by the router and then the generation (answered or withheld, "
        "right or wrong alike); clarify, review and deny are also the route cases (golden/route_cases.py), decided by "
        "the router before retrieval, whose rules share the router's readings of company and period: those rows are "
        "right by construction for this router and measure other systems. retrieval: a route case the router let "
        "through." + flag_note,
    )


def receipts_table(receipts: pd.DataFrame) -> ReportTable:
    """Per expected route: the cases, the evaluator's passes, the reviewer's overrides, and the passes after them."""
    rows = []
    for route in ROUTES:
        cases = receipts[receipts.expected_route == route]
        if cases.empty:
            continue
        rows.append(
            {
                "expected route": route,
                "cases": len(cases),
                "evaluator passed": int((cases.result == "pass").sum()),
                "overrides applied": int((cases.override_status == "applied").sum()),
                "overrides stale": int((cases.override_status == "stale").sum()),
                "passed after review": int((cases.final_result == "pass").sum()),
            }
        )
    return ReportTable(
        "Case receipts",
        pd.DataFrame(rows),
        Provenance("case_receipts", content_version(receipts), "route_outcomes, generations, answerer_retrievals"),
        note="One receipt per golden case in `data/<corpus>/case_receipts.jsonl`: routes expected and taken, the "
        "passages retrieved and cited (filing, its sha256, pages, chunk), the answer and the evaluator's result. An "
        "answer case passes when it answered with the gold figure, any other when it exited by its expected route. A "
        "reviewer's override (`reviews/<corpus>/receipts-v1.jsonl`) applies to the case version it names; one for "
        "another version is stale.",
    )


def release_title(checks: pd.DataFrame) -> str:
    return f"Release decision: {release_decision(checks)}"


def release_table(checks: pd.DataFrame) -> ReportTable:
    """The run's release decision and every rule behind it."""
    table = pd.DataFrame(
        {
            "rule": checks.rule,
            "forces": checks.decision,
            "fired": ["yes" if fired else "no" for fired in checks.fired],
            "evidence": checks.evidence,
        }
    )
    return ReportTable(
        release_title(checks),
        table,
        Provenance(
            "release_checks",
            content_version(checks),
            f"route_outcomes, generations, release_fixture_results; {checks.version.iloc[0]}",
        ),
        note=f"The rules are versioned (`protocol/{checks.version.iloc[0]}.toml`). The run's decision is the strictest "
        "that a fired rule forces (hold, then human review, then investigate); release when none fires.",
    )


def fixture_tables(results: pd.DataFrame) -> list[ReportTable]:
    """The release fixture route by route (stale cases on their own rows), then each stale case with its reason."""
    provenance = Provenance("release_fixture_results", content_version(results), "release_fixture_cases")
    summary = fixture_summary(results).rename(
        columns={"expected_route": "declared route", "exited_as_declared": "exited as declared"}
    )
    stale = results[results.stale]
    tables = [
        ReportTable(
            f"Release fixture: {int(results.passed.sum())} of {len(results)} cases passed",
            summary,
            provenance,
            note="A hand-picked must-pass set (`fixtures/<corpus>/release-v1.jsonl`), not a sample: each case must "
            "exit by its declared route, and an answer must state the current figure citing only filings its role may "
            "read that are their own current revision. Before scoring, a case whose evidence filing was superseded by "
            "an amendment or whose sha256 differs from the one it recorded is listed stale, re-verified in the current "
            "revision, and counted on its own rows; a changed figure must be neither retrieved nor repeated.",
        )
    ]
    if len(stale):
        tables.append(
            ReportTable(
                "Release fixture: stale cases",
                pd.DataFrame(
                    {
                        "case": stale.case_id,
                        "re-verified": stale.stale_status,
                        "why stale": stale.stale_reason,
                        "taken route": stale.taken_route,
                        "passed": ["yes" if p else "no" for p in stale.passed],
                        "failures": stale.failures,
                    }
                ),
                provenance,
                note="Old and new figure as printed in the filings; `unchanged`: the source changed but the figure "
                "stands.",
            )
        )
    return tables


FACTS_DROPPED_NAMED = 5  # a filing's dropped facts are named with their reasons up to this many


def _facts_dropped(filings: pd.DataFrame, dropped: pd.DataFrame) -> tuple[list[str], str]:
    """The Corpus table's `facts dropped` cell per filing (how many, and each with its reason when few) and the
    note that gives the total."""
    groups = dict(iter_groups(dropped.groupby("filing_id", sort=True))) if len(dropped) else {}
    cells = []
    for filing_id in filings.filing_id:
        rows = groups.get(filing_id)
        if rows is None:
            cells.append("0")
        elif len(rows) > FACTS_DROPPED_NAMED:
            cells.append(f"{len(rows)} (each with its reason in fact_rejections)")
        else:
            named = (f"{r.concept}{f' (id {r.fact_id})' if r.fact_id else ''}: {r.reason}" for r in iter_rows(rows))
            cells.append(f"{len(rows)}: " + "; ".join(named))
    note = (
        f"Facts dropped: {len(dropped)} in total, from {len(groups)} of the {len(filings)} filings. A fact the parser "
        "cannot read (a number word or format it does not know, no digits, an unreadable scale or context date) is "
        "dropped with its reason and the filing read without it; each is a row of asset `fact_rejections` (data "
        f"version `{content_version(dropped.reset_index(drop=True))}`), named here when a filing drops at most "
        f"{FACTS_DROPPED_NAMED}."
    )
    return cells, note


SUMMARY = "Summary"
NOT_IN_INPUTS = "none: not in this run's inputs"


def _section(tables: list[ReportTable], name: str) -> str:
    """The title of the detail section called ``name`` (or ``name (...)``, ``name: ...``); "" when there is none."""
    return next(
        (t.title for t in tables if t.title == name or t.title.startswith((f"{name} (", f"{name}: "))),
        "",
    )


def _kinds_no_arm_moves(rates: pd.DataFrame, column: str) -> list[tuple[str, int]]:
    """The kinds on which every arm's `column` counts 0 (none false, or none right), with the kind's questions."""
    found = []
    for kind in sorted(set(rates.kind)) if len(rates) else []:
        kinds = [kind_rate(rates, arm, kind, column) for arm in sorted(set(rates.arm))]
        if all(rate is None or rate.k == 0 for rate in kinds):
            found.append((kind, max((rate.n for rate in kinds if rate is not None), default=0)))
    return found


def summary_table(inputs: ReportInputs, tables: list[ReportTable]) -> ReportTable:
    """The run's result ahead of the details: the release decision and the rules that fired, the confirmatory
    hypotheses, the primary endpoint per arm, reader accuracy and the answerer's page hit at each K, then what the
    figures cannot tell. Every figure is formatted from the same input row by the same helper as in the detail section
    its row names (a test holds the two equal); a figure the inputs lack is said so in words."""
    rows: list[dict[str, str]] = []

    def add(finding: str, figure: str, wilson: str, section: str) -> None:
        rows.append({"finding": finding, "figure": figure, "interval": wilson, "detail": section or NOT_IN_INPUTS})

    cannot: list[str] = []
    checks = inputs.release
    if len(checks):
        section = _section(tables, release_title(checks))
        add("Release decision", release_decision(checks), "", section)
        fired = [r for r in iter_rows(checks) if bool(r.fired)]
        for r in fired:
            add(f"Rule fired: {r.rule} (forces {r.decision})", str(r.evidence), "", section)
        if not fired:
            add("Rules fired", "none", "", section)
    else:
        add("Release decision", "not in this run's inputs (no release checks)", "", "")

    comparisons = inputs.comparisons
    paired = _section(tables, "Paired arm comparisons")
    confirmatory = cast(
        pd.DataFrame,
        comparisons[comparisons.status == "confirmatory"] if "status" in comparisons else comparisons.iloc[0:0],
    )
    v3 = is_v3(comparisons)
    primary_kind = ""
    for r in sorted(iter_rows(confirmatory), key=lambda r: (str(r.hypothesis), str(r.metric), _kind(r))):
        hypothesis = str(r.hypothesis)
        if hypothesis == PRIMARY and r.metric == "false_answer_rate":
            primary_kind = _kind(r)
        add(
            f"{hypothesis}{' (primary)' if hypothesis == PRIMARY else ''}: {r.arm} - {r.baseline}, "
            f"{metric_name(str(r.metric), _kind(r))}: {r.decision}",
            comparison_difference(r.difference),
            comparison_interval(r.low, r.high, r.confidence, r.interval_method, v3),
            paired,
        )
        reasons = []
        decision = str(r.decision)
        if not decision.startswith(("confirmed", "refuted")):
            reasons.append(md_cell(decision))
        if v3 and "minimum_detectable_effect" in comparisons and math.isnan(r.minimum_detectable_effect):
            # no simulated difference up to the assumed discordance reaches the protocol's power
            powers = [p for p in largest_power(inputs.design_power) if p[0] == hypothesis]
            reasons.append(
                "under-powered, minimum detectable effect "
                + simulated_mde(r.minimum_detectable_effect, r.design_effect, "confirmatory")
                + (f" (power at the largest simulated difference: {power_words(powers[0])})" if powers else "")
            )
        if reasons:
            cannot.append(
                f"- {md_cell(hypothesis)} ({md_cell(r.arm)} - {md_cell(r.baseline)}) is not decided by this run: "
                + "; ".join(reasons)
                + "."
            )
    if not len(confirmatory):
        add("Confirmatory hypotheses", "not in this run's inputs (no confirmatory comparison)", "", paired)

    rates = inputs.false_answers_by_kind
    by_kind = _section(tables, "False-answer rate per unanswerable kind")
    if primary_kind and len(rates):
        for arm in sorted(set(rates.arm)):
            gates = str(rates[rates.arm == arm].gates.iloc[0])
            rate = kind_rate(rates, arm, primary_kind, "false_answer_rate")
            add(
                f"Primary endpoint ({PRIMARY}): false-answer rate on {primary_kind}, arm {arm} ({gates})",
                "n/a: no question of the kind" if rate is None else rate.count,
                "" if rate is None else rate.wilson,
                by_kind,
            )
    else:
        add("Primary endpoint", "not in this run's inputs (no per-kind false-answer rates)", "", by_kind)
    for kind, n in _kinds_no_arm_moves(rates, "false_answer_rate"):
        cannot.append(
            f"- No arm gave a false answer on {md_cell(kind)} ({n} questions): no gate can lower the rate there, "
            "so those questions cannot tell the arms apart."
        )
    for kind, n in _kinds_no_arm_moves(inputs.answers_by_kind, "correct_rate"):
        cannot.append(
            f"- No arm answered a {md_cell(kind)} question right ({n} questions): those questions cannot tell the "
            "arms apart (Right answers per answerable kind)."
        )

    readers = inputs.readers
    if len(readers):
        for label, documents, r in zip(_reader_labels(inputs), _reader_documents(readers), iter_rows(readers)):
            if documents == "all":
                add(
                    f"Reader accuracy on answerable questions: {label}",
                    _share_cell(r.right_share, r.right, r.questions),
                    interval(r.right_low, r.right_high),
                    _section(tables, "Readers"),
                )
    else:
        add("Reader accuracy", "not in this run's inputs (no reader accuracy)", "", "")

    retrieval, retriever = inputs.retrieval, inputs.settings.get("answer_retriever", "")
    own = (
        cast(
            pd.DataFrame, retrieval[(retrieval.search_scope == COMPANY_YEAR) & (retrieval.retriever == retriever)]
        ).sort_values("k")
        if len(retrieval)
        else retrieval
    )
    for r in iter_rows(own):
        add(
            f"Page hit at K = {r.k}: {retriever}, the answerer's scope ({COMPANY_YEAR}); a random ranking "
            f"{percent(r.page_chance)}",
            _share_cell(r.page_hit_rate, r.page_hits, r.questions),
            interval(r.page_low, r.page_high),
            _section(tables, "Retrieval"),
        )
    if not len(own):
        add(
            "Page hit in the answerer's scope",
            f"not in this run's inputs (no {retriever or 'answerer'} retrieval row in {COMPANY_YEAR})",
            "",
            "",
        )

    in_sample = _in_sample(inputs)
    if in_sample:
        cannot.insert(
            0,
            f"- In-sample: the arms read {', '.join(f'`{md_cell(g)}`' for g in in_sample)}, tuned on this corpus: "
            "the reader accuracy, the primary endpoint and the hypotheses above say little of filings the reader was "
            "not tuned on.",
        )
    companies = _companies(comparisons)
    if companies is not None and companies < CLUSTER_WARNING_BELOW:
        cannot.insert(
            1 if in_sample else 0,
            f"- The company bootstrap intervals resample {companies} companies, fewer than {CLUSTER_WARNING_BELOW}: "
            "approximations (see the Arms table's warning).",
        )
    frame = pd.DataFrame(rows, columns=["finding", "figure", "interval", "detail"])
    return ReportTable(
        SUMMARY,
        frame,
        Provenance("report", content_version(frame), "the detail section each row names"),
        note="The run's result. Each figure is the one its detail section prints, from the same asset table; the "
        "method, the interval's kind and every caveat are there. Intervals: Wilson 95% for a share; the company "
        "bootstrap (its confidence and method printed) for a paired difference.",
        after=("What this run cannot conclude:", "", *(cannot or ["- Nothing flagged by the checks above."])),
    )


def _kind(row) -> str:
    """A comparison row's question kind ("" for the pooled rate, as the paired table prints it)."""
    kind = getattr(row, "kind", "")
    return kind if isinstance(kind, str) else ""


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
