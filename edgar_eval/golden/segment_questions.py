"""Segment questions: a figure of one segment, geography or product line, asked in the member name its table row
prints ("AWS", "Greater China"), with the answerable questions' figure rules and gold.
"""

from __future__ import annotations

import json
import random
import re
from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.golden import fairness as rules
from edgar_eval.golden.fairness import FairnessLimits
from edgar_eval.golden.figure_selection import _describe, _gold_in
from edgar_eval.golden.labels import is_boilerplate, label_for
from edgar_eval.golden.might_answer import row_label_at, rows_named
from edgar_eval.golden.template_scope import _Scope

SEGMENT = "segment"  # a figure of one segment, geography or product line, its member printed as the row's label
SEGMENT_AXES = {
    "StatementBusinessSegmentsAxis": "segment",
    "StatementGeographicalAxis": "geography",
    "ProductOrServiceAxis": "product",
}
SEGMENTS_PER_FILING = 4
_REVENUE = ("us-gaap:Revenues", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax")
# a footnote mark after a row label: "(3)", "(a)", or a digit set against the word ("Hardlines3", "Building Products 3")
_FOOTNOTE = re.compile(r"\s*\((?:\d+|[a-z])\)\s*$|(?<=[A-Za-z])\s?\d{1,2}$")


def _member_words(member: str) -> str:
    """A member's name as words: "us-gaap:AmazonWebServicesMember" -> "amazon web services"."""
    local = member.split(":", 1)[-1].removesuffix("Member").removesuffix("Segment")
    return " ".join(re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z]*|[a-z]+", local)).lower()


def names_member(row_label: str, member: str) -> bool:
    """Whether a printed row label names the member and nothing else: every word of the label (a few connecting words
    aside) a word of the member's name, stems agreeing ("Greater China", "Professional services and other"); or the
    label the initials of the member's words ("AWS" for AmazonWebServicesMember, "United States" for "US"). A label that
    adds words ("Total Google Cloud costs and expenses") names a line of the segment, not the segment."""
    words = _member_words(member).split()
    if not words or not row_label:
        return False
    label_words = re.findall(r"[a-z]+", row_label.lower())
    if "total" in label_words:  # "Segments total" is a sum of segments, no segment
        return False
    initials = "".join(w[0] for w in words)
    label_initials = "".join(w[0] for w in label_words)
    if row_label.replace(".", "").upper() == initials.upper() or "".join(words).upper() == label_initials.upper():
        return True
    generic = {"and", "other", "of", "the", "segment", "segments", "net", "excluding", "including"}
    joined = "".join(words)  # "wearableshomeandaccessories": a member name's words may run together
    said = {w[:5] for w in label_words if w not in generic and len(w) > 2}
    return bool(said) and all(w in joined for w in said)


def _segment_questions(
    candidates: pd.DataFrame, scope: _Scope, limits: FairnessLimits, seed: int, reject
) -> list[dict]:
    """Questions about one segment's, geography's or product line's figure: a fact of its filing's own period with one
    dimension on a segment, geographical or product axis, whose table row prints the member's name ("AWS",
    "Greater China", "Professional services and other"), asked in that printed name; the figure rules as for every
    answerable question, the gold in the filing's company-year scope. Up to SEGMENTS_PER_FILING per filing."""
    facts = cast(
        pd.DataFrame,
        candidates[
            (candidates.dimensions != "")
            & candidates.own_period.astype(bool)
            & candidates.offset.notna()
            & candidates.value.notna()
            & candidates.concept.map(lambda c: label_for(c) is not None and not is_boilerplate(c))
        ],
    )
    by_filing: dict[str, list[dict]] = {}
    for fact in iter_rows(facts):
        dimensions = json.loads(fact.dimensions)
        if len(dimensions) != 1:
            continue
        axis, member = dimensions[0]
        kind = SEGMENT_AXES.get(axis.split(":", 1)[-1])
        if kind is None or (kind == "product" and fact.concept not in _REVENUE):
            continue  # a product line is asked for its revenue: "cost of sales from Cost of services" reads as noise
        printed_as = _FOOTNOTE.sub("", row_label_at(scope.texts[fact.filing_id], int(fact.offset))).strip()
        if not names_member(printed_as, member):
            reject(SEGMENT, rules.MEMBER_NOT_PRINTED, fact.filing_id, fact.cik, fact.concept, fact.period_key, member)
            continue
        question = _describe(fact, scope)
        label = question["label"].removeprefix("total ")
        company = question["company"]
        where = {
            "segment": f"in its {printed_as} segment",
            "geography": f"in {printed_as}",
            "product": f"from {printed_as}",
        }[kind]
        question.update(
            kind=SEGMENT,
            question=f"What was {company}'s {label} {where} {question['when']}?",
            segment=printed_as,
        )
        printed = question["printed"]
        if rules.significant_digits(printed) < limits.min_significant_digits:
            failed, detail = rules.SMALL_OR_ROUND, f"printed as {printed!r}"
        elif rules.answer_in_question(printed, question["question"]):
            failed, detail = rules.IN_QUESTION, f"{printed!r} is in the question"
        else:
            in_scope = scope.of(question["cik"], question["fiscal_year"])
            failed, detail, gold = _gold_in(question, scope, in_scope, limits)
            question.update(scope_filing_ids=in_scope, **gold)
            years = {int(question["fiscal_year"]), pd.Timestamp(question["period_end"]).year}
            # "Product" printed in a subscription table beside the income statement's Product line: two fair answers
            rivals = rows_named(scope.scope_texts(in_scope), printed_as, years, printed) if failed is None else []
            if rivals:
                failed, detail = rules.SEVERAL_FAIR_ANSWERS, f"{rivals[0].describe()} without {printed!r}"
        if failed:
            reject(SEGMENT, failed, fact.filing_id, fact.cik, fact.concept, fact.period_key, detail)
            continue
        by_filing.setdefault(fact.filing_id, []).append(question)
    out = []
    for filing_id in sorted(by_filing):
        pool = {q["question"]: q for q in by_filing[filing_id]}  # one question per wording
        drawn = sorted(pool)
        random.Random(f"{seed}:{filing_id}:{SEGMENT}").shuffle(drawn)
        for k, wording in enumerate(drawn):
            q = pool[wording]
            if k >= SEGMENTS_PER_FILING:
                reject(SEGMENT, rules.QUOTA_FILING, filing_id, q["cik"], q["concept"], q["period_key"], "")
                continue
            out.append(q)
    return out
