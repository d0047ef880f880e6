"""Unanswerable twins of the template questions: a fiscal year the company's filings do not report, another
company's name asked inside this company's scope, and a concept other companies report that this scope neither tags
nor prints (golden.might_answer's verdict; the cases its words leave open queue for a person's review).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import random
from collections.abc import Mapping
from typing import cast

import pandas as pd

from edgar_eval.golden import fairness as rules
from edgar_eval.golden.figure_selection import PERIODIC_FORMS
from edgar_eval.golden.labels import label_for
from edgar_eval.golden.might_answer import (
    ABSENT,
    FORWARD_SCHEDULE,
    PRINTED,
    absence_verdict,
    can_be_absent,
    forward_schedule,
    nearest,
)
from edgar_eval.golden.question_wording import _period_words, _question_id, period_phrase, question_text
from edgar_eval.golden.template_scope import _Scope

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
_UNANSWERABLE_KINDS = ("other_year", "other_company", "absent_concept")


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
    # the absent concepts asked so far of each search scope (its filings): one filing's question asks the others' too
    asked_in_scope: dict[tuple[str, ...], dict[str, str]] = {}
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
        already = asked_in_scope.setdefault(tuple(sorted(in_scope)), {})
        for concept in admitted:
            if label_for(concept) in seen_labels:
                reject("absent_concept", rules.LABEL_REPORTED, filing_id, cik, concept, "", "one label, asked once")
                continue
            if concept in already:
                reject(
                    "absent_concept", rules.ASKED_IN_SCOPE, filing_id, cik, concept, "", f"asked of {already[concept]}"
                )
                continue
            seen_labels.add(label_for(concept))
            unique.append(concept)
        drawn = random.Random(f"{seed}:{filing_id}:absent_concept").sample(unique, min(per_kind, len(unique)))
        already.update(dict.fromkeys(drawn, filing_id))
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
    kin = scope.printed_names.kin(concept, cik)
    distinctive = scope.printed_names.distinctive_words(concept, cik)
    heads = scope.printed_names.printed_heads(concept, cik)
    printed_names = scope.printed_names

    def claimed(label: str) -> bool:
        return printed_names.claimed(label, concept, cik)

    verdict = absence_verdict(
        scope.scope_texts(in_scope),
        concept,
        years,
        names,
        rare,
        kin,
        distinctive=distinctive,
        claimed=claimed,
        heads=heads,
    )
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
