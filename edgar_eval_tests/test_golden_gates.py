"""The ten admission gates on the demo corpus's planted candidates: every good one accepted, every broken one stopped by
the gate that exists for its defect, with its reason."""

import json
from dataclasses import replace

import pandas as pd
import pytest

from edgar_eval.golden.absence import ANSWERED_IN_CORPUS, ReviewFileError, read_review_file
from edgar_eval.golden.admission import FAIL, GATES, build_gate_corpus, run_gates
from edgar_eval.golden.candidates import read_jsonl
from edgar_eval.golden.demo_candidates import SOURCE, demo_proposals
from edgar_eval.golden.pattern_set import (
    FreezeRefused,
    agreement,
    candidate_outcomes,
    freeze_patterns,
    select_balanced,
    verdict_frame,
)
from edgar_eval_tests.conftest import REPO


@pytest.fixture(scope="module")
def demo_gate_inputs(golden_inputs, demo_files):
    filings, _, chunks, texts, sections = golden_inputs
    truth = json.loads(demo_files["ground_truth.json"])
    by_path = dict(zip(filings.path, texts.set_index("filing_id").loc[filings.filing_id].text))
    candidates, problems = read_jsonl("".join(json.dumps(r) + "\n" for r in demo_proposals(truth, by_path)), SOURCE)
    assert not problems
    review_path = REPO / "reviews" / "demo" / "absence-v1.jsonl"
    reviews = read_review_file(review_path.read_text(), str(review_path))
    corpus = build_gate_corpus(filings, texts, sections, reviews, "reviews/demo/absence-v1.jsonl")
    return candidates, corpus, filings, chunks, texts


@pytest.fixture(scope="module")
def demo_run(demo_gate_inputs):
    candidates, corpus, *_ = demo_gate_inputs
    run = run_gates(candidates, corpus)
    return run, candidate_outcomes(verdict_frame(candidates, run)).set_index("candidate_id")


def test_every_pattern_is_planted_good_and_accepted(demo_gate_inputs, demo_run):
    candidates, *_ = demo_gate_inputs
    _, outcomes = demo_run
    good = [c for c in candidates if c.expected["why"] == "planted as a good case" and c.pattern != "D8"]
    assert {c.pattern for c in good} == {"D1", "D2", "D3", "D4", "D5", "D6", "D7"}
    assert all(outcomes.loc[c.candidate_id, "accepted"] for c in good), outcomes.loc[
        [c.candidate_id for c in good]
    ].reason.to_dict()


@pytest.mark.parametrize(
    "suffix, gate, reason_part",
    [
        ("one-word-off", "quote_verification", "text differs at 'plus'"),
        ("paraphrase", "quote_verification", "not found"),
        ("too-close", "pattern_conformance", "characters apart, under 4,000"),
        ("both-in-notes", "pattern_conformance", "all quotes sit inside the notes"),
        ("billions", None, ""),
        ("miss-2.5pct", "answer_support", "neither quoted nor one step"),
        ("wrong-direction", "direction", "decreased"),
        ("names-10k", "source_naming", "10-K"),
        ("36-words", "plain_english", "36"),
        ("no-period", "period", ""),
        ("no-company", "period", "names no company"),
        ("idle-document", "idle_evidence", "is idle"),
        ("one-filing", "pattern_conformance", "from one"),
        ("answer-printed", "absence_review", ANSWERED_IN_CORPUS),
    ],
)
def test_each_broken_candidate_is_stopped_by_its_own_gate(demo_run, suffix, gate, reason_part):
    _, outcomes = demo_run
    row = outcomes.loc[next(i for i in outcomes.index if i.endswith(f"-{suffix}"))]
    assert (None if row.accepted else row.failing_gate) == gate, row.reason
    assert reason_part in row.reason


def test_every_planted_candidate_gets_exactly_the_verdict_written_beside_it(demo_gate_inputs, demo_run):
    candidates, *_ = demo_gate_inputs
    _, outcomes = demo_run
    per_gate, differences = agreement(candidates, outcomes.reset_index())
    assert differences.empty, differences.to_dict("records")
    assert (per_gate.agree == len(candidates)).all()


def test_one_verdict_row_per_candidate_per_gate_and_text_gates_run_after_a_failure(demo_gate_inputs, demo_run):
    candidates, *_ = demo_gate_inputs
    run, _ = demo_run
    verdicts = verdict_frame(candidates, run)
    assert len(verdicts) == len(candidates) * len(GATES)
    paraphrase = verdicts[verdicts.candidate_id.str.endswith("-paraphrase")].set_index("gate").status
    assert paraphrase["quote_verification"] == FAIL and paraphrase["answer_support"] == "not_run"
    assert paraphrase["source_naming"] == "pass"  # measured anyway, so agreement is measurable per gate


def test_an_absence_decision_binds_the_wording_it_was_made_for(demo_gate_inputs):
    candidates, corpus, *_ = demo_gate_inputs
    absent = next(c for c in candidates if c.candidate_id == "DEMO-hvrn-D8")
    reworded = replace(absent, question=absent.question.replace("order backlog", "backlog of orders"))
    pending = replace(absent, candidate_id="DEMO-new-D8")
    run = run_gates([absent, reworded, pending], corpus)
    rows = [r for r in run.rows if r.gate == "absence_review"]
    assert rows[0].status == "pass" and "reviewed by" in rows[0].reason
    assert rows[1].status == FAIL and "another wording" in rows[1].reason
    assert rows[2].status == FAIL and "awaiting a review decision" in rows[2].reason


def test_the_absence_review_surfaces_a_printed_answer_table_rows_included(demo_gate_inputs, demo_run):
    run, _ = demo_run
    passages = run.passages["DEMO-hvrn-D8-answer-printed"]
    assert passages and any(p.is_table_row and "Research and development" in p.text for p in passages)
    assert run.passages["DEMO-hvrn-D8"] == []  # the demo filings never print a backlog


def test_a_malformed_review_file_stops_with_its_line():
    with pytest.raises(ReviewFileError, match="line 2"):
        read_review_file(
            '{"candidate_id": "a", "question_sha256": "x", "decision": "absent", "reason": "r", "reviewer": "p"}\n'
            '{"candidate_id": "b", "decision": "maybe"}\n',
            "reviews/x.jsonl",
        )


def test_unreadable_proposals_are_recorded_with_their_reason():
    text = (
        '{"id": "ok", "pattern": "D1", "question": "q?", "answer_type": "number", "gold_answer": "1", '
        '"evidence": [{"document": "d", "quote": "x"}], "requires_documents": 1}\n'
        "not json\n"
        '{"id": "bad", "pattern": "D9", "question": "", "answer_type": "guess", "gold_answer": "1", "evidence": []}\n'
    )
    candidates, problems = read_jsonl(text, "import:t.jsonl")
    assert [c.candidate_id for c in candidates] == ["ok"]
    assert "not JSON" in problems[0].reason
    assert all(word in problems[1].reason for word in ("pattern", "question", "answer_type", "evidence"))


def test_freezing_refuses_a_set_with_a_failing_case_and_balances_the_rest(demo_gate_inputs, demo_run):
    candidates, corpus, filings, chunks, texts = demo_gate_inputs
    run, outcomes = demo_run
    flat = outcomes.reset_index()
    selected = select_balanced(candidates, flat, per_pattern=1)
    assert [c.pattern for c in selected] == ["D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8"]
    pages = {r.filing_id: (list(r.page_starts), list(r.printed_pages)) for r in texts.itertuples()}
    sha = dict(zip(filings.filing_id, filings.sha256))
    frozen = freeze_patterns(selected, flat, run.placed, sha, chunks, pages)
    assert sum(r["difficulty"] == "two-document" for r in frozen.records) == 4
    assert all(e["chunk_ids"] and e["document_sha256"] in sha.values() for r in frozen.records for e in r["evidence"])
    assert frozen.content_hash == freeze_patterns(selected, flat, run.placed, sha, chunks, pages).content_hash
    broken = next(c for c in candidates if c.candidate_id.endswith("-paraphrase"))
    with pytest.raises(FreezeRefused, match="paraphrase"):
        freeze_patterns(selected + [broken], flat, run.placed, sha, chunks, pages)


def test_near_duplicates_keep_the_first_of_a_pair(demo_gate_inputs):
    candidates, corpus, *_ = demo_gate_inputs
    first = next(c for c in candidates if c.candidate_id == "DEMO-hvrn-D2")
    again = replace(
        first, candidate_id="DEMO-hvrn-D2-again", question=first.question.replace("employee severance", "severance")
    )
    rows = pd.DataFrame([r.__dict__ for r in run_gates([first, again], corpus).rows])
    duplicate = rows[(rows.gate == "near_duplicate")].set_index("candidate_id")
    assert duplicate.loc["DEMO-hvrn-D2", "status"] == "pass"
    assert (
        duplicate.loc["DEMO-hvrn-D2-again", "status"] == FAIL
        and "DEMO-hvrn-D2" in duplicate.loc["DEMO-hvrn-D2-again", "reason"]
    )


def test_a_question_frame_is_the_question_without_its_names_and_numbers():
    from edgar_eval.golden.admission import question_frame

    names = ("Halvern Robotics, Inc.", "Halvern")
    one = question_frame("What was Halvern's Industrial Systems revenue in fiscal 2024?", names)
    assert one == question_frame("What was Halvern's Service Robotics revenue in fiscal 2023?", names)
    assert one != question_frame("How did Halvern's Service Robotics revenue move in fiscal 2023?", names)
    assert one == "what was @ revenue in fiscal #"


@pytest.mark.parametrize(
    "sentence,defines",
    [
        ("Adobe Creative Cloud is a cloud-based subscription to a collection of apps.", True),
        ("Remaining performance obligations are contracted revenue that has not yet been recognized.", True),
        ("Free cash flow, which is a non-GAAP measure, equals operating cash flow less capital expenditures.", True),
        ("Level 1 refers to fair values determined based on quoted prices in active markets.", True),
        ("Organic growth means growth excluding acquisitions and currency.", True),
        ("Return on invested capital is defined as operating profit after tax divided by invested capital.", True),
        ("We define installed base as the number of units under an active service contract.", True),
        ("Interest expense represents interest associated with our debt instruments.", True),
        ("Revenue grew 5% in fiscal 2024, driven by higher volumes with our largest customers.", False),
        ("We sold more units in the quarter than a year earlier and expect the trend to continue next year.", False),
        (
            "Net sales for the quarter ended June 30 declined because demand in Europe and Asia was not as strong as "
            "planned.",
            False,
        ),
        ("Our results this quarter reflect the fact that demand is weak in Europe.", False),
        ("This is a risk we manage through our hedging program.", False),
        ("There are several factors that affect our margins.", False),
    ],
)
def test_the_definition_contract_reads_definitions_as_filings_write_them(sentence, defines):
    from edgar_eval.golden.patterns import defines_a_term

    assert defines_a_term(sentence) is defines


# Definitions as the shared filings print them, found there by their opening words (the filings are read by path,
# never copied): each must satisfy the D3 contract.
REAL_DEFINITIONS = [
    ("adbe/10k_2025-01-13.htm", "Adobe Creative Cloud is a"),
    ("ba/10k_2025-02-03.htm", "Level 1 refers to"),
    ("hd/10k_2025-03-21.htm", "We define ROIC as"),
    ("adbe/10k_2025-01-13.htm", "Interest expense represents"),
    ("crm/10k_2025-03-05.htm", "Data Cloud is our"),
    ("ko/10k_2025-02-20.htm", "Water is a main ingredient"),
]


@pytest.mark.parametrize("path,opening", REAL_DEFINITIONS)
def test_the_definition_contract_accepts_definitions_from_the_shared_filings(path, opening):
    from edgar_eval.corpus.parse import parse_filing
    from edgar_eval.corpus.sentences import sentence_spans
    from edgar_eval.golden.patterns import defines_a_term
    from edgar_eval_tests.conftest import REAL_CORPUS

    if not (REAL_CORPUS / path).is_file():
        pytest.skip(f"no real corpus at {REAL_CORPUS}")
    text = parse_filing((REAL_CORPUS / path).read_bytes()).text
    at = text.index(opening)
    sentence = next(text[s:e] for s, e in sentence_spans(text[at : at + 2000]) for s, e in [(s + at, e + at)])
    assert defines_a_term(sentence), sentence


def test_the_absence_review_shows_every_filing_of_the_scope_table_rows_first():
    from edgar_eval.golden.absence import absence_passages

    annual = "\n".join(f"| Backlog of segment {k} | {100 + k:,} | {90 + k:,} |" for k in range(20))
    quarterly = (
        "Overview of the quarter.\nWe no longer report backlog as a metric; backlog was 1,234 units at the end "
        "of the prior year.\n"
    )
    passages = absence_passages(
        "What was Acme's order backlog at the end of fiscal 2024?",
        {"acme-10k": annual, "acme-10q": quarterly},
        ("Acme",),
        limit=6,
    )
    by_filing = [p.filing_id for p in passages]
    assert "acme-10q" in by_filing and by_filing.count("acme-10k") == 5  # the 10-Q's sentence is not buried
    assert all(p.is_table_row for p in passages if p.filing_id == "acme-10k")
    assert by_filing == sorted(by_filing)  # shown filing by filing


@pytest.mark.parametrize(
    ("quote", "goes_on", "cut"),
    [
        # a list cut at a name's mark: the answer would name two of three drivers (independent audit, issue 60)
        (
            "higher net sales from advertising, the App Store",
            "® and cloud services. Services gross margin rose.",
            "and cloud services.",
        ),
        (
            "lower sales of phones, tablets",
            ", or wearables in the quarter; prices fell.",
            "or wearables in the quarter;",
        ),
        ("higher sales of phones, tablets and watches", ". The rest was flat.", None),  # the list ends in the quote
        ("revenue rose, driven by volume", ", partially offset by price.", None),  # another clause, not the list
        ("revenue rose driven by volume", " and price.", None),  # no list in the quote: a clause may go on
    ],
)
def test_a_prose_quote_stopping_inside_a_list_its_sentence_goes_on_with_is_cut_short(quote, goes_on, cut):
    from edgar_eval.golden.admission import list_cut_short

    text = f"Intro text. Net sales increased due primarily to {quote}{goes_on}"
    assert list_cut_short(quote, text, text.index(quote) + len(quote)) == cut
