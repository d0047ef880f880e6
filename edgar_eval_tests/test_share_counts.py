"""A weighted-average share count whose tagged scale disagrees with its filing's net income / EPS is asked in no
question (golden.share_counts). The facts are written for the test; the builder test scales one demo fact."""

from __future__ import annotations

import pandas as pd

from edgar_eval.golden import fairness
from edgar_eval.golden.share_counts import SCALE_FACTOR, implied_count, scale_conflicts
from edgar_eval.golden.templates import build_golden_questions

BASIC = "us-gaap:WeightedAverageNumberOfSharesOutstandingBasic"
DILUTED = "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding"
FY = "FY|2025-01-01|2025-12-31"


def _facts(*rows: tuple[str, float], filing: str = "k", period: str = FY, dimensions: str = "") -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"filing_id": filing, "concept": concept, "period_key": period, "dimensions": dimensions, "value": value}
            for concept, value in rows
        ]
    )


def test_a_count_that_agrees_with_income_over_eps_is_kept_and_one_off_a_millionfold_is_not():
    income, eps = ("us-gaap:NetIncomeLoss", 8_400e6), ("us-gaap:EarningsPerShareBasic", 11.60)
    assert scale_conflicts(_facts((BASIC, 724.1e6), income, eps)) == {}
    found = scale_conflicts(_facts((BASIC, 724.1), income, eps))
    (why,) = found.values()
    assert list(found) == [("k", BASIC, FY)]
    assert "tagged 724.1 shares" in why and "implies 724,137,931" in why and "factor of about 10^6" in why
    # a thousandfold slip, and a diluted count against diluted EPS
    diluted = _facts((DILUTED, 728_000.0), income, ("us-gaap:EarningsPerShareDiluted", 11.54))
    assert list(scale_conflicts(diluted)) == [("k", DILUTED, FY)]


def test_no_eps_zero_eps_opposite_signs_or_another_period_make_no_check():
    count = (BASIC, 724.1)
    income = ("us-gaap:NetIncomeLoss", 8_400e6)
    assert scale_conflicts(_facts(count, income)) == {}  # no EPS
    assert scale_conflicts(_facts(count, ("us-gaap:EarningsPerShareBasic", 11.6))) == {}  # no income
    assert scale_conflicts(_facts(count, income, ("us-gaap:EarningsPerShareBasic", 0.0))) == {}
    assert (
        scale_conflicts(_facts(count, ("us-gaap:NetIncomeLoss", 5e6), ("us-gaap:EarningsPerShareBasic", -0.02))) == {}
    )
    other = pd.concat([_facts(count), _facts(income, ("us-gaap:EarningsPerShareBasic", 11.6), period="FY|x|y")])
    assert scale_conflicts(other) == {}  # income and EPS of another period say nothing of this one
    dimensioned = _facts(count, income, ("us-gaap:EarningsPerShareBasic", 11.6), dimensions='[["c","m"]]')
    assert scale_conflicts(dimensioned) == {}  # a class's count is asked, if at all, under its own rules


def test_the_attributable_to_common_income_is_eps_own_numerator_and_small_eps_rounding_is_let_be():
    count = (BASIC, 100e6)
    eps = ("us-gaap:EarningsPerShareBasic", 0.01)
    # net income 1.4 million over 0.01 implies 140 million: a rounded cent, not a scale slip
    assert scale_conflicts(_facts(count, ("us-gaap:NetIncomeLoss", 1.4e6), eps)) == {}
    # preferred dividends: net income 50 million, 10 million available to common stockholders at 0.10 a share
    rows = (count, ("us-gaap:NetIncomeLoss", 50e6), ("us-gaap:NetIncomeLossAvailableToCommonStockholdersBasic", 10e6))
    assert scale_conflicts(_facts(*rows, ("us-gaap:EarningsPerShareBasic", 0.10))) == {}
    assert implied_count(100.0, 0.10, 10e6) == (100e6, 1e6)
    assert implied_count(100e6, None, 10e6) is None and SCALE_FACTOR == 10


def test_a_misscaled_demo_count_becomes_no_question_and_a_rejection_with_its_reason(golden_inputs):
    filings, facts, chunks, texts, sections = golden_inputs
    is_count = facts.concept == DILUTED
    asked_before = build_golden_questions(*golden_inputs, seed=7).questions
    assert (asked_before.concept == DILUTED).any(), "the demo asks a consistent diluted count"
    misscaled = facts.assign(value=facts.value.where(~is_count, facts.value / 1e6))
    build = build_golden_questions(filings, misscaled, chunks, texts, sections, seed=7)
    assert not (build.questions.concept == DILUTED).any()  # no answerable, twin or two-document question
    rejected = build.rejections[build.rejections.rule == fairness.SHARE_SCALE]
    assert len(rejected) and (rejected.concept == DILUTED).all() and (rejected.kind == "answerable").all()
    assert rejected.detail.str.contains("factor of about 10^6", regex=False).all()
    # without EPS the filing says nothing of the count: asked as before, at whatever scale it is tagged
    no_eps = misscaled[misscaled.concept != "us-gaap:EarningsPerShareDiluted"]
    unchecked = build_golden_questions(filings, no_eps, chunks, texts, sections, seed=7)
    assert fairness.SHARE_SCALE not in set(unchecked.rejections.rule)
