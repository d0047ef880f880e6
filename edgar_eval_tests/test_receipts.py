"""Per-case receipts: the evaluator's result per route, locators with the filing's sha256, and a reviewer's override
pinned to the case version."""

import json

import pandas as pd
import pytest

from edgar_eval.evaluation.receipts import OverrideFileError, build_receipts, read_override_file, receipts_jsonl

OUTCOMES = pd.DataFrame(
    {
        "case_id": ["q-right", "q-wrong", "q-none", "clarify:q", "deny:q"],
        "source": ["golden_questions"] * 3 + ["route_cases"] * 2,
        "rule": ["answerable", "answerable", "other_year", "clarify_period", "deny_company"],
        "expected_route": ["answer", "answer", "no_answer", "clarify", "deny"],
        "taken_route": ["answer", "answer", "answer", "clarify", "retrieval"],
        "reason": ["ok", "ok", "ok", "no period", "not routed before retrieval"],
        "route_from": ["abstained flag"] * 3 + ["router"] * 2,
    }
)
CASES = pd.DataFrame(
    {
        "case_id": list(OUTCOMES.case_id),
        "question": ["Q1?", "Q2?", "Q3?", "Q4?", "Q5?"],
        "owner": ["o"] * 5,
        "case_version": ["v1", "v2", "v3", "v4", "v5"],
        "role": ["analyst"] * 4 + ["retail"],
    }
)
GENERATIONS = pd.DataFrame(
    {
        "question_id": ["q-right", "q-wrong", "q-none"],
        "answer_text": ["$5 [P1]", "$6 [P1]", "$7 [P2]"],
        "cited_chunk_ids": [["f1:00001"], ["f1:00001"], ["f2:00003"]],
    }
)


def _receipts(overrides=None) -> dict[str, dict]:
    receipts = build_receipts(
        OUTCOMES,
        CASES,
        {"q-right": ["f1:00001", "f2:00003"], "q-wrong": ["f1:00001"], "q-none": ["f2:00003"]},
        GENERATIONS,
        {"q-right": True, "q-wrong": False, "q-none": False},
        {"f1:00001": ("4", "5"), "f2:00003": ("p1",)},
        {"f1": "a" * 64, "f2": "b" * 64},
        overrides or {},
    )
    return {r["case_id"]: r for r in receipts}


def test_each_route_is_judged_and_every_locator_names_its_filing_bytes():
    receipts = _receipts()
    assert {case: r["result"] for case, r in receipts.items()} == {
        "q-right": "pass",
        "q-wrong": "fail",  # answered, but not the gold figure
        "q-none": "fail",  # should have been withheld
        "clarify:q": "pass",
        "deny:q": "fail",  # let through to retrieval
    }
    assert receipts["q-wrong"]["result_detail"] == "answered, but not with the gold figure"
    assert receipts["q-right"]["retrieved"] == [
        {"filing": "f1", "sha256": "a" * 64, "pages": ["4", "5"], "chunk": "f1:00001"},
        {"filing": "f2", "sha256": "b" * 64, "pages": ["p1"], "chunk": "f2:00003"},
    ]
    assert receipts["q-none"]["cited"] == [{"filing": "f2", "sha256": "b" * 64, "pages": ["p1"], "chunk": "f2:00003"}]
    assert receipts["clarify:q"]["retrieved"] == [] and receipts["clarify:q"]["answer"] == ""
    assert receipts["deny:q"]["role"] == "retail" and receipts["deny:q"]["case_version"] == "v5"
    lines = receipts_jsonl(list(receipts.values())).splitlines()
    assert [json.loads(line)["case_id"] for line in lines] == list(receipts)


def test_an_override_applies_to_its_case_version_only():
    text = "\n".join(
        json.dumps(line)
        for line in (
            {"case_id": "q-wrong", "case_version": "v2", "result": "pass", "reason": "gold is wrong", "reviewer": "r"},
            {"case_id": "q-none", "case_version": "v0", "result": "pass", "reason": "old", "reviewer": "r"},
        )
    )
    receipts = _receipts(read_override_file(text, "reviews/x/receipts-v1.jsonl"))
    assert receipts["q-wrong"]["override_status"] == "applied" and receipts["q-wrong"]["final_result"] == "pass"
    assert receipts["q-wrong"]["result"] == "fail"  # the evaluator's own result stays on the receipt
    assert receipts["q-none"]["override_status"] == "stale" and receipts["q-none"]["final_result"] == "fail"
    assert receipts["q-right"]["override_status"] == "none" and receipts["q-right"]["override"] is None


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "line 1 is not JSON"),
        ('{"case_id": "a", "case_version": "v", "result": "maybe", "reason": "x", "reviewer": "r"}', "result must be"),
        ('{"case_id": "a", "case_version": "", "result": "pass", "reason": "x", "reviewer": "r"}', "needs non-empty"),
    ],
)
def test_a_malformed_override_file_is_refused_with_its_line(line, message):
    with pytest.raises(OverrideFileError, match=message):
        read_override_file(line, "reviews/x/receipts-v1.jsonl")
