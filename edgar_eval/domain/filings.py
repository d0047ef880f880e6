"""What the corpus is made of: filings, facts, pages, sections, chunks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

SUPPORTED_FORMS = ("10-K", "10-Q", "8-K", "DEF 14A")
ANNUAL_FORMS = ("10-K",)


class FilingError(ValueError):
    """A filing that cannot be read as an inline-XBRL EDGAR document; the message says why."""


@dataclass(frozen=True)
class FilingMeta:
    """Who filed what, for which period; read from the document's own dei facts."""

    company: str
    cik: str
    form: str
    fiscal_year: int
    fiscal_period: str
    period_end: date
    fiscal_year_end: str  # "--MM-DD" as dei:CurrentFiscalYearEndDate writes it
    fiscal_year_offset: int = 0  # -1 for filers naming a fiscal year for the calendar year it begins
    ticker: str = ""  # dei:TradingSymbol (the first one, when a filer lists several classes); "" when untagged
    amendment: bool = False  # a 10-K/A or 10-Q/A (form holds the base form), or dei:AmendmentFlag true


@dataclass(frozen=True)
class Context:
    context_id: str
    period_start: date | None
    period_end: date  # the instant for instant contexts
    is_instant: bool
    dimensions: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Fact:
    concept: str
    value: float | None
    text_value: str | None
    displayed: str
    unit: str | None
    decimals: str | None
    scale: int
    context: Context
    is_numeric: bool
    offset: int | None  # start of the displayed text in the clean text; None when hidden
    end: int | None


@dataclass(frozen=True)
class FactRejection:
    """A fact the parser could not read (a number word it does not know, an unsupported format, an unreadable
    context date...): dropped from the filing's facts with the reason, and the filing read without it."""

    concept: str
    fact_id: str  # the element's id attribute; "" when it has none
    context_id: str
    displayed: str  # what the reader sees, cut short (a text block can run to pages)
    format: str  # the transformation named by the element's format attribute; "" when none
    reason: str


@dataclass(frozen=True)
class Page:
    index: int
    start: int
    end: int
    printed: str | None


@dataclass(frozen=True)
class Section:
    part: str
    item: str
    title: str
    start: int
    end: int
    cross_reference_target: str | None = None

    @property
    def key(self) -> str:
        return f"{self.part} Item {self.item}".strip() if self.item else self.part or "body"

    @property
    def is_cross_reference(self) -> bool:
        return self.cross_reference_target is not None


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    filing_id: str
    index: int
    start: int
    end: int
    text: str
    section: str
    pages: tuple[str, ...] = field(default_factory=tuple)  # printed labels of the pages it spans
    page_starts: tuple[int, ...] = field(default_factory=tuple)  # where each of those pages starts
