"""`edgar-eval compare`: two runs paired on their shared questions, on runs built here with known differences, and
the command on the committed demo report."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from edgar_eval.cli import main
from edgar_eval.evaluation.run_comparison import (
    OUTCOMES_FORMAT,
    ComparisonError,
    Run,
    check_golden,
    compared_figures,
    outcomes_json,
    pairing,
    read_run,
    receipt_differences,
    run_outcomes,
)
from edgar_eval.report.comparison import comparison_markdown

ROOT = Path(__file__).resolve().parents[1]
MEASURE = "company_year hybrid@30"


def _question(n: int, hit: bool, correct: bool, cik: str, pages=("f#1",), route="answer", kind="") -> dict:
    return {
        "question_id": f"q{n:03d}",
        "cik": cik,
        "expected_route": route,
        "kind": kind or ("answerable" if route == "answer" else "absent_concept"),
        "gold_value": 100.0 + n if route == "answer" else None,
        "gold_pages": {"company_year": list(pages)},
        "page_hit": {MEASURE: hit} if route == "answer" else {},
        "correct": {"A": correct},
        "false_answer": {"A": not correct and route != "answer"},
    }


def _run(name: str, questions: list[dict], golden="g1", band=(-1.0, 1.0), chunk_size=1000) -> Run:
    receipt = {
        "golden_set": {"version": golden},
        "settings": {"chunk_size": chunk_size},
        "corpus": {"f": "sha-f"},
    }
    outcomes = {
        "format": OUTCOMES_FORMAT,
        "statistics": {"confidence": 0.9, "power": 0.8, "interval_method": "percentile"},
        "noise_band": [{"measure": MEASURE, "low": band[0], "high": band[1]}],
        "questions": questions,
    }
    return Run(name, receipt, outcomes)


def _pair_of_runs(gained: int, lost: int, same: int = 60, **second) -> tuple[Run, Run]:
    """Two runs over the same questions in 12 companies: `gained` questions hit only in the second, `lost` only in
    the first, `same` hit in both."""
    first, other = [], []
    n = 0
    for was, now, count in ((False, True, gained), (True, False, lost), (True, True, same)):
        for _ in range(count):
            cik = f"c{n % 12:02d}"
            first.append(_question(n, was, was, cik))
            other.append(_question(n, now, now, cik))
            n += 1
    return _run("first", first), _run("second", other, **second)


def test_a_real_gain_is_found_and_read_as_beyond_the_band():
    first, second = _pair_of_runs(gained=20, lost=1)
    figures = compared_figures(first, second, resamples=2000).set_index("measure")
    page = figures.loc[MEASURE]
    assert (page.questions, page.first_hits, page.second_hits) == (81, 61, 80)
    assert (page.first_only, page.second_only) == (1, 20)
    assert page.difference == pytest.approx(19 / 81)
    assert page.low > 0 and page.mcnemar_p < 0.001
    assert page.beyond_noise_band is True
    assert figures.loc["arm A"].beyond_noise_band is None, "neither run measured an answering band"
    for run in (first, second):
        run.outcomes["noise_band"].append({"figure": "answer accuracy", "measure": "arm A", "low": -30.0, "high": 0.0})
    figures = compared_figures(first, second, resamples=200)
    assert figures.set_index("measure").loc["arm A"].beyond_noise_band == False  # noqa: E712 (numpy's bool)
    report = comparison_markdown(first, second, [], pairing(first, second), None, figures)
    arm_line = next(line for line in report.splitlines() if "| arm A |" in line)
    assert arm_line.endswith("| inside the noise band |"), "a 23-point gain inside a 30-point band"


def test_no_change_and_a_change_inside_the_band_are_said_as_such():
    first, second = _pair_of_runs(gained=1, lost=0, band=(-3.0, 3.0))
    page = compared_figures(first, second, resamples=500).set_index("measure").loc[MEASURE]
    assert 100 * page.difference < 3.0 and page.beyond_noise_band is False
    report = comparison_markdown(first, second, [], pairing(first, second), None, compared_figures(first, second))
    assert "inside the noise band" in report
    same_first, same_second = _pair_of_runs(gained=0, lost=0)
    assert "no question moved" in comparison_markdown(
        same_first, same_second, [], pairing(same_first, same_second), None, compared_figures(same_first, same_second)
    )


def test_a_question_whose_gold_changed_is_left_out_of_every_pair():
    first, second = _pair_of_runs(gained=0, lost=0, same=10)
    second.outcomes["questions"][0]["gold_pages"] = {"company_year": ["f#9"]}  # other gold pages
    second.outcomes["questions"][1]["gold_value"] = 1.0  # another gold figure
    del second.outcomes["questions"][2]  # a question only the first run set
    paired = pairing(first, second)
    assert (paired.shared, paired.only_first, paired.only_second, paired.gold_changed) == (9, 1, 0, 2)
    figures = compared_figures(first, second, resamples=200).set_index("measure")
    assert figures.loc[MEASURE].questions == 7
    assert figures.loc["arm A"].questions == 8, "answering pairs on route and figure, not on pages"


def test_false_answers_are_compared_per_unanswerable_kind_never_pooled():
    """A second system that stops erring on other-year twins and starts erring on absent concepts: pooled, the two
    moves cancel (8 false answers each); per kind, each shows, and in its own direction."""
    first, second = [], []
    for n in range(32):
        kind = "other_year" if n < 16 else "absent_concept"
        cik = f"c{n % 8:02d}"
        first.append(_question(n, False, n >= 16 or n % 2 == 1, cik, route="no_answer", kind=kind))
        second.append(_question(n, False, n < 16 or n % 2 == 1, cik, route="no_answer", kind=kind))
    figures = compared_figures(_run("first", first), _run("second", second), resamples=500)
    assert list(figures.measure) == ["arm A (absent_concept)", "arm A (other_year)"], "kind by kind, none pooled"
    rows = figures.set_index("measure")
    assert (rows.loc["arm A (other_year)"].first_hits, rows.loc["arm A (other_year)"].second_hits) == (8, 0)
    assert (rows.loc["arm A (absent_concept)"].first_hits, rows.loc["arm A (absent_concept)"].second_hits) == (0, 8)
    assert rows.loc["arm A (other_year)"].difference == pytest.approx(-0.5)
    assert rows.loc["arm A (absent_concept)"].difference == pytest.approx(0.5)
    moved_kind = [dict(q, kind="other_company") if q["question_id"] == "q000" else q for q in second]
    assert compared_figures(_run("first", first), _run("second", moved_kind), resamples=200).questions.sum() == 31, (
        "a question whose kind changed pairs with nothing"
    )


def test_different_golden_versions_are_refused_unless_allowed():
    first, second = _pair_of_runs(gained=2, lost=0, golden="g2")
    with pytest.raises(ComparisonError, match="golden versions differ .*--allow-golden-change"):
        check_golden(first, second, allow_change=False)
    note = check_golden(first, second, allow_change=True)
    assert note is not None and "62 with the same gold" in note
    assert check_golden(first, first, allow_change=False) is None


def test_receipt_differences_name_each_entry_and_sum_up_the_corpus():
    first, second = _pair_of_runs(gained=0, lost=0, chunk_size=600)
    second.receipt["corpus"] = {"f": "sha-other", "g": "sha-g"}
    rows = {what: (a, b) for what, a, b in receipt_differences(first.receipt, second.receipt)}
    assert rows["settings.chunk_size"] == ("1000", "600")
    assert "1 with other bytes" in rows["corpus"][1] and "1 not in the other" in rows["corpus"][1]
    assert receipt_differences(first.receipt, first.receipt) == []


def test_outcomes_round_trip_through_their_file_one_question_per_line():
    golden = pd.DataFrame(
        [
            {
                "question_id": "q2",
                "cik": "c1",
                "expected_route": "answer",
                "kind": "answerable",
                "gold_value": 5.0,
                "gold_pages": ["f#3"],
            },
            {
                "question_id": "q1",
                "cik": "c1",
                "expected_route": "no_answer",
                "kind": "other_year",
                "gold_value": float("nan"),
                "gold_pages": [],
            },
        ]
    )
    scope_gold = pd.DataFrame(
        [
            {"question_id": "q2", "search_scope": "company", "rule": None, "gold_pages": ["f#3", "g#8"]},
            {"question_id": "q2", "search_scope": "corpus", "rule": "other_meaning", "gold_pages": ["f#3"]},
        ]
    )
    rankings = pd.DataFrame(
        [
            {
                "question_id": "q2",
                "search_scope": "company",
                "retriever": "bm25",
                "k": 30,
                "page_hit": True,
                "error": None,
            },
            {
                "question_id": "q2",
                "search_scope": "corpus",
                "retriever": "bm25",
                "k": 30,
                "page_hit": False,
                "error": "x",
            },
        ]
    )
    arms = pd.DataFrame(
        [
            {"question_id": "q2", "arm": "A", "correct": True, "false_answer": False},
            {"question_id": "q1", "arm": "A", "correct": False, "false_answer": True},
        ]
    )
    band = pd.DataFrame([{"search_scope": "company", "retriever": "bm25", "k": 30, "band_low": -0.5, "band_high": 1.0}])
    answer_band = pd.DataFrame(
        [{"figure": "answer_accuracy", "arm": "A", "replicas": 5, "questions": 1, "band_low": -2.0, "band_high": 0.0}]
    )
    outcomes = run_outcomes(golden, scope_gold, rankings, arms, band, answer_band, {"confidence": 0.9})
    assert outcomes["noise_band"] == [
        {"figure": "page hit", "measure": "company bm25@30", "low": -0.5, "high": 1.0},
        {"figure": "answer accuracy", "measure": "arm A", "low": -2.0, "high": 0.0},
    ]
    text = outcomes_json(outcomes)
    assert len(text.splitlines()) == 4, "a head line, one line per question, the closing line"
    run = read_run("r", json.dumps({"golden_set": {"version": "g"}}), text)
    q1, q2 = run.outcomes["questions"]
    assert q1["question_id"] == "q1" and q1["gold_value"] is None and q1["false_answer"] == {"A": True}
    assert (q1["kind"], q2["kind"]) == ("other_year", "answerable")
    assert q2["gold_pages"] == {"company_year": ["f#3"], "company": ["f#3", "g#8"]}, "the unfair scope is not gold"
    assert q2["page_hit"] == {"company bm25@30": True}, "an errored search is no outcome"
    with pytest.raises(ComparisonError, match="is not 'edgar-eval outcomes/2'"):
        read_run("r", json.dumps({"golden_set": {}}), json.dumps({"format": "other"}))


def test_the_command_compares_two_reports_folders_and_refuses_in_one_line(tmp_path, capsys):
    demo = ROOT / "reports" / "demo"
    out = tmp_path / "comparison.md"
    assert main(["compare", str(demo), str(demo), "--out", str(out)]) == 0
    text = out.read_text()
    assert "Nothing: the two receipts are the same." in text and "no question moved" in text

    other = tmp_path / "other"
    shutil.copytree(demo, other)
    receipt = json.loads((other / "receipt.json").read_text())
    receipt["golden_set"]["version"] = "another"
    (other / "receipt.json").write_text(json.dumps(receipt))
    capsys.readouterr()
    assert main(["compare", str(demo), str(other)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "--allow-golden-change" in error
    assert main(["compare", str(demo), str(other), "--allow-golden-change"]) == 0
    assert "Compared as allowed" in capsys.readouterr().out

    (other / "outcomes.json").unlink()
    assert main(["compare", str(demo), str(other)]) == 2
    assert "outcomes.json" in capsys.readouterr().err


WHY_SECTION = "\n## Why they differ"
COMMITTED_COMPARISONS = [  # (first run, second run, extra flags, the committed comparison)
    ("reports/edgar", "reports/chunking-600-100/edgar", ["--allow-golden-change"], "chunking-1000-200_vs_600-100.md"),
    ("reports/demo", "reports/smollm2-135m/demo", [], "demo_table-reader_vs_smollm2-135m.md"),
    # the table reader against the eager reader on one golden set: the eager reader's run before issue 60's rules
    (
        "reports/table-reader/edgar-wide",
        "reports/before-issue-60/edgar-wide",
        [],
        "edgar-wide_table-reader_vs_eager-reader.md",
    ),
    *(  # the reports before BM25 ranked each company's filings by that company's chunks, against those just after
        (
            f"reports/corpus-wide-bm25/{corpus}",
            f"reports/before-issue-60/{corpus}",
            [],
            f"{corpus}_corpus-wide-bm25_vs_company-bm25.md",
        )
        for corpus in ("demo", "edgar", "edgar-wide")
    ),
    *(  # the reports before issue 60's golden rules and report text, against those after
        (
            f"reports/before-issue-60/{corpus}",
            f"reports/{corpus}",
            ["--allow-golden-change"],
            f"{corpus}_before_vs_after_issue-60-rules.md",
        )
        for corpus in ("demo", "edgar", "edgar-wide")
    ),
]


@pytest.mark.parametrize(("first", "second", "flags", "committed"), COMMITTED_COMPARISONS)
def test_each_committed_comparison_is_what_compare_makes_of_the_committed_reports(
    tmp_path, monkeypatch, first, second, flags, committed
):
    out = tmp_path / "comparison.md"
    monkeypatch.chdir(ROOT)  # the runs are named as given: relative to the checkout, as the README's command names them
    assert main(["compare", first, second, *flags, "--out", str(out)]) == 0
    made = out.read_text()
    # a comparison may end with a section written by hand on why the runs differ; everything above it is compare's
    written = (ROOT / "reports" / "comparisons" / committed).read_text().split(WHY_SECTION, 1)[0]
    assert made.rstrip("\n") == written.rstrip("\n"), (
        f"rerun: edgar-eval compare {first} {second} {' '.join(flags)} --out reports/comparisons/{committed}"
    )
