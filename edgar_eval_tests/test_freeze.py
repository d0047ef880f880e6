import json

import pytest

from edgar_eval.golden.freeze import freeze, split_by_company
from edgar_eval.golden.templates import build_golden_questions
from edgar_eval.golden.two_documents import TWO_DOCUMENT_KINDS


def test_split_is_by_company_seeded_and_covers_both_sides():
    ciks = [f"{i:010d}" for i in range(17)] * 3
    splits = split_by_company(ciks, seed=7)
    assert split_by_company(list(reversed(ciks)), seed=7) == splits
    assert sorted(splits.values()).count("dev") == 8 and sorted(splits.values()).count("eval") == 9
    assert split_by_company(ciks, seed=8) != splits
    assert split_by_company(["1"], seed=7) == {"1": "eval"}


def test_frozen_export_is_valid_json_lines_in_the_brief_schema_with_a_stable_hash(golden_inputs):
    filings = golden_inputs[0]
    golden = build_golden_questions(*golden_inputs, seed=7).questions
    shas = dict(zip(filings.filing_id, filings.sha256))
    frozen = freeze(golden, shas, seed=7)
    assert freeze(golden.sample(frac=1, random_state=3), shas, seed=7).content_hash == frozen.content_hash
    records = [json.loads(line) for line in frozen.jsonl.splitlines()]
    assert len(records) == len(golden) and sum(frozen.split_counts.values()) == len(golden)
    for record in records:
        assert {
            "id",
            "question",
            "reference_answer",
            "expected_route",
            "evidence",
            "question_type",
            "pattern",
            "difficulty",
            "period",
            "provenance",
            "notes",
            "split",
        } <= set(record)
        if record["expected_route"] == "answer":
            assert record["reference_answer"] and record["evidence"]
            quoted = [e for e in record["evidence"] if e["quotes"]]
            assert quoted and all(len(e["document_sha256"]) == 64 and e["chunk_ids"] for e in record["evidence"])
            if record["question_type"] not in TWO_DOCUMENT_KINDS:
                number = record["reference_answer"].split()[0].lstrip("-$")
                assert number in quoted[0]["quotes"][0], "the quote is the line that prints the answer"
            else:  # a two-document case: each evidence filing with the line of its figure
                assert len(record["evidence"]) >= 2, record["question"]
        elif record["expected_route"] == "review":  # one figure, two values: both filings are its evidence
            assert record["reference_answer"] is None and len(record["evidence"]) == 2
            assert all(len(e["document_sha256"]) == 64 for e in record["evidence"])
        else:
            assert record["reference_answer"] is None and record["evidence"] == []
    by_company = {}
    for record in records:
        by_company.setdefault(record["company_cik"], set()).add(record["split"])
    assert all(len(splits) == 1 for splits in by_company.values())


@pytest.mark.slow(minutes=0.8)  # materialises graph runs: seconds, not milliseconds
def test_a_pinned_version_is_never_silently_replaced(tmp_path, demo_files):
    import dagster as dg

    from edgar_eval.defs.factory import build_definitions
    from edgar_eval.defs.runner import materialise_corpus, materialise_evaluation
    from edgar_eval.defs.settings import EvalSettings

    for path in ("hvrn/10k_2025-02-20.htm", "crvd/10k_2024-03-22.htm"):
        (tmp_path / "corpus" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "corpus" / path).write_bytes(demo_files[path])

    def settings(seed):
        return EvalSettings(
            corpus_dir=str(tmp_path / "corpus"),
            corpus_name="frozen",
            data_dir=str(tmp_path / "data"),
            reports_dir=str(tmp_path / "reports"),
            golden_version="pinned-v1",
            golden_seed=seed,
        )

    instance = dg.DagsterInstance.ephemeral()
    assert materialise_corpus(build_definitions(settings(7)), instance) == {}
    assert materialise_evaluation(build_definitions(settings(7)), instance) is None
    export = tmp_path / "data" / "frozen" / "golden" / "pinned-v1.jsonl"
    frozen = export.read_bytes()
    assert materialise_evaluation(build_definitions(settings(7)), instance) is None, (
        "the same content refreezes quietly"
    )
    error = materialise_evaluation(build_definitions(settings(8)), instance)
    assert error is not None and "is frozen at" in error and "name a new golden_version" in error
    assert export.read_bytes() == frozen
