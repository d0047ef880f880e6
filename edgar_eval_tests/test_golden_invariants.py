"""The golden set's invariants (edgar_eval/golden/invariants.py), the blocking check on golden_questions, on cases
constructed to break each one."""

import pandas as pd

from edgar_eval.golden.invariants import contradictions

TEXT = """CONSOLIDATED STATEMENTS OF OPERATIONS
| Year Ended | 2024 | 2023 |
| Net sales | 1,200 | 1,100 |
| Gross profit | 480 | 430 |
"""


def _case(question, kind, route, concept="us-gaap:Revenues", year=2024, scope=("f1",)):
    return {
        "question": question,
        "kind": kind,
        "expected_route": route,
        "concept": concept,
        "fiscal_year": year,
        "scope_filing_ids": list(scope),
        "cik": "1",
    }


def test_a_clean_set_has_no_contradiction():
    golden = pd.DataFrame(
        [
            _case("What was Acme's total revenue for fiscal 2024?", "answerable", "answer"),
            _case(
                "What was Acme's inventories for fiscal 2024?",
                "absent_concept",
                "no_answer",
                concept="us-gaap:InventoryNet",
            ),
            _case("What was Acme's total revenue for fiscal 2019?", "other_year", "no_answer", year=2019),
        ]
    )
    assert contradictions(golden, {"f1": TEXT}, {"1": ["f1"]}) == []


def test_each_invariant_catches_its_own_contradiction():
    golden = pd.DataFrame(
        [
            _case("What was Acme's total revenue for fiscal 2024?", "answerable", "answer"),
            _case(
                "What was Acme’s total revenue for fiscal 2024", "other_company", "no_answer"
            ),  # same words, same scope
            _case(
                "What was Acme's gross profit for fiscal 2024?",
                "absent_concept",
                "no_answer",
                concept="us-gaap:GrossProfit",
            ),
            _case(
                "What was Acme's gross profit for fiscal 2023?",
                "other_year",
                "no_answer",
                concept="us-gaap:GrossProfit",
                year=2023,
            ),
        ]
    )
    found = contradictions(golden, {"f1": TEXT}, {"1": ["f1"]})
    assert len(found) == 3
    assert "has two expected routes" in found[0]
    assert found[1].startswith("absent concept") and "gross profit" in found[1].lower()
    assert found[2].startswith("other year") and "for 2023" in found[2]
