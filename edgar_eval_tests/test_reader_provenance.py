"""A rule-based reader names the corpora it was tuned on, and a report of such a corpus marks its figures in-sample."""

from pathlib import Path

from edgar_eval.answering.answerer import ExtractiveGenerator, TableReaderGenerator, tuned_on
from edgar_eval.report.readme import report_table

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
