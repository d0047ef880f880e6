"""The parser on real EDGAR filings from ../shared (read by path, never copied into the repo)."""

import csv
import json
from typing import cast

import pytest

from edgar_eval.corpus.parse import parse_filing
from edgar_eval.domain.filings import FilingError
from edgar_eval.golden import fairness
from edgar_eval.golden.fairness import FairnessLimits
from edgar_eval.golden.freeze import freeze
from edgar_eval.golden.templates import build_golden_questions
from edgar_eval.report.golden_tables import golden_tables
from edgar_eval.report.markdown import render_table
from edgar_eval_tests.conftest import REAL_CANDIDATES, REAL_CORPUS, REPO, corpus_tables

pytestmark = pytest.mark.skipif(not (REAL_CORPUS / "manifest.csv").is_file(), reason=f"no real corpus at {REAL_CORPUS}")


def _manifest():
    with (REAL_CORPUS / "manifest.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def parsed_real():
    outcomes: dict = {}
    for row in _manifest():
        try:
            outcomes[row["path"]] = parse_filing((REAL_CORPUS / row["path"]).read_bytes())
        except FilingError as exc:  # anything else is a crash and fails the test
            outcomes[row["path"]] = exc
    return outcomes


def test_every_filing_parses_or_fails_with_a_clear_reason(parsed_real):
    parsed = {p: v for p, v in parsed_real.items() if not isinstance(v, FilingError)}
    assert len(parsed) == len(parsed_real), {p: str(v) for p, v in parsed_real.items() if isinstance(v, FilingError)}
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
        assert located and all(parsed.text[f.offset : f.end] == f.displayed for f in located), row["path"]


def test_apple_fiscal_2024_annual_report(parsed_real):
    apple = parsed_real["aapl/10k_2024-11-01.htm"]
    assert (
        apple.meta.fiscal_year == 2024 and apple.meta.fiscal_period == "FY" and apple.meta.fiscal_year_end == "--09-28"
    )
    keys = {s.key for s in apple.sections}
    assert {"Part I Item 1", "Part I Item 1A", "Part II Item 7", "Part II Item 8"} <= keys
    revenue = [
        f
        for f in apple.facts
        if f.concept == "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
        and not f.context.dimensions
        and f.context.period_end.isoformat() == "2024-09-28"
        and f.context.period_start
        and (f.context.period_end - f.context.period_start).days > 350
    ]
    assert revenue and {f.value for f in revenue} == {391_035_000_000.0}
    assert apple.notes_start is not None and apple.text[apple.notes_start :].startswith("Note 1")


# Latest-period headline figures (US$ millions; Netflix reports in thousands), each read off the
# filing's own printed statements (the income statement's top-line and net income rows, the
# balance sheet's total assets row) and compared with what the parser extracts from the iXBRL.
KEY_FIGURES = {
    "aapl/10k_2024-11-01.htm": (391_035, 93_736, 364_980, 1e6),
    "amzn/10k_2025-02-07.htm": (637_959, 59_248, 624_894, 1e6),
    "ba/10q_2025-07-29.htm": (22_749, -611, 155_120, 1e6),
    "crm/10k_2025-03-05.htm": (37_895, 6_197, 102_928, 1e6),
    "hd/10k_2025-03-21.htm": (159_514, 14_806, 96_119, 1e6),
    "nflx/10k_2025-01-27.htm": (39_000_966, 8_711_631, 53_630_374, 1e3),
    "nke/10k_2025-07-17.htm": (46_309, 3_219, 36_579, 1e6),
    "nvda/10k_2023-02-24.htm": (26_974, 4_368, 41_182, 1e6),
    "nvda/10q_2025-08-27.htm": (46_743, 26_422, 140_740, 1e6),
    "pg/10k_2025-08-04.htm": (84_284, 15_974, 125_231, 1e6),
    "adbe/10k_2025-01-13.htm": (21_505, 5_560, 30_230, 1e6),
    "tsla/10q_2025-07-24.htm": (22_496, 1_172, 128_567, 1e6),
}


@pytest.mark.parametrize("path", sorted(KEY_FIGURES))
def test_headline_figures_of_the_latest_period(parsed_real, path):
    from edgar_eval.corpus.key_figures import KeyFigure, key_figures

    parsed = parsed_real[path]
    figures = cast(dict[str, KeyFigure], key_figures(parsed))  # the real filings tag all three
    top_line, net_income, total_assets, unit = KEY_FIGURES[path]
    assert figures["top_line"].value == top_line * unit
    assert figures["net_income"].value == net_income * unit
    assert figures["total_assets"].value == total_assets * unit
    assert figures["top_line"].period_end == figures["total_assets"].period_end == parsed.meta.period_end.isoformat()
    days = (parsed.meta.period_end - __import__("datetime").date.fromisoformat(figures["top_line"].period_start)).days
    assert (350 <= days <= 380) if parsed.meta.form == "10-K" else (80 <= days <= 100), (
        "the filing's own year or quarter"
    )


def test_every_annual_and_quarterly_report_has_its_principal_items(parsed_real):
    for path, parsed in parsed_real.items():
        keys = {s.key: s for s in parsed.sections}
        size = len(parsed.text)
        if parsed.meta.form == "10-K":
            assert {"Part I Item 1", "Part I Item 1A", "Part II Item 7", "Part II Item 8"} <= set(keys), path
            # Only the item that holds the statements and notes may be most of the document (J&J's Item 8 is).
            holder = {
                s.key
                for s in parsed.sections
                if parsed.notes_start is not None and s.start <= parsed.notes_start < s.end
            }
            assert all(s.end - s.start <= size / 2 for s in parsed.sections if s.key not in holder), path
        else:
            assert {"Part I Item 1", "Part I Item 2"} <= set(keys), path
            assert {"Part II Item 1", "Part II Item 1A"} & set(keys), path
            # A quarterly report's statements-and-notes item or its MD&A can be most of the document; nothing else is.
            assert all(
                s.end - s.start <= size / 2 for s in parsed.sections if s.key not in ("Part I Item 1", "Part I Item 2")
            ), path


def test_cross_reference_items_name_their_target(parsed_real):
    targets = {path: {s.key: s.cross_reference_target for s in p.sections} for path, p in parsed_real.items()}
    assert targets["nvda/10k_2025-02-26.htm"]["Part II Item 8"] == "Item 15"
    assert targets["nflx/10k_2025-01-27.htm"]["Part II Item 8"] == "Item 15"
    assert targets["ibm/10k_2025-02-25.htm"]["Part II Item 8"] == "Annual Report to Stockholders"
    assert targets["aapl/10k_2024-11-01.htm"]["Part II Item 8"] is None


def test_notes_start_where_the_notes_do(parsed_real):
    for path, parsed in parsed_real.items():
        if path == "ibm/10k_2025-02-25.htm":
            continue  # IBM files its statements and notes in an exhibit; the primary document holds none
        assert parsed.notes_start is not None, path
        head = parsed.text[parsed.notes_start : parsed.notes_start + 80].lower()
        assert "note" in head or head.lstrip("| ").startswith("1."), (path, head)


def test_fiscal_years_for_every_year_end(parsed_real):
    from edgar_eval.corpus.fiscal import FiscalCalendar, period_kind

    expected = {
        "crm/10k_2025-03-05.htm": 2025,
        "nvda/10k_2025-02-26.htm": 2025,
        "nvda/10q_2025-08-27.htm": 2026,
        "nke/10k_2025-07-17.htm": 2025,
        "pg/10k_2025-08-04.htm": 2025,
        "pg/10q_2025-04-24.htm": 2025,
        "aapl/10k_2024-11-01.htm": 2024,
        "adbe/10k_2025-01-13.htm": 2024,
        "hd/10k_2025-03-21.htm": 2024,
    }
    for path, year in expected.items():
        assert parsed_real[path].meta.fiscal_year == year, path
    for path, parsed in parsed_real.items():
        calendar = FiscalCalendar.of(parsed.meta)
        assert calendar.year_of(parsed.meta.period_end) == parsed.meta.fiscal_year, path
        own_year = [
            f for f in parsed.facts if period_kind(f.context) == "FY" and f.context.period_end == parsed.meta.period_end
        ]
        assert all(calendar.year_of(f.context.period_end) == parsed.meta.fiscal_year for f in own_year), path
    assert parsed_real["hd/10k_2025-03-21.htm"].meta.fiscal_year_offset == -1
    assert parsed_real["nvda/10k_2025-02-26.htm"].meta.fiscal_year_offset == 0


def test_printed_page_numbers_run_in_sequence(parsed_real):
    for path, parsed in parsed_real.items():
        printed = [p.printed for p in parsed.pages]
        assert sum(p is not None for p in printed) >= 0.8 * len(printed), path
        numbers = [int(p) if p and p.isdigit() else None for p in printed]
        steps = [(a, b) for a, b in zip(numbers, numbers[1:]) if a is not None and b is not None]
        assert all(b == a + 1 for a, b in steps), (path, [s for s in steps if s[1] != s[0] + 1][:3])


@pytest.fixture(scope="module")
def real_golden(parsed_real):
    parsed = {path: outcome for path, outcome in parsed_real.items() if not isinstance(outcome, FilingError)}
    tables = corpus_tables({p: (REAL_CORPUS / p).read_bytes() for p in parsed}, parsed)
    return tables, build_golden_questions(*tables, seed=7)


def test_golden_set_from_the_real_filings_is_large_balanced_and_fair(real_golden):
    _, build = real_golden
    golden, limits = build.questions, FairnessLimits()
    counts = golden.kind.value_counts()
    # The absence rule rejects on printed evidence only and sends what the words leave open to a person (101 admitted
    # at its third version, 30 at its second, whose any-stem-anywhere rejections admitted almost nothing on filings it
    # was not built on). Other-year twins lose the years a forward schedule prints under the concept's words (92 -> 59).
    assert counts["answerable"] >= 300 and counts["other_company"] >= 90 and counts["other_year"] >= 50
    assert 60 <= counts["absent_concept"] <= 140
    assert build.statements_elsewhere.keys() == {"ibm-10k_2025-02-25"}, "IBM's 10-K keeps Items 7 and 8 in Exhibit 13"
    absent = golden[golden.kind == "absent_concept"]
    assert not absent.scope_filing_ids.map(lambda s: "ibm-10k_2025-02-25" in s).any()
    answerable = golden[golden.kind == "answerable"]
    assert answerable.cik.nunique() >= 15 and set(answerable.source_form) == {"10-K", "10-Q"}
    assert answerable.groupby("cik").size().max() <= limits.per_company
    assert answerable.statement_type.value_counts(normalize=True).max() < 0.35, "no statement type dominates"
    assert (answerable.gold_pages.map(len) > 1).mean() > 0.2, "headline figures are gold wherever they are printed"
    assert set(build.rejections.rule) >= {
        fairness.BOILERPLATE,
        fairness.SMALL_OR_ROUND,
        fairness.OTHER_MEANINGS,
        fairness.AMBIGUOUS,
        fairness.QUOTA_FILING,
        fairness.STATEMENTS_ELSEWHERE,
        fairness.CANNOT_BE_ABSENT,
        fairness.LABEL_REPORTED,
        fairness.PRINTED_ROW,
        fairness.PRINTED_SENTENCE,
        fairness.PRINTED_NONE,
        fairness.AWAITING_REVIEW,
        fairness.SEVERAL_FAIR_ANSWERS,
        fairness.YEAR_PRINTED,
        fairness.FORWARD_SCHEDULE,
    }


def test_committed_real_corpus_report_holds_the_golden_set_the_code_builds(real_golden):
    """reports/edgar/report.md was produced by the code: its golden tables and export hash drift when the code does."""
    (filings, *_), build = real_golden
    report = (REPO / "reports" / "edgar" / "report.md").read_text()
    frozen = freeze(build.questions, dict(zip(filings.filing_id, filings.sha256)), seed=7)
    assert f"export sha256 `{frozen.content_hash}`" in report
    for table in golden_tables(build.questions, build.rejections, f"{len(filings)} filing partitions"):
        assert render_table(table.frame) in report, table.title


@pytest.fixture(scope="module")
def real_candidate_run(real_golden):
    from edgar_eval.golden.absence import read_review_file
    from edgar_eval.golden.admission import build_gate_corpus, run_gates
    from edgar_eval.golden.candidates import read_jsonl
    from edgar_eval.golden.pattern_set import candidate_outcomes, verdict_frame

    (filings, _, chunks, texts, sections), _ = real_golden
    review = REPO / "reviews" / "edgar" / "absence-v1.jsonl"
    corpus = build_gate_corpus(
        filings, texts, sections, read_review_file(review.read_text(), str(review)), "reviews/edgar/absence-v1.jsonl"
    )
    candidates, problems = read_jsonl(REAL_CANDIDATES.read_text(), f"import:{REAL_CANDIDATES.name}")
    assert not problems
    run = run_gates(candidates, corpus)
    return candidates, run, candidate_outcomes(verdict_frame(candidates, run))


@pytest.mark.skipif(not REAL_CANDIDATES.is_file(), reason="no hand-written real candidates")
def test_hand_written_real_candidates_get_the_verdicts_a_person_wrote(real_candidate_run):
    """36 candidates over the NVIDIA and Apple filings, each with the verdict a careful reader expects."""
    from edgar_eval.golden.pattern_set import agreement

    candidates, _, outcomes = real_candidate_run
    per_gate, differences = agreement(candidates, outcomes)
    print("\n" + per_gate.to_string(index=False))
    # where an independent audit found the person's accepted candidate a defect, the gates side with the audit
    overruled = _audited_defects()
    assert set(differences.candidate_id) == overruled, differences.to_dict("records")
    assert set(differences.expected) <= {"accept"} and not set(differences.got) & {"accept"}, differences


def _audited_defects() -> set[str]:
    """The hard-question candidates an independent reviewer judged defects (reviews/edgar-wide/audit-v2.jsonl)."""
    from edgar_eval.golden.audit import DEFECTS, INDEPENDENT

    lines = (REPO / "reviews" / "edgar-wide" / "audit-v2.jsonl").read_text().splitlines()
    verdicts = [json.loads(line) for line in lines if line.strip()]
    return {
        v["case_id"]
        for v in verdicts
        if v["kind"].startswith("pattern:") and v["verdict"] in DEFECTS and v["reviewer_role"] == INDEPENDENT
    }


@pytest.mark.skipif(not REAL_CANDIDATES.is_file(), reason="no hand-written real candidates")
def test_committed_real_corpus_report_holds_the_pattern_funnel_the_code_computes(real_candidate_run):
    from edgar_eval.golden.pattern_set import funnel, select_balanced
    from edgar_eval.golden.proposal_table import proposal_row, proposals_frame
    from edgar_eval.report.golden_tables import funnel_table

    candidates, _, outcomes = real_candidate_run
    selected = select_balanced(candidates, outcomes, per_pattern=5)
    proposals = proposals_frame([proposal_row(c) for c in candidates])  # the file holds no unreadable line
    frame = funnel(outcomes, proposals, {c.candidate_id for c in selected})
    assert render_table(funnel_table(frame).frame) in (REPO / "reports" / "edgar" / "report.md").read_text()


def test_every_real_annual_report_s_items_cover_nine_tenths_of_its_body(parsed_real):
    """From the first item heading to the signatures, at least 90% of each 10-K's text lies in some item; and the
    items filers write as 4A or unspaced ("Item10.") are found (Salesforce, Meta)."""
    from edgar_eval.corpus.sections import item_coverage

    for row in _manifest():
        parsed = parsed_real[row["path"]]
        if row["form"] != "10-K" or isinstance(parsed, FilingError):
            continue
        assert item_coverage(parsed.text, "10-K", parsed.sections) >= 0.90, row["path"]
    assert "Part I Item 4A" in {s.key for s in parsed_real["crm/10k_2025-03-05.htm"].sections}
    assert "Part III Item 10" in {s.key for s in parsed_real["meta/10k_2025-01-30.htm"].sections}


def test_the_real_golden_set_has_no_question_both_answerable_and_not(real_golden):
    """Read as a person would (edgar_eval/golden/invariants.py, also the blocking check on golden_questions): one
    wording in one scope has one expected route; an absent concept's words are printed beside no figure of its scope;
    an other-year question's year is printed beside none of its concept's words in the company's filings."""
    from edgar_eval.golden.invariants import contradictions
    from edgar_eval.golden.might_answer import cover_page_end

    (filings, *_, texts, _), build = real_golden
    text_of = dict(zip(texts.filing_id, texts.text))
    body_starts = {r.filing_id: cover_page_end(len(r.text), r.page_ends) for r in texts.itertuples()}
    company = filings.groupby("cik").filing_id.agg(list).to_dict()
    assert contradictions(build.questions, text_of, company, body_starts=body_starts) == []
