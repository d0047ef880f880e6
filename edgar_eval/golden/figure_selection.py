"""The choice of facts for answerable template questions: a filing's own-period facts, the first fairness rule each
fails (golden.fairness), the question each fair one becomes, its gold in a scope (every chunk and page printing the
figure with its meaning), and a value another filing of the scope restates.
"""

from __future__ import annotations

import re
from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.corpus.figure_match import values_differ
from edgar_eval.golden import fairness as rules
from edgar_eval.golden.fairness import FairnessLimits
from edgar_eval.golden.labels import is_boilerplate, label_for
from edgar_eval.golden.might_answer import concept_stems, rival_rows, row_label
from edgar_eval.golden.question_wording import _period_words, period_phrase, printed_answer, question_text
from edgar_eval.golden.template_scope import _Scope

PERIODIC_FORMS = {"10-K": ("FY", "instant"), "10-Q": ("Q", "H", "9M", "instant")}


def _own_period_facts(facts: pd.DataFrame, filings: pd.DataFrame) -> pd.DataFrame:
    periodic = cast(
        pd.DataFrame,
        filings[filings.form.isin(list(PERIODIC_FORMS))][["filing_id", "form", "fiscal_year", "period_end"]],
    )
    merged = facts[facts.is_numeric].merge(periodic, on="filing_id", suffixes=("", "_filing"))
    own_kind = np.array(
        [kind in PERIODIC_FORMS[form] for kind, form in zip(merged.period_kind, merged.form)], dtype=bool
    )
    merged["own_period"] = (
        own_kind & (merged.period_end == merged.period_end_filing) & (merged.fiscal_year == merged.fiscal_year_filing)
    )
    merged["offset_order"] = merged.offset.fillna(np.inf)
    merged = merged.sort_values(["filing_id", "offset_order", "concept", "period_key"], kind="stable")
    return merged.drop_duplicates(["filing_id", "concept", "period_key", "dimensions", "value"]).reset_index(drop=True)


def _first_failing_rule(fact) -> str | None:
    if is_boilerplate(fact.concept):
        return rules.BOILERPLATE
    if fact.dimensions:
        return rules.DIMENSIONED
    if not fact.own_period:
        return rules.OTHER_PERIOD
    if pd.isna(fact.offset) or pd.isna(fact.value):
        return rules.NOT_PRINTED
    if label_for(fact.concept) is None:
        return rules.NO_LABEL
    return None


def _digits_start(displayed: str) -> int:
    """Where the figure starts inside a fact's displayed text ("$1,234" is tagged at the "$")."""
    match = re.search(r"\d", displayed)
    return match.start() if match else 0


def _describe(fact, scope: _Scope) -> dict:
    filing = scope.filing[fact.filing_id]
    label = cast(str, label_for(fact.concept))  # _first_failing_rule passes labelled concepts only
    when = period_phrase(filing.form, fact.period_kind, fact.period_end, int(fact.fiscal_year))
    company = scope.company[fact.cik]
    printed = rules.printed_figure(str(fact.displayed))
    offset = int(fact.offset)
    return {
        "kind": "answerable",
        "cik": fact.cik,
        "company": company,
        "asked_company": company,
        "fiscal_year": int(fact.fiscal_year),
        "filing_fiscal_year": int(filing.fiscal_year),
        "period": _period_words(when),
        "period_key": fact.period_key,
        "period_end": fact.period_end,
        "when": when,
        "is_instant": fact.period_kind == "instant",
        "concept": fact.concept,
        "label": label,
        "question": question_text(company, label, when),
        "printed": printed,
        "offset": offset,
        "gold_value": float(fact.value),
        "unit": fact.unit,
        "scale": int(fact.scale),
        "gold_answer": printed_answer(printed, float(fact.value), fact.unit, int(fact.scale)),
        "gold_decimals": fact.decimals,
        "source_filing_id": fact.filing_id,
        "source_form": filing.form,
        "source_sha256": filing.sha256,
        "statement_type": rules.statement_type_at(
            scope.headings[fact.filing_id], offset, scope.notes_start.get(fact.filing_id)
        ),
        "on_first_page": scope.index[fact.filing_id].is_first_page(offset),
        "fact_value": fact.value,
        "fact_key": (fact.concept, fact.period_key, fact.value, fact.dimensions),
        "gold_quote": scope.index[fact.filing_id].line(offset),
    }


def _drop_ambiguous_labels(eligible: list[dict], reject) -> list[dict]:
    """Two concepts of one filing under one label and period: one question when they print one figure, none when
    they print different figures (no reader could tell which the question means)."""
    groups: dict[tuple, list[dict]] = {}
    for question in eligible:
        groups.setdefault((question["source_filing_id"], question["label"], question["period_key"]), []).append(
            question
        )
    kept = []
    for group in groups.values():
        values = {q["gold_value"] for q in group}
        ambiguous = len(values) > 1
        if not ambiguous:
            kept.append(group[0])
        for q in group if ambiguous else group[1:]:
            detail = (
                f"{len(values)} different figures labelled {q['label']!r}"
                if ambiguous
                else f"same figure and label as {group[0]['concept']}"
            )
            where = (q["source_filing_id"], q["cik"], q["concept"], q["period_key"])
            reject("answerable", rules.AMBIGUOUS, *where, detail)
    return sorted(kept, key=lambda q: (q["source_filing_id"], q["offset"], q["concept"], q["period_key"]))


def _figure_rule(question: dict, scope: _Scope, limits: FairnessLimits) -> tuple[str | None, str]:
    printed = question["printed"]
    if rules.significant_digits(printed) < limits.min_significant_digits:
        return rules.SMALL_OR_ROUND, f"printed as {printed!r}"
    if rules.answer_in_question(printed, question["question"]):
        return rules.IN_QUESTION, f"{printed!r} is in the question"
    joined = rules.combined_row(question["gold_quote"], concept_stems(question["concept"]))
    if joined:
        return rules.COMBINED_ROW, f"the row prints {question['label']!r} together with {joined!r}"
    in_scope = scope.of(question["cik"], question["fiscal_year"])
    restated = _restated_in(question, scope, in_scope)
    if restated:  # another filing of its own scope tags the period with another value: two answers in one scope
        return rules.RESTATED_IN_SCOPE, restated
    failed, detail, gold = _gold_in(question, scope, in_scope, limits)
    question.update(scope_filing_ids=in_scope, **gold)
    if failed is None:
        years = {int(question["fiscal_year"]), pd.Timestamp(question["period_end"]).year}
        gold_row = row_label(question["gold_quote"])
        rivals = rival_rows(scope.scope_texts(in_scope), question["label"], gold_row, years, printed)
        if rivals:
            return rules.SEVERAL_FAIR_ANSWERS, f"{rivals[0].describe()} without {printed!r}"
    return failed, detail


def _gold_in(
    question: dict, scope: _Scope, filing_ids: list[str], limits: FairnessLimits
) -> tuple[str | None, str, dict]:
    """The question's gold among `filing_ids` (every chunk and page printing the figure with its meaning), or the rule
    it fails there: the figure printed with other meanings on too many pages, or not in any chunk."""
    printed = question["printed"]
    concept, period_key, value, _ = question["fact_key"]
    here = set().union(*(scope.figure_offsets.get((f, concept, period_key, value), set()) for f in filing_ids))
    tagged = set().union(*(scope.tagged_offsets.get(f, set()) for f in filing_ids))
    seen = rules.classify_occurrences(
        printed, question["label"], here, tagged, [scope.index[f] for f in filing_ids], limits.self_identifying_digits
    )
    if len(seen.other_pages) > limits.max_other_meaning_pages:
        return (
            rules.OTHER_MEANINGS,
            f"{printed!r} also on {len(seen.other_pages)} pages: " + ", ".join(seen.other_pages[:5]),
            {},
        )
    chunk_ids, pages, filings_with_gold = set(), set(), set()
    for filing_id, offset in seen.gold:
        chunk_ids.update(scope.chunks_holding(filing_id, offset, offset + len(printed)))
        pages.add(f"{filing_id}#{scope.index[filing_id].page(offset)}")
        filings_with_gold.add(filing_id)
    gold = {
        "gold_chunk_ids": sorted(chunk_ids),
        "gold_pages": sorted(pages),
        "gold_filing_ids": sorted(filings_with_gold),
    }
    if not chunk_ids:
        return rules.NOT_PRINTED, "no chunk of the scope holds the figure", gold
    return None, "", gold


def _plain(value: float) -> str:
    """A tagged value as a person reads it: 25,070,000,000 or 2.97."""
    return f"{value:,.0f}" if value == int(value) else f"{value:,}"


def _restated_in(question: dict, scope: _Scope, filing_ids: list[str]) -> str | None:
    """Where a filing of `filing_ids` tags the question's concept and period with another value (a restatement, a
    split, a revised estimate), what it tags: asked over both filings, the question has two answers."""
    concept, period_key, value, _ = question["fact_key"]
    for filing_id in filing_ids:
        for other in sorted(scope.period_values.get((filing_id, concept, period_key), set())):
            if values_differ(float(value), other):
                return (
                    f"{filing_id} tags {_plain(other)} for the period, {question['source_filing_id']} "
                    f"{_plain(float(value))}"
                )
    return None
