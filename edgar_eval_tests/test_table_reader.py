"""The table-aware reader on hand-made tables: the row of the asked line item, the column of the asked period."""

from edgar_eval.answering.extractive import Passage
from edgar_eval.answering.table_reader import parse_question, read_tables
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
    item, period = parse_question("What was Nvidia's total revenue for the six months ended July 27, 2025?")
    assert item == "total revenue" and (period.kind, period.date) == ("H", (2025, 7, 27))
    assert parse_question("What was Apple's total assets at the end of fiscal 2024?")[1].kind == "instant"
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
