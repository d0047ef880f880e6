"""Every golden case's owner, version, asking role, permitted sources and review note; and the route a generation
exits by (answering.answerer.exit_route)."""

import pandas as pd
import pytest

from edgar_eval.answering.answerer import (
    ANSWERED,
    DENIED,
    MODEL_DECLINED,
    ROUTE_FROM_FLAG,
    ROUTE_FROM_POLICY,
    ROUTE_FROM_REPLY,
    CheckedAnswer,
    exit_route,
)
from edgar_eval.domain.generation import Generation
from edgar_eval.domain.routes import AccessPolicy, exchange_route, route_from_exchange
from edgar_eval.golden.case_schema import CASE_FIELDS, case_version, with_case_fields

POLICY = AccessPolicy.from_toml(
    'version = "p1"\n[roles.retail]\nbarred_ciks = ["3"]\n[roles.no-8k]\nbarred_forms = ["8-K"]\n', "p1"
)
FILINGS = pd.DataFrame(
    {
        "filing_id": ["a-10k", "a-8k", "c-10k"],
        "cik": ["1", "1", "3"],
        "form": ["10-K", "8-K", "10-K"],
        "fiscal_year": [2024, 2024, 2024],
    }
)


def _cases(**columns) -> pd.DataFrame:
    base = {
        "question_id": ["q-a", "q-c", "q-r"],
        "question": ["What was A's revenue for fiscal 2024?", "What was C's revenue for fiscal 2024?", "Buy A?"],
        "expected_route": ["answer", "no_answer", "review"],
        "scope_filing_ids": [["a-10k", "a-8k"], ["c-10k"], ["a-10k"]],
        "gold_answer": ["$5 million", None, None],
    }
    return pd.DataFrame({**base, **columns})


def test_case_fields_for_the_default_role_and_a_barred_one():
    notes = {"q-r": "advice: a person answers"}
    cases = with_case_fields(_cases(), "owner-x", POLICY, FILINGS, notes).set_index("question_id")
    assert set(CASE_FIELDS) <= set(cases.columns)
    assert list(cases.role) == ["analyst"] * 3 and set(cases.owner) == {"owner-x"}
    assert cases.loc["q-a"].permitted_filing_ids == ["a-10k", "a-8k"]
    assert list(cases.expected_route) == ["answer", "no_answer", "review"]
    assert cases.loc["q-r"].review_note == notes["q-r"] and cases.loc["q-a"].review_note == ""

    retail = with_case_fields(_cases(), "owner-x", POLICY, FILINGS, notes, role="retail").set_index("question_id")
    assert retail.loc["q-c"].permitted_filing_ids == [] and retail.loc["q-c"].expected_route == "deny"
    assert retail.loc["q-a"].expected_route == "answer"  # company 1 is not barred to retail
    assert retail.loc["q-c"].case_version != cases.loc["q-c"].case_version  # another role, another case

    no_8k = with_case_fields(_cases(), "owner-x", POLICY, FILINGS, notes, role="no-8k").set_index("question_id")
    assert no_8k.loc["q-a"].permitted_filing_ids == ["a-10k"] and no_8k.loc["q-a"].expected_route == "answer"


def test_a_review_case_needs_a_note_and_a_version_follows_the_content():
    with pytest.raises(ValueError, match="review cases without a review note: q-r"):
        with_case_fields(_cases(), "owner-x", POLICY, FILINGS)
    case = {"question": "Q?", "expected_route": "answer", "gold_answer": "$5", "gold_chunk_ids": ["c2", "c1"]}
    assert case_version(case) == case_version({**case, "gold_chunk_ids": ["c1", "c2"]})  # order is no content
    for changed in ({"question": "Q2?"}, {"gold_answer": "$6"}, {"expected_route": "no_answer"}, {"role": "x"}):
        assert case_version({**case, **changed}) != case_version(case), changed


def test_the_exchange_spelling_of_no_answer():
    assert exchange_route("no_answer") == "no-answer" and exchange_route("deny") == "deny"
    assert route_from_exchange("no-answer") == route_from_exchange("no_answer") == "no_answer"
    with pytest.raises(ValueError, match="'maybe' is not a route"):
        route_from_exchange("maybe")


def _generation(**fields) -> Generation:
    return Generation(**{"text": "Revenue was $5 million [P1].", "citations": ["c1"], **fields})


def test_exit_route_reads_the_reply_route_then_the_flag():
    answered = CheckedAnswer(_generation(), ANSWERED, 5.0, "")
    assert exit_route(answered) == ("answer", "answered with citations that hold", ROUTE_FROM_FLAG)
    declined = CheckedAnswer(_generation(abstained=True, reason="not found"), MODEL_DECLINED, None, "not found")
    assert exit_route(declined) == ("no_answer", "model_declined: not found", ROUTE_FROM_FLAG)
    clarify = CheckedAnswer(
        _generation(abstained=True, route="clarify", reason="which year?"), MODEL_DECLINED, None, "which year?"
    )
    assert exit_route(clarify) == ("clarify", "which year?", ROUTE_FROM_REPLY)
    # a reply that says answer but whose citations do not hold exits by no_answer
    unsupported = CheckedAnswer(_generation(route="answer"), "unsupported_claim", 7.0, "7 is in no passage")
    assert exit_route(unsupported) == (
        "no_answer",
        "the reply answered, but unsupported_claim: 7 is in no passage",
        ROUTE_FROM_REPLY,
    )
    denied = CheckedAnswer(None, DENIED, None, "role 'retail' may read no filing of the scope")
    assert exit_route(denied) == ("deny", "role 'retail' may read no filing of the scope", ROUTE_FROM_POLICY)
