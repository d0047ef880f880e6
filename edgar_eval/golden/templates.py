"""XBRL-template golden questions: answerable ones located by their facts, and unanswerable twins.

Answerable questions come from the figures a 10-K or 10-Q reports for its own periods (the fiscal
year and its year-end for an annual report; the quarter, the year to date and the quarter-end for a
quarterly one). Each candidate passes the fairness rules of edgar_eval.golden.fairness or is kept as
a rejection with its reason. The gold of a question is every chunk and page of its scope that prints
the figure with its meaning, in every filing of the scope, not only where the fact is tagged first.

Unanswerable questions come in three kinds: a fiscal year the company's filings do not report,
another company's name asked inside this company's scope, and a concept other companies report that
this scope neither tags nor prints (confirmed by searching its text for the concept's usual words).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.corpus.company_names import display_name
from edgar_eval.corpus.figure_match import values_differ
from edgar_eval.corpus.frames import iter_groups, iter_rows
from edgar_eval.corpus.pages import page_label, stored_pages
from edgar_eval.domain.routes import ANSWER, NO_ANSWER, REVIEW
from edgar_eval.golden import fairness as rules
from edgar_eval.golden import two_documents as two
from edgar_eval.golden.fairness import FairnessLimits, FigureIndex
from edgar_eval.golden.labels import is_boilerplate, label_for
from edgar_eval.golden.might_answer import (
    ABSENT,
    FORWARD_SCHEDULE,
    PRINTED,
    PrintedNames,
    ScopeText,
    ScopeTexts,
    absence_verdict,
    can_be_absent,
    concept_stems,
    cover_page_end,
    forward_schedule,
    nearest,
    rival_rows,
    row_label_at,
    rows_named,
    statements_elsewhere,
    stems,
)
from edgar_eval.retrieval.scope import COMPANY, COMPANY_YEAR, CORPUS, ScopedFiling, filings_of_scope

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
# The absent-concept candidates whose filing's words leave them open: a person reads the passages and says absent or
# answered (reviews/<corpus>/absence-review.jsonl, bound to each case's sha256); until then they await review.
REVIEW_QUEUE_COLUMNS = [
    "question_id",
    "case_sha256",
    "question",
    "company",
    "cik",
    "filing_id",
    "concept",
    "period",
    "rule",
    "passages",
    "status",
    "reviewer",
    "reason",
]
AWAITING, REVIEWED_ABSENT, REVIEWED_ANSWERED = "awaiting_review", "reviewed_absent", "reviewed_answered"
PERIODIC_FORMS = {"10-K": ("FY", "instant"), "10-Q": ("Q", "H", "9M", "instant")}
_DURATION_WORDS = {"Q": "the quarter", "H": "the six months", "9M": "the nine months"}
_UNIT_WORDS = {3: " thousand", 6: " million", 9: " billion"}
_UNANSWERABLE_KINDS = ("other_year", "other_company", "absent_concept")
CONFLICTING = "conflicting_values"  # one figure tagged with two values for the same period: review
CONFLICTS_PER_COMPANY = 2


@dataclass(frozen=True)
class GoldenBuild:
    questions: pd.DataFrame
    rejections: pd.DataFrame
    wider_scope_gold: pd.DataFrame  # WIDER_SCOPE_COLUMNS: each answerable question's gold or rule per wider scope
    statements_elsewhere: dict[str, str]  # filing id -> why its statements are not in its text (no absent question)
    review_queue: pd.DataFrame  # REVIEW_QUEUE_COLUMNS: absent-concept candidates a person decides


def printed_answer(printed: str, value: float, unit: str | None, scale: int) -> str:
    """The answer in the units the filing prints it in: "$60,922 million", "$2.97", "24.1%"."""
    sign = "-" if value < 0 else ""
    if unit == "pure" and scale == -2:
        return f"{sign}{printed}%"
    words = _UNIT_WORDS.get(scale, "")
    if unit == "USD":
        return f"{sign}${printed}{words}"
    if unit == "USD/shares":
        return f"{sign}${printed}"
    if unit == "shares":
        return f"{sign}{printed}{words} shares"
    return f"{sign}{printed}{words}" + (f" {unit}" if unit and unit != "pure" else "")


def period_phrase(form: str, period_kind: str, period_end: str, fiscal_year: int) -> str:
    if form == "10-K":
        return f"at the end of fiscal {fiscal_year}" if period_kind == "instant" else f"for fiscal {fiscal_year}"
    date = pd.Timestamp(period_end)
    spoken = f"{date:%B} {date.day}, {date.year}"
    return f"as of {spoken}" if period_kind == "instant" else f"for {_DURATION_WORDS[period_kind]} ended {spoken}"


def _period_words(when: str) -> str:
    """The period a phrase of period_phrase names, without its preposition: "fiscal 2024", "June 30, 2025"."""
    return when.removeprefix("for ").removeprefix("at ").removeprefix("as of ")


def question_text(company: str, label: str, when: str) -> str:
    return f"What was {company}'s {label} {when}?"


def _question_id(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:12]


class _Scope:
    """What the builder knows of each filing: its figures, its pages, where its statements and notes are."""

    def __init__(
        self,
        filings: pd.DataFrame,
        texts: pd.DataFrame,
        sections: pd.DataFrame,
        chunks: pd.DataFrame,
        facts: pd.DataFrame,
    ):
        self.scoped = [ScopedFiling(r.filing_id, r.cik, r.form, int(r.fiscal_year)) for r in iter_rows(filings)]
        self.filing = {r.filing_id: r for r in iter_rows(filings)}
        latest = filings.sort_values(["cik", "filed", "filing_id"]).drop_duplicates("cik", keep="last")
        self.company = {r.cik: display_name(r.company) for r in iter_rows(latest)}  # one name however it was spelt
        self.index: dict[str, FigureIndex] = {}
        self.headings: dict[str, list[tuple[int, str]]] = {}
        self.lower_text: dict[str, str] = {}
        for row in iter_rows(texts):
            labels = [page_label(p) for p in stored_pages(row.page_starts, row.page_ends, row.printed_pages)]
            self.index[row.filing_id] = FigureIndex(row.filing_id, row.text, [int(s) for s in row.page_starts], labels)
            self.headings[row.filing_id] = rules.statement_headings(row.text)
            self.lower_text[row.filing_id] = row.text.lower()
        notes = sections.dropna(subset=["notes_start"]).drop_duplicates("filing_id")
        self.notes_start = {r.filing_id: int(r.notes_start) for r in iter_rows(notes)}
        self.chunks = {
            fid: (g.start.to_numpy(), g.end.to_numpy(), g.chunk_id.to_numpy())
            for fid, g in chunks.sort_values(["filing_id", "start"]).groupby("filing_id")
        }
        located = cast(pd.DataFrame, facts[facts.offset.notna()])
        self.tagged_offsets: dict[str, set[tuple[str, int]]] = {}
        # An equity statement tags a balance again under a component member: the same figure, not another meaning.
        self.figure_offsets: dict[tuple[str, str, str, float], set[tuple[str, int]]] = {}
        # Column by column, not a groupby of ~50,000 groups (its per-group cost was a quarter of the golden build);
        # a fact without a value is no figure, as groupby leaves a missing key out.
        # The values each filing tags for one concept and period, undimensioned (a component member's balance is not
        # the total's restatement): two of them that differ in one search scope make its question two questions.
        self.period_values: dict[tuple[str, str, str], set[float]] = {}
        for fid, concept, period_key, value, offset, dimensions in zip(
            located.filing_id,
            located.concept,
            located.period_key,
            located.value,
            located.offset,
            located.dimensions,
            strict=True,
        ):
            where = (fid, int(offset))
            self.tagged_offsets.setdefault(fid, set()).add(where)
            if value == value:  # not NaN
                self.figure_offsets.setdefault((fid, concept, period_key, value), set()).add(where)
                if not dimensions and value is not None:
                    self.period_values.setdefault((fid, concept, period_key), set()).add(float(value))
        self.concepts = facts.groupby("filing_id").concept.agg(set).to_dict()
        self.members = {
            fid: {member for dims in group.dimensions if dims for _, member in json.loads(dims)}
            for fid, group in facts.groupby("filing_id")
        }
        self.texts = {row.filing_id: row.text for row in iter_rows(texts)}
        counted = facts[facts.is_numeric] if "is_numeric" in facts else facts  # a stand-in may hold numbers only
        numeric = counted.groupby("filing_id").size().to_dict()
        annual = [numeric.get(f, 0) for f in self.texts if self.filing[f].form == "10-K"]
        usual = float(np.median(annual)) if len(annual) >= 3 else None  # too few 10-Ks to say what is usual
        self.statements_elsewhere = {
            f: why
            for f in sorted(self.texts)
            if (why := statements_elsewhere(self.filing[f].form, self.texts[f], numeric.get(f, 0), usual))
        }
        body_starts = {row.filing_id: cover_page_end(len(row.text), row.page_ends) for row in iter_rows(texts)}
        self._scope_texts = ScopeTexts(
            self.texts, {f: self.concepts.get(f, set()) | self.members.get(f, set()) for f in self.texts}, body_starts
        )
        kept = (located.dimensions == "") & located.value.notna()
        if "is_numeric" in located:
            kept &= located.is_numeric.astype(bool)
        printed = cast(pd.DataFrame, located[kept])
        cik_of = {f: str(self.filing[f].cik) for f in self.texts if f in self.filing}
        self.printed_names = PrintedNames.read(
            zip(printed.filing_id, printed.concept, printed.offset.astype(int)),
            {f: t for f, t in self.texts.items() if f in cik_of},
            cik_of,
        )
        self._printing: dict[str, list[str]] | None = None

    def prints(self, filing_id: str, printed: str) -> bool:
        """Whether the filing prints this figure anywhere (as printed: "47,415")."""
        return filing_id in self.index and bool(self.index[filing_id].offsets(printed))

    def filings_printing(self, printed: str) -> list[str]:
        """The filings that print this figure anywhere (an inverted index, built on first use: a corpus-wide search
        scope asks it of every question, and looking in every filing for every question grows with their product)."""
        if self._printing is None:
            self._printing = {}
            for filing_id in sorted(self.index):
                for figure in self.index[filing_id].figures():
                    self._printing.setdefault(figure, []).append(filing_id)
        return self._printing.get(printed, [])

    def scope_texts(self, filing_ids: list[str]) -> list[ScopeText]:
        """Each filing's rows, headings, sentences and tagged names, read once (golden.might_answer)."""
        return self._scope_texts.of(filing_ids)

    def filings_of(self, search_scope: str, cik: str, fiscal_year: int | None) -> list[str]:
        """The filings with text that a question about `cik` and `fiscal_year` searches in `search_scope`."""
        return [f for f in filings_of_scope(search_scope, self.scoped, cik, fiscal_year) if f in self.index]

    def of_company(self, cik: str) -> list[str]:
        return self.filings_of(COMPANY, cik, None)

    def of(self, cik: str, fiscal_year: int) -> list[str]:
        return self.filings_of(COMPANY_YEAR, cik, fiscal_year)

    def tagged_in(self, filing_ids: list[str]) -> set[str]:
        return set().union(*(self.concepts.get(f, set()) for f in filing_ids)) if filing_ids else set()

    def chunks_holding(self, filing_id: str, start: int, end: int) -> list[str]:
        starts, ends, ids = self.chunks.get(filing_id, (np.array([]), np.array([]), np.array([])))
        return list(ids[(starts <= start) & (ends >= end)])


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
        if len(values) > 1:
            for q in group:
                reject(
                    "answerable",
                    rules.AMBIGUOUS,
                    q["source_filing_id"],
                    q["cik"],
                    q["concept"],
                    q["period_key"],
                    f"{len(values)} different figures labelled {q['label']!r}",
                )
            continue
        kept.append(group[0])
        for q in group[1:]:
            reject(
                "answerable",
                rules.AMBIGUOUS,
                q["source_filing_id"],
                q["cik"],
                q["concept"],
                q["period_key"],
                f"same figure and label as {group[0]['concept']}",
            )
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
        gold_row = question["gold_quote"].strip().strip("|").split("|")[0]
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


WIDER_SCOPE_COLUMNS = [
    "question_id",
    "search_scope",
    "rule",
    "detail",
    "gold_filing_ids",
    "gold_chunk_ids",
    "gold_pages",
    "other_company_pages",
]


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


def _wider_scope_gold(selected: list[dict], scope: _Scope, limits: FairnessLimits) -> pd.DataFrame:
    """The gold of each selected answerable question in the wider search scopes, with the fairness rules applied
    again over every filing of the company: a comparative year printed in a later report is gold too, another meaning
    of the figure on a page of another year counts against it, and a restated value makes the question two questions.
    The whole corpus has the same gold and verdict: another company's page never holds this company's figure, so
    neither which pages are gold nor whether a reader can tell the figure apart within the company changes. Another
    company printing the same number is a distractor the search must rank below the gold, counted
    (`other_company_pages`), not a reason to leave the question out. A question that fails a rule in a scope is not
    measured there."""
    rows = []
    for question in selected:
        company = scope.of_company(question["cik"])
        question_id = _question_id(question["kind"], question["cik"], question["question"])
        restated = _restated_in(question, scope, company)
        if restated:
            failed, detail, gold = CONFLICTING, restated, {}
        else:
            failed, detail, gold = _gold_in(question, scope, company, limits)
        printed = question["printed"]
        printing = [f for f in scope.filings_printing(printed) if scope.filing[f].cik != question["cik"]]
        elsewhere = {f"{f}#{scope.index[f].page(o)}" for f in printing for o in scope.index[f].offsets(printed)}
        for search_scope in (COMPANY, CORPUS):
            rows.append(
                {
                    "question_id": question_id,
                    "search_scope": search_scope,
                    "rule": failed,
                    "detail": detail,
                    **{column: gold.get(column, []) for column in ("gold_filing_ids", "gold_chunk_ids", "gold_pages")},
                    "other_company_pages": len(elsewhere) if search_scope == CORPUS else 0,
                }
            )
    return pd.DataFrame(rows, columns=WIDER_SCOPE_COLUMNS)


def _apply_quotas(fair: list[dict], limits: FairnessLimits, seed: int, reject) -> list[dict]:
    """Pick each filing's questions spread over statement types, in a seeded order per filing (adding a filing
    changes no other filing's picks), then cap each company."""
    by_filing: dict[str, list[dict]] = {}
    for question in fair:
        by_filing.setdefault(question["source_filing_id"], []).append(question)
    picked: dict[str, list[dict]] = {}
    for filing_id in sorted(by_filing):
        pool = by_filing[filing_id]
        random.Random(f"{seed}:{filing_id}").shuffle(pool)
        turn: dict[str, int] = {}
        ranked = []
        for question in pool:
            turn[question["statement_type"]] = turn.get(question["statement_type"], 0) + 1
            ranked.append((turn[question["statement_type"]], question))
        ranked.sort(key=lambda pair: pair[0])  # round-robin across statement types, stable within one
        per_concept: dict[str, int] = {}
        per_statement: dict[str, int] = {}
        cover = 0
        statement_cap = max(1, int(limits.statement_share * limits.per_filing))
        cover_cap = max(1, int(limits.cover_share * limits.per_filing))
        chosen = []
        for _, q in ranked:
            if per_concept.get(q["concept"], 0) >= limits.per_concept_per_filing:
                failed = rules.QUOTA_CONCEPT
            elif q["on_first_page"] and cover >= cover_cap:
                failed = rules.QUOTA_COVER
            elif per_statement.get(q["statement_type"], 0) >= statement_cap:
                failed = rules.QUOTA_STATEMENT
            elif len(chosen) >= limits.per_filing:
                failed = rules.QUOTA_FILING
            else:
                failed = None
            if failed:
                reject("answerable", failed, filing_id, q["cik"], q["concept"], q["period_key"], q["statement_type"])
                continue
            per_concept[q["concept"]] = per_concept.get(q["concept"], 0) + 1
            per_statement[q["statement_type"]] = per_statement.get(q["statement_type"], 0) + 1
            cover += int(q["on_first_page"])
            chosen.append(q)
        picked[filing_id] = chosen
    selected = []
    for cik in sorted({q["cik"] for qs in picked.values() for q in qs}):
        queues = [picked[f] for f in sorted(picked) if picked[f] and picked[f][0]["cik"] == cik]
        order = [q for round_ in _interleave(queues) for q in round_]
        for i, question in enumerate(order):
            if i < limits.per_company:
                selected.append(question)
            else:
                reject(
                    "answerable",
                    rules.QUOTA_COMPANY,
                    question["source_filing_id"],
                    cik,
                    question["concept"],
                    question["period_key"],
                )
    return selected


def _interleave(queues: list[list[dict]]) -> list[list[dict]]:
    longest = max((len(q) for q in queues), default=0)
    return [[q[i] for q in queues if i < len(q)] for i in range(longest)]


def _unanswerable(
    selected: list[dict],
    fair: list[dict],
    scope: _Scope,
    facts: pd.DataFrame,
    seed: int,
    per_kind: int,
    min_companies: int,
    reject,
    reviews: Mapping[str, dict[str, str]],
    queue: list[dict],
) -> list[dict]:
    companies = scope.company
    ciks = sorted(companies)
    reported_years = (
        facts.dropna(subset=["fiscal_year"]).groupby("cik").fiscal_year.agg(lambda y: {int(v) for v in y}).to_dict()
    )
    concepts_of = facts.groupby("cik").concept.agg(set).to_dict()
    reporters: dict[str, set[str]] = {}
    usual_instant: dict[str, bool] = {}
    for question in fair:
        reporters.setdefault(question["concept"], set()).add(question["cik"])
        usual_instant.setdefault(question["concept"], question["is_instant"])
    enough = max(1, min(min_companies, len(ciks) - 1))  # a three-company corpus cannot have three others report it
    common = sorted(c for c, who in reporters.items() if len(who) >= enough)
    out: list[dict] = []
    by_filing: dict[str, list[dict]] = {}
    for question in selected:
        by_filing.setdefault(question["source_filing_id"], []).append(question)
    for filing_id in sorted(scope.filing):
        filing = scope.filing[filing_id]
        if filing.form not in PERIODIC_FORMS or filing_id not in scope.index:
            continue
        cik, year = filing.cik, int(filing.fiscal_year)
        asked = sorted(by_filing.get(filing_id, []), key=lambda q: q["question"])
        # The fiscal year after the company's latest: its scope falls back to the latest annual report, which prints
        # the neighbouring years' columns, so a reader that takes the nearest column answers it wrongly.
        absent_year = max(int(scope.filing[f].fiscal_year) for f in scope.of_company(cik)) + 1
        while absent_year in reported_years.get(cik, set()):  # a fact already tagged for it (an outlook, a schedule)
            absent_year += 1
        company_texts = scope.scope_texts(scope.of_company(cik))
        # a draw of its own per filing and kind: a change in one kind's candidates moves no other kind's draw
        rng = random.Random(f"{seed}:{filing_id}:other_year")
        for q in rng.sample(asked, min(per_kind, len(asked))):
            when = period_phrase("10-K", "instant" if q["is_instant"] else "FY", "", absent_year)
            printed = nearest(company_texts, q["concept"], absent_year)
            if printed is not None:  # an outlook sentence or a table column answers it after all
                reject(
                    "other_year",
                    rules.YEAR_PRINTED,
                    filing_id,
                    cik,
                    q["concept"],
                    str(absent_year),
                    f"for {absent_year}, {printed.describe()}",
                )
                continue
            schedule = forward_schedule(company_texts, q["concept"], absent_year)
            if schedule is not None:  # an estimate, a maturity or a future payment printed under the year
                reject(
                    "other_year",
                    FORWARD_SCHEDULE,
                    filing_id,
                    cik,
                    q["concept"],
                    str(absent_year),
                    f"for {absent_year}, {schedule.describe()}",
                )
                continue
            out.append(
                _twin(
                    q,
                    "other_year",
                    question=question_text(q["company"], q["label"], when),
                    fiscal_year=absent_year,
                    period=_period_words(when),
                    scope_filing_ids=scope.of(cik, absent_year),
                )
            )
        others = [c for c in ciks if c != cik]
        rng = random.Random(f"{seed}:{filing_id}:other_company")
        for q in rng.sample(asked, min(per_kind, len(asked))) if others else []:
            # a company that reports the line itself: asking a software company for its finished goods is a question
            # a reader declines for the line alone, and would not test the company
            drawn = rng.randrange(len(others))  # one draw whatever follows, so the later twins' draws stay as they were
            reporting = [c for c in others[drawn:] + others[:drawn] if q["concept"] in concepts_of.get(c, set())]
            if not reporting:
                continue
            other_cik = reporting[0]  # the drawn company, or the next after it that reports the line
            when = _own_period_of(other_cik, q, scope)
            out.append(
                _twin(
                    q,
                    "other_company",
                    question=question_text(companies[other_cik], q["label"], when),
                    asked_company=companies[other_cik],
                    period=_period_words(when),
                    scope_filing_ids=scope.of(cik, year),
                )
            )
        in_scope = scope.of(cik, year)
        tagged = scope.tagged_in(in_scope)
        kind = "FY" if filing.form == "10-K" else "Q"
        asked_years = {year, pd.Timestamp(filing.period_end).year}
        admitted: list[str] = []
        reviewed_note: dict[str, str] = {}
        for concept in common:
            if concept in tagged or cik in reporters[concept]:
                continue  # the company reports it: no candidate
            how = "instant" if usual_instant[concept] else kind
            when = period_phrase(filing.form, how, filing.period_end, year)
            question = question_text(companies[cik], cast(str, label_for(concept)), when)  # a reported concept
            checked = (in_scope, tagged, asked_years)
            asked = (question, _period_words(when))
            rule, detail = _absence(concept, asked, filing_id, cik, checked, scope, reviews, queue)
            if rule is None:
                admitted.append(concept)
                reviewed_note[concept] = detail
            else:
                reject("absent_concept", rule, filing_id, cik, concept, "", detail)
        seen_labels: set[str | None] = set()
        unique = []
        for concept in admitted:
            if label_for(concept) in seen_labels:
                reject("absent_concept", rules.LABEL_REPORTED, filing_id, cik, concept, "", "one label, asked once")
                continue
            seen_labels.add(label_for(concept))
            unique.append(concept)
        drawn = random.Random(f"{seed}:{filing_id}:absent_concept").sample(unique, min(per_kind, len(unique)))
        for concept in unique:
            if concept not in drawn:
                reject("absent_concept", rules.QUOTA_FILING, filing_id, cik, concept, "", f"{per_kind} per filing")
        for concept in drawn:
            how = "instant" if usual_instant[concept] else kind
            when = period_phrase(filing.form, how, filing.period_end, year)
            company = companies[cik]
            out.append(
                {
                    "kind": "absent_concept",
                    "cik": cik,
                    "company": company,
                    "asked_company": company,
                    "fiscal_year": year,
                    "period": _period_words(when),
                    "concept": concept,
                    "label": label_for(concept),
                    "question": question_text(company, cast(str, label_for(concept)), when),  # a reported concept
                    "source_filing_id": filing_id,
                    "source_form": filing.form,
                    "source_sha256": filing.sha256,
                    "statement_type": "none",
                    "scope_filing_ids": in_scope,
                    "review_note": reviewed_note.get(concept, ""),
                }
            )
    return out


def _own_period_of(other_cik: str, source: dict, scope: _Scope) -> str:
    """The period an other-company twin asks about, in the named company's own calendar: the quarter end of its 10-Q
    nearest the source's, or the fiscal year of its reports nearest the source's. A date of the source company's
    ("Home Depot's ... for the quarter ended March 31, 2025") is a period the named company never had, and a year it
    has not reported is one no filing could answer: a reader could decline either for the period alone, and the twin
    would not test the company."""
    own = [f for f in scope.of_company(other_cik) if scope.filing[f].form in PERIODIC_FORMS]
    quarters = [f for f in own if scope.filing[f].form == "10-Q"]
    if source["source_form"] == "10-Q" and quarters:
        asked_end = _day_number(source["period_end"])
        filing = scope.filing[
            min(quarters, key=lambda f: (abs(_day_number(scope.filing[f].period_end) - asked_end), f))
        ]
        # "the quarter": every 10-Q's period end closes a quarter; six or nine months may not end there for that company
        kind = "instant" if source["is_instant"] else "Q"
        return period_phrase("10-Q", kind, filing.period_end, int(filing.fiscal_year))
    asked_year = int(source["fiscal_year"])
    years = sorted({int(scope.filing[f].fiscal_year) for f in own}) or [asked_year]
    year = min(years, key=lambda y: (abs(y - asked_year), y))
    return period_phrase("10-K", "instant" if source["is_instant"] else "FY", "", year)


def _day_number(iso_date: str) -> int:
    return datetime.date.fromisoformat(str(iso_date)[:10]).toordinal()


def _absence(
    concept: str,
    asked: tuple[str, str],
    filing_id: str,
    cik: str,
    checked: tuple[list[str], set[str], set[int]],
    scope: _Scope,
    reviews: Mapping[str, dict[str, str]],
    queue: list[dict],
) -> tuple[str | None, str]:
    """(None, note) when `concept` is admitted as absent from the scope; else (rule, detail). The rules run in order: a
    filing of the scope keeps its statements elsewhere; the concept is a total or computed figure, or has no distinctive
    words; the scope tags another concept under the same label; then golden.might_answer's verdict: printed (rejected),
    review (queued for a person, admitted only on a verdict of "absent" bound to the case), or absent (admitted).
    `asked`: the question and its period; `checked`: the scope's filings, the concepts they tag, and the years
    the question asks."""
    in_scope, tagged, years = checked
    question, period = asked
    elsewhere = [f for f in in_scope if f in scope.statements_elsewhere]
    if elsewhere:
        return rules.STATEMENTS_ELSEWHERE, f"{elsewhere[0]}: {scope.statements_elsewhere[elsewhere[0]]}"
    why_not = can_be_absent(concept)
    if why_not:
        return rules.CANNOT_BE_ABSENT, why_not
    label = label_for(concept)
    if label in {label_for(c) for c in tagged}:
        return rules.LABEL_REPORTED, f"the scope tags another concept labelled {label!r}: it is answerable"
    names = scope.printed_names.names(concept, cik)
    rare = scope.printed_names.rare_stems(concept, cik)
    verdict = absence_verdict(scope.scope_texts(in_scope), concept, years, names, rare)
    if verdict.outcome == PRINTED:
        return verdict.rule, verdict.detail
    if verdict.outcome == ABSENT:
        return None, ""
    passages = [f"[{e.filing_id}] {e.line or e.shown}" for e in verdict.evidence]
    shas = [str(scope.filing[f].sha256) for f in in_scope]
    case_sha256 = hashlib.sha256(json.dumps([question, shas, passages]).encode()).hexdigest()
    question_id = _question_id("absent_concept", cik, question)
    decided = reviews.get(question_id)
    status, reviewer, reason = AWAITING, "", ""
    if decided is not None and decided["case_sha256"] == case_sha256:
        status = REVIEWED_ABSENT if decided["verdict"] == "absent" else REVIEWED_ANSWERED
        reviewer, reason = decided["reviewer"], decided["reason"]
    queue.append(
        {
            "question_id": question_id,
            "case_sha256": case_sha256,
            "question": question,
            "company": scope.company[cik],
            "cik": cik,
            "filing_id": filing_id,
            "concept": concept,
            "period": period,
            "rule": verdict.rule,
            "passages": passages,
            "status": status,
            "reviewer": reviewer,
            "reason": reason,
        }
    )
    if status == REVIEWED_ABSENT:
        return None, f"admitted by review ({reviewer}): {reason}"
    if status == REVIEWED_ANSWERED:
        return rules.REVIEWED_ANSWERED, f"{reviewer}: {reason}"
    return rules.AWAITING_REVIEW, f"{verdict.rule}: {verdict.detail}"


def _twin(source: dict, kind: str, **changes) -> dict:
    keep = (
        "cik",
        "company",
        "asked_company",
        "fiscal_year",
        "period",
        "concept",
        "label",
        "source_filing_id",
        "source_form",
        "source_sha256",
        "statement_type",
    )
    return {**{k: source[k] for k in keep}, "kind": kind, **changes}


SEGMENT = "segment"  # a figure of one segment, geography or product line, its member printed as the row's label
SEGMENT_AXES = {
    "StatementBusinessSegmentsAxis": "segment",
    "StatementGeographicalAxis": "geography",
    "ProductOrServiceAxis": "product",
}
SEGMENTS_PER_FILING = 4
_REVENUE = ("us-gaap:Revenues", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax")
# the kinds a golden question expects an answer to: one figure of one filing (a line item, or a segment's), or two
ANSWERABLE_KINDS = ("answerable", SEGMENT, *two.TWO_DOCUMENT_KINDS)
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


def _value_conflicts(candidates: pd.DataFrame, scope: _Scope, reject) -> list[tuple]:
    """(original, later) facts: a figure a filing reports for its own period that a later filing of the company prints
    with another value for the same period (a restatement, a stock split, a revised estimate): the first such later
    filing per concept and period, in filing and concept order. Kept: undimensioned, labelled, printed facts, the later
    of a report of a later period (corpus.figure_match.values_differ). Rejected with the rule: values that differ only
    by rounding."""
    facts = cast(
        pd.DataFrame,
        candidates[
            (candidates.dimensions == "")
            & candidates.offset.notna()
            & candidates.value.notna()
            & candidates.concept.map(lambda c: label_for(c) is not None and not is_boilerplate(c))
        ],
    )
    # Only a figure printed in two filings, one of them for its own period, can conflict: the rest (nearly all of
    # ~40,000 groups) are left out before the per-group loop, whose pandas cost was over half the golden build.
    keys = ["cik", "concept", "period_key"]
    grouped = facts.groupby(keys, sort=False)
    facts = cast(
        pd.DataFrame,
        facts[(grouped.filing_id.transform("nunique") > 1) & grouped.own_period.transform("any").astype(bool)],
    )
    pairs: list[tuple] = []
    for (cik, concept, period_key), group in iter_groups(facts.groupby(keys, sort=True)):
        own = cast(pd.DataFrame, group[group.own_period])
        if own.empty:
            continue
        original = next(iter(iter_rows(own.sort_values(["filing_id", "offset_order"]))))
        first = scope.filing[original.filing_id]
        later = [
            fact
            for fact in iter_rows(group.sort_values(["filing_id", "offset_order"]))
            if str(scope.filing[fact.filing_id].period_end) > str(first.period_end)  # a report of a later period
        ]
        for fact in later:
            if not values_differ(float(original.value), float(fact.value)):
                if original.value != fact.value:
                    reject(
                        CONFLICTING,
                        "rounding_only",
                        fact.filing_id,
                        cik,
                        concept,
                        period_key,
                        f"{original.displayed} and {fact.displayed} differ by rounding only",
                    )
                continue
            pairs.append((original, fact))
            break
    return pairs


def _conflicting_values(pairs: list[tuple], scope: _Scope) -> list[dict]:
    """Review cases, up to CONFLICTS_PER_COMPANY per company: asked over both filings of a value conflict
    (_value_conflicts), the passages disagree, and which value holds is for a person to say; the case's review note
    names both."""
    out: list[dict] = []
    taken: dict[str, int] = {}
    for original, fact in pairs:
        cik = str(original.cik)
        if taken.get(cik, 0) >= CONFLICTS_PER_COMPANY:
            continue
        question = _describe(original, scope)
        shown = (
            f"{original.filing_id} prints {original.displayed} and the later {fact.filing_id} prints {fact.displayed}"
        )
        out.append(
            {
                **{k: question[k] for k in ("cik", "company", "fiscal_year", "period", "concept", "label")},
                "kind": CONFLICTING,
                "question": question["question"],
                "scope_filing_ids": [original.filing_id, fact.filing_id],
                "gold_filing_ids": [original.filing_id, fact.filing_id],
                "source_filing_id": original.filing_id,
                "source_form": question["source_form"],
                "source_sha256": question["source_sha256"],
                "statement_type": question["statement_type"],
                "gold_quote": question["gold_quote"],  # the line as first published
                "review_note": f"one figure, two values for {question['period']}: {shown} (a restatement, a "
                "split or a revised estimate); say which holds, or that the answer must give both",
            }
        )
        taken[cik] = taken.get(cik, 0) + 1
    return out


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
        + two.restatement(restated, scope)
    )
    return two.apply_quota(questions, seed, rejected)
