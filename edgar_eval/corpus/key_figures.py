"""The headline figures of a filing's own latest period: top line, net income, total assets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from edgar_eval.corpus.fiscal import period_kind
from edgar_eval.corpus.parse import ParsedFiling
from edgar_eval.domain.filings import Fact

# In order of preference; companies tag their top line under different concepts.
TOP_LINE_CONCEPTS = (
    "us-gaap:Revenues",
    "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
    "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax",
    "us-gaap:SalesRevenueNet",
    "us-gaap:RevenuesNetOfInterestExpense",
)
NET_INCOME_CONCEPTS = (
    "us-gaap:NetIncomeLoss",
    "us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic",
    "us-gaap:ProfitLoss",
)
TOTAL_ASSETS_CONCEPTS = ("us-gaap:Assets",)


@dataclass(frozen=True)
class KeyFigure:
    concept: str
    value: float
    displayed: str
    period_start: str | None
    period_end: str


def _own_period(fact: Fact, parsed: ParsedFiling, instant: bool) -> bool:
    if fact.context.dimensions or fact.value is None or fact.context.period_end != parsed.meta.period_end:
        return False
    kind = period_kind(fact.context)
    if instant:
        return kind == "instant"
    # A 10-K's own period is its fiscal year; a 10-Q's is the quarter that ends on its period end.
    return kind == ("FY" if parsed.meta.form == "10-K" else "Q")


def _first(parsed: ParsedFiling, concepts: tuple[str, ...], instant: bool) -> KeyFigure | None:
    for concept in concepts:
        for fact in parsed.facts:
            if fact.concept == concept and _own_period(fact, parsed, instant):
                start = fact.context.period_start.isoformat() if fact.context.period_start else None
                value = cast(float, fact.value)  # _own_period admits no fact without a value
                return KeyFigure(concept, value, fact.displayed, start, fact.context.period_end.isoformat())
    return None


def key_figures(parsed: ParsedFiling) -> dict[str, KeyFigure | None]:
    return {
        "top_line": _first(parsed, TOP_LINE_CONCEPTS, instant=False),
        "net_income": _first(parsed, NET_INCOME_CONCEPTS, instant=False),
        "total_assets": _first(parsed, TOTAL_ASSETS_CONCEPTS, instant=True),
    }
