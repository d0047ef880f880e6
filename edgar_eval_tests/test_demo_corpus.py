import csv
import hashlib
import io
import json
import re
from datetime import date

import pytest

from edgar_eval.synthetic.demo import COMPANIES, DEMO_SEED, RESTATED_TAX_INCREASE, build_financials, demo_corpus_files


def _locate(parsed, evidence):
    """Offset of a ground-truth quote in the clean text: prose verbatim, a table row cell by cell in one line."""
    text = parsed.text
    if evidence["kind"] == "prose":
        offset = text.find(evidence["quote"])
        assert offset >= 0, evidence["quote"]
        return offset
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            position = 0
            for wanted in evidence["cells"]:
                try:
                    position = cells.index(wanted, position) + 1
                except ValueError:
                    break
            else:
                return offset
        offset += len(line)
    raise AssertionError(f"no table row with cells {evidence['cells']}")


def test_same_seed_same_bytes_and_another_seed_other_bytes(demo_files):
    assert demo_corpus_files() == demo_files
    other = demo_corpus_files(seed=1)
    assert other["manifest.csv"] != demo_files["manifest.csv"]


def test_three_companies_each_with_the_five_filings_and_one_amendment(demo_parsed):
    forms, amendments = {}, []
    for path, parsed in demo_parsed.items():
        forms.setdefault(parsed.meta.cik, []).append(parsed.meta.form)
        if parsed.meta.amendment:
            amendments.append(path)
    assert len(forms) == 3
    for cik, filed in forms.items():
        extra = ["10-K"] if cik == "0009000003" else []  # Maribel's 10-K/A is read as the 10-K it amends
        assert sorted(filed) == sorted(["10-K", "10-K", "10-Q", "8-K", "DEF 14A", *extra]), cik
    assert amendments == ["mrbl/10ka_2023-10-16.htm"]


def test_the_amendment_restates_one_tax_figure_and_the_later_10k_prints_the_restated_comparatives(demo_parsed):
    """The 10-K/A changes the fiscal 2023 income tax line (and net income, EPS) and nothing else of the income
    statement and balance sheet; the fiscal 2024 10-K prints the restated fiscal 2023 figures."""

    def figures(path: str) -> dict:
        return {
            (f.concept, f.context.period_start): f.value
            for f in demo_parsed[path].facts
            if f.is_numeric and not f.context.dimensions and f.context.period_end == date(2023, 6, 30)
        }

    original, amended = figures("mrbl/10k_2023-08-21.htm"), figures("mrbl/10ka_2023-10-16.htm")
    later = figures("mrbl/10k_2024-08-20.htm")
    changed = {key for key in original if key in amended and original[key] != amended[key]}
    assert {concept for concept, _ in changed} == {
        "us-gaap:IncomeTaxExpenseBenefit",
        "us-gaap:NetIncomeLoss",
        "us-gaap:EarningsPerShareBasic",
        "us-gaap:EarningsPerShareDiluted",
    }
    net = ("us-gaap:NetIncomeLoss", date(2022, 7, 1))
    assert original[net] - amended[net] == RESTATED_TAX_INCREASE * 1e6
    assert later[net] == amended[net]


def _manifest(demo_files):
    return list(csv.DictReader(io.StringIO(demo_files["manifest.csv"].decode())))


def test_manifest_matches_the_bytes(demo_files):
    rows = _manifest(demo_files)
    assert len(rows) == 16
    for row in rows:
        assert len(demo_files[row["path"]]) == int(row["bytes"])
        assert hashlib.sha256(demo_files[row["path"]]).hexdigest() == row["sha256"]


def test_every_pattern_is_planted_and_its_evidence_is_where_the_pattern_says(demo_files, demo_parsed):
    truth = json.loads(demo_files["ground_truth.json"])
    patterns = {case["pattern"] for case in truth["patterns"]}
    assert patterns == {f"D{i}" for i in range(1, 9)}
    filed = {row["path"]: row["filed"] for row in _manifest(demo_files)}
    for case in truth["patterns"]:
        located = [(e, demo_parsed[e["document"]], _locate(demo_parsed[e["document"]], e)) for e in case["evidence"]]
        forms = [parsed.meta.form for _, parsed, _ in located]
        kinds = [e["kind"] for e, _, _ in located]
        pattern = case["pattern"]
        if pattern in ("D1", "D2", "D3"):
            (_, doc_a, a), (_, doc_b, b) = located[:2]
            assert doc_a is doc_b and abs(a - b) >= 4000, (pattern, case["company"], abs(a - b))
        if pattern == "D1":
            assert sorted(kinds) == ["prose", "table_row"]
        if pattern == "D2":
            notes = located[0][1].notes_start
            assert located[0][2] < notes <= located[1][2]
        if pattern == "D4":
            assert sorted(forms) == ["10-K", "10-Q"]
        if pattern == "D5":
            assert forms == ["8-K", "10-Q"]
            assert filed[case["evidence"][0]["document"]] < filed[case["evidence"][1]["document"]]
            numbers = [re.findall(r"\$(\d+) million", e["quote"])[0] for e in case["evidence"]]
            assert numbers[0] != numbers[1], "the recorded charge differs from the announced estimate"
        if pattern == "D6":
            assert sorted(forms) == ["10-K", "DEF 14A"]
        if pattern == "D7":
            first, restated = float(case["evidence"][0]["cells"][1]), float(case["evidence"][1]["cells"][2])
            assert len({e["document"] for e in case["evidence"]}) == 2
            assert abs(first / restated - 10) < 0.1, "a ten-for-one split divides per-share figures by ten"
        if pattern == "D8":
            assert case["expected_route"] == "no-answer" and not case["evidence"]
            company = next(c for c in COMPANIES if c.key == case["company"])
            texts = [p.text.lower() for path, p in demo_parsed.items() if path.startswith(company.key + "/")]
            assert not any(term in text for term in company.absent_terms for text in texts)


def test_a_scaled_corpus_holds_the_demo_and_copies_under_names_of_their_own(demo_files):
    """The scale bench's corpora: `edgar-eval demo-corpus --filings N`. The demo's files are among them byte for byte;
    each copy is a company of its own (key, name, CIK, figures), parses, and plants its model's patterns."""
    from edgar_eval.corpus.parse import parse_filing
    from edgar_eval.synthetic.demo import companies_for, scaled_companies

    assert [companies_for(n) for n in (16, 30, 100, 300)] == [3, 6, 20, 60]
    companies = scaled_companies(60)
    for field in ("key", "name", "short", "cik"):
        assert len({getattr(c, field) for c in companies}) == 60, field
    many = scaled_companies(2_003)  # a 10,000-filing corpus: every company its own
    for field in ("key", "name", "cik"):
        assert len({getattr(c, field) for c in many}) == 2_003, field
    files = demo_corpus_files(companies=6)
    rows = _manifest(files)
    assert len(rows) == 31 and len({row["cik"] for row in rows}) == 6
    assert all(files[path] == data for path, data in demo_files.items() if path.endswith(".htm"))
    copy, model = companies[3], COMPANIES[0]
    assert copy.shape == model.key and copy.short not in model.name
    ten_k = next(row["path"] for row in rows if row["cik"] == copy.cik and row["form"] == "10-K")
    parsed = parse_filing(files[ten_k])
    assert copy.name in parsed.text and model.short not in parsed.text
    assert any(fact.concept == "us-gaap:Revenues" and fact.value for fact in parsed.facts)
    figures = [build_financials(company, DEMO_SEED).lines[2024]["Revenues"] for company in (copy, model)]
    assert figures[0] != figures[1], "a copy's figures are its own"
    truth = json.loads(files["ground_truth.json"])
    planted = {(case["company"], case["pattern"]) for case in truth["patterns"]}
    model_patterns = {pattern for company, pattern in planted if company == model.key}
    assert {pattern for company, pattern in planted if company == copy.key} == model_patterns
    with pytest.raises(ValueError, match="at least the demo's 3 companies"):
        scaled_companies(2)
