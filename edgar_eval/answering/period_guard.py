"""Period guard: decline a question that names a fiscal year the scoped filings do not report."""

from __future__ import annotations

from dataclasses import dataclass

from edgar_eval.answering.text_tools import asked_years


@dataclass(frozen=True)
class GuardVerdict:
    passes: bool
    reason: str


def period_guard(question: str, reported_fiscal_years: set[int]) -> GuardVerdict:
    years = asked_years(question)
    if not years:
        return GuardVerdict(True, "no year named")
    missing = sorted(set(years) - reported_fiscal_years)
    if missing:
        shown = ", ".join(map(str, sorted(reported_fiscal_years))) or "none"
        return GuardVerdict(False, f"out_of_period: asks {', '.join(map(str, missing))}; filings report {shown}")
    return GuardVerdict(True, "year reported")
