"""XBRL-template golden questions: answerable ones located by their facts, and unanswerable twins.

Answerable questions come from the figures a 10-K or 10-Q reports for its own periods (the fiscal
year and its year-end for an annual report; the quarter, the year to date and the quarter-end for a
quarterly one). Each candidate passes the fairness rules of edgar_eval.golden.fairness or is kept as
a rejection with its reason. The gold of a question is every chunk and page of its scope that prints
the figure with its meaning, in every filing of the scope, not only where the fact is tagged first.

Unanswerable questions come in three kinds: a fiscal year the company's filings do not report,
another company's name asked inside this company's scope, and a concept other companies report that
this scope neither tags nor prints (confirmed by searching its text for the concept's usual words).

This module builds the set and its tables; the parts live by concept: the wording (golden.question_wording), what
the builder knows of each filing (golden.template_scope), the choice of facts and their gold
(golden.figure_selection), the quotas (golden.quotas), the unanswerable twins (golden.unanswerable_twins), segment
questions (golden.segment_questions), value conflicts (golden.value_conflicts), the gold in wider search scopes
(golden.wider_scope_gold) and the two-document kinds (golden.two_documents).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.domain.routes import ANSWER, NO_ANSWER, REVIEW
from edgar_eval.golden import fairness as rules
from edgar_eval.golden import two_documents as two
from edgar_eval.golden.fairness import FairnessLimits
from edgar_eval.golden.figure_selection import (
    _describe,
    _digits_start,
    _drop_ambiguous_labels,
    _figure_rule,
    _first_failing_rule,
    _gold_in,
    _own_period_facts,
)
from edgar_eval.golden.might_answer import row_label_at, stems
from edgar_eval.golden.question_wording import _question_id, printed_answer
from edgar_eval.golden.quotas import _apply_quotas
from edgar_eval.golden.segment_questions import SEGMENT, _segment_questions
from edgar_eval.golden.share_counts import scale_conflicts
from edgar_eval.golden.template_scope import _Scope
from edgar_eval.golden.unanswerable_twins import REVIEW_QUEUE_COLUMNS, _unanswerable
from edgar_eval.golden.value_conflicts import CONFLICTING, _conflicting_values, _value_conflicts
from edgar_eval.golden.wider_scope_gold import _wider_scope_gold

TEMPLATE_VERSION = "xbrl-template/2"
TEMPLATE_OWNER = "edgar-eval XBRL templates (golden/templates.py)"
GOLDEN_COLUMNS = [
    "question_id",
    "question",
    "kind",
    "expected_route",
    "company",
    "cik",
    "scope_cik",
    "fiscal_year",
    "period",
    "scope_filing_ids",
    "concept",
    "label",
    "gold_value",
    "gold_answer",
    "gold_decimals",
    "gold_filing_ids",
    "gold_chunk_ids",
    "gold_pages",
    "on_first_page",  # an answerable question's figure is printed on its filing's first page (the cover), or deeper
    "gold_quote",
    "gold_figures",  # JSON: every figure the answer states (two-document kinds), with its filing, page and quote
    "gold_direction",  # the word the answer must get right: increase or decrease, the company that reported more
    "document_count",  # how many filings the gold needs: 1, or 2 for the two-document kinds
    "source_filing_id",
    "source_form",
    "source_sha256",
    "statement_type",
    "provenance",
    "review_note",
]
REJECTION_COLUMNS = ["kind", "rule", "filing_id", "cik", "concept", "period", "detail"]


@dataclass(frozen=True)
class GoldenBuild:
    questions: pd.DataFrame
    rejections: pd.DataFrame
    wider_scope_gold: pd.DataFrame  # WIDER_SCOPE_COLUMNS: each answerable question's gold or rule per wider scope
    statements_elsewhere: dict[str, str]  # filing id -> why its statements are not in its text (no absent question)
    review_queue: pd.DataFrame  # REVIEW_QUEUE_COLUMNS: absent-concept candidates a person decides


def build_golden_questions(
    filings: pd.DataFrame,
    facts: pd.DataFrame,
    chunks: pd.DataFrame,
    texts: pd.DataFrame,
    sections: pd.DataFrame,
    seed: int,
    limits: FairnessLimits = FairnessLimits(),
    unanswerable_per_kind: int = 4,
    absent_concept_min_companies: int = 3,
    absence_reviews: Mapping[str, dict[str, str]] | None = None,
) -> GoldenBuild:
    """The template golden set (module doc). `absence_reviews`: a person's verdicts on the absent-concept candidates
    the rule leaves open, by question id (golden.absence.read_absent_concept_reviews); a verdict counts only for the
    case sha256 it was given on."""
    facts = facts.assign(
        period_key=facts.period_kind + "|" + facts.period_start.fillna("") + "|" + facts.period_end.fillna(""),
        offset=facts.offset + facts.displayed.fillna("").map(_digits_start),
    )
    scope = _Scope(filings, texts, sections, chunks, facts)
    rejections: list[dict] = []

    def reject(kind: str, rule: str, filing_id: str, cik: str, concept: str, period: str, detail: str = "") -> None:
        rejections.append(
            {
                "kind": kind,
                "rule": rule,
                "filing_id": filing_id,
                "cik": cik,
                "concept": concept,
                "period": period,
                "detail": detail,
            }
        )

    for filing_id, why in scope.statements_elsewhere.items():  # one row per filing, whatever its candidates
        reject("absent_concept", rules.STATEMENTS_ELSEWHERE, filing_id, scope.filing[filing_id].cik, "", "", why)
    candidates = _own_period_facts(cast(pd.DataFrame, facts[facts.filing_id.isin(scope.index)]), filings)
    # A share count the filing's own earnings and EPS say is tagged at the wrong scale is asked in no question: left
    # out before any kind (answerable, twin, restatement, two-document) is drawn from the candidates.
    misscaled = scale_conflicts(candidates)
    if misscaled:
        keys = list(zip(candidates.filing_id, candidates.concept, candidates.period_key))
        dropped = pd.Series([k in misscaled for k in keys], index=candidates.index) & (
            candidates.dimensions.fillna("") == ""
        )
        for fact in iter_rows(cast(pd.DataFrame, candidates[dropped])):
            where = (fact.filing_id, fact.cik, fact.concept, fact.period_key)
            reject("answerable", rules.SHARE_SCALE, *where, misscaled[(fact.filing_id, fact.concept, fact.period_key)])
        candidates = cast(pd.DataFrame, candidates[~dropped]).reset_index(drop=True)
    eligible: list[dict] = []
    for fact in iter_rows(candidates):
        failed = _first_failing_rule(fact)
        if failed:
            reject("answerable", failed, fact.filing_id, fact.cik, fact.concept, fact.period_key)
            continue
        eligible.append(_describe(fact, scope))
    eligible = _drop_ambiguous_labels(eligible, reject)
    for question in eligible:
        failed, detail = _figure_rule(question, scope, limits)
        question["rule"] = failed
        if failed:
            reject(
                "answerable",
                failed,
                question["source_filing_id"],
                question["cik"],
                question["concept"],
                question["period_key"],
                detail,
            )
    fair = [q for q in eligible if q["rule"] is None]
    selected = _apply_quotas(fair, limits, seed, reject)
    queue: list[dict] = []
    unanswerable = _unanswerable(
        selected,
        fair,
        scope,
        facts,
        seed,
        unanswerable_per_kind,
        absent_concept_min_companies,
        reject,
        absence_reviews or {},
        queue,
    )
    pairs = _value_conflicts(candidates, scope, reject)
    conflicts = _conflicting_values(pairs, scope)
    two_documents = _two_document_questions(fair, pairs, scope, limits, seed, reject)
    segments = _segment_questions(candidates, scope, limits, seed, reject)
    rows = [_row(q) for q in selected + unanswerable + conflicts + two_documents + segments]
    golden = pd.DataFrame(rows, columns=GOLDEN_COLUMNS)
    golden = golden.drop_duplicates("question_id").sort_values(["cik", "kind", "question_id"]).reset_index(drop=True)
    rejected = pd.DataFrame(rejections, columns=REJECTION_COLUMNS)
    rejected = rejected.sort_values(REJECTION_COLUMNS, kind="stable").reset_index(drop=True)
    wider = _wider_scope_gold(selected, scope, limits)
    wider = wider.drop_duplicates(["question_id", "search_scope"]).sort_values(["question_id", "search_scope"])
    review_queue = pd.DataFrame(queue, columns=REVIEW_QUEUE_COLUMNS)
    review_queue = review_queue.drop_duplicates("question_id").sort_values(["cik", "filing_id", "question_id"])
    return GoldenBuild(
        golden, rejected, wider.reset_index(drop=True), scope.statements_elsewhere, review_queue.reset_index(drop=True)
    )


# the kinds a golden question expects an answer to: one figure of one filing (a line item, or a segment's), or two
ANSWERABLE_KINDS = ("answerable", SEGMENT, *two.TWO_DOCUMENT_KINDS)


def _row(q: dict) -> dict:
    answerable = q["kind"] in ANSWERABLE_KINDS
    return {
        "question_id": _question_id(q["kind"], q["cik"], q["question"]),
        "question": q["question"],
        "kind": q["kind"],
        "expected_route": ANSWER if answerable else REVIEW if q["kind"] == CONFLICTING else NO_ANSWER,
        "company": q["company"],
        "cik": q["cik"],
        "scope_cik": q["cik"],
        "fiscal_year": q["fiscal_year"],
        "period": q["period"],
        "scope_filing_ids": q["scope_filing_ids"],
        "concept": q["concept"],
        "label": q["label"],
        "gold_value": q.get("gold_value"),
        "gold_answer": q.get("gold_answer"),
        "gold_decimals": q.get("gold_decimals"),
        "gold_filing_ids": q.get("gold_filing_ids", []),
        "gold_chunk_ids": q.get("gold_chunk_ids", []),
        "gold_pages": q.get("gold_pages", []),
        "on_first_page": q.get("on_first_page"),
        "gold_quote": q.get("gold_quote"),
        "gold_figures": q.get("gold_figures", "[]"),
        "gold_direction": q.get("gold_direction", ""),
        "document_count": int(q.get("document_count", 1)),
        "source_filing_id": q["source_filing_id"],
        "source_form": q["source_form"],
        "source_sha256": q["source_sha256"],
        "statement_type": q["statement_type"],
        "provenance": TEMPLATE_VERSION,
        "review_note": q.get("review_note", ""),
    }


def _two_document_questions(
    fair: list[dict], pairs: list[tuple], scope: _Scope, limits: FairnessLimits, seed: int, reject
) -> list[dict]:
    """The two-document kinds (golden.two_documents), each side a fair single-figure candidate; a restatement's sides
    pass the figure rules in their own filings."""

    def rejected(kind: str, filing_id: str, cik: str, concept: str, period: str, rule: str, detail: str) -> None:
        reject(kind, rule, filing_id, cik, concept, period, detail)

    restated = []
    for original, fact in pairs:
        rows = [row_label_at(scope.texts[f.filing_id], int(f.offset)) for f in (original, fact)]
        if not all(rows) or stems(rows[0]) - {"total"} != stems(rows[1]) - {"total"}:
            # a figure of a sentence ("$7.9 billion") or of another line ("in service" against all property) is no
            # restatement of the line first reported (an independent audit's defects, reviews/edgar-wide)
            where = (two.RESTATEMENT, fact.filing_id, str(original.cik), original.concept, "")
            rejected(*where, two.NOT_THE_SAME_LINE, f"{rows[0]!r} and {rows[1]!r}")
            continue
        sides = [_describe(original, scope), _describe(fact, scope)]
        failed = None
        for side in sides:
            failed, detail, gold = _gold_in(side, scope, [side["source_filing_id"]], limits)
            # a split divides a per-share figure: "3.34" first, "0.33" now; one side must be fine-grained enough
            if failed is None and rules.significant_digits(side["printed"]) < 2:
                failed, detail = rules.SMALL_OR_ROUND, f"printed as {side['printed']!r}"
            if failed:
                where = (two.RESTATEMENT, side["source_filing_id"], str(original.cik), original.concept, "")
                rejected(*where, failed, detail)
                break
            side.update(gold)
        finest = max(rules.significant_digits(side["printed"]) for side in sides)
        if not failed and finest < limits.min_significant_digits:
            failed = rules.SMALL_OR_ROUND
            where = (two.RESTATEMENT, sides[0]["source_filing_id"], str(original.cik), original.concept, "")
            rejected(*where, failed, f"printed as {sides[0]['printed']!r} and {sides[1]['printed']!r}")
        if not failed:
            restated.append((sides[0], sides[1]))
    questions = (
        two.granularity(fair, scope, rejected, printed_answer)
        + two.change_over_time(fair, scope, rejected)
        + two.cross_company(fair, scope, rejected, seed)
        + two.restatement(restated, scope, rejected)
    )
    return two.apply_quota(questions, seed, rejected)
