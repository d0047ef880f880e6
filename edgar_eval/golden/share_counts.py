"""A weighted-average share count whose tagged scale disagrees with the filing's own earnings and earnings per share.

A filing whose share table says "In millions" and tags 727.9 basic shares with no scale gives a gold of "727.9
shares": the tag, not the filing, is wrong, and a reader who answers "727.9 million" fails a correct answer. The
filing itself says what the count must be: earnings per share is net income over the weighted-average shares, so net
income / EPS for the same period is the count, to EPS's rounding. Where the tagged count is off from that by a factor
of `SCALE_FACTOR` or more, its scale is wrong and it is asked in no question (answerable, twin, or two-document); the
rejection says what was tagged, what the filing implies, and the factor.

A factor under `SCALE_FACTOR` is let be: EPS printed to the cent on a small income (0.01 for 0.014), a two-class
method's allocation to participating securities, or preferred dividends move the quotient by a few tens of percent,
never tenfold; a scale slip is a thousandfold or a millionfold. No check where the filing tags no EPS or no net income
for the period, EPS is zero, or income and EPS have opposite signs (preferred dividends turning income into a loss per
share): nothing there says what the count must be.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import cast

import pandas as pd

SCALE_FACTOR = 10.0
# Each weighted-average count: the EPS it divides (the first tagged), and the income it divides it into (the
# attributable-to-common figure where the filing tags one, which is EPS's own numerator; net income else).
_BASIC_INCOME = ("us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic", "us-gaap:NetIncomeLoss")
SHARE_COUNTS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "us-gaap:WeightedAverageNumberOfSharesOutstandingBasic": (
        ("us-gaap:EarningsPerShareBasic", "us-gaap:EarningsPerShareBasicAndDiluted"),
        _BASIC_INCOME,
    ),
    "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding": (
        ("us-gaap:EarningsPerShareDiluted", "us-gaap:EarningsPerShareBasicAndDiluted"),
        ("us-gaap:NetIncomeLossAvailableToCommonStockholdersDiluted", *_BASIC_INCOME),
    ),
    "us-gaap:WeightedAverageNumberOfShareOutstandingBasicAndDiluted": (
        ("us-gaap:EarningsPerShareBasicAndDiluted", "us-gaap:EarningsPerShareBasic"),
        _BASIC_INCOME,
    ),
}


def _plain(value: float) -> str:
    """A figure as a person reads it: 724,137,931 for a count implied; 724.1 as tagged; 11.6 for EPS."""
    return f"{value:,.0f}" if abs(value) >= 10_000 else f"{value:,.6g}"


def implied_count(count: float, eps: float | None, income: float | None) -> tuple[float, float] | None:
    """(implied count, factor) where the filing's income and EPS say what the count must be, or None (no EPS, EPS
    zero, no income, or signs that disagree). The factor is how many times one exceeds the other, 1 or more."""
    if eps is None or income is None or eps == 0 or count <= 0:
        return None
    implied = income / eps
    if implied <= 0:
        return None
    return implied, max(count / implied, implied / count)


def scale_conflicts(facts: pd.DataFrame) -> dict[tuple[str, str, str], str]:
    """(filing_id, concept, period_key) of each undimensioned weighted-average share count whose tagged value differs
    by SCALE_FACTOR or more from its filing's net income / EPS for the same period -> why (module doc). `facts`: the
    builder's candidate facts (filing_id, concept, period_key, dimensions, value)."""
    wanted = set(SHARE_COUNTS) | {c for eps, income in SHARE_COUNTS.values() for c in (*eps, *income)}
    kept = (facts.dimensions.fillna("") == "") & facts.value.notna() & facts.concept.isin(wanted)
    plain = cast(pd.DataFrame, facts[kept])
    tagged: dict[tuple[str, str, str], float] = {}
    for filing_id, concept, period_key, value in zip(plain.filing_id, plain.concept, plain.period_key, plain.value):
        tagged.setdefault((filing_id, concept, period_key), float(value))  # the first tagged, as the builder asks

    def first(filing_id: str, concepts: tuple[str, ...], period_key: str) -> tuple[str, float] | None:
        for concept in concepts:
            if (filing_id, concept, period_key) in tagged:
                return concept, tagged[(filing_id, concept, period_key)]
        return None

    found: dict[tuple[str, str, str], str] = {}
    for (filing_id, concept, period_key), count in sorted(tagged.items()):
        if concept not in SHARE_COUNTS:
            continue
        eps_concepts, income_concepts = SHARE_COUNTS[concept]
        eps, income = first(filing_id, eps_concepts, period_key), first(filing_id, income_concepts, period_key)
        if eps is None or income is None:
            continue
        implied = implied_count(count, eps[1], income[1])
        if implied is None or implied[1] < SCALE_FACTOR:
            continue
        found[(filing_id, concept, period_key)] = (
            f"tagged {_plain(count)} shares; the filing's {income[0].split(':')[-1]} {_plain(income[1])} / "
            f"{eps[0].split(':')[-1]} {_plain(eps[1])} implies {_plain(implied[0])}: off by a factor of about "
            f"10^{round(math.log10(implied[1]))} ({implied[1]:,.0f})"
        )
    return found
