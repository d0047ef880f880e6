"""Why a wrong answer is wrong (evaluation.wrong_answers), on constructed cases: each category from the answer's
figures, the gold and the passages read."""

from __future__ import annotations

import json
from types import SimpleNamespace

from edgar_eval.evaluation import wrong_answers as w

GOLD_ROW = "| Cost of revenue | 60,922 | 55,100 |"
TABLE = f"| | 2025 | 2024 |\n{GOLD_ROW}\n| Research and development | 12,345 | 11,002 |"


def _case(**changes):
    fields = {
        "kind": "answerable",
        "expected_route": "answer",
        "cik": "1",
        "gold_value": 60_922e6,
        "gold_quote": GOLD_ROW,
        "gold_filing_ids": ["acme-10k"],
        "gold_figures": "[]",
    }
    return SimpleNamespace(**{**fields, **changes})


READ = [
    ("acme-10k:00001", TABLE),
    ("acme-10q:00004", "Revenue was $41,337 million."),
    ("bolt-10k:00002", "| Cost | 9,876 |"),
]
COMPANY = {"acme-10k": "1", "acme-10q": "1", "bolt-10k": "2"}


def _category(answer: str, case=None, answered=True, right=False, gold_read=True):
    return w.categorise(case or _case(), answered, right, answer, READ, gold_read, COMPANY)


def test_each_wrong_answer_falls_in_the_category_its_provenance_says():
    assert _category("$60,922 million", right=True) == w.RIGHT
    assert _category("$55,100 million") == w.WRONG_PERIOD  # another column of the gold row
    assert _category("$12,345 million") == w.WRONG_LINE  # another row of the gold row's table
    assert _category("$41,337 million") == w.WRONG_FILING  # a filing of the company holding no gold
    assert _category("$9,876 million") == w.WRONG_COMPANY  # another company's filing
    assert _category("$60.922 million") == w.SCALE_OR_SIGN  # the gold's magnitude over a thousand
    assert _category("$77,777 million") == w.NOT_READ  # printed in none of the passages
    assert _category("", answered=False, gold_read=True) == w.DECLINED_GOLD_READ
    assert _category("", answered=False, gold_read=False) == w.DECLINED_GOLD_NOT_READ


def test_a_restatement_answered_with_the_first_reported_figure_is_a_superseded_value():
    figures = [
        {"value": 3.34, "answer": "$3.34", "role": "as first reported", "required": True},
        {"value": 0.334, "answer": "$0.33", "role": "as most recently reported", "required": True},
    ]
    case = _case(kind="restatement", gold_value=0.334, gold_figures=json.dumps(figures), gold_quote="")
    assert _category("Diluted EPS was $3.34.", case) == w.SUPERSEDED
    assert _category("It was $3.34 first and $0.33 now.", case, right=True) == w.RIGHT


def test_a_false_answer_to_a_twin_is_its_kinds_mis_selection_or_made_up():
    year = _case(kind="other_year", expected_route="no_answer")
    assert _category("$55,100 million", year) == w.WRONG_PERIOD
    assert _category("$77,777 million", year) == w.NOT_READ
    company = _case(kind="other_company", expected_route="no_answer")
    assert _category("$60,922 million", company) == w.WRONG_COMPANY
    absent = _case(kind="absent_concept", expected_route="no_answer")
    assert _category("$12,345 million", absent) == w.WRONG_LINE
    assert _category("", absent, answered=False) == w.RIGHT
