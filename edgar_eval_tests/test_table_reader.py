"""The table-aware reader on hand-made tables: the row of the asked line item, the column of the asked period."""

from typing import cast

from edgar_eval.answering.extractive import Passage
from edgar_eval.answering.table_reader import AskedPeriod, item_names, label_words, parse_question, read_tables
from edgar_eval.evaluation.judge import judge_answer

QUARTERLY = """CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions, except per-share amounts)
| Three Months Ended | Six Months Ended |
| Jul 27, 2025 | Jul 28, 2024 | Jul 27, 2025 | Jul 28, 2024 |
| Revenue | $ | 46,743 | $ | 30,040 | $ | 90,805 | $ | 56,084 |
| Net income (loss) | (611) | 1,204 | (420) | 2,410 |
| Net income per share - diluted | $ | 1.08 | $ | 0.67 | $ | 1.84 | $ | 1.27 |
"""

ANNUAL = """The following table shows net sales for 2024, 2023 and 2022 (dollars in millions):
| 2024 | Change | 2023 | Change | 2022 |
| Total net sales | $ | 391,035 | 2 | % | $ | 383,285 | (3) | % | $ | 394,328 |
"""

BALANCE = """CONSOLIDATED BALANCE SHEETS
| (Dollars in thousands) | June 30 2025 | December 31 2024 |
| Assets |
| Cash and cash equivalents | 7,087 | 13,801 |
"""


def _read(question, *texts):
    return read_tables(question, [Passage(f"P{k + 1}", t) for k, t in enumerate(texts)])


def test_questions_are_read_for_their_line_item_and_period():
    item, period = cast(
        tuple[str, AskedPeriod],
        parse_question("What was Nvidia's total revenue for the six months ended July 27, 2025?"),
    )
    assert item == "total revenue" and (period.kind, period.date) == ("H", (2025, 7, 27))
    assert cast(tuple, parse_question("What was Apple's total assets at the end of fiscal 2024?"))[1].kind == "instant"
    assert parse_question("Why did margins fall?") is None


def test_a_multi_row_header_gives_the_quarter_and_the_year_to_date_their_own_columns():
    quarter = _read("What was Nvidia's total revenue for the quarter ended July 27, 2025?", QUARTERLY)
    half = _read("What was Nvidia's total revenue for the six months ended July 27, 2025?", QUARTERLY)
    assert quarter.figure == 46_743e6 and half.figure == 90_805e6
    assert judge_answer(half.text.replace("[P1]", "[P1]"), 90_805e6, "$90,805 million", "total revenue", 2025).correct


def test_signs_scales_and_per_share_rows():
    loss = _read("What was Nvidia's net income for the quarter ended July 27, 2025?", QUARTERLY)
    assert loss.figure == -611e6 and judge_answer(loss.text, -611e6, "-$611 million", "net income", 2025).correct
    per_share = _read("What was Nvidia's diluted earnings per share for the six months ended July 27, 2025?", QUARTERLY)
    assert per_share.figure == 1.84 and "million" not in per_share.text  # a per-share row is never scaled
    cash = _read("What was Boeing's cash and cash equivalents as of June 30, 2025?", BALANCE)
    assert cash.figure == 7_087e3 and "thousand" in cash.text


def test_change_columns_are_set_aside_and_the_asked_year_is_read():
    answer = _read("What was Apple's total revenue for fiscal 2023?", ANNUAL)
    assert answer.figure == 383_285e6


def test_it_declines_without_the_period_or_the_line_item():
    assert not _read("What was Apple's total revenue for fiscal 2019?", ANNUAL).answered
    assert not _read("What was Apple's inventories for fiscal 2024?", ANNUAL).answered
    headless = "\n".join(QUARTERLY.splitlines()[4:])
    assert not _read("What was Nvidia's total revenue for the quarter ended July 27, 2025?", headless).answered


def test_a_row_in_two_tables_is_read_where_the_period_is_printed():
    segment = "| Americas | Europe |\n| Total net sales | 167,045 | 101,328 |\n"
    answer = _read("What was Apple's total revenue for fiscal 2024?", segment, ANNUAL)
    assert answer.figure == 391_035e6 and answer.cited_chunk_ids == ("P2",)


def test_a_row_label_is_read_with_the_group_heading_it_qualifies():
    table = """(In millions, except per share data)
| Year Ended May 31, |
| 2025 | 2024 |
| Net income | $ | 3,219 | $ | 5,700 |
| Earnings per common share: |
| Basic | $ | 2.17 | $ | 3.76 |
| Diluted | $ | 2.16 | $ | 3.73 |
| Weighted average common shares outstanding: |
| Basic | 1,484.9 | 1,517.6 |
| Diluted | 1,487.6 | 1,529.7 |
| Cash paid during the year for: |
| Interest | $ | 389 | $ | 381 |
"""
    eps = _read("What was Nike's basic earnings per share for fiscal 2025?", table)
    shares = _read("What was Nike's weighted average diluted shares outstanding for fiscal 2025?", table)
    interest = _read("What was Nike's interest paid for fiscal 2024?", table)
    assert eps.figure == 2.17 and "million" not in eps.text
    assert (
        shares.figure == 1_487.6e6
        and judge_answer(
            shares.text, 1_487.6e6, "1,487.6 million shares", "weighted average diluted shares outstanding", 2025
        ).correct
    )
    assert interest.figure == 381e6


def test_share_counts_take_the_scale_stated_for_shares():
    apple = """(In millions, except number of shares, which are reflected in thousands, and per-share amounts)
| Three Months Ended |
| June 28, 2025 | June 29, 2024 |
| Net income | $ | 23,434 | $ | 21,448 |
| Diluted | 14,948,179 | 15,348,175 |
"""
    railroad = """| Millions, Except Share and Per Share Amounts, for the Years Ended December 31, | 2024 | 2023 |
| Net income | $ | 6,747 | $ | 6,379 |
| Weighted average number of shares outstanding: |
| Diluted | 609,000,000 | 610,000,000 |
"""
    assert (
        _read(
            "What was Apple's weighted average diluted shares outstanding for the quarter ended June 28, 2025?", apple
        ).figure
        == 14_948_179e3
    )
    assert _read("What was Apple's net income for the quarter ended June 28, 2025?", apple).figure == 23_434e6
    assert (
        _read("What was Union Pacific's weighted average diluted shares outstanding for fiscal 2024?", railroad).figure
        == 609_000_000
    )
    assert _read("What was Union Pacific's net income for fiscal 2024?", railroad).figure == 6_747e6


def test_a_period_stated_once_above_or_beside_the_years_spans_every_column():
    spanning = """| Six Months Ended June 30, |
| (Dollars in millions) | 2025 | 2024 |
| Net cash used in investing activities | $ | (4,595) | $ | (8,309) |
"""
    beside = """| Millions, for the three months ended June 30, | 2025 | 2024 |
| Income before income taxes | 2,313 | 2,184 |
"""
    assert (
        _read(
            "What was Tesla's cash flow from investing activities for the six months ended June 30, 2025?", spanning
        ).figure
        == -4_595e6
    )
    assert (
        _read("What was Union Pacific's income before income taxes for the quarter ended June 30, 2025?", beside).figure
        == 2_313e6
    )
    assert not _read(
        "What was Tesla's cash flow from investing activities for the quarter ended June 30, 2025?", spanning
    ).answered


def test_two_tables_printed_one_under_the_other_keep_their_own_headers():
    stacked = """(in thousands)
| Three Months Ended | Six Months Ended |
| June 30, 2025 | June 30, 2024 | June 30, 2025 | June 30, 2024 |
| Cash paid for operating lease liabilities | $ | 129,574 | $ | 130,104 | $ | 247,921 | $ | 255,410 |
| As of |
| June 30, 2025 | December 31, 2024 |
| Current operating lease liabilities | 453,940 | 428,482 |
| Total operating lease liabilities | $ | 2,480,761 | $ | 2,412,170 |
"""
    assert (
        _read("What was Netflix's current operating lease liabilities as of June 30, 2025?", stacked).figure
        == 453_940e3
    )
    assert (
        _read("What was Netflix's total operating lease liabilities as of June 30, 2025?", stacked).figure
        == 2_480_761e3
    )


def test_the_closing_balance_and_the_restated_column_are_the_ones_read():
    cash = """(In millions)
| Year Ended December 31, |
| 2024 | 2023 |
| Cash, cash equivalents and restricted cash, beginning of period | 73,890 | 54,253 |
| Cash, cash equivalents and restricted cash, end of period | $ | 82,312 | $ | 73,890 |
"""
    restated = """(In millions)
| 2024 | 2023 As Previously Reported | Adjustment | 2023 As Restated |
| Total revenues | 9,100 | 8,400 | (150) | 8,250 |
"""
    assert (
        _read("What was Amazon's cash, cash equivalents and restricted cash at the end of fiscal 2024?", cash).figure
        == 82_312e6
    )
    assert _read("What was Acme's total revenue for fiscal 2023?", restated).figure == 8_250e6
    assert _read("What was Acme's total revenue for fiscal 2024?", restated).figure == 9_100e6


def test_a_rate_is_never_scaled_and_a_cut_last_row_is_not_read():
    rates = (
        "(Dollars in millions)\n| 2024 | 2023 |\n| Income taxes | 2,047 | 1,854 |\n| Effective tax rate | 23.3 | "
        "% | 22.5 | % |\n"
    )
    answer = _read("What was Union Pacific's effective tax rate for fiscal 2024?", rates)
    assert answer.figure == 23.3 and judge_answer(answer.text, 0.233, "23.3%", "effective tax rate", 2024).correct
    cut = "(In millions)\n| 2024 | 2023 |\n| Total liabilities | 28,147,7"
    assert not _read("What was Netflix's total liabilities at the end of fiscal 2024?", cut).answered


def test_both_readers_are_judged_side_by_side_beside_the_gold_chunk_hit():
    import pandas as pd

    from edgar_eval.answering.answerer import ExtractiveGenerator, TableReaderGenerator
    from edgar_eval.evaluation.readers import reader_outcomes, summarise_readers

    cases = pd.DataFrame(
        {
            "question": [
                "What was Nvidia's total revenue for the six months ended July 27, 2025?",
                "What was Nvidia's net income for the quarter ended July 27, 2025?",
                "What was Apple's total revenue for fiscal 2023?",
            ],
            "cik": ["1", "1", "2"],
            "fiscal_year": [2025, 2025, 2023],
            "scope_filing_ids": [["f1"], ["f1"], ["f2"]],
            "gold_value": [90_805e6, -611e6, 383_285e6],
            "gold_answer": ["$90,805 million", "-$611 million", "$383,285 million"],
            "label": ["total revenue", "net income", "total revenue"],
        },
        index=pd.Index(["q1", "q2", "q3"], name="question_id"),
    )
    retrieved = pd.DataFrame(
        {"chunk_ids": [["c1"], ["c1"], ["c9"]], "chunk_hit": [True, True, False]}, index=cases.index
    )
    texts = pd.Series({"c1": QUARTERLY, "c9": BALANCE})
    outcomes = reader_outcomes(cases, retrieved, texts, (ExtractiveGenerator(), TableReaderGenerator()))
    table = summarise_readers(outcomes).set_index("reader")
    reader = table.loc["table-reader/1"]
    assert (reader.questions, reader.gold_chunk_retrieved, reader.right, reader.declined) == (3, 2, 2, 1)
    assert reader.right_when_gold_retrieved == 1.0 and reader.right_low < 2 / 3 < reader.right_high
    assert set(table.index) == {"extractive-baseline/1", "table-reader/1"}


def test_a_label_is_said_without_its_footnote_marks_or_figures_and_a_scale_stated_elsewhere_is_cited():
    from edgar_eval.answering.citations import check_citations

    rows = """| 2024 | 2023 |
| Depreciation (1) | 1,114 | 1,081 |
| Property, plant and equipment, net of accumulated depreciation of $23,208 and $22,925 | 11,658 | 11,412 |
"""
    statement = (
        "CONSOLIDATED STATEMENTS OF FINANCIAL POSITION\n(Dollars in millions)\n| 2024 | 2023 |\n| Total "
        "assets | 156,363 | 137,012 |\n"
    )
    depreciation = _read("What was Boeing's depreciation expense for fiscal 2024?", rows, statement)
    assert depreciation.text == "Depreciation: 1,114 million [P1][P2]." and depreciation.figure == 1_114e6
    assert check_citations(depreciation.text, {"P1": rows, "P2": statement}).ok  # the scale is backed by P2
    assert not check_citations("Depreciation: 1,114 million [P1].", {"P1": rows, "P2": statement}).ok
    plant = _read("What was Boeing's property and equipment, net for fiscal 2024?", rows, statement)
    assert plant.text.startswith("Property, plant and equipment, net of accumulated depreciation: 11,658 million")
    assert judge_answer(plant.text, 11_658e6, "$11,658 million", "property and equipment, net", 2024).correct


def test_the_asked_item_finds_its_group_of_names_by_its_words():
    """The reader's vocabulary has no keys: a question's item finds the group whose names cover its words."""
    rnd = item_names("research and development expense")
    assert label_words("research and development") in rnd and label_words("technology and development") in rnd
    basic = item_names("weighted average basic shares outstanding")
    assert label_words("basic shares") in basic and label_words("diluted shares") not in basic
    capex = item_names("capital expenditures")
    assert label_words("purchases of property and equipment") in capex
    # an item no group covers is read by its own words, not by a group that names only part of it
    assert item_names("amortization of intangible assets") == (label_words("amortization of intangible assets"),)
    assert item_names("current portion of long-term debt") == (label_words("current portion of long-term debt"),)
    table = "(In millions)\n| | 2025 | 2024 |\n| Technology and development | 1,980 | 1,808 |"
    answer = _read("What was Acme's research and development expense for fiscal 2025?", table)
    assert answer.answered and answer.figure == 1_980e6
    assert not _read("What was Acme's amortization of intangible assets for fiscal 2025?", table).answered


def _eager(question, *texts):
    return read_tables(question, [Passage(f"P{k + 1}", t) for k, t in enumerate(texts)], eager=True)


def test_the_eager_reader_takes_the_nearest_column_for_a_year_the_table_does_not_print():
    # The table reader declines fiscal 2025; the eager reader answers from 2024, the latest column, as a model that
    # takes the figure it sees for the year it was asked does.
    assert not _read("What was Apple's total net sales for fiscal 2025?", ANNUAL).answered
    eager = _eager("What was Apple's total net sales for fiscal 2025?", ANNUAL)
    assert eager.answered and eager.figure == 391_035e6
    # ... and the earliest column for a year before the table's first.
    assert _eager("What was Apple's total net sales for fiscal 2019?", ANNUAL).figure == 394_328e6
    # a quarter's question takes a quarter's column, not the six months'
    assert _eager("What was Nvidia's revenue for the quarter ended July 26, 2026?", QUARTERLY).figure == 46_743e6


def test_the_eager_reader_takes_the_nearest_row_for_a_line_item_the_table_does_not_print():
    question = (
        "What was Nvidia's net income attributable to noncontrolling interests for the six months ended July 27, 2025?"
    )
    assert not _read(question, QUARTERLY).answered
    eager = _eager(question, QUARTERLY)
    # "Net income (loss)" shares the words the asked item names; the per-share row shares them too but more words apart
    assert eager.answered and eager.figure == -420e6
    # a row sharing no word with the asked item is never taken: the eager reader mis-selects, it does not invent
    assert not _eager(
        "What was Nvidia's goodwill impairment for the six months ended July 27, 2025?", QUARTERLY
    ).answered


def test_the_eager_reader_reads_as_the_table_reader_where_the_row_and_column_are_printed():
    for question in (
        "What was Apple's total net sales for fiscal 2023?",
        "What was Nvidia's revenue for the six months ended July 27, 2025?",
    ):
        plain, eager = _read(question, ANNUAL, QUARTERLY), _eager(question, ANNUAL, QUARTERLY)
        assert plain.answered and (eager.text, eager.figure) == (plain.text, plain.figure)
    # a named row in the nearest column ranks before an unnamed row in the asked one
    assert _eager("What was Apple's total net sales for fiscal 2025?", ANNUAL, BALANCE).figure == 391_035e6
