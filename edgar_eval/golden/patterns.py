"""The eight dispersion patterns as contracts measured on the text: where the quotes sit, in which filings.

Each pattern says what makes its evidence scattered (BRIEF section 3). Conformance is decided on the resolved
quote locations (filing, offsets, table row or prose) and the filings' forms and dates, never on the proposer's
labels. The definition and structural requirement here are also what the proposal prompt tells the model, so the
model is asked for exactly what the gate will measure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from edgar_eval.corpus.sentences import sentence_spans

MIN_DISPERSION_CHARS = 4_000
ANNUAL_FORMS = ("10-K",)
QUARTERLY_FORMS = ("10-Q",)
EVENT_FORMS = ("8-K",)
PROXY_FORMS = ("DEF 14A",)
PERIODIC_FORMS = ANNUAL_FORMS + QUARTERLY_FORMS
# A definition names its term with a defining verb; a use elsewhere only applies it. Filings define a term in
# these ways: "we define X as", "X is defined as / refers to / means / represents / includes / consists of", "X,
# which is ...", "(the "Term")" or "or ABC" after a name, and the copula with the term as subject: "X is a ...",
# "X are ..." (within the sentence's first eight words, so a later "is" in a long sentence defines nothing; a
# pronoun subject, "This is a risk", names no term).
_DEFINITION_CUE = re.compile(
    r"\b(?:we\s+define|is\s+defined\s+as|are\s+defined\s+as|defined\s+as|refers?\s+to|means|includes?|consists?\s+of|"
    r"comprises?|is\s+comprised\s+of|represents?)\b|,\s*which\s+(?:is|are)\b"
    r"|\(\s*[\"\u201c]?[A-Z][A-Za-z&]{1,10}[\"\u201d]?\s*\)|\bor\s+[A-Z]{2,6}\b",
    re.I,
)
_SUBJECT_COPULA = re.compile(
    r"[\s\"\u201c]*(?!(?:This|That|These|Those|It|There|Such|Each|All|Any|Which|What)\b)[A-Z][^\s.;:]*(?:\s+[^\s.;:]+){0,7}?\s+(?:is|are)\s+(?!not\b)\S"
)


def defines_a_term(text: str) -> bool:
    """Does this prose define a term, in one of the ways filings do (the cues above)?"""
    if _DEFINITION_CUE.search(text):
        return True
    return any(_SUBJECT_COPULA.match(text, start) for start, _ in sentence_spans(text))


@dataclass(frozen=True)
class Pattern:
    code: str
    name: str
    definition: str
    requirement: str  # the structural requirement, as the prompt states it and the gate measures it
    documents: int  # 1: single-document pattern; 2: evidence from two filings


PATTERN_CONTRACTS: dict[str, Pattern] = {
    p.code: p
    for p in (
        Pattern(
            "D1",
            "table vs narrative",
            "The figure sits in a table; the reason it moved is told in prose pages away.",
            "One quote is a single table row; one is a prose sentence of the same filing, at least 4,000 characters "
            "away from the row.",
            1,
        ),
        Pattern(
            "D2",
            "footnote dependency",
            "A line of a financial statement is qualified by a numbered note.",
            "One quote comes from the statements, before the notes begin; one comes from the notes, in the same "
            "filing, "
            "at least 4,000 characters away.",
            1,
        ),
        Pattern(
            "D3",
            "definition then use",
            "A term is defined in one place and used, with a figure, far away.",
            'One quote defines the term ("we define", "includes", "means"); one uses it, in the same filing, at '
            "least 4,000 characters away.",
            1,
        ),
        Pattern(
            "D4",
            "granularity",
            "Quarterly evidence (a 10-Q, year to date) is set against annual evidence (a 10-K).",
            "One quote comes from a quarterly report (10-Q) and one from an annual report (10-K) of the same company.",
            2,
        ),
        Pattern(
            "D5",
            "event then consequence",
            "An 8-K announces something; a later report records what came of it.",
            "One quote comes from an 8-K and one from a 10-Q or 10-K of the same company filed after it.",
            2,
        ),
        Pattern(
            "D6",
            "governance vs operations",
            "Proxy statement facts are paired with annual-report figures.",
            "One quote comes from a proxy statement (DEF 14A) and one from an annual report (10-K) of the same "
            "company.",
            2,
        ),
        Pattern(
            "D7",
            "restatement",
            "A figure as first published and as restated later (a stock split, a correction).",
            "The quotes come from two filings of the same company, filed on different dates: the earlier one prints "
            "the "
            "figure as first published, the later one as restated.",
            2,
        ),
        Pattern(
            "D8",
            "absence",
            "Nothing in the corpus answers the question; refusing is the only right answer.",
            "The answer type is refusal; any quotes show the nearest material, which does not answer the question.",
            1,
        ),
    )
}


@dataclass(frozen=True)
class PlacedQuote:
    """A verified quote where the search found it."""

    filing_id: str
    start: int
    end: int
    is_table_row: bool
    text: str


@dataclass(frozen=True)
class FilingFacts:
    """What conformance needs to know of a filing."""

    filing_id: str
    cik: str
    form: str
    filed: str  # ISO date; orders an 8-K before the report that records its consequence
    notes_start: int | None


def _gap(a: PlacedQuote, b: PlacedQuote) -> int:
    """Characters between two quotes of one filing (0 when they overlap)."""
    return max(b.start - a.end, a.start - b.end, 0)


def _far_pair(first: Sequence[PlacedQuote], second: Sequence[PlacedQuote]) -> int:
    return max((_gap(a, b) for a in first for b in second if a is not b), default=-1)


def _single_filing(placed: Sequence[PlacedQuote]) -> str | None:
    filings = {q.filing_id for q in placed}
    return (
        None
        if len(filings) == 1
        else f"quotes come from {len(filings)} filings; this pattern keeps its evidence in one"
    )


def _forms(placed: Sequence[PlacedQuote], filings: dict[str, FilingFacts]) -> list[str]:
    return [filings[q.filing_id].form for q in placed]


def conformance(
    pattern: str,
    answer_type: str,
    placed: Sequence[PlacedQuote],
    requires_documents: int,
    filings: dict[str, FilingFacts],
) -> str | None:
    """None when the resolved quotes meet the pattern's contract, else why not."""
    documents = sorted({q.filing_id for q in placed})
    if len({filings[d].cik for d in documents}) > 1:
        return "quotes come from filings of more than one company"
    if pattern != "D8" and requires_documents != len(documents):
        return f"requires_documents says {requires_documents} but the quotes resolve to {len(documents)} filing(s)"
    if pattern == "D8":
        return (
            None
            if answer_type == "refusal"
            else f"an absence question must have answer type refusal, not {answer_type}"
        )
    if answer_type == "refusal":
        return f"a {pattern} question must be answerable; refusal belongs to D8"
    if len(placed) < 2:
        return f"{pattern} needs at least two quotes"
    if pattern in ("D1", "D2", "D3"):
        problem = _single_filing(placed)
        if problem:
            return problem
    if pattern == "D1":
        rows = [q for q in placed if q.is_table_row]
        prose = [q for q in placed if not q.is_table_row]
        if not rows or not prose:
            return "D1 needs one table-row quote and one prose quote"
        gap = _far_pair(rows, prose)
        if gap < MIN_DISPERSION_CHARS:
            return f"the table row and the prose are {gap:,} characters apart, under {MIN_DISPERSION_CHARS:,}"
        return None
    if pattern == "D2":
        notes = filings[placed[0].filing_id].notes_start
        if notes is None:
            return (
                "the notes region of this filing is unknown (no Note 1 found), so a footnote dependency cannot be "
                "measured"
            )
        before = [q for q in placed if q.start < notes]
        inside = [q for q in placed if q.start >= notes]
        if not before or not inside:
            where = "inside the notes" if inside else "before the notes"
            return f"all quotes sit {where}; D2 needs one before the notes begin and one inside them"
        gap = _far_pair(before, inside)
        if gap < MIN_DISPERSION_CHARS:
            return f"the statement line and the note are {gap:,} characters apart, under {MIN_DISPERSION_CHARS:,}"
        return None
    if pattern == "D3":
        definitions = [q for q in placed if not q.is_table_row and defines_a_term(q.text)]
        if not definitions:
            return "no quote defines a term ('we define', 'means', 'refers to', 'X is a ...', 'X, which is ...')"
        gap = _far_pair(definitions, placed)
        if gap < MIN_DISPERSION_CHARS:
            return f"the definition and its use are {gap:,} characters apart, under {MIN_DISPERSION_CHARS:,}"
        return None
    forms = _forms(placed, filings)
    if pattern == "D4":
        if not any(f in QUARTERLY_FORMS for f in forms) or not any(f in ANNUAL_FORMS for f in forms):
            return f"D4 needs a 10-Q quote and a 10-K quote; the quotes come from {', '.join(sorted(set(forms)))}"
        return None
    if pattern == "D5":
        events = [q for q in placed if filings[q.filing_id].form in EVENT_FORMS]
        if not events:
            return "D5 needs a quote from an 8-K"
        first = min(filings[q.filing_id].filed for q in events)
        later = [
            q for q in placed if filings[q.filing_id].form in PERIODIC_FORMS and filings[q.filing_id].filed > first
        ]
        return None if later else "D5 needs a quote from a 10-Q or 10-K filed after the 8-K"
    if pattern == "D6":
        if not any(f in PROXY_FORMS for f in forms) or not any(f in ANNUAL_FORMS for f in forms):
            return (
                "D6 needs a proxy statement quote and a 10-K quote; the quotes come from "
                f"{', '.join(sorted(set(forms)))}"
            )
        return None
    if pattern == "D7":
        dates = {filings[d].filed for d in documents}
        if len(documents) < 2:
            return "D7 needs the figure as first published and as restated, from two filings; all quotes come from one"
        if len(dates) < 2:
            return "D7 needs an earlier and a later filing; the quoted filings share one filing date"
        return None
    raise ValueError(f"unknown pattern {pattern!r}")
