"""The parser on real EDGAR filings from ../shared (read by path, never copied into the repo)."""

import csv

import pytest

from edgar_eval.corpus.parse import parse_filing
from edgar_eval.domain.filings import FilingError
from edgar_eval_tests.conftest import REAL_CORPUS

pytestmark = pytest.mark.skipif(not (REAL_CORPUS / "manifest.csv").is_file(), reason=f"no real corpus at {REAL_CORPUS}")


def _manifest():
    with (REAL_CORPUS / "manifest.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def parsed_real():
    outcomes = {}
    for row in _manifest():
        try:
            outcomes[row["path"]] = parse_filing((REAL_CORPUS / row["path"]).read_bytes())
        except FilingError as exc:  # anything else is a crash and fails the test
            outcomes[row["path"]] = exc
    return outcomes


def test_every_filing_parses_or_fails_with_a_clear_reason(parsed_real):
    parsed = {p: v for p, v in parsed_real.items() if not isinstance(v, FilingError)}
    assert len(parsed) >= 0.9 * len(parsed_real)
    for path, outcome in parsed_real.items():
        if isinstance(outcome, FilingError):
            assert str(outcome), path


def test_forms_ciks_and_fact_offsets_match_the_manifest(parsed_real):
    for row in _manifest():
        parsed = parsed_real[row["path"]]
        if isinstance(parsed, FilingError):
            continue
        assert parsed.meta.form == row["form"] and parsed.meta.cik == row["cik"], row["path"]
        located = [f for f in parsed.facts if f.is_numeric and f.offset is not None]
        assert located and all(parsed.text[f.offset:f.end] == f.displayed for f in located), row["path"]


def test_apple_fiscal_2024_annual_report(parsed_real):
    apple = parsed_real["aapl/10k_2024-11-01.htm"]
    assert apple.meta.fiscal_year == 2024 and apple.meta.fiscal_period == "FY" and apple.meta.fiscal_year_end == "--09-28"
    keys = {s.key for s in apple.sections}
    assert {"Part I Item 1", "Part I Item 1A", "Part II Item 7", "Part II Item 8"} <= keys
    revenue = [f for f in apple.facts if f.concept == "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
               and not f.context.dimensions and f.context.period_end.isoformat() == "2024-09-28" and f.context.period_start
               and (f.context.period_end - f.context.period_start).days > 350]
    assert revenue and {f.value for f in revenue} == {391_035_000_000.0}
    assert apple.notes_start is not None and apple.text[apple.notes_start:].startswith("Note 1")
