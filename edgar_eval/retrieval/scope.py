"""Which filings a request may search: one company, and the fiscal year asked when it has filings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScopedFiling:
    filing_id: str
    cik: str
    form: str
    fiscal_year: int


def filings_in_scope(filings: list[ScopedFiling], cik: str, fiscal_year: int | None) -> list[str]:
    """The company's filings of that fiscal year; with no year, or none filed for it, its latest annual report."""
    own = [f for f in filings if f.cik == cik]
    if fiscal_year is not None:
        same_year = sorted(f.filing_id for f in own if f.fiscal_year == fiscal_year)
        if same_year:
            return same_year
    annual = sorted((f for f in own if f.form == "10-K"), key=lambda f: (f.fiscal_year, f.filing_id))
    if annual:
        return [annual[-1].filing_id]
    latest = sorted(own, key=lambda f: (f.fiscal_year, f.filing_id))
    return [latest[-1].filing_id] if latest else []
