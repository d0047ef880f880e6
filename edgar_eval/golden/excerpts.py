"""Excerpt alignment: for each dispersion pattern, the few windows of filing text a proposer model is shown.

A model proposes questions only about what it reads, so each pattern (BRIEF section 3) gets the material its
evidence is scattered across, and nothing else: D1 the statements and the MD&A of one filing, D2 the statements
and the notes, D4 a 10-Q against a 10-K, and so on. More context is worse context, so a bundle has a fixed total
budget of characters, split evenly across its windows; each window sits around an anchor phrase (a revenue row,
a "compared to" sentence, a defining verb), never leaves its region (a section, the statements before the
notes, the notes) and never cuts a table row. A pattern whose sections a filing lacks gets no bundle from it:
alignment never fails on a missing section.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, cast

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.golden.candidates import PATTERNS

DEFAULT_BUDGET = 6_000
STATEMENTS = "statements"
NOTES = "notes"

# A row is anchored when its first cell starts with one of these (so "Cost of revenue" does not anchor revenue).
_REVENUE_ROWS = ("total revenue", "total net sales", "net sales", "revenue")
_PER_SHARE_ROWS = ("net income per share", "net loss per share", "earnings per share", "diluted", "basic and diluted")
# Prose cues; "compared with" is how many filers write "compared to".
_CHANGE_CUES = ("compared to", "compared with", "increase", "decrease", "driven by", "due to")
_DEFINITION_CUES = ("we define", "includes", "refers to", "means")
_PROXY_CUES = ("summary compensation table", "pay versus performance")
_NOTE_REFERENCE = re.compile(r"\bNotes?\s+(\d{1,2})\b", re.I)
_FIGURE_CELL = re.compile(r"^\(?[$€£]?\s*\d[\d,.]*\)?%?$")
_WORD = re.compile(r"[a-z]{5,}")
# Words too common in any filing to name an event; the distinctive word is otherwise chosen by tf-idf.
_COMMON_WORDS = frozenset(
    "about above after again against approved board company company's costs could directors during estimates expects "
    "fiscal other their there these those total under which while would years quarter million billion report "
    "results financial statements exhibits registrant pursuant".split()
)

_MDA = {"10-K": "Part II Item 7", "10-Q": "Part I Item 2"}
_STATEMENT_SECTIONS = {"10-K": ("Part II Item 8", "Part IV Item 15"), "10-Q": ("Part I Item 1",)}
_BUSINESS = "Part I Item 1"
_EXHIBIT_ITEMS = ("9.01",)


@dataclass(frozen=True)
class Excerpt:
    excerpt_id: str  # stable: f"{filing_id}:{start}-{end}"
    filing_id: str
    label: str  # the document label the model writes back: the filing's relative path
    section: str  # a section key ("Part II Item 7"), or "statements" / "notes"
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class ExcerptBundle:
    pattern: str
    company_cik: str
    excerpts: tuple[Excerpt, ...]

    @property
    def bundle_id(self) -> str:
        return f"{self.pattern}|" + "+".join(e.excerpt_id for e in self.excerpts)

    @property
    def chars(self) -> int:
        return sum(len(e.text) for e in self.excerpts)


def window(
    text: str, anchor_at: int, budget: int, lead_fraction: float = 0.25, stop: int | None = None, floor: int = 0
) -> tuple[int, int]:
    """(start, end) of at most `budget` characters around `anchor_at`: `lead_fraction` of the budget before the
    anchor, the rest after; never before `floor` nor past `stop`; snapped to whole lines so no table row is cut.

    A clipped side is not given to the other side (the window only shrinks). When no whole line fits (a paragraph
    longer than the budget), the unsnapped span is returned rather than nothing."""
    if budget < 1:
        raise ValueError(f"budget must be at least 1 character, not {budget}")
    if not 0.0 <= lead_fraction <= 1.0:
        raise ValueError(f"lead_fraction must lie in [0, 1], not {lead_fraction}")
    stop = len(text) if stop is None else min(stop, len(text))
    floor = max(floor, 0)
    if floor >= stop:
        return floor, floor
    anchor_at = min(max(anchor_at, floor), stop)
    lead = int(budget * lead_fraction)
    lo, hi = max(floor, anchor_at - lead), min(stop, anchor_at + budget - lead)
    # End: the last line end at or before hi (the newline itself is left out).
    end = hi if hi == len(text) or text[hi] == "\n" else text.rfind("\n", lo, hi)
    if end <= lo:
        return lo, hi
    # Start: the start of lo's own line when that keeps the floor and the budget (keeps the anchor's line whole),
    # else the next line start.
    line_start = text.rfind("\n", 0, lo) + 1
    if line_start >= floor and end - line_start <= budget:
        start = line_start
    else:
        following = text.find("\n", lo, end)
        if following == -1:
            return lo, hi
        start = following + 1
    return (start, end) if start < end else (lo, hi)


def find_anchor(text: str, phrases: Sequence[str], start: int, end: int) -> int | None:
    """The first offset in [start, end) where any of `phrases` begins, case-insensitively; None when none does."""
    haystack = text[start:end].lower()
    found = [i for i in (haystack.find(p.lower()) for p in phrases if p) if i >= 0]
    return start + min(found) if found else None


def _row_anchor(text: str, prefixes: Sequence[str], start: int, end: int, *, contains: bool = False) -> int | None:
    """The start of the first table row in [start, end) whose first cell starts with (or contains) a prefix."""
    for match in re.finditer(r"(?m)^\|[^\n]*", text[start:end]):
        cells = [c.strip().lower() for c in match.group(0).strip("|").split("|") if c.strip()]
        if cells and any((p in cells[0]) if contains else cells[0].startswith(p) for p in prefixes):
            return start + match.start()
    return None


def _figure_row(text: str, start: int, end: int) -> int | None:
    """The first table row in [start, end) with at least two figure cells: where a note's numbers are."""
    for match in re.finditer(r"(?m)^\|[^\n]*", text[start:end]):
        cells = [c.strip() for c in match.group(0).strip("|").split("|")]
        if sum(bool(_FIGURE_CELL.match(c)) for c in cells if c) >= 2:
            return start + match.start()
    return None


@dataclass(frozen=True)
class _Filing:
    filing_id: str
    label: str
    cik: str
    form: str
    filed: str
    fiscal_year: int | None
    text: str
    sections: dict[str, tuple[int, int]]  # key -> (start, end); cross-reference stubs left out
    all_sections: tuple[tuple[str, int, int], ...]  # every section, stubs too, in document order
    notes_start: int | None

    def section(self, key: str) -> tuple[int, int] | None:
        return self.sections.get(key)

    def mdna(self) -> tuple[int, int] | None:
        return self.section(_MDA[self.form]) if self.form in _MDA else None

    def statements(self) -> tuple[int, int] | None:
        """From the start of the section that holds the notes up to the notes; without notes, the statements item."""
        if self.notes_start is not None:
            holder = next(((s, e) for _, s, e in self.all_sections if s <= self.notes_start < e), None)
            if holder is not None and holder[0] < self.notes_start:
                return holder[0], self.notes_start
        for key in _STATEMENT_SECTIONS.get(self.form, ()):
            span = self.section(key)
            if span is not None:
                end = (
                    min(span[1], self.notes_start)
                    if self.notes_start is not None and self.notes_start > span[0]
                    else span[1]
                )
                return span[0], end
        return None

    def notes(self) -> tuple[int, int] | None:
        if self.notes_start is None:
            return None
        holder = next((e for _, s, e in self.all_sections if s <= self.notes_start < e), len(self.text))
        return (self.notes_start, holder) if holder > self.notes_start else None


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value is pd.NaT


def _filings(filings: pd.DataFrame, texts: Mapping[str, str], sections: pd.DataFrame) -> list[_Filing]:
    by_filing: dict[str, list] = {}
    if len(sections):
        for row in iter_rows(sections.sort_values(["filing_id", "start"]), index=False):
            by_filing.setdefault(row.filing_id, []).append(row)
    made = []
    for row in iter_rows(filings, index=False):
        text = texts.get(row.filing_id)
        if text is None:
            continue
        rows = by_filing.get(row.filing_id, [])
        notes = next((r.notes_start for r in rows if not _missing(getattr(r, "notes_start", None))), None)
        if notes is None and not _missing(getattr(row, "notes_start", None)):
            notes = row.notes_start
        filed = getattr(row, "filed", None)
        filed = getattr(row, "period_end", "") if _missing(filed) else filed
        year: Any = getattr(row, "fiscal_year", None)
        made.append(
            _Filing(
                row.filing_id,
                str(row.path),
                str(row.cik),
                str(row.form),
                "" if _missing(filed) else str(filed),
                None if _missing(year) else int(year),
                text,
                {
                    str(r.key): (int(r.start), int(r.end))
                    for r in rows
                    if _missing(getattr(r, "cross_reference_target", None))
                },
                tuple((str(r.key), int(r.start), int(r.end)) for r in rows),
                None if notes is None else int(notes),
            )
        )
    return made


def _excerpt(
    filing: _Filing, section: str, region: tuple[int, int] | None, anchor: int | None, budget: int, lead_fraction: float
) -> Excerpt | None:
    """A window of `region` around `anchor` (the region's start when there is none)."""
    if region is None or region[1] <= region[0]:
        return None
    at = region[0] if anchor is None else anchor
    start, end = window(filing.text, at, budget, lead_fraction, stop=region[1], floor=region[0])
    if end <= start or not filing.text[start:end].strip():
        return None
    return Excerpt(
        f"{filing.filing_id}:{start}-{end}", filing.filing_id, filing.label, section, start, end, filing.text[start:end]
    )


def _statements_excerpt(
    filing: _Filing, budget: int, lead: float, rows: Sequence[str] = _REVENUE_ROWS, contains: bool = False
) -> Excerpt | None:
    region = filing.statements()
    if region is None:
        return None
    anchor = _row_anchor(filing.text, rows, *region, contains=contains)
    if anchor is None:
        anchor = find_anchor(filing.text, rows, *region)
    return _excerpt(filing, STATEMENTS, region, anchor, budget, lead)


def _section_excerpt(filing: _Filing, key: str | None, cues: Sequence[str], budget: int, lead: float) -> Excerpt | None:
    """A window of the section `key`, on its first cue (the section's start when it prints none)."""
    region = filing.section(key) if key else None
    if region is None:
        return None
    anchor = find_anchor(filing.text, cues, *region) if cues else None
    return _excerpt(filing, cast(str, key), region, anchor, budget, lead)  # a region: a key


def _notes_excerpt(filing: _Filing, statements: Excerpt, budget: int, lead: float) -> Excerpt | None:
    """The notes window: on the note the statements window refers to ("(Note 6)"), else on a figure row."""
    region = filing.notes()
    if region is None:
        return None
    anchor = None
    for reference in _NOTE_REFERENCE.finditer(statements.text):
        heading = re.search(rf"(?im)^\s*Note\s+{reference.group(1)}\b", filing.text[region[0] : region[1]])
        if heading:
            anchor = region[0] + heading.start()
            break
    if anchor is None:
        anchor = _figure_row(filing.text, *region)
    return _excerpt(filing, NOTES, region, anchor, budget, lead)


def _event_region(filing: _Filing) -> tuple[str, tuple[int, int]] | None:
    """An 8-K's event items (every item but the exhibits list), as one span."""
    items = [
        (key, s, e)
        for key, s, e in filing.all_sections
        if key.startswith("Item ") and key.split()[-1] not in _EXHIBIT_ITEMS and key in filing.sections
    ]
    if not items:
        return None
    return items[0][0], (items[0][1], max(e for _, _, e in items))


def _document_frequency(filings: Sequence[_Filing]) -> Counter:
    frequency: Counter = Counter()
    for filing in filings:
        frequency.update(set(_WORD.findall(filing.text.lower())))
    return frequency


def distinctive_words(event_text: str, frequency: Counter, documents: int) -> list[str]:
    """The event's words, most distinctive first: count in the event times inverse document frequency (over
    `documents` filings whose word sets `frequency` counts); a word every filing prints scores nothing."""
    counts = Counter(w for w in _WORD.findall(event_text.lower()) if w not in _COMMON_WORDS)
    first = {w: event_text.lower().find(w) for w in counts}
    score = {w: n * math.log((1 + documents) / (1 + frequency.get(w, 0))) for w, n in counts.items()}
    return sorted(counts, key=lambda w: (-score[w], first[w]))


def _consequence_excerpt(later: _Filing, words: Sequence[str], budget: int, lead: float) -> Excerpt | None:
    """The later report's window on the most distinctive of the event's words it prints: in its MD&A first, else
    in its notes or statements (filers often record a restructuring's cost only in a note). None when it prints
    none of them: that report records nothing of the event."""
    regions = [(_MDA.get(later.form, ""), later.mdna()), (NOTES, later.notes()), (STATEMENTS, later.statements())]
    for word in words:
        for name, region in regions:
            if region is None:
                continue
            at = re.search(rf"\b{re.escape(word)}\b", later.text[region[0] : region[1]], re.I)
            if at:
                return _excerpt(later, name, region, region[0] + at.start(), budget, lead)
    return None


def _bundle(pattern: str, cik: str, excerpts: Sequence[Excerpt | None]) -> ExcerptBundle | None:
    return (
        None
        if any(e is None for e in excerpts)
        else ExcerptBundle(pattern, cik, cast(tuple[Excerpt, ...], tuple(excerpts)))
    )


def align_excerpts(
    filings: pd.DataFrame,
    texts: Mapping[str, str],
    sections: pd.DataFrame,
    pattern: str,
    budget: int = DEFAULT_BUDGET,
    lead_fraction: float = 0.25,
) -> list[ExcerptBundle]:
    """One bundle per eligible filing (or filing pair) of the pattern, ordered by company cik, then filing ids.

    `filings` has filing_id, path, cik, form, filed, fiscal_year; `texts` maps filing_id to its clean text;
    `sections` has filing_id, key, start, end, notes_start (and cross_reference_target, whose stubs are skipped).
    """
    if pattern not in PATTERNS:
        raise ValueError(f"unknown pattern {pattern!r}; choose one of {', '.join(PATTERNS)}")
    every = _filings(filings, texts, sections)
    by_company: dict[str, list[_Filing]] = {}
    for filing in sorted(every, key=lambda f: (f.cik, f.filed, f.filing_id)):
        by_company.setdefault(filing.cik, []).append(filing)
    half = budget // 2
    bundles: list[ExcerptBundle | None] = []
    for cik, own in by_company.items():
        periodic = [f for f in own if f.form in ("10-K", "10-Q")]
        annual = [f for f in own if f.form == "10-K"]
        if pattern == "D1":
            bundles += [
                _bundle(
                    pattern,
                    cik,
                    [
                        _statements_excerpt(f, half, lead_fraction),
                        _section_excerpt(f, _MDA[f.form], _CHANGE_CUES, half, lead_fraction),
                    ],
                )
                for f in periodic
            ]
        elif pattern == "D2":
            for f in periodic:
                statements = _statements_excerpt(f, half, lead_fraction) if f.notes_start is not None else None
                notes = _notes_excerpt(f, statements, half, lead_fraction) if statements else None
                if statements and notes:
                    assert statements.end <= cast(int, f.notes_start) <= notes.start, "D2 windows overlap"
                bundles.append(_bundle(pattern, cik, [statements, notes]))
        elif pattern == "D3":
            bundles += [
                _bundle(
                    pattern,
                    cik,
                    [
                        _section_excerpt(f, _BUSINESS, _DEFINITION_CUES, half, lead_fraction),
                        _section_excerpt(f, _MDA[f.form], _CHANGE_CUES, half, lead_fraction),
                    ],
                )
                for f in annual
            ]
        elif pattern == "D4":
            for quarter in (f for f in own if f.form == "10-Q"):
                # The annual report of the quarter's own fiscal year, or of the year before: a 10-Q prints the prior
                # year's same period as its comparative column.
                for year in (
                    k
                    for k in annual
                    if k.fiscal_year is not None
                    and quarter.fiscal_year is not None
                    and quarter.fiscal_year - 1 <= k.fiscal_year <= quarter.fiscal_year
                ):
                    pair = [
                        _statements_excerpt(quarter, half, lead_fraction),
                        _statements_excerpt(year, half, lead_fraction),
                    ]
                    if None in pair:  # the same section of both: the statements, else the MD&A
                        pair = [
                            _section_excerpt(f, _MDA[f.form], _CHANGE_CUES, half, lead_fraction)
                            for f in (quarter, year)
                        ]
                    bundles.append(_bundle(pattern, cik, pair))
        elif pattern == "D5":
            for event in (f for f in own if f.form == "8-K"):
                found = _event_region(event)
                if found is None:
                    continue
                key, region = found
                # Distinctive against the company's own filings, so its name and boilerplate score nothing.
                words = distinctive_words(event.text[region[0] : region[1]], _document_frequency(own), len(own))
                announced = _excerpt(event, key, region, None, half, lead_fraction)
                for later in (f for f in periodic if f.filed > event.filed):
                    bundles.append(
                        _bundle(pattern, cik, [announced, _consequence_excerpt(later, words, half, lead_fraction)])
                    )
        elif pattern == "D6":
            for proxy in (f for f in own if f.form == "DEF 14A"):
                year = next((k for k in reversed(annual) if k.filed <= proxy.filed), None)
                region = (0, len(proxy.text))
                anchor = find_anchor(proxy.text, _PROXY_CUES, *region)
                if year is None or anchor is None:
                    continue
                key = next((k for k, s, e in proxy.all_sections if s <= anchor < e), "body")
                bundles.append(
                    _bundle(
                        pattern,
                        cik,
                        [
                            _excerpt(proxy, key, region, anchor, half, lead_fraction),
                            _statements_excerpt(year, half, lead_fraction),
                        ],
                    )
                )
        elif pattern == "D7":
            bundles += [
                _bundle(
                    pattern,
                    cik,
                    [
                        _statements_excerpt(f, half, lead_fraction, _PER_SHARE_ROWS, contains=True)
                        for f in (earlier, later)
                    ],
                )
                for earlier, later in zip(annual, annual[1:])
                if earlier.filed < later.filed
            ]
        else:  # D8: a business description to ask what it does not say
            bundles += [
                _bundle(pattern, cik, [_section_excerpt(f, _BUSINESS, (), budget, lead_fraction)]) for f in annual
            ]
    made = [b for b in bundles if b is not None]
    return sorted(
        made, key=lambda b: (b.company_cik, tuple(e.filing_id for e in b.excerpts), tuple(e.start for e in b.excerpts))
    )
