"""Counts one report states twice agree (issue 60: a report said 200 awaiting review where its own table counted 202,
and counted 131 questions in its evidence-filing table against 127 two-document ones). Each pair is read from the
committed reports as a reader would, section against section."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from edgar_eval.golden.two_documents import TWO_DOCUMENT_KINDS
from edgar_eval.report.readme import report_table

REPORTS = Path(__file__).resolve().parents[1] / "reports"
CORPORA = ("demo", "edgar", "edgar-wide")


def _markdown(corpus: str) -> str:
    return (REPORTS / corpus / "report.md").read_text(encoding="utf-8")


def _kinds(markdown: str) -> dict[str, int]:
    return {row["kind"]: int(row["questions"]) for row in report_table(markdown, "Golden questions")}


def _denominator(cell: str) -> int:
    """The n of a "12.3% (k/n)" cell."""
    found = re.search(r"\((\d+)/(\d+)\)", cell)
    assert found, cell
    return int(found.group(2))


def _section(markdown: str, title: str) -> str:
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", markdown, re.M | re.S)
    assert found, title
    return found.group(1)


@pytest.mark.parametrize("corpus", CORPORA)
def test_the_two_document_questions_are_counted_alike_in_every_section(corpus):
    markdown = _markdown(corpus)
    kinds = _kinds(markdown)
    two_document = sum(kinds.get(kind, 0) for kind in TWO_DOCUMENT_KINDS)
    allows = {
        row["kind"]: int(row["questions"])
        for row in report_table(markdown, "Two-document questions: what the corpus allows")
    }
    assert {kind: n for kind, n in allows.items() if n} == {k: kinds[k] for k in TWO_DOCUMENT_KINDS if kinds.get(k)}
    evidence = report_table(markdown, "Retrieval per evidence filing (two-document questions)")
    assert evidence and {int(row["questions"]) for row in evidence} == {two_document}, (two_document, evidence)
    readers = [row for row in report_table(markdown, "Readers") if row["documents"] == "two filings"]
    assert readers and {_denominator(row["right"]) for row in readers} == {two_document}
    for row in report_table(markdown, "Readers"):
        kind = row["documents"].removeprefix("two filings: ")
        if kind in TWO_DOCUMENT_KINDS:
            assert _denominator(row["right"]) == kinds[kind], row


@pytest.mark.parametrize("corpus", CORPORA)
def test_the_absent_concept_candidates_sentence_says_what_its_table_sums(corpus):
    markdown = _markdown(corpus)
    section = _section(markdown, "Absent-concept candidates per filing")
    said = re.search(r"(\d+) admitted of (\d+) candidates in (\d+) filings.*?(\d+) awaiting review", section, re.S)
    assert said, section[:400]
    rows = report_table(markdown, "Absent-concept candidates per filing")
    sums = [sum(int(row[column]) for row in rows) for column in ("admitted", "candidates", "awaiting review")]
    assert [int(said.group(n)) for n in (1, 2, 4)] == [sums[0], sums[1], sums[2]]
    assert int(said.group(3)) == len(rows)
    assert int(said.group(1)) == _kinds(markdown).get("absent_concept", 0)
