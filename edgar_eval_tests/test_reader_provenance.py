"""A rule-based reader names the corpora it was tuned on, and a report marks its figures in-sample exactly where the
run's filings (by sha256, not by the corpus's name) are among those."""

import csv
import hashlib
from pathlib import Path

import pandas as pd
import pytest

from edgar_eval.adapters.local_corpus import write_demo_corpus
from edgar_eval.answering.answerer import ExtractiveGenerator, TableReaderGenerator, tuned_on
from edgar_eval.answering.tuned_filings import TUNED_FILINGS
from edgar_eval.report.inputs import ReportInputs
from edgar_eval.report.reader_tables import readers_table, tuned_share
from edgar_eval.report.readme import report_table

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus"

REPORTS = Path(__file__).resolve().parents[1] / "reports"


def test_the_offline_readers_name_the_corpora_they_were_tuned_on_and_a_model_server_none():
    for reader in (TableReaderGenerator, ExtractiveGenerator):
        assert {"demo", "edgar"} <= set(tuned_on(reader.generator_id))
    assert tuned_on("llama.cpp:SmolLM2-135M") == ()


def test_the_committed_reports_of_tuned_corpora_say_in_sample():
    for corpus in ("demo", "edgar"):
        markdown = (REPORTS / corpus / "report.md").read_text(encoding="utf-8")
        assert "- In-sample: the arms read `table-reader/1`" in markdown
        marked = [row["reader"] for row in report_table(markdown, "Readers")]
        assert marked and all("(in-sample)" in reader for reader in marked), marked


def test_edgar_wide_is_in_sample_for_the_table_reader_on_the_filings_it_shares_with_edgar_only():
    markdown = (REPORTS / "edgar-wide" / "report.md").read_text(encoding="utf-8")
    marked = {row["reader"].split(" ")[0]: row["reader"] for row in report_table(markdown, "Readers")}
    assert "(in-sample on 31 of 100 filings)" in marked["table-reader/1"], marked
    assert "(in-sample)" in marked["composing-reader/1"], marked  # its question shapes were written on all three


def test_the_tuned_filings_are_the_shared_manifests_and_the_demo_generators_output(tmp_path):
    write_demo_corpus(str(tmp_path))
    demo = {hashlib.sha256(path.read_bytes()).hexdigest() for path in tmp_path.rglob("*.htm")}
    assert demo == TUNED_FILINGS["demo"], "the demo generator changed: write its sha256s into tuned_filings.py"
    for corpus in ("edgar", "edgar-wide"):
        manifest = SHARED / corpus / "manifest.csv"
        if not manifest.exists():
            pytest.skip("../shared is not beside the checkout")
        with manifest.open(newline="") as rows:
            assert {row["sha256"] for row in csv.DictReader(rows)} == TUNED_FILINGS[corpus], corpus


def _readers_inputs(corpus_name: str, hashes: list[str]) -> ReportInputs:
    empty = pd.DataFrame()
    readers = pd.DataFrame(
        {
            "reader": ["table-reader/1"],
            "questions": [10],
            "gold_chunk_retrieved": [8],
            "right": [5],
            "right_share": [0.5],
            "right_low": [0.24],
            "right_high": [0.76],
            "right_when_gold_retrieved": [0.6],
            "wrong": [1],
            "declined": [4],
        }
    )
    tables = dict.fromkeys(
        ("golden", "golden_set", "rejections", "retrieval", "slices", "arms", "comparisons", "gates"), empty
    )
    tables |= dict.fromkeys(("gate_differences", "determinism", "latency", "costs", "mutations"), empty)
    return ReportInputs(
        corpus_name=corpus_name,
        filings=pd.DataFrame({"sha256": hashes}),
        left_out={},
        generations=pd.DataFrame({"generator_id": ["table-reader/1"]}),
        risk_curves={},
        index_fingerprint="{}",
        settings={"top_k": 30, "answer_retriever": "hybrid"},
        readers=readers,
        **tables,
    )


@pytest.mark.parametrize(
    "corpus_name, hashes, share, label",
    [
        ("edgar", ["0" * 64, "1" * 64], (0, 2), "table-reader/1 (the arms read this one)"),
        ("mine", sorted(TUNED_FILINGS["edgar"])[:3], (3, 3), "table-reader/1 (in-sample) (the arms read this one)"),
        (
            "mine",
            [*sorted(TUNED_FILINGS["edgar"])[:3], "0" * 64],
            (3, 4),
            "table-reader/1 (in-sample on 3 of 4 filings) (the arms read this one)",
        ),
    ],
    ids=["a folder of your own named edgar", "tuned filings under another name", "some tuned, some not"],
)
def test_in_sample_is_read_from_the_filings_not_the_corpus_name(corpus_name, hashes, share, label):
    inputs = _readers_inputs(corpus_name, hashes)
    assert tuned_share(inputs, "table-reader/1") == share
    table = readers_table(inputs)
    assert list(table.frame.reader) == [label]
    assert ("No reader's rules were tuned on these filings" in (table.note or "")) == (share[0] == 0)
