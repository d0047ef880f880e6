"""The routes decided before retrieval (answering/routing.py): each rule on cases constructed for it, and on real
questions it was not written against (the 36 hand-written candidates: only the one the admission gates send back
for naming no period is routed, to clarify)."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from edgar_eval.answering.routing import (
    CLARIFY,
    DENY,
    NO_POLICY,
    REVIEW,
    AccessPolicy,
    PolicyError,
    ScopeFiling,
    advice_request,
    route_before_retrieval,
)
from edgar_eval.corpus.company_names import company_aliases
from edgar_eval.corpus.periods import named_period
from edgar_eval.evaluation.release import ReleaseRules, ReleaseRulesError, check_release, release_decision
from edgar_eval.evaluation.routes import summarise_routes
from edgar_eval.golden.claims import period_named
from edgar_eval.golden.route_cases import build_route_cases
from edgar_eval_tests.conftest import REAL_CANDIDATES

APPLE, NVIDIA = "320193", "1045810"
ALIASES = {APPLE: company_aliases("Apple Inc.", "AAPL"), NVIDIA: company_aliases("NVIDIA CORP", "NVDA")}


def _filings(cik: str, years=(2023, 2024), form: str = "10-K") -> list[ScopeFiling]:
    return [ScopeFiling(f"{cik}-{form}-{year}", cik, form, year) for year in years]


def _route(question: str, scope, role: str = "", policy: AccessPolicy = NO_POLICY) -> str | None:
    decision = route_before_retrieval(question, scope, ALIASES, role, policy)
    return decision.route if decision else None


@pytest.mark.parametrize(
    "question",
    [
        "Should I buy Apple stock?",
        "Is NVIDIA a good investment right now?",
        "Would you recommend investing in Apple?",
        "Should we sell our NVIDIA shares after the split?",
        "Is it a good time to buy AAPL?",
        "Do you think NVIDIA stock will go up next year?",
        "Will Apple's share price recover?",
        "Is NVIDIA overvalued?",
        "What is your price target for Apple?",
        "Should I hold or trim my NVIDIA position?",
        "Is Apple worth buying at these levels?",
        "Which is the better buy, Apple or NVIDIA?",
        "should investors be holding apple",
    ],
)
def test_requests_for_advice_go_to_review_however_worded(question):
    assert advice_request(question), question
    assert _route(question, _filings(APPLE) + _filings(NVIDIA)) == REVIEW


@pytest.mark.parametrize(
    "question",
    [
        "What was Apple's investment income in fiscal 2024?",
        "How much did NVIDIA invest in property and equipment in fiscal 2025?",
        "How many shares did Apple buy back in fiscal 2024?",
        "What was the fair value of Apple's marketable securities at the end of fiscal 2024?",
        "What did Apple's board recommend shareholders vote for in the 2024 proxy statement?",
        "What were NVIDIA's gains on non-marketable equity investments in fiscal 2025?",
        "How much stock-based compensation did NVIDIA record in fiscal 2025?",
        "What does Apple say it should do to comply with the Digital Markets Act in fiscal 2024?",
    ],
)
def test_questions_about_investments_in_the_filings_are_not_advice(question):
    assert advice_request(question) is None, question


def test_no_company_named_where_the_scope_holds_several_is_sent_back_to_clarify():
    two = _filings(APPLE) + _filings(NVIDIA)
    decision = route_before_retrieval("What was the company's revenue for fiscal 2024?", two, ALIASES)
    assert decision is not None and decision.route == CLARIFY and "names no company" in decision.reason
    assert _route("What was Apple's revenue for fiscal 2024?", two) is None
    assert _route("What was the company's revenue for fiscal 2024?", _filings(APPLE)) is None  # one company: itself


def test_a_figure_asked_without_a_period_over_several_years_is_sent_back_to_clarify():
    decision = route_before_retrieval("What were Apple's total assets?", _filings(APPLE), ALIASES)
    assert decision is not None and decision.route == CLARIFY
    assert decision.reason == "the question names no period and the filings report fiscal 2023, 2024"
    assert _route("What were Apple's total assets?", _filings(APPLE, years=(2024,))) is None  # one year: no doubt
    assert _route("What were Apple's total assets at the end of fiscal 2024?", _filings(APPLE)) is None
    assert _route("What were Apple's total assets at the end of its most recent fiscal year?", _filings(APPLE)) is None
    assert _route("How much cash did Apple hold on September 28, 2024?", _filings(APPLE)) is None
    assert _route("Why did Apple's gross margin change?", _filings(APPLE)) is None  # not a figure


def test_a_barred_company_or_form_is_denied_before_retrieval_for_that_role_only():
    policy = AccessPolicy.from_toml(
        'version = "access-v1"\n[roles.retail]\nbarred_ciks = ["0000320193"]\nbarred_forms = ["DEF 14A"]\n',
        "policies/access-v1.toml",
    )
    question = "What was Apple's revenue in fiscal 2024?"
    scope = _filings(APPLE) + _filings(NVIDIA)
    decision = route_before_retrieval(question, scope, ALIASES, "retail", policy)
    assert decision is not None and decision.route == DENY
    assert decision.reason == "role 'retail' may not read company 320193's filings (policy access-v1)"
    assert _route(question, scope, "analyst", policy) is None  # a role the policy does not name is barred from nothing
    assert _route("Should I buy Apple stock?", scope, "retail", policy) == DENY  # deny comes before review
    proxy_only = _filings(NVIDIA, years=(2024,), form="DEF 14A")
    assert _route("What was NVIDIA's CEO paid in fiscal 2024?", proxy_only, "retail", policy) == DENY
    assert _route("What was NVIDIA's revenue in fiscal 2024?", _filings(NVIDIA), "retail", policy) is None


@pytest.mark.parametrize(
    "text, message",
    [
        ("version = ", "not TOML"),
        ('[roles.x]\nbarred_ciks = ["1"]\n', "needs a non-empty version"),
        ('version = "v"\n[roles.x]\nbarred_companies = ["1"]\n', "unknown keys ['barred_companies']"),
        ('version = "v"\n[roles.x]\nbarred_ciks = [1]\n', "lists of strings"),
    ],
)
def test_a_malformed_policy_file_is_refused_in_one_line(text, message):
    with pytest.raises(PolicyError, match=re.escape(message)):
        AccessPolicy.from_toml(text, "policies/bad.toml")


def test_on_real_questions_only_the_one_naming_no_period_is_routed_and_the_gates_agree():
    """Real text the rules were not written against: 36 hand-written candidates on NVIDIA and Apple filings of
    three fiscal years. The router's period decision and the admission gate's are one decision (corpus.periods)."""
    if not REAL_CANDIDATES.is_file():
        pytest.skip(f"{REAL_CANDIDATES} is not beside the checkout")
    candidates = [json.loads(line) for line in REAL_CANDIDATES.read_text().splitlines() if line.strip()]
    routed = {}
    for candidate in candidates:
        question = candidate["question"]
        cik = NVIDIA if "NVIDIA" in question else APPLE
        scope = _filings(cik, years=(2023, 2024, 2025))
        assert advice_request(question) is None, question
        decision = route_before_retrieval(question, scope, ALIASES)
        if decision:
            routed[candidate["id"]] = decision.route
        assert period_named(question, candidate["pattern"]).passed == (named_period(question) is not None)
    assert len(candidates) == 36
    assert routed == {"RC-029": CLARIFY}  # "What powered growth in NVIDIA's Data Center networking business, ..."


# ----------------------------------------------------------------------- route cases: each rule on constructed data


def _golden(rows: list[tuple[str, str, str, str, int]]) -> pd.DataFrame:
    """(question_id, cik, company, question, fiscal_year) of answerable template questions."""
    return pd.DataFrame(
        [
            {
                "question_id": qid,
                "kind": "answerable",
                "expected_route": "answer",
                "cik": cik,
                "company": company,
                "question": question,
                "fiscal_year": year,
                "scope_filing_ids": [f"{cik}-10-K-{year}"],
            }
            for qid, cik, company, question, year in rows
        ]
    )


def _filing_rows(*filings: ScopeFiling) -> pd.DataFrame:
    return pd.DataFrame([vars(f) for f in filings])


def test_each_route_case_rule_keeps_what_it_should_and_records_why_it_rejects_the_rest():
    golden = _golden(
        [
            ("q1", APPLE, "Apple", "What was Apple's total revenue for fiscal 2024?", 2024),
            ("q2", NVIDIA, "NVIDIA", "What was NVIDIA's total revenue for fiscal 2025?", 2025),
        ]
    )
    filings = _filing_rows(*_filings(APPLE, years=(2023, 2024)), *_filings(NVIDIA, years=(2025,)))
    policy = AccessPolicy.from_toml('version = "p1"\n[roles.retail]\nbarred_ciks = ["1045810"]\n', "p1")
    cases = build_route_cases(golden, filings, ALIASES, policy).set_index("case_id")

    company = cases.loc["clarify_company:q1"]
    assert company.question == "What was the company's total revenue for fiscal 2024?"
    assert company.rejected == "the fiscal 2024 filings hold one company: nothing to clarify"  # Apple alone
    assert cases.loc["clarify_company:q2"].rejected == "the fiscal 2025 filings hold one company: nothing to clarify"

    period = cases.loc["clarify_period:q1"]
    assert period.question == "What was Apple's total revenue?" and period.rejected == ""
    assert cases.loc["clarify_period:q2"].rejected == "the company's filings report one fiscal year (2025)"

    deny = cases.loc["deny_company:q2"]
    assert deny.expected_route == DENY and deny.role == "retail" and "deny_company:q1" not in cases.index

    advice = cases[cases.rule == "review_advice"]
    assert list(advice.question) == ["Should I buy NVIDIA stock?", "Is Apple a good investment right now?"]  # by cik


def test_the_fiscal_year_of_several_companies_keeps_the_company_case():
    golden = _golden([("q1", APPLE, "Apple", "What was Apple's total assets at the end of fiscal 2024?", 2024)])
    filings = _filing_rows(*_filings(APPLE, years=(2024,)), *_filings(NVIDIA, years=(2024,)))
    case = build_route_cases(golden, filings, ALIASES, NO_POLICY).set_index("case_id").loc["clarify_company:q1"]
    assert case.rejected == "" and len(case.scope_filing_ids) == 2
    assert _route(case.question, [f for f in _filings(APPLE, (2024,)) + _filings(NVIDIA, (2024,))]) == CLARIFY


def test_the_route_matrix_counts_each_exit_and_a_case_let_through_is_a_miss():
    outcomes = pd.DataFrame(
        {
            "case_id": ["a", "b", "c", "d", "e"],
            "source": ["golden_questions"] * 3 + ["route_cases"] * 2,
            "rule": ["answerable", "answerable", "other_year", "clarify_period", "review_advice"],
            "expected_route": ["answer", "answer", "no_answer", "clarify", "review"],
            "taken_route": ["answer", "no_answer", "no_answer", "retrieval", "review"],
            "reason": [""] * 5,
            "route_from": ["abstained flag", "abstained flag", "router", "router", "router"],
        }
    )
    matrix = summarise_routes(outcomes).set_index("expected_route")
    assert matrix.loc["answer", "read_from_flag"] == 2 and matrix.loc["no_answer", "read_from_flag"] == 0
    assert list(matrix.index) == ["answer", "clarify", "no_answer", "review"]  # routes with cases, in route order
    assert matrix.loc["answer", "taken_answer"] == 1 and matrix.loc["answer", "taken_no_answer"] == 1
    assert matrix.loc["answer", "exit_share"] == 0.5
    assert matrix.loc["clarify", "taken_retrieval"] == 1 and matrix.loc["clarify", "exit_share"] == 0.0
    assert 0 < matrix.loc["review", "exit_low"] < 1 == matrix.loc["review", "exit_share"]


# ------------------------------------------------------------------------------------------ the release decision

RULES = Path(__file__).resolve().parents[1] / "protocol" / "release-v1.toml"


def _outcomes(pairs: list[tuple[str, str]]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "case_id": [f"c{i}" for i in range(len(pairs))],
            "expected_route": [e for e, _ in pairs],
            "taken_route": [t for _, t in pairs],
        }
    )


def test_the_strictest_fired_rule_decides_and_a_clean_run_is_released():
    rules = ReleaseRules.from_toml(RULES.read_text(), "protocol/release-v1.toml")
    clean = _outcomes([("answer", "answer")] * 8 + [("deny", "deny"), ("review", "review"), ("clarify", "clarify")])
    answered = pd.DataFrame({"outcome": ["answered"] * 8})
    assert release_decision(check_release(rules, clean, answered)) == "release"

    claim = pd.DataFrame({"outcome": ["answered"] * 7 + ["unsupported_claim"]})
    assert release_decision(check_release(rules, clean, claim)) == "investigate"

    advice_answered = _outcomes([("answer", "answer")] * 8 + [("review", "answer")])
    assert release_decision(check_release(rules, advice_answered, claim)) == "human review"

    leak = _outcomes([("answer", "answer")] * 8 + [("review", "answer"), ("deny", "retrieval")])
    checks = check_release(rules, leak, claim).set_index("rule")
    assert release_decision(checks.reset_index()) == "hold"
    assert checks.loc["deny_not_denied", "evidence"] == "1 of 1 cases exited otherwise"

    few_answers = _outcomes([("answer", "answer")] * 6 + [("answer", "no_answer")] * 4)
    checks = check_release(rules, few_answers, answered).set_index("rule")
    assert bool(checks.loc["exit_share_below(answer)", "fired"])  # 0.6 < 0.7
    assert checks.loc["exit_share_below(answer)", "evidence"] == "answer exit share 0.600 against 0.700 (10 cases)"


@pytest.mark.parametrize(
    "text, message",
    [
        ('version = "r"\n[[rules]]\nwhen = "leaks"\ndecision = "hold"\n', "unknown condition 'leaks'"),
        ('version = "r"\n[[rules]]\nwhen = "unsupported_claim"\ndecision = "panic"\n', "unknown decision 'panic'"),
        ('[[rules]]\nwhen = "unsupported_claim"\ndecision = "hold"\n', "needs a non-empty version"),
    ],
)
def test_malformed_release_rules_are_refused_in_one_line(text, message):
    with pytest.raises(ReleaseRulesError, match=re.escape(message)):
        ReleaseRules.from_toml(text, "protocol/bad.toml")
