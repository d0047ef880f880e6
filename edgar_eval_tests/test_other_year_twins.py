"""Other-year twins a reader can get wrong: they ask the fiscal year after the company's latest report, whose scope
falls back to the latest annual report, which prints the neighbouring years' columns. A constructed reader that takes
the nearest column answers them (wrongly) from the scope's passages that print the line item; the period guard,
reading the years those same passages print (never the tagged facts the builder chose the year from), declines them;
so arm D differs from arm A, which it could not when every twin asked a year no column of its scope stood near."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from edgar_eval.answering.period_guard import period_guard, printed_years
from edgar_eval.evaluation.abstention import mask_arms
from edgar_eval.golden.templates import build_golden_questions

_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_FIGURE = re.compile(r"^\(?\$?\s*\d[\d,]*(?:\.\d+)?\)?$")


@pytest.fixture(scope="module")
def demo_build(golden_inputs):
    return build_golden_questions(*golden_inputs, seed=7)


def nearest_column_reader(label_row: str, text: str, asked_year: int) -> str | None:
    """Reads the table row that begins with `label_row`'s label and takes the column whose header year is nearest
    the asked one: the period mistake a careless reader makes."""
    label = label_row.strip().strip("|").split("|")[0].strip()
    lines = text.splitlines()
    for k, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or cells[0] != label:
            continue
        figures = [c for c in cells[1:] if _FIGURE.match(c) and not _YEAR.fullmatch(c)]
        start = k
        while start > 0 and lines[start - 1].startswith("|"):
            start -= 1
        years = [int(y) for header in lines[start:k] for y in _YEAR.findall(header)]
        header_years = list(dict.fromkeys(years))
        if figures and header_years and len(figures) >= len(header_years):
            nearest = min(range(len(header_years)), key=lambda i: abs(header_years[i] - asked_year))
            return f"{label}: {figures[nearest]}"
    return None


def _row_label(quote: str) -> str:
    return quote.strip().strip("|").split("|")[0].strip()


def test_other_year_twins_ask_the_year_after_the_latest_and_a_nearest_column_reader_answers_them(
    golden_inputs, demo_build
):
    filings, facts, chunks, _, _ = golden_inputs
    golden = demo_build.questions
    twins = golden[golden.kind == "other_year"]
    assert len(twins)
    chunks_of = chunks.groupby("filing_id").text.agg(list)
    answerable = golden[golden.kind == "answerable"]
    rows = []
    for twin in twins.itertuples():
        # how the builder chose the year (its answer key, read here to check the builder, not by the guard)
        latest = filings[filings.cik == twin.cik].fiscal_year.max()
        tagged_years = set(facts[facts.cik == twin.cik].fiscal_year.dropna().astype(int))
        first_untagged = next(y for y in range(latest + 1, latest + 10) if y not in tagged_years)
        assert twin.fiscal_year == first_untagged, "the first year after the latest report that nothing is tagged for"
        (scope_filing,) = twin.scope_filing_ids
        assert filings.set_index("filing_id").form[scope_filing] == "10-K", "its scope falls back to the 10-K"
        source = answerable[(answerable.cik == twin.cik) & (answerable.concept == twin.concept)]
        # what the generator reads: the scope's passages that print the line item's row
        passages = [
            text for text in chunks_of[scope_filing] if any(f"| {_row_label(q)} |" in text for q in source.gold_quote)
        ]
        answer = next(
            (
                read
                for quote in source.gold_quote
                for text in passages
                if (read := nearest_column_reader(quote, text, twin.fiscal_year))
            ),
            None,
        )
        printed = printed_years(passages)
        assert twin.fiscal_year not in printed
        rows.append(
            {
                "question_id": twin.question_id,
                "cik": twin.cik,
                "split": "dev",
                "kind": twin.kind,
                "expected_route": twin.expected_route,
                "answered": answer is not None,
                "outcome": "answered" if answer else "model_declined",
                "figure_correct": False,
                "generate_seconds": 0.0,
                "period_pass": period_guard(twin.question, printed).passes,
                "cosine_pass": True,
                "relevance_pass": True,
            }
        )
    frame = pd.DataFrame(rows)
    assert frame.answered.mean() > 0.5, "the scope prints a neighbouring year's column for most twins"
    assert not frame.period_pass.any(), "the period guard declines every one: the passages print no period of its year"
    gates = frame.loc[:, ["question_id", "cik", "split", "period_pass", "cosine_pass", "relevance_pass"]]
    generations = frame.loc[
        :, ["question_id", "answered", "outcome", "figure_correct", "expected_route", "kind", "generate_seconds"]
    ]
    outcomes = mask_arms(gates, generations).set_index(["arm", "question_id"]).correct
    a, d = outcomes["A"], outcomes["D"]
    discordant = int(np.sum(a.to_numpy() != d.to_numpy()))
    assert discordant == int(frame.answered.sum()) > 0, "arm D is right on every twin arm A answers"
    assert not a[frame.set_index("question_id").answered].any()
