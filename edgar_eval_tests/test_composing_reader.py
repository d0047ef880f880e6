"""The composing reader (edgar_eval/answering/composing_reader.py): a two-document question answered from two table
reads composed as the question asks, through the citation check and the judge every reader is scored with; declined
where either read is missing or the two figures are not of one kind. And the one step of arithmetic the citation check
accepts when the answer shows it."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest

from edgar_eval.answering.answerer import (
    ANSWERED,
    MEASURED_READERS,
    MODEL_DECLINED,
    OFFLINE_READERS,
    ComposingReaderGenerator,
    answer_question,
    tuned_on,
)
from edgar_eval.answering.citations import UNSUPPORTED_CLAIM, check_citations
from edgar_eval.answering.composing_reader import (
    CHANGE,
    COMPARISON,
    PART_OF_YEAR,
    READER_ID,
    RESTATEMENT,
    names_company,
    parse_two_figures,
    read_two_figures,
)
from edgar_eval.answering.extractive import Passage
from edgar_eval.answering.table_reader import read_tables
from edgar_eval.domain.generation import GenerationRequest
from edgar_eval.evaluation.headline_figures import reader_figures
from edgar_eval.evaluation.judge import judge_case
from edgar_eval.evaluation.readers import reader_outcomes, summarise_readers

ANNUAL_2023 = """CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions, except per share amounts)
| Year Ended December 31, | 2023 | 2022 |
| Net sales | $ | 5,935 | $ | 5,100 |
| Operating income | 1,210 | 1,050 |
| Diluted | $ | 2.40 | $ | 2.10 |"""

HALF_2023 = """CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions)
| Six Months Ended | June 30, 2023 | June 30, 2022 |
| Net sales | $ | 2,673 | $ | 2,480 |"""

BALANCE_2023 = """CONSOLIDATED BALANCE SHEETS
(In millions)
| December 31, | 2023 | 2022 |
| Other noncurrent assets | 7,162 | 6,189 |
| Total assets | 40,112 | 38,020 |"""

BALANCE_2024 = """CONSOLIDATED BALANCE SHEETS
(In millions)
| December 31, | 2024 | 2023 |
| Other noncurrent assets | 13,403 | 7,796 |
| Total assets | 44,870 | 40,112 |"""

ANNUAL_2019 = """CONSOLIDATED BALANCE SHEETS
(In millions)
| June 30, | 2019 | 2018 |
| Current portion of long-term debt | 3,388 | 1,772 |"""

ANNUAL_2024 = """CONSOLIDATED BALANCE SHEETS
(In millions)
| June 30, | 2024 | 2023 |
| Current portion of long-term debt | 3,838 | 3,951 |"""

HALVERN = """Halvern Robotics, Inc. Consolidated Balance Sheets
(In millions)
| December 31, | 2023 | 2022 |
| Inventories | 812 | 790 |
| Gross margin | 45.2 % | 44.0 % |"""

MARIBEL = """Maribel Foods Corporation Consolidated Balance Sheets
(In millions)
| December 31, | 2023 | 2022 |
| Inventories | 1,240 | 1,105 |
| Gross margin | 1,234 | 1,100 |"""


def _figure(value: float, answer: str, role: str, required: bool = True) -> dict:
    return {"value": value, "answer": answer, "role": role, "required": required}


def _case(figures: list[dict], direction: str = "") -> SimpleNamespace:
    return SimpleNamespace(gold_figures=json.dumps(figures), gold_direction=direction)


def _answer(question: str, *texts: str):
    """The composing reader through the answerer: the generation, the citation check, the outcome."""
    request = GenerationRequest(question, tuple((f"chunk-{k}", text) for k, text in enumerate(texts)))
    return answer_question(request, ComposingReaderGenerator())


def _text(checked) -> str:
    assert checked.generation is not None
    return checked.generation.text


def _right(checked, case) -> bool:
    return checked.outcome == ANSWERED and judge_case(_text(checked), case).correct


# --- the question's shape, read from its own words -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "shape", "first", "second"),
    [
        (
            "What was Abbott Laboratories's comprehensive income for the second half of fiscal 2023?",
            PART_OF_YEAR,
            "What was Abbott Laboratories's comprehensive income for fiscal 2023?",
            "",
        ),
        (
            "How did Procter & Gamble's retained earnings change from the end of fiscal 2019 to the end of fiscal "
            "2024?",
            CHANGE,
            "What was Procter & Gamble's retained earnings at the end of fiscal 2019?",
            "What was Procter & Gamble's retained earnings at the end of fiscal 2024?",
        ),
        (
            "Which reported more spending on share repurchases for fiscal 2023, Abbott Laboratories or "
            "Colgate-palmolive, and how much did each report?",
            COMPARISON,
            "What was Abbott Laboratories's spending on share repurchases for fiscal 2023?",
            "What was Colgate-palmolive's spending on share repurchases for fiscal 2023?",
        ),
        (
            "What was Johnson & Johnson's gross profit for the quarter ended July 2, 2023, as first reported and as "
            "most recently reported?",
            RESTATEMENT,
            "What was Johnson & Johnson's gross profit for the quarter ended July 2, 2023?",
            "What was Johnson & Johnson's gross profit for the quarter ended July 2, 2023?",
        ),
    ],
)
def test_the_two_figures_are_read_from_the_question_s_own_words(question, shape, first, second):
    asked = parse_two_figures(question)
    assert asked is not None
    assert (asked.shape, asked.first, asked.second) == (shape, first, second)


def test_a_single_figure_question_is_read_as_the_table_reader_reads_it():
    question = "What was Acme's net sales for fiscal 2023?"
    passages = [Passage("P1", ANNUAL_2023)]
    assert parse_two_figures(question) is None
    assert read_two_figures(question, passages) == read_tables(question, passages)
    assert read_two_figures(question, passages).figure == 5_935e6


# --- each two-document kind, through the citation check and the judge ---------------------------------------------


def test_a_part_of_a_year_is_the_fiscal_year_less_the_year_to_date_with_its_arithmetic_shown():
    question = "What was Acme's net sales for the second half of fiscal 2023?"
    checked = _answer(question, ANNUAL_2023, HALF_2023)
    assert checked.outcome == ANSWERED, checked.detail
    text = _text(checked)
    assert "$3,262 million" in text and "$5,935 million" in text and "less $2,673 million" in text
    case = _case(
        [
            _figure(3_262e6, "$3,262 million", "the second half"),
            _figure(5_935e6, "$5,935 million", "fiscal 2023", required=False),
            _figure(2_673e6, "$2,673 million", "the six months ended June 30, 2023", required=False),
        ]
    )
    assert _right(checked, case)
    # the wrong difference is not the gold's: the judge would mark an answer off by a digit
    assert not _right(checked, _case([_figure(3_263e6, "$3,263 million", "the second half")]))


def test_a_part_of_a_year_is_declined_without_the_year_to_date():
    checked = _answer("What was Acme's net sales for the second half of fiscal 2023?", ANNUAL_2023)
    assert checked.outcome == MODEL_DECLINED and "year to date" in checked.detail


def test_a_part_of_a_year_is_declined_without_the_fiscal_year():
    checked = _answer("What was Acme's net sales for the second half of fiscal 2023?", HALF_2023)
    assert checked.outcome == MODEL_DECLINED and "fiscal 2023" in checked.detail


def test_a_change_states_both_years_and_the_direction():
    question = "How did Acme's current portion of long-term debt change from the end of fiscal 2019 to the end of " + (
        "fiscal 2024?"
    )
    checked = _answer(question, ANNUAL_2024, ANNUAL_2019)
    assert checked.outcome == ANSWERED, checked.detail
    assert _text(checked).startswith("An increase of 450 million (3,838 million less 3,388 million)")
    figures = [_figure(3_388e6, "$3,388 million", "fiscal 2019"), _figure(3_838e6, "$3,838 million", "fiscal 2024")]
    assert _right(checked, _case(figures, "increase"))
    assert not _right(checked, _case(figures, "decrease"))


def test_a_change_is_declined_when_one_year_is_not_read():
    question = "How did Acme's current portion of long-term debt change from the end of fiscal 2019 to the end of " + (
        "fiscal 2024?"
    )
    checked = _answer(question, ANNUAL_2024)
    assert checked.outcome == MODEL_DECLINED and "fiscal 2019" in checked.detail


COMPARE = (
    "Which reported more inventories at the end of fiscal 2023, Halvern Robotics or Maribel Foods, and how much did "
    "each report?"
)


def test_a_comparison_reads_each_company_from_its_own_passages_and_names_the_larger():
    checked = _answer(COMPARE, HALVERN, MARIBEL)
    assert checked.outcome == ANSWERED, checked.detail
    case = _case(
        [_figure(812e6, "$812 million", "Halvern Robotics"), _figure(1_240e6, "$1,240 million", "Maribel Foods")],
        "Maribel Foods",
    )
    assert _right(checked, case)
    assert _text(checked).startswith("More was reported by Maribel Foods.")


def test_a_comparison_is_declined_when_one_company_is_not_read():
    checked = _answer(COMPARE, HALVERN)
    assert checked.outcome == MODEL_DECLINED and "Maribel Foods" in checked.detail


def test_a_comparison_of_two_kinds_of_figure_is_declined():
    question = COMPARE.replace("inventories", "gross margin")
    checked = _answer(question, HALVERN, MARIBEL)
    assert checked.outcome == MODEL_DECLINED and "different kinds" in checked.detail


def test_a_company_is_named_by_its_name_its_first_word_or_its_initials():
    assert names_company("Abbott's sales rose", "Abbott Laboratories")
    assert names_company("BMS reported", "Bristol-myers Squibb")
    assert names_company("McDonald's restaurants", "McDONALD\u2019S")
    assert not names_company("General and administrative expense", "General Electric")
    assert names_company("General Electric Company", "General Electric")


RESTATED = (
    "What was Acme's other non-current assets at the end of fiscal 2023, as first reported and as most recently "
    "reported?"
)


def test_a_restatement_reads_the_first_report_and_the_later_one():
    checked = _answer(RESTATED, BALANCE_2024, BALANCE_2023)
    assert checked.outcome == ANSWERED, checked.detail
    text = _text(checked)
    assert text.index("7,162") < text.index("7,796")  # first reported, then most recently
    case = _case(
        [
            _figure(7_162e6, "$7,162 million", "as first reported"),
            _figure(7_796e6, "$7,796 million", "as most recently reported"),
        ]
    )
    assert _right(checked, case)


def test_a_restatement_is_declined_without_a_later_report():
    checked = _answer(RESTATED, BALANCE_2023)
    assert checked.outcome == MODEL_DECLINED and "later" in checked.detail


# --- the citation check's one shown step ---------------------------------------------------------------------------


PASSAGES = {"P1": ANNUAL_2023, "P2": HALF_2023}


def test_a_derived_figure_is_backed_where_its_sentence_shows_the_step():
    shown = "$3,262 million for the second half: $5,935 million for fiscal 2023 less $2,673 million [P1][P2]."
    assert check_citations(shown, PASSAGES).ok
    assert check_citations("$8,608 million: $5,935 million plus $2,673 million [P1][P2].", PASSAGES).ok


@pytest.mark.parametrize(
    "answer",
    [
        "$3,262 million for the second half [P1][P2].",  # no step shown
        "$3,262 million: $5,935 million and $2,673 million [P1][P2].",  # no operator between the two
        "$3,261 million: $5,935 million less $2,673 million [P1][P2].",  # the step gives another figure
        "$3,262 million: $5,935 million less $2,673 million [P1].",  # an operand no cited passage prints
        "$3,262 million: $5,935 million less $2,673 million [P1][P2]. $5,935 million less $3,262 million [P1].",
    ],
)
def test_a_derived_figure_without_its_step_shown_from_printed_figures_is_not_backed(answer):
    verdict = check_citations(answer, PASSAGES)
    assert not verdict.ok and verdict.reason == UNSUPPORTED_CLAIM


# --- the Readers table: per two-document kind ----------------------------------------------------------------------


def test_the_readers_table_counts_each_two_document_kind_and_the_arms_readers_stay_the_same():
    cases = pd.DataFrame(
        {
            "question": [
                "What was Acme's net sales for the second half of fiscal 2023?",
                "What was Acme's net sales for fiscal 2023?",
                RESTATED,
            ],
            "kind": ["granularity", "answerable", "restatement"],
            "document_count": [2, 1, 2],
            "cik": ["1", "1", "1"],
            "fiscal_year": [2023, 2023, 2023],
            "scope_filing_ids": [["a"], ["a"], ["a"]],
            "gold_value": [3_262e6, 5_935e6, 7_796e6],
            "gold_answer": ["$3,262 million", "$5,935 million", "$7,796 million"],
            "label": ["net sales", "net sales", "other non-current assets"],
            "gold_figures": [
                json.dumps([_figure(3_262e6, "$3,262 million", "the second half")]),
                "",
                json.dumps([_figure(7_162e6, "$7,162 million", "first"), _figure(7_796e6, "$7,796 million", "now")]),
            ],
            "gold_direction": ["", "", ""],
        },
        index=pd.Index(["q1", "q2", "q3"], name="question_id"),
    )
    texts = pd.Series({"a": ANNUAL_2023, "b": HALF_2023, "c": BALANCE_2024})
    retrieved = pd.DataFrame(
        {"chunk_ids": [["a", "b"], ["a"], ["c"]], "chunk_hit": [True, True, True]}, index=cases.index
    )
    readers = [r for r in MEASURED_READERS if r.generator_id in ("table-reader/1", READER_ID)]
    table = summarise_readers(reader_outcomes(cases, retrieved, texts, readers)).set_index(["reader", "kind"])
    granularity = table.loc[(READER_ID, "granularity")]
    assert (granularity.documents, granularity.questions, granularity.right) == ("2", 1, 1)
    restatement = table.loc[(READER_ID, "restatement")]  # no first report among the passages: declined
    assert (restatement.right, restatement.declined) == (0, 1)
    assert table.loc[("table-reader/1", "granularity")].right == 0
    assert table.loc[(READER_ID, "")].set_index("documents").loc["all"].right == 2
    figures = reader_figures(table.reset_index())
    assert figures["reader_accuracy_composing_reader_granularity"] == 1.0
    assert figures["reader_accuracy_table_reader_granularity"] == 0.0
    assert figures["reader_questions"] == 3  # the "all" rows only, not a kind's
    # the arms' wrong-answer categories read the offline readers, which the composing reader does not join
    assert READER_ID not in {r.generator_id for r in OFFLINE_READERS}
    assert tuned_on(READER_ID) == ("demo", "edgar", "edgar-wide")
