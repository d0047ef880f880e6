"""Every line-by-line input the run reads, fed bad lines. Proposals (a file's lines, a proposer model's replies) keep
each bad line as an unreadable proposal, and the report's funnel, computed from the stored rows, counts every one; a
file of a person's decisions (absence reviews, absent-concept verdicts, audit verdicts, receipt overrides) or of
must-pass cases stops at its first bad line, naming the file and the line: a decision is never guessed, and no count
is made from part of a file. test_made_again runs the graph on such a proposals file and reads the report."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from edgar_eval.golden.candidates import PATTERNS, read_jsonl
from edgar_eval.golden.excerpts import Excerpt, ExcerptBundle
from edgar_eval.golden.pattern_set import UNKNOWN_PATTERN, funnel
from edgar_eval.golden.proposal_prompt import parse_proposals
from edgar_eval.golden.proposal_table import proposal_candidates, proposal_row, proposals_frame
from edgar_eval.report.golden_tables import funnel_table


def _proposal(candidate_id: str, pattern: str) -> dict:
    return {
        "id": candidate_id,
        "pattern": pattern,
        "question": "What was Acme's revenue for fiscal 2024?",
        "answer_type": "number",
        "gold_answer": "12",
        "evidence": [{"document": "acme/10k.htm", "quote": "Revenue was $12 million"}],
        "requires_documents": 1,
    }


def _report_funnel(proposals: pd.DataFrame) -> pd.DataFrame:
    """The funnel table as the report prints it, from a stored golden_proposals table: every readable candidate is
    judged (here: each fails its first gate, which moves no count of proposed or unreadable)."""
    candidates = proposal_candidates(proposals)
    outcomes = pd.DataFrame(
        {
            "candidate_id": [c.candidate_id for c in candidates],
            "pattern": [c.pattern for c in candidates],
            **{
                stage: [False] * len(candidates) for stage in ("quotes_verified", "conforming", "supported", "accepted")
            },
        }
    )
    return funnel_table(funnel(outcomes, proposals, set())).frame.set_index("pattern")


def test_a_proposals_file_s_bad_lines_are_each_stored_and_counted():
    lines = [
        json.dumps(_proposal("a", "D1")),
        "{not json",  # no pattern can be read
        json.dumps([1, 2]),  # not an object
        json.dumps({**_proposal("b", "D4"), "answer_type": "guess"}),  # D4, a field wrong
        json.dumps({**_proposal("c", "D9")}),  # a pattern that does not exist
        json.dumps(_proposal("a", "D1")),  # the same id twice
        "",  # a blank line is no proposal
        json.dumps(_proposal("d", "D8")),
    ]
    candidates, problems = read_jsonl("\n".join(lines), "import:bad.jsonl")
    stored = proposals_frame([proposal_row(c) for c in candidates] + [proposal_row(p) for p in problems])
    assert len(stored) == 7 and (stored.unreadable_reason != "").sum() == 5
    table = _report_funnel(stored)
    assert table.loc["all", "proposed"] == 7 and table.loc["all", "unreadable"] == 5
    assert table.loc[UNKNOWN_PATTERN, "proposed"] == 3, "not JSON, not an object, and D9 name no known pattern"
    assert (table.loc["D1", "proposed"], table.loc["D1", "unreadable"]) == (2, 1)
    assert (table.loc["D4", "proposed"], table.loc["D4", "unreadable"]) == (1, 1)
    assert (table.loc["D8", "proposed"], table.loc["D8", "unreadable"]) == (1, 0)


def test_an_id_taken_by_another_source_is_stored_unreadable_and_counted_once():
    first = proposal_row(read_jsonl(json.dumps(_proposal("x", "D2")), "import:one.jsonl")[0][0])
    second = proposal_row(read_jsonl(json.dumps(_proposal("x", "D3")), "import:two.jsonl")[0][0])
    stored = proposals_frame([first, second])
    assert list(stored.unreadable_reason) == ["", "duplicate candidate id: import:one.jsonl proposed x first"]
    assert [c.source for c in proposal_candidates(stored)] == ["import:one.jsonl"]
    table = _report_funnel(stored)
    assert table.loc["all", "proposed"] == 2 and table.loc["D3", "unreadable"] == 1


def test_a_funnel_without_unreadable_lines_has_no_row_for_them():
    """The committed reports' funnels hold none: their tables keep their shape."""
    stored = proposals_frame([proposal_row(read_jsonl(json.dumps(_proposal("a", "D1")), "import:x")[0][0])])
    assert list(_report_funnel(stored).index) == [*PATTERNS, "all"]


def test_a_proposer_model_s_bad_replies_are_each_stored_and_counted():
    bundle = ExcerptBundle("D5", "0000000042", (Excerpt("f:0-10", "f", "acme/8k.htm", "Item 8.01", 0, 10, "text"),))
    replies = [
        "I cannot help with that.",  # no array
        "<think>the revenue seems",  # cut off while thinking
        "[]",  # proposes nothing
        json.dumps([_proposal("m1", "D5"), {"question": "half a proposal"}]),  # one good, one bad element
    ]
    rows = []
    for number, reply in enumerate(replies):
        candidates, problems = parse_proposals(reply, bundle, f"chat:model-{number}")
        rows += [proposal_row(c) for c in candidates] + [proposal_row(p, bundle.pattern) for p in problems]
    table = _report_funnel(proposals_frame(rows))
    assert (table.loc["D5", "proposed"], table.loc["D5", "unreadable"]) == (5, 4)
    assert table.loc["all", "proposed"] == 5


def _decision_files():
    from edgar_eval.evaluation.receipts import read_override_file
    from edgar_eval.evaluation.release_fixture import read_fixture
    from edgar_eval.golden.absence import read_absent_concept_reviews, read_review_file
    from edgar_eval.golden.audit import read_audit_file

    review = {"candidate_id": "a", "question_sha256": "s", "decision": "absent", "reason": "r", "reviewer": "p"}
    verdict = {"question_id": "q", "case_sha256": "s", "verdict": "absent", "reason": "r", "reviewer": "p"}
    audit = {
        "case_id": "c",
        "case_sha256": "s",
        "verdict": "correct",
        "reason": "r",
        "reviewer": "p",
        "reviewer_role": "independent",
    }
    override = {"case_id": "c", "case_version": "v", "result": "pass", "reason": "r", "reviewer": "p"}
    fixture = {
        "case_id": "f",
        "question": "q?",
        "expected_route": "deny",
        "cik": "1",
        "fiscal_year": 2024,
        "scope_filing_ids": ["a"],
    }
    return {
        "reviews/<corpus>/absence-v1.jsonl": (read_review_file, review, "decision"),
        "reviews/<corpus>/absent-concept-v1.jsonl": (read_absent_concept_reviews, verdict, "verdict"),
        "reviews/<corpus>/audit-v2.jsonl": (read_audit_file, audit, "verdict"),
        "reviews/<corpus>/receipts-v1.jsonl": (read_override_file, override, "result"),
        "fixtures/<corpus>/release-v1.jsonl": (read_fixture, fixture, "expected_route"),
    }


@pytest.mark.parametrize("kind", list(_decision_files()))
@pytest.mark.parametrize("bad", ["not json", "a wrong choice", "a field missing"])
def test_a_file_of_decisions_stops_at_its_first_bad_line_naming_file_and_line(kind, bad):
    read, good, choice = _decision_files()[kind]
    assert read(json.dumps(good) + "\n", kind), "the good line is read"
    broken = {
        "not json": "{the reviewer's notes",
        "a wrong choice": json.dumps({**good, choice: "perhaps"}),
        "a field missing": json.dumps({key: value for key, value in good.items() if key != choice}),
    }[bad]
    with pytest.raises(ValueError, match=rf"^{kind} line 3"):
        read("\n".join([json.dumps(good), "", broken, json.dumps(good)]), kind)
