"""The release fixture's rules on cases built here: staleness (superseded, another sha256, gone), re-verification in
the current revision, and each pass condition failing when its condition is broken."""

import json

import pandas as pd
import pytest

from edgar_eval.evaluation.release import ReleaseRules, check_release, release_decision
from edgar_eval.evaluation.release_fixture import (
    FixtureCase,
    FixtureError,
    case_row,
    fixture_jsonl,
    fixture_summary,
    prints_figure,
    read_fixture,
    score_case,
    staleness,
)

ORIGINAL, AMENDMENT, LATER = "acme-10k_2023-08-21", "acme-10ka_2023-10-16", "acme-10k_2024-08-20"
SHA = {ORIGINAL: "a" * 64, AMENDMENT: "b" * 64, LATER: "c" * 64}
SUPERSEDED = {ORIGINAL: AMENDMENT}


def facts(*rows) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "filing_id": f,
                "concept": c,
                "period_end": p,
                "dimensions": d,
                "is_numeric": True,
                "value": v,
                "displayed": shown,
            }
            for f, c, p, d, v, shown in rows
        ]
    )


FACTS = facts(
    (ORIGINAL, "us-gaap:NetIncomeLoss", "2023-06-30", "", 672e6, "672"),
    (AMENDMENT, "us-gaap:NetIncomeLoss", "2023-06-30", "", 655e6, "655"),
    (AMENDMENT, "us-gaap:NetIncomeLoss", "2023-06-30", "segment=Foods", 400e6, "400"),  # a member: never the figure
    (LATER, "us-gaap:Goodwill", "2024-06-30", "", 941e6, "941"),
)


def answer_case(**changes) -> FixtureCase:
    fields = dict(
        case_id="c1",
        question="What was Acme's net income for fiscal 2023?",
        expected_route="answer",
        cik="0000000001",
        fiscal_year=2023,
        scope_filing_ids=(ORIGINAL,),
        evidence_filing_id=ORIGINAL,
        evidence_sha256=SHA[ORIGINAL],
        concept="us-gaap:NetIncomeLoss",
        period_end="2023-06-30",
        gold_value=672e6,
        gold_answer="$672 million",
        gold_displayed="672",
    )
    return FixtureCase(**{**fields, **changes})


def test_a_superseded_source_is_stale_and_its_figure_re_verified_in_the_amendment():
    stale = staleness(answer_case(), SHA, SUPERSEDED, FACTS)
    assert stale.stale and stale.status == "changed"
    assert (stale.old_value, stale.new_value, stale.new_displayed, stale.current_filing_id) == (
        672e6,
        655e6,
        "655",
        AMENDMENT,
    )
    assert "superseded by acme-10ka_2023-10-16" in stale.reason and "672 -> 655" in stale.reason
    row = case_row(answer_case(), stale)
    assert row["gold_value"] == 655e6 and row["gold_answer"] == "$655 million"


def test_another_sha256_is_stale_even_when_the_figure_stands():
    case = answer_case(
        evidence_filing_id=LATER,
        evidence_sha256="d" * 64,
        concept="us-gaap:Goodwill",
        period_end="2024-06-30",
        gold_value=941e6,
        gold_answer="$941 million",
        gold_displayed="941",
        fiscal_year=2024,
    )
    stale = staleness(case, SHA, {}, FACTS)
    assert stale.status == "unchanged" and "not the dddddddddddd recorded" in stale.reason
    assert case_row(case, stale)["gold_value"] == 941e6


def test_the_same_sha256_and_no_amendment_is_current():
    case = answer_case(evidence_filing_id=AMENDMENT, evidence_sha256=SHA[AMENDMENT], gold_value=655e6)
    assert staleness(case, SHA, SUPERSEDED, FACTS).status == "current"


def test_a_gone_filing_or_a_missing_fact_cannot_be_re_verified():
    gone = staleness(answer_case(), {}, {}, FACTS)
    assert gone.status == "unverifiable" and "not in the corpus" in gone.reason
    no_fact = staleness(answer_case(concept="us-gaap:Revenues"), SHA, SUPERSEDED, FACTS)
    assert no_fact.status == "unverifiable" and "not found in acme-10ka_2023-10-16" in no_fact.reason


def score(case: FixtureCase, answer: str, retrieved: dict, cited: list[str], readable=frozenset({AMENDMENT})):
    row = case_row(case, staleness(case, SHA, SUPERSEDED, FACTS))
    filing_of = {chunk: chunk.split(":")[0] for chunk in [*retrieved, *cited]}
    return score_case(row, "answer", "answered", answer, retrieved, cited, filing_of, set(readable))


CURRENT = {f"{AMENDMENT}:0001": "| Net income | 655 | 601 |"}
OLD = {f"{ORIGINAL}:0001": "| Net income | 672 | 601 |"}


def test_a_changed_source_passes_only_on_the_new_figure_from_the_current_revision():
    passed = score(answer_case(), "Net income: $655 million [P1].", CURRENT, [f"{AMENDMENT}:0001"])
    assert passed["passed"], passed["failures"]
    checks = json.loads(passed["checks"])
    assert checks["old_figure_retrieved"] is False and checks["current_locator_cited"] is True

    repeated = score(answer_case(), "Net income: $672 million [P1].", CURRENT, [f"{AMENDMENT}:0001"])
    assert not repeated["passed"] and "repeats the old figure 672" in repeated["failures"]
    assert "figure:" in repeated["failures"]  # judged on the re-verified figure, not the one recorded

    from_original = score(answer_case(), "Net income: $655 million [P1].", {**CURRENT, **OLD}, [f"{ORIGINAL}:0001"])
    assert not from_original["passed"]
    assert "a retrieved passage prints the old figure 672" in from_original["failures"]
    assert "not only permitted current filings" in from_original["failures"]
    assert "acme-10ka_2023-10-16 is not cited" in from_original["failures"]


def test_a_barred_citation_or_a_wrong_route_fails_a_current_case():
    case = answer_case(
        evidence_filing_id=AMENDMENT,
        evidence_sha256=SHA[AMENDMENT],
        gold_value=655e6,
        gold_answer="$655 million",
        gold_displayed="655",
    )
    barred = score(case, "Net income: $655 million [P1].", CURRENT, [f"{AMENDMENT}:0001"], readable=frozenset())
    assert not barred["passed"] and "not only permitted current filings" in barred["failures"]
    row = case_row(case, staleness(case, SHA, SUPERSEDED, FACTS))
    declined = score_case(row, "no_answer", "model_declined", "", CURRENT, [], {}, {AMENDMENT})
    assert not declined["passed"] and declined["failures"].startswith("exited by no_answer")
    deny = FixtureCase("d1", "What was Acme's revenue?", "deny", "0000000001", 2023, (AMENDMENT,), role="retail")
    denied_row = case_row(deny, staleness(deny, SHA, SUPERSEDED, FACTS))
    assert score_case(denied_row, "deny", "barred", "", {}, [], {}, set())["passed"]
    assert not score_case(denied_row, "answer", "answered", "x", {}, [], {}, set())["passed"]


def test_prints_figure_reads_numbers_not_substrings():
    assert prints_figure("| Net income | 672 | 601 |", "672")
    assert not prints_figure("| Net income | 1,672 | 6720 |", "672")
    assert prints_figure("Goodwill of $1,204 million", "1,204")


def test_the_fixture_file_round_trips_and_refuses_malformed_lines():
    cases = [answer_case(), FixtureCase("n1", "What was Acme's R&D in 2018?", "no_answer", "1", 2018, (LATER,))]
    text = fixture_jsonl(cases)
    assert '"expected_route": "no-answer"' in text  # the exchange schema's spelling
    assert read_fixture(text, "f.jsonl") == sorted(cases, key=lambda c: c.case_id)
    with pytest.raises(FixtureError, match="line 1 is not JSON"):
        read_fixture("{", "f.jsonl")
    with pytest.raises(FixtureError, match="needs non-empty"):
        read_fixture(json.dumps({"case_id": "x"}), "f.jsonl")
    no_sha = json.loads(fixture_jsonl([answer_case()]))
    del no_sha["evidence_sha256"]
    with pytest.raises(FixtureError, match="evidence_sha256"):
        read_fixture(json.dumps(no_sha), "f.jsonl")
    with pytest.raises(FixtureError, match="a second case c1"):
        read_fixture(fixture_jsonl([answer_case()]) * 2, "f.jsonl")


def test_a_failed_fixture_case_holds_the_release_and_stale_cases_are_counted_apart():
    rules = ReleaseRules.from_toml(
        'version = "t"\n[[rules]]\nwhen = "fixture_case_failed"\ndecision = "hold"\n', "t.toml"
    )
    empty = pd.DataFrame(columns=["expected_route", "taken_route"])
    results = pd.DataFrame(
        [
            {"case_id": "a", "expected_route": "answer", "taken_route": "answer", "stale": False, "passed": True},
            {"case_id": "b", "expected_route": "answer", "taken_route": "answer", "stale": True, "passed": False},
        ]
    )
    checks = check_release(rules, empty, pd.DataFrame({"outcome": []}), results)
    assert release_decision(checks) == "hold" and "1 of 2 fixture cases failed (b)" in checks.evidence.iloc[0]
    assert release_decision(check_release(rules, empty, pd.DataFrame({"outcome": []}), None)) == "release"
    summary = fixture_summary(results)
    assert summary[["cases", "count", "passed"]].values.tolist() == [["current", 1, 1], ["stale", 1, 0]]
