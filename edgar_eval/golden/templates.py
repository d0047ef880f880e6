"""XBRL-template golden questions: answerable ones located by their facts, and unanswerable twins.

Unanswerable questions come in three kinds: another fiscal year than the filings report, another
company's name asked inside this company's scope, and a concept that other companies report but
this one neither tags nor prints (confirmed by searching its text, not assumed).
"""

from __future__ import annotations

import hashlib
import random

import pandas as pd

from edgar_eval.golden.labels import ABSENCE_PROBES, CONCEPT_LABELS, label_for
from edgar_eval.retrieval.scope import ScopedFiling, filings_in_scope

TEMPLATE_VERSION = "xbrl-template/1"
GOLDEN_COLUMNS = [
    "question_id", "question", "kind", "expected_route", "company", "cik", "scope_cik", "fiscal_year",
    "scope_filing_ids", "concept", "label", "gold_value", "gold_answer", "gold_decimals", "gold_filing_ids",
    "gold_chunk_ids", "gold_pages", "gold_quote", "source_filing_id", "source_form", "source_sha256", "statement_type", "provenance",
]


def _display(value: float, unit: str | None, scale: int) -> str:
    if value < 0:
        return "-" + _display(-value, unit, scale)
    if unit == "USD/shares":
        return f"${value:,.2f}"
    if unit == "USD":
        if scale >= 9:
            return f"${value / 1e9:,.3f} billion".replace(".000 ", " ")
        if scale >= 6:
            return f"${value / 1e6:,.0f} million"
        return f"${value:,.0f}"
    if unit == "shares" and scale >= 6:
        return f"{value / 1e6:,.1f} million shares"
    return f"{value:,.0f}"


def _question(company: str, label: str, fiscal_year: int, is_instant: bool) -> str:
    when = f"at the end of fiscal {fiscal_year}" if is_instant else f"for fiscal {fiscal_year}"
    return f"What was {company}'s {label} {when}?"


def _question_id(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:12]


def _scoped(filings: pd.DataFrame) -> list[ScopedFiling]:
    return [ScopedFiling(r.filing_id, r.cik, r.form, int(r.fiscal_year)) for r in filings.itertuples()]


def _current_period_facts(facts: pd.DataFrame, filings: pd.DataFrame) -> pd.DataFrame:
    """Undimensioned numeric facts of an annual report's own fiscal year, located in its text."""
    annual = filings[filings.form == "10-K"][["filing_id", "fiscal_year", "period_end"]]
    merged = facts.merge(annual, on="filing_id", suffixes=("", "_filing"))
    own_period = (merged.fiscal_year == merged.fiscal_year_filing) & (
        (merged.period_kind == "FY") | ((merged.period_kind == "instant") & (merged.period_end == merged.period_end_filing))
    )
    keep = merged[
        own_period & merged.is_numeric & (merged.dimensions == "") & merged.offset.notna()
        & merged.concept.isin(list(CONCEPT_LABELS)) & merged.value.notna()
    ]
    return keep.sort_values(["filing_id", "offset"]).drop_duplicates(["filing_id", "concept"])


def _gold_locations(fact, facts: pd.DataFrame, chunks: pd.DataFrame, scope: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Every chunk and page in the scope that prints this figure for this period."""
    same = facts[
        facts.filing_id.isin(scope) & (facts.concept == fact.concept) & (facts.dimensions == "")
        & (facts.period_end == fact.period_end) & (facts.period_kind == fact.period_kind)
        & (facts.value == fact.value) & facts.offset.notna()
    ]
    chunk_ids, pages = set(), set()
    for located in same.itertuples():
        own = chunks[(chunks.filing_id == located.filing_id) & (chunks.start <= located.offset) & (chunks.end >= located.end)]
        chunk_ids.update(own.chunk_id)
        containing = own[own.start <= located.offset]
        if len(containing):
            page = _page_of(containing.iloc[0], int(located.offset))
            pages.add(f"{located.filing_id}#{page}")
    return sorted(same.filing_id.unique()), sorted(chunk_ids), sorted(pages)


def _line_at(text: str, offset: int) -> str | None:
    """The line of clean text (a table row, as a rule) that prints the fact: the verbatim quote of the evidence."""
    if not text:
        return None
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text[start:end if end != -1 else len(text)]


def _page_of(chunk, offset: int) -> str:
    starts, labels = list(chunk.page_starts), list(chunk.pages)
    index = 0
    for i, start in enumerate(starts):
        if start <= offset:
            index = i
    return labels[index]


def build_golden_questions(
    filings: pd.DataFrame, facts: pd.DataFrame, chunks: pd.DataFrame, texts: dict[str, str],
    seed: int, answerable_per_filing: int = 12, unanswerable_per_kind: int = 4,
) -> pd.DataFrame:
    rng = random.Random(seed)
    scoped = _scoped(filings)
    companies = filings.drop_duplicates("cik").sort_values("cik")[["cik", "company"]].itertuples(index=False)
    company_names = {cik: name for cik, name in companies}
    ciks = sorted(company_names)
    rows: list[dict] = []
    candidates = _current_period_facts(facts, filings)
    sha = dict(zip(filings.filing_id, filings.sha256))
    form = dict(zip(filings.filing_id, filings.form))

    def add(kind, fact, cik, asked_company, fiscal_year, label, concept, **gold):
        is_instant = bool(fact.period_kind == "instant") if fact is not None else gold.pop("is_instant")
        question = _question(asked_company, label, fiscal_year, is_instant)
        scope = filings_in_scope(scoped, cik, fiscal_year)
        source = fact.filing_id if fact is not None else gold.pop("source_filing_id")
        rows.append({
            "question_id": _question_id(kind, cik, question), "question": question, "kind": kind,
            "expected_route": "answer" if kind == "answerable" else "no-answer",
            "company": company_names[cik], "cik": cik, "scope_cik": cik, "fiscal_year": fiscal_year,
            "scope_filing_ids": scope, "concept": concept, "label": label,
            "gold_value": gold.get("gold_value"), "gold_answer": gold.get("gold_answer"),
            "gold_decimals": gold.get("gold_decimals"), "gold_filing_ids": gold.get("gold_filing_ids", []),
            "gold_chunk_ids": gold.get("gold_chunk_ids", []), "gold_pages": gold.get("gold_pages", []),
            "gold_quote": gold.get("gold_quote"),
            "source_filing_id": source, "source_form": form[source], "source_sha256": sha[source],
            "statement_type": "balance sheet" if is_instant else "income statement", "provenance": TEMPLATE_VERSION,
        })

    for filing_id, group in candidates.groupby("filing_id", sort=True):
        facts_here = list(group.itertuples())
        cik = facts_here[0].cik
        year = int(facts_here[0].fiscal_year)
        scope = filings_in_scope(scoped, cik, year)
        for fact in sorted(rng.sample(facts_here, min(answerable_per_filing, len(facts_here))), key=lambda f: f.offset):
            gold_filings, gold_chunks, gold_pages = _gold_locations(fact, facts, chunks, scope)
            if not gold_chunks:
                continue  # the figure is not printed inside the scope: no fair question
            add("answerable", fact, cik, company_names[cik], year, label_for(fact.concept), fact.concept,
                gold_value=float(fact.value), gold_answer=_display(fact.value, fact.unit, int(fact.scale)),
                gold_decimals=fact.decimals, gold_filing_ids=gold_filings, gold_chunk_ids=gold_chunks, gold_pages=gold_pages,
                gold_quote=_line_at(texts.get(fact.filing_id, ""), int(fact.offset)))
        reported_years = set(facts[facts.cik == cik].fiscal_year.dropna().astype(int))
        absent_year = min(reported_years) - 3
        for fact in rng.sample(facts_here, min(unanswerable_per_kind, len(facts_here))):
            add("other_year", fact, cik, company_names[cik], absent_year, label_for(fact.concept), fact.concept)
        others = [c for c in ciks if c != cik]
        if others:
            for fact in rng.sample(facts_here, min(unanswerable_per_kind, len(facts_here))):
                other = others[rng.randrange(len(others))]
                add("other_company", fact, cik, company_names[other], year, label_for(fact.concept), fact.concept)
        own_concepts = set(facts[facts.cik == cik].concept)
        company_text = "\n".join(texts[f] for f in sorted(filings[filings.cik == cik].filing_id) if f in texts).lower()
        absent = []
        for concept in sorted(set(candidates.concept) - own_concepts):
            probes = ABSENCE_PROBES.get(concept, (label_for(concept),))
            if not any(probe in company_text for probe in probes):
                absent.append(concept)
        for concept in absent[:unanswerable_per_kind]:
            is_instant = bool((candidates[candidates.concept == concept].period_kind == "instant").any())
            add("absent_concept", None, cik, company_names[cik], year, label_for(concept), concept,
                is_instant=is_instant, source_filing_id=filing_id)
    golden = pd.DataFrame(rows, columns=GOLDEN_COLUMNS)
    return golden.drop_duplicates("question_id").sort_values(["cik", "kind", "question_id"]).reset_index(drop=True)
