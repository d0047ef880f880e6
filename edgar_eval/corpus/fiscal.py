"""Fiscal calendar: which fiscal year and period a date or a context belongs to."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from edgar_eval.domain.filings import Context, FilingMeta

_FYE = re.compile(r"^-*(\d{2})-(\d{2})$")


def parse_fiscal_year_end(text: str | None) -> tuple[int, int] | None:
    """'--01-26' (dei:CurrentFiscalYearEndDate) -> (1, 26)."""
    match = _FYE.match((text or "").strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


def fiscal_year_of(day: date, fiscal_year_end: tuple[int, int]) -> int:
    """A fiscal year is named for the calendar year in which it ends.

    Companies on 52/53-week years end within a few days of the nominal month-day (NVIDIA's
    year ending '--01-26' ended on January 28, 2024), so a date up to a week past the nominal
    end still belongs to the year that ends then.
    """
    month, day_of_month = fiscal_year_end
    nominal_end = date(day.year, month, min(day_of_month, 28 if month == 2 else day_of_month))
    return day.year if (day - nominal_end).days <= 7 else day.year + 1


@dataclass(frozen=True)
class FiscalCalendar:
    """A filer's fiscal years: where they end, and whether they are named for the year they end in.

    Most filers name a year for the calendar year it ends in (NVIDIA's fiscal 2025 ended January 26,
    2025); some retailers name it for the year it begins in (Home Depot's fiscal 2024 ended February 2,
    2025). The filing's own dei:DocumentFiscalYearFocus tells which.
    """

    year_end: tuple[int, int]
    offset: int = 0

    def year_of(self, day: date) -> int:
        return fiscal_year_of(day, self.year_end) + self.offset

    @classmethod
    def of(cls, meta: FilingMeta) -> "FiscalCalendar":
        return cls(parse_fiscal_year_end(meta.fiscal_year_end) or (12, 31), meta.fiscal_year_offset)


def period_kind(context: Context) -> str:
    """'instant', or the length of a duration: 'FY', 'Q' (3 months), 'H' (6), '9M' (9), or 'other'."""
    if context.is_instant or context.period_start is None:
        return "instant"
    days = (context.period_end - context.period_start).days
    if 350 <= days <= 380:
        return "FY"
    if 80 <= days <= 100:
        return "Q"
    if 170 <= days <= 195:
        return "H"
    if 260 <= days <= 285:
        return "9M"
    return "other"
