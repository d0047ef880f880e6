import hashlib

import pandas as pd
import pytest

from edgar_eval.adapters.local_corpus import partition_key
from edgar_eval.corpus.tables import chunks_frame, facts_frame, filing_frame
from edgar_eval.golden.templates import build_golden_questions


@pytest.fixture(scope="module")
def golden_inputs(demo_files, demo_parsed):
    filings, facts, chunks, texts = [], [], [], {}
    for path, parsed in sorted(demo_parsed.items()):
        key, sha = partition_key(path), hashlib.sha256(demo_files[path]).hexdigest()
        filings.append(filing_frame(key, path, sha, len(demo_files[path]), parsed, None))
        facts.append(facts_frame(key, sha, parsed))
        chunks.append(chunks_frame(key, sha, parsed, 1000, 200))
        texts[key] = parsed.text
    return pd.concat(filings), pd.concat(facts), pd.concat(chunks), texts


def test_golden_set_is_deterministic_and_has_every_kind(golden_inputs):
    golden = build_golden_questions(*golden_inputs, seed=7)
    assert golden.equals(build_golden_questions(*golden_inputs, seed=7))
    assert set(golden.kind) == {"answerable", "other_year", "other_company", "absent_concept"}
    assert golden.question_id.is_unique
    assert (golden[golden.kind == "answerable"].expected_route == "answer").all()
    assert (golden[golden.kind != "answerable"].expected_route == "no-answer").all()


def test_answerable_gold_chunks_print_the_figure_inside_the_scope(golden_inputs):
    filings, facts, chunks, texts = golden_inputs
    golden = build_golden_questions(filings, facts, chunks, texts, seed=7)
    chunk_text = dict(zip(chunks.chunk_id, chunks.text))
    chunk_filing = dict(zip(chunks.chunk_id, chunks.filing_id))
    for case in golden[golden.kind == "answerable"].itertuples():
        assert len(case.gold_chunk_ids) >= 1 and len(case.gold_pages) >= 1
        assert set(case.gold_filing_ids) <= set(case.scope_filing_ids)
        number = case.gold_answer.split()[0].lstrip("-$")
        for chunk_id in case.gold_chunk_ids:
            assert chunk_filing[chunk_id] in case.scope_filing_ids
            assert number in chunk_text[chunk_id], (case.question, chunk_id)
        assert str(case.fiscal_year) in case.question and case.company.split()[0] in case.question


def test_unanswerable_kinds_are_what_they_claim(golden_inputs):
    filings, facts, chunks, texts = golden_inputs
    golden = build_golden_questions(filings, facts, chunks, texts, seed=7)
    reported = set(facts.fiscal_year)
    for case in golden[golden.kind == "other_year"].itertuples():
        assert case.fiscal_year not in reported
    for case in golden[golden.kind == "other_company"].itertuples():
        assert case.company.split()[0] not in case.question
    for case in golden[golden.kind == "absent_concept"].itertuples():
        own = facts[facts.cik == case.cik]
        assert case.concept not in set(own.concept)
        company_text = " ".join(t for k, t in texts.items() if k in set(filings[filings.cik == case.cik].filing_id)).lower()
        assert case.label.split()[0][:6] not in company_text
