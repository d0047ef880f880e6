"""The one figure-matching policy, held to the verdicts a person reading the passage gives.

Each case was written from what a careful reader of a filing would say, not from what the code does: an answer,
the passage it cites (or the golden case's value), and the verdict. The same policy decides for the citation
check, the judge, the answer-support gate and the pattern baseline, so the cases run through all four.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgar_eval.answering.citations import check_citations
from edgar_eval.corpus.figure_match import ANY_SIGN, NEGATIVE, POSITIVE, label_sign, stated_figures, tolerance
from edgar_eval.evaluation.judge import judge_answer, states_any
from edgar_eval.golden.claims import answer_support

INCOME = """CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions)
| | 2024 | 2023 |
| Total net sales | $ | 391,035 | $ | 383,285 |
| Operating income (loss) | (611) | 1,204 |
| Net income (loss) | $ | (812) | $ | 1,948 |
| Gain (loss) on investments, net | (145) | 112 |
| Net loss attributable to noncontrolling interests | 37 | 29 |"""

CASH_FLOWS = """CONSOLIDATED STATEMENTS OF CASH FLOWS
(In millions)
| | 2024 | 2023 |
| Purchases of property and equipment | (9,447) | (10,959) |
| Payments for repurchase of common stock | (94,949) | (77,550) |
| Dividends paid | (15,234) | (15,025) |
| Net cash provided by (used in) investing activities | (2,935) | 3,705 |
| Increase (decrease) in cash | (1,200) | 800 |"""

EQUITY = """(In millions)
| Accumulated deficit | (1,234) | (987) |
| Accumulated other comprehensive loss | (11,452) | (7,172) |
| Treasury stock, at cost | (5,210) | (4,870) |"""

PROSE = (
    "Revenue grew 5% to $391.0 billion. The company reported a net loss of $8 million for the quarter. "
    "Gross margin was 46.2%, up from 44.1%."
)

# (answer, passage, backed?) -- what a person says the cited passage supports
CITATION_CASES = [
    ("Net sales were $391,035 million [P1].", INCOME, True),
    ("Net sales were $391.0 billion [P1].", INCOME, True),
    ("Net sales were $391 billion [P1].", INCOME, True),
    ("Net sales were $0.4 trillion [P1].", INCOME, False),  # one digit: 2% of 400 billion, not half a unit
    ("Net sales were $392 billion [P1].", INCOME, False),
    ("Net income was $812 million [P1].", INCOME, False),  # the row prints a loss
    ("The company had a net loss of $812 million [P1].", INCOME, True),
    ("Net income (loss) was $(812) million [P1].", INCOME, True),
    ("Net income was -$812 million [P1].", INCOME, True),
    ("Net income was $1 billion in 2023 [P1].", INCOME, False),  # 1,948 is not $1 billion within 2%
    ("Net income was $1.9 billion in 2023 [P1].", INCOME, True),
    ("Operating income was $1 billion in 2023 [P1].", INCOME, False),  # 1,204 million: one digit claims 2%
    ("Operating income was $1.2 billion in 2023 [P1].", INCOME, True),
    ("The operating loss was $611 million [P1].", INCOME, True),
    ("Operating income was $611 million [P1].", INCOME, False),
    ("The loss on investments was $145 million [P1].", INCOME, True),
    ("The gain on investments was $145 million [P1].", INCOME, False),
    ("Capital expenditures were $9,447 million [P1].", CASH_FLOWS, True),  # parentheses are presentation
    ("Capital expenditures were $9.4 billion [P1].", CASH_FLOWS, True),
    ("The company repurchased $94.9 billion of its stock [P1].", CASH_FLOWS, True),
    ("Dividends paid were $15,234 million [P1].", CASH_FLOWS, True),
    ("Cash used in investing activities was $2,935 million [P1].", CASH_FLOWS, True),
    ("Investing activities provided $2,935 million of cash [P1].", CASH_FLOWS, False),
    ("Cash decreased by $1,200 million [P1].", CASH_FLOWS, True),
    ("Cash increased by $1,200 million [P1].", CASH_FLOWS, False),
    ("The accumulated deficit was $1,234 million [P1].", EQUITY, True),
    ("Accumulated other comprehensive loss was $11,452 million [P1].", EQUITY, True),
    ("Treasury stock was $5,210 million [P1].", EQUITY, True),
    ("Revenue grew 5% [P1].", PROSE, True),
    ("Revenue grew 5 [P1].", PROSE, False),  # a percentage backs only a percentage
    ("Revenue was $391.0 billion [P1].", PROSE, True),
    ("The quarter's net loss was $8 million [P1].", PROSE, True),
    ("Net income for the quarter was $8 million [P1].", PROSE, False),
    ("Gross margin was 46% [P1].", PROSE, True),
    ("Gross margin was 47% [P1].", PROSE, False),
]


@pytest.mark.parametrize("answer,passage,backed", CITATION_CASES)
def test_the_citation_check_backs_what_a_person_would(answer, passage, backed):
    verdict = check_citations(answer, {"P1": passage})
    assert verdict.ok is backed, verdict.why


# (answer, gold value, gold answer as the golden set prints it, label, asked year, right?)
JUDGE_CASES = [
    (
        "Apple's total net sales for fiscal 2024 were $391.0 billion [P1].",
        391_035e6,
        "$391,035 million",
        "total revenue",
        2024,
        True,
    ),
    (
        "Total net sales for fiscal 2024: $391,035 million [P1].",
        391_035e6,
        "$391,035 million",
        "total revenue",
        2024,
        True,
    ),
    ("Revenue grew 2% to $391.0 billion [P1].", 391_035e6, "$391,035 million", "total revenue", 2024, True),
    (
        "Revenue was $391.0 billion, up from $383.3 billion [P1].",
        391_035e6,
        "$391,035 million",
        "total revenue",
        2024,
        True,
    ),
    (
        "Revenue was $391.0 billion in fiscal 2024 and $383.3 billion in fiscal 2023 [P1].",
        391_035e6,
        "$391,035 million",
        "total revenue",
        2024,
        True,
    ),
    ("Revenue was $391.0 billion or $383.3 billion [P1].", 391_035e6, "$391,035 million", "total revenue", 2024, False),
    (
        "Revenue was $383.3 billion, compared with $391.0 billion [P1].",
        391_035e6,
        "$391,035 million",
        "total revenue",
        2024,
        False,
    ),
    ("Revenue was $0.4 trillion [P1].", 391_035e6, "$391,035 million", "total revenue", 2024, False),
    ("Revenue was $392 billion [P1].", 391_035e6, "$391,035 million", "total revenue", 2024, False),
    (
        "Net income was $93,736 million, or $6.08 per diluted share [P1].",
        93_736e6,
        "$93,736 million",
        "net income",
        2024,
        True,
    ),
    ("Net income for the quarter was $611 million [P1].", -611e6, "-$611 million", "net income", 2025, False),
    ("Boeing reported a net loss of $611 million [P1].", -611e6, "-$611 million", "net income", 2025, True),
    ("Net income (loss) for fiscal 2025: $(611) million [P1].", -611e6, "-$611 million", "net income", 2025, True),
    (
        "Purchases of property and equipment for fiscal 2024: $(9,447) million [P1].",
        9_447e6,
        "$9,447 million",
        "capital expenditures",
        2024,
        True,
    ),
    ("Capital expenditures were $9.4 billion [P1].", 9_447e6, "$9,447 million", "capital expenditures", 2024, True),
    ("Diluted EPS was $6.08 [P1].", 6.08, "$6.08", "diluted earnings per share", 2024, True),
    (
        "Diluted earnings were $6.08 per share on net income of $93.7 billion [P1].",
        6.08,
        "$6.08",
        "diluted earnings per share",
        2024,
        True,
    ),
    ("Diluted EPS was $6.11 [P1].", 6.08, "$6.08", "diluted earnings per share", 2024, False),
    ("The effective tax rate was 24.1% [P1].", 24.1, "24.1%", "effective tax rate", 2024, True),
    ("The effective tax rate was 24% [P1].", 24.1, "24.1%", "effective tax rate", 2024, True),
    ("The effective tax rate was 25% [P1].", 24.1, "24.1%", "effective tax rate", 2024, False),
    ("I cannot find it.", 24.1, "24.1%", "effective tax rate", 2024, False),
    # the golden set holds a rate as XBRL tags it, a fraction, beside the answer as printed
    ("Effective tax rate: 23.3% [P6].", 0.233, "23.3%", "effective tax rate", 2024, True),
    ("Effective income tax rate: (32.6)% [P5].", -0.326, "-32.6%", "effective tax rate", 2025, True),
    ("Effective income tax rate: 32.6% [P5].", -0.326, "-32.6%", "effective tax rate", 2025, False),
    ("Effective tax rate: 0.2% [P6].", 0.233, "23.3%", "effective tax rate", 2024, False),
]


@pytest.mark.parametrize("answer,gold,gold_answer,label,year,right", JUDGE_CASES)
def test_the_judge_rules_as_a_person_would(answer, gold, gold_answer, label, year, right):
    verdict = judge_answer(answer, gold, gold_answer, label, year)
    assert verdict.correct is right, verdict.why


def test_the_case_tables_are_large_enough_to_mean_something():
    assert len(CITATION_CASES) + len(JUDGE_CASES) >= 30


@pytest.mark.parametrize(
    "gold_answer,quotes,supported",
    [
        ("Net loss was $812 million.", [INCOME.splitlines()[5]], True),
        ("Net income was $812 million.", [INCOME.splitlines()[5]], False),
        (
            "Capital expenditures were $9.4 billion.",
            ["| Purchases of property and equipment | (9,447) | (10,959) |"],
            True,
        ),
        ("Operating income was $1 billion.", ["| Operating income (loss) | (611) | 1,204 |"], False),
        ("Operating income was $1.2 billion.", ["| Operating income (loss) | (611) | 1,204 |"], True),
    ],
)
def test_the_answer_support_gate_applies_the_same_policy(gold_answer, quotes, supported):
    assert answer_support(gold_answer, quotes, "figure").passed is supported


def test_the_pattern_baseline_applies_the_same_policy():
    assert states_any("Net income was $1.9 billion [P1].", "Net income was $1,948 million.")
    assert not states_any("Net income was $1 billion [P1].", "Net income was $1,204 million.")
    assert not states_any("Net income was $812 million [P1].", "A net loss of $812 million.")


def test_labels_say_when_parentheses_are_presentation():
    assert label_sign("Purchases of property and equipment") == ANY_SIGN
    assert label_sign("Payments for repurchase of common stock") == ANY_SIGN
    assert label_sign("Net cash used in investing activities") == ANY_SIGN
    assert label_sign("Net cash provided by (used in) investing activities") is None
    assert label_sign("Net income (loss)") is None and label_sign("Change in accounts receivable") is None
    assert label_sign("Net loss") == NEGATIVE and label_sign("Accumulated deficit") == NEGATIVE


def test_a_stated_sign_is_read_from_the_words_attached_to_the_figure():
    def sign(text):
        return [s.sign for s in stated_figures(text)]

    assert sign("a net loss of $8 million") == [NEGATIVE]
    assert sign("decreased $50 million to $812 million") == [NEGATIVE, POSITIVE]
    assert sign("revenue decreased 5% to $812 million") == [NEGATIVE, POSITIVE]
    assert sign("a $812 million loss") == [NEGATIVE]
    assert sign("net income of $812 million") == [POSITIVE]


# ---------------------------------------------------------------------------------------------- properties

_ROW_LABELS = [
    "Net income (loss)",
    "Operating income (loss)",
    "Gain (loss) on sale",
    "Change in inventories",
    "Other income (expense), net",
    "Increase (decrease) in cash",
]


@settings(max_examples=150, deadline=None)
@given(value=st.integers(min_value=100, max_value=999_999), label=st.sampled_from(_ROW_LABELS), negative=st.booleans())
def test_a_flipped_sign_is_never_backed(value, label, negative):
    printed = f"({value:,})" if negative else f"{value:,}"
    passage = f"(In millions)\n| {label} | $ | {printed} | $ | 7 |"
    flipped = f"${value:,} million" if negative else f"$({value:,}) million"
    kept = f"$({value:,}) million" if negative else f"${value:,} million"
    assert not check_citations(f"{label} was {flipped} [P1].", {"P1": passage}).ok
    assert check_citations(f"{label} was {kept} [P1].", {"P1": passage}).ok


@settings(max_examples=200, deadline=None)
@given(value=st.integers(min_value=100, max_value=999_999), keep=st.integers(min_value=2, max_value=6))
def test_rounding_an_exact_figure_to_its_own_printed_precision_is_always_backed(value, keep):
    """The passage prints an exact figure in millions; an answer rounds it to two or more significant digits and
    writes it in the scale (million, billion, trillion) that needs no written trailing zero, as a person would:
    it is always backed and always judged right."""
    digits = len(str(value))
    keep = min(keep, digits)
    place = digits - keep  # rounded at 10**place millions
    exponent, word = next((e, w) for e, w in ((0, "million"), (3, "billion"), (6, "trillion")) if e >= place)
    rounded = round(value, -place) / 10**exponent
    written = f"${rounded:,.{exponent - place}f} {word}"
    passage = f"(In millions)\n| Total net sales | $ | {value:,} |"
    answer = f"Total net sales were {written} [P1]."
    assert check_citations(answer, {"P1": passage}).ok, answer
    assert judge_answer(answer, value * 1e6, f"${value:,} million", "total revenue", 2024).correct, answer


def test_tolerance_is_half_a_unit_or_two_percent():
    (one_digit,) = [s.figure for s in stated_figures("$1 billion")]
    (two_digits,) = [s.figure for s in stated_figures("$1.9 billion")]
    assert tolerance(one_digit) == pytest.approx(2e7) and tolerance(two_digits) == pytest.approx(5e7)
