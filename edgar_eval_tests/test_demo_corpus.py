import csv
import hashlib
import io
import json
import re

from edgar_eval.corpus.demo import COMPANIES, demo_corpus_files


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


def test_three_companies_each_with_the_five_filings(demo_parsed):
    forms = {}
    for parsed in demo_parsed.values():
        forms.setdefault(parsed.meta.cik, []).append(parsed.meta.form)
    assert len(forms) == 3
    for cik, filed in forms.items():
        assert sorted(filed) == ["10-K", "10-K", "10-Q", "8-K", "DEF 14A"], cik


def _manifest(demo_files):
    return list(csv.DictReader(io.StringIO(demo_files["manifest.csv"].decode())))


def test_manifest_matches_the_bytes(demo_files):
    rows = _manifest(demo_files)
    assert len(rows) == 15
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
