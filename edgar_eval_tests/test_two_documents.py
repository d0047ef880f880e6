"""Two-document golden questions (golden.two_documents) and the judge of their answers, on constructed candidates:
every pair kind built, and each reason a pair is not asked (one document answers it, no change, no comparable
figures, a difference too small to read)."""

from __future__ import annotations

import json

from edgar_eval.evaluation.judge import judge_figures
from edgar_eval.golden import two_documents as two
from edgar_eval.golden.might_answer import ScopeText
from edgar_eval.golden.question_wording import printed_answer


def _side(filing: str, cik: str, company: str, kind: str, start: str, end: str, value: float, printed: str, **extra):
    form = "10-K" if kind in ("FY", "instant") else "10-Q"
    return {
        "cik": cik,
        "company": company,
        "concept": "us-gaap:CostOfRevenue",
        "label": "cost of revenue",
        "fiscal_year": int(end[:4]),
        "filing_fiscal_year": int(end[:4]),
        "period": f"fiscal {end[:4]}",
        "period_key": f"{kind}|{start}|{end}",
        "when": f"for fiscal {end[:4]}" if form == "10-K" else f"for the six months ended {end}",
        "statement_type": "income_statement",
        "source_filing_id": filing,
        "source_form": form,
        "source_sha256": "0" * 64,
        "gold_value": value,
        "printed": printed,
        "unit": "USD",
        "scale": 6,
        "gold_answer": printed_answer(printed, value, "USD", 6),
        "gold_decimals": "-6",
        "gold_chunk_ids": [f"{filing}:00001"],
        "gold_pages": [f"{filing}#40"],
        "gold_filing_ids": [filing],
        "gold_quote": f"| Cost of revenue | {printed} |",
        "on_first_page": False,
        **extra,
    }


class _Corpus:
    def __init__(self, period_values=None, printed=(), texts=None):
        self.period_values = period_values or {}
        self._printed = set(printed)
        self._texts = texts or {}

    def scope_texts(self, filing_ids: list[str]) -> list[ScopeText]:
        return [ScopeText(f, self._texts.get(f, "")) for f in filing_ids]

    def of(self, cik: str, fiscal_year: int) -> list[str]:
        return [f"{cik}-{fiscal_year}"]

    def prints(self, filing_id: str, printed: str) -> bool:
        return (filing_id, printed) in self._printed


def _collect():
    rejected: list[tuple] = []

    def reject(*row):
        rejected.append(row)

    return rejected, reject


FY = _side("acme-10k", "1", "Acme", "FY", "2025-01-01", "2025-12-31", 60_922e6, "60,922")
HALF = _side("acme-10q", "1", "Acme", "H", "2025-01-01", "2025-06-30", 13_507e6, "13,507")


def test_a_second_half_is_the_year_less_the_first_half_with_both_figures_in_the_answer():
    rejected, reject = _collect()
    (question,) = two.granularity([FY, HALF], _Corpus(), reject, printed_answer)
    assert question["question"] == "What was Acme's cost of revenue for the second half of fiscal 2025?"
    assert question["gold_value"] == 47_415e6 and question["gold_answer"].startswith("$47,415 million")
    assert "$60,922 million" in question["gold_answer"] and "$13,507 million" in question["gold_answer"]
    figures = json.loads(question["gold_figures"])
    assert [f["required"] for f in figures] == [True, False, False] and question["document_count"] == 2
    assert set(question["gold_filing_ids"]) == {"acme-10k", "acme-10q"} and not rejected


def test_a_year_whose_annual_report_tags_or_prints_the_half_is_one_document():
    for corpus in (
        _Corpus(period_values={("acme-10k", "us-gaap:CostOfRevenue", "H|2025-07-01|2025-12-31"): {47_415e6}}),
        _Corpus(printed={("acme-10k", "47,415")}),
    ):
        rejected, reject = _collect()
        assert two.granularity([FY, HALF], corpus, reject, printed_answer) == []
        assert rejected[0][5] == two.ONE_DOCUMENT_SUFFICES


def test_a_change_over_two_annual_reports_states_both_years_and_its_direction():
    earlier = _side("acme-10k-23", "1", "Acme", "FY", "2023-01-01", "2023-12-31", 50_100e6, "50,100")
    rejected, reject = _collect()
    (question,) = two.change_over_time([earlier, FY], _Corpus(), reject)
    assert question["question"] == "How did Acme's cost of revenue change from fiscal 2023 to fiscal 2025?"
    assert question["gold_direction"] == "increase" and question["gold_answer"].startswith("increase:")
    # the later report prints the earlier year (a comparative column): one document answers it
    prints_it = _Corpus(printed={("acme-10k", "50,100")})
    rejected, reject = _collect()
    assert two.change_over_time([earlier, FY], prints_it, reject) == []
    assert rejected[0][5] == two.ONE_DOCUMENT_SUFFICES


def test_two_companies_compared_name_the_one_that_reported_more():
    other = _side("bolt-10k", "2", "Bolt", "FY", "2025-01-01", "2025-12-31", 70_000e6, "70,000")
    rejected, reject = _collect()
    (question,) = two.cross_company([FY, other], _Corpus(), reject, seed=7)
    assert question["gold_direction"] == "Bolt" and "Acme or Bolt" in question["question"]
    assert question["scope_filing_ids"] == ["1-2025", "2-2025"]


def test_a_split_is_named_in_a_restatements_reason():
    first = _side("nv-10k-23", "3", "Nv", "FY", "2022-01-31", "2023-01-29", 3.34, "3.34", unit="USD/shares")
    later = _side("nv-10k-25", "3", "Nv", "FY", "2022-01-31", "2023-01-29", 0.334, "0.33", unit="USD/shares")
    assert two.split_ratio(3.34, 0.334, "USD/shares") == 10 and two.split_ratio(3.34, 3.0, "USD/shares") is None
    assert two.split_ratio(2_487e6, 24_870e6, "shares") == 10
    assert two.split_ratio(1.76, 0.18, "USD/shares", "0.18") == 10  # the later figure rounded to two decimals
    (question,) = two.restatement([(first, later)], _Corpus(), _collect()[1])
    assert "10-for-1 stock split" in question["gold_answer"] and "as first reported" in question["question"]


def test_a_first_filing_that_prints_the_later_figure_too_holds_two_lines_not_a_revision():
    # capital expenditures "(27,266)" in the cash flow statement and "(27,045)" net in another table of the same
    # 10-K; the later 10-K prints only the net figure: no revision, two lines
    first = _side("mp-10k-24", "4", "Mp", "FY", "2023-01-01", "2023-12-31", 27_266e6, "27,266")
    later = _side("mp-10k-25", "4", "Mp", "FY", "2023-01-01", "2023-12-31", 27_045e6, "27,045")
    rejected, reject = _collect()
    assert two.restatement([(first, later)], _Corpus(printed={("mp-10k-24", "27,045")}), reject) == []
    assert rejected[0][5] == two.FIRST_PRINTS_LATER and "27,045" in rejected[0][6]
    # the later figure printed only by the later filing (or by a third one) is a revision
    elsewhere = _Corpus(printed={("mp-10k-25", "27,045"), ("mp-10q-25", "27,045")})
    assert len(two.restatement([(first, later)], elsewhere, reject)) == 1


DEBT_23 = _side("hd-10k-24", "5", "Hd", "instant", "", "2024-01-28", 42_150e6, "42,150", label="total debt")
DEBT_24 = _side("hd-10k-25", "5", "Hd", "instant", "", "2025-02-02", 51_365e6, "51,365", label="total debt")
for _debt in (DEBT_23, DEBT_24):
    _debt.update(
        concept="us-gaap:DebtInstrumentCarryingAmount",
        fiscal_year=int(_debt["fiscal_year"]) - 1,
        gold_quote=f"| Debt, principal amount | {_debt['printed']} |",
    )


def test_a_later_report_printing_a_row_of_the_items_words_for_the_earlier_year_answers_it_alone():
    # the gold figures are a maturity schedule's totals; the later 10-K's balance sheet note prints the item by name
    # for both years, with other figures
    note = "| | February 2, 2025 | January 28, 2024 |\n| Total long-term debt | 53,067 | 44,111 |\n"
    for text in (note, "| Average debt and equity | 52,431 | 44,955 |\n| Total long-term debt | 53,067 | 44,111 |\n"):
        # a note's header may print its dates outside the table: two columns are the year and the year before
        rejected, reject = _collect()
        assert two.change_over_time([DEBT_23, DEBT_24], _Corpus(texts={"hd-10k-25": text}), reject) == []
        assert rejected[0][5] == two.ONE_DOCUMENT_SUFFICES and "prints the row" in rejected[0][6]
    # a row of the item's words for the later year only, another item's row, or the words in a sentence: two documents
    for text in (
        "| | February 2, 2025 |\n| Total long-term debt | 53,067 |\n",
        "| Total long-term debt | 53,067 |\n",
        "| | February 2, 2025 | January 28, 2024 |\n| Operating lease liabilities | 8,100 | 7,900 |\n",
        "| | February 2, 2025 | January 28, 2024 |\n| Proceeds from short-term debt, net | 316 | (982) |\n",
        "Debt of $44,111 million at January 28, 2024.\n",
    ):
        rejected, reject = _collect()
        (question,) = two.change_over_time([DEBT_23, DEBT_24], _Corpus(texts={"hd-10k-25": text}), reject)
        assert question["gold_direction"] == "increase" and not rejected


def test_a_schedules_bare_total_or_a_sentence_without_the_items_words_does_not_name_the_figure():
    # the sum of a maturity schedule's years is printed as "Total": the question's words may ask another figure
    bare = dict(DEBT_24, gold_quote="| 2026 | 4,582 |\n| Thereafter | 30,000 |\n| Total | $ | 51,365 |")
    rejected, reject = _collect()
    assert two.change_over_time([DEBT_23, bare], _Corpus(), reject) == []
    assert rejected[0][5] == two.FIGURE_NOT_NAMED and "Total" in rejected[0][6]
    said = (
        "As of fiscal 2024, transaction price allocated to unsatisfied obligations of storage sales was $51.37 billion."
    )
    rejected, reject = _collect()
    assert two.change_over_time([DEBT_23, dict(DEBT_24, gold_quote=said, printed="51.37")], _Corpus(), reject) == []
    assert rejected[0][5] == two.FIGURE_NOT_NAMED
    named = "Total debt was $51,365 million at the end of fiscal 2024. Debt rose with new notes."
    rejected, reject = _collect()
    assert len(two.change_over_time([DEBT_23, dict(DEBT_24, gold_quote=named)], _Corpus(), reject)) == 1


def test_a_yearless_comparative_row_is_the_year_before_not_any_earlier_year():
    earlier = dict(DEBT_23, fiscal_year=2021, period_key="instant||2022-01-30")
    text = "| Total long-term debt | 53,067 | 44,111 |\n"
    rejected, reject = _collect()
    assert len(two.change_over_time([earlier, DEBT_24], _Corpus(texts={"hd-10k-25": text}), reject)) == 1


def test_a_figure_read_from_a_sentence_beside_another_sentence_of_its_words_has_two_fair_answers():
    def rpo(filing: str, end: str, value: float, printed: str, sentence: str) -> dict:
        side = _side(filing, "6", "Ts", "instant", "", end, value, printed, label="remaining performance obligations")
        side.update(concept="us-gaap:RevenueRemainingPerformanceObligation", gold_quote=sentence)
        return side

    said_23 = "As of December 31, 2023, remaining performance obligations were $3.43 billion."
    said_24 = "As of December 31, 2024, remaining performance obligations of energy storage were $7.18 billion."
    earlier = rpo("ts-10k-24", "2023-12-31", 3.43e9, "3.43", said_23)
    later = rpo("ts-10k-25", "2024-12-31", 7.18e9, "7.18", said_24)
    rival = "As of December 31, 2024, remaining performance obligations of regulatory credits were $4.68 billion."
    texts = {"ts-10k-24": said_23, "ts-10k-25": f"{said_24}\n{rival}\n"}
    rejected, reject = _collect()
    assert two.change_over_time([earlier, later], _Corpus(texts=texts), reject) == []
    assert rejected[0][5] == two.RIVAL_SENTENCE and "4.68" in rejected[0][6]
    # a sentence of other years, or without an amount, is no rival
    calm = (
        "Remaining performance obligations of 2022 were $1.10 billion. Remaining performance obligations grew. "
        "About 67% of remaining performance obligations at December 31, 2024 will be recognized within a year."
    )
    rejected, reject = _collect()
    texts["ts-10k-25"] = f"{said_24}\n{calm}\n"
    assert len(two.change_over_time([earlier, later], _Corpus(texts=texts), reject)) == 1 and not rejected


def test_the_two_figure_judge_wants_every_required_figure_and_the_direction():
    figures = [
        {"value": 50_100e6, "answer": "$50,100 million", "role": "fiscal 2023", "required": True},
        {"value": 60_922e6, "answer": "$60,922 million", "role": "fiscal 2025", "required": True},
    ]
    assert judge_figures("It rose from $50,100 million to $60,922 million.", figures, "increase").correct
    assert judge_figures("It rose from $50.1 billion to $60.9 billion.", figures, "increase").correct
    assert not judge_figures("It fell from $50,100 million to $60,922 million.", figures, "increase").correct
    assert not judge_figures("It rose to $60,922 million.", figures, "increase").correct
    pair = [
        {"value": 60_922e6, "answer": "$60,922 million", "role": "Acme", "required": True},
        {"value": 70_000e6, "answer": "$70,000 million", "role": "Bolt", "required": True},
    ]
    assert judge_figures(
        "Bolt reported more: $70,000 million against Acme's $60,922 million.", pair, "Bolt", ["Acme"]
    ).correct
    assert not judge_figures(
        "Acme reported more: $60,922 million; Bolt $70,000 million.", pair, "Bolt", ["Acme"]
    ).correct
    derived = [
        {"value": 47_415e6, "answer": "$47,415 million", "role": "the second half", "required": True},
        {"value": 60_922e6, "answer": "$60,922 million", "role": "fiscal 2025", "required": False},
    ]
    assert judge_figures("$47,415 million ($60,922 million for the year less the first half).", derived).correct
    assert not judge_figures("$60,922 million for fiscal 2025.", derived).correct


def test_a_segment_member_is_asked_in_the_words_its_row_prints():
    from edgar_eval.golden.segment_questions import names_member

    assert names_member("AWS", "us-gaap:AmazonWebServicesMember")
    assert names_member("United States", "srt:US")
    assert names_member("Greater China", "aapl:GreaterChinaSegmentMember")
    assert names_member("Wearables, Home and Accessories", "aapl:WearablesHomeandAccessoriesMember")
    # the member heads a column, the row names the line item
    assert not names_member("Depreciation and amortization", "ko:NorthAmericaSegmentMember")
    assert not names_member("Total", "us-gaap:OperatingSegmentsMember")
    # a line of the segment, not the segment (an audit defect on the shared corpus, fourth round)
    assert not names_member("Total Google Cloud costs and expenses", "goog:GoogleCloudMember")
    assert names_member("Latin America, Caribbean and other", "ba:LatinAmericaCaribbeanAndOtherMember")
    assert not names_member("Segments total", "jnj:SegmentsTotalMember")  # a sum of segments (fifth round)
    from edgar_eval.golden.segment_questions import _FOOTNOTE

    assert [_FOOTNOTE.sub("", x) for x in ("Hardlines3", "Building Products 3", "Europe (3)", "Q4 2025")] == [
        "Hardlines",
        "Building Products",
        "Europe",
        "Q4 2025",
    ]


def test_a_segment_row_printed_again_with_another_figure_is_a_second_fair_answer():
    """Audit defect (edgar-wide, segment): "Product" 14,078 in a subscription table beside the income statement's
    "Product" 39,253, for the revenue from Product: two fair answers, so no question."""
    from edgar_eval.golden.might_answer import ScopeText, rows_named

    income = "| | Fiscal 2025 | Fiscal 2024 |\n| Product | 39,253 | 43,142 |\n| Services | 14,550 | 13,856 |\n"
    subscriptions = "Subscription revenue:\n| | Fiscal 2025 | Fiscal 2024 |\n| Product | 14,078 | 11,200 |\n"
    scope = [ScopeText("f0", income + "\n" + subscriptions)]
    assert [r.figures[0] for r in rows_named(scope, "Product", {2025}, "39,253")] == ["14,078"]
    assert rows_named(scope, "Services", {2025}, "14,550") == []


def test_a_per_share_figure_or_a_rate_is_never_derived_by_subtraction():
    """Issue 60: a half-year diluted EPS made by subtracting the six months' EPS from the year's is not the half's (the
    average share counts differ); nor is a rate's. Amounts and counts still subtract."""
    for unit, printed, value, half in (("USD/shares", "6.11", 6.11, 2.88), ("pure", "21.5", 0.215, 0.19)):
        year = {**FY, "unit": unit, "gold_value": value, "printed": printed, "scale": 0}
        part = {**HALF, "unit": unit, "gold_value": half, "printed": str(half), "scale": 0}
        rejected, reject = _collect()
        assert two.granularity([year, part], _Corpus(), reject, printed_answer) == []
        assert [row[5] for row in rejected] == [two.NOT_ADDITIVE], unit
    rejected, reject = _collect()
    assert len(two.granularity([FY, HALF], _Corpus(), reject, printed_answer)) == 1 and not rejected


def test_two_companies_lines_are_compared_only_where_they_hold_the_same_things():
    """Issue 60: one company's "total long-term debt, excluding finance leases" is not the other's total debt, which
    says nothing of them (or holds them); two lines that say the same, or nothing, are compared."""
    acme = {**FY, "gold_quote": "| Total long-term debt, excluding finance leases | 60,922 |"}
    bolt = _side("bolt-10k", "2", "Bolt", "FY", "2025-01-01", "2025-12-31", 70_000e6, "70,000")
    for quote in ("| Total debt | 70,000 |", "| Total debt, including finance leases | 70,000 |"):
        rejected, reject = _collect()
        assert two.cross_company([acme, {**bolt, "gold_quote": quote}], _Corpus(), reject, seed=7) == []
        assert [row[5] for row in rejected] == [two.NOT_THE_SAME_SCOPE], quote
    same = {**bolt, "gold_quote": "| Long-term debt, excluding finance leases | 70,000 |"}
    rejected, reject = _collect()
    assert len(two.cross_company([acme, same], _Corpus(), reject, seed=7)) == 1 and not rejected
    assert two.scope_words("| Total debt (including current portion) | 1 |") == {
        ("with", "current"),
        ("with", "portion"),
    }


def test_a_later_report_tagging_the_earlier_figure_in_its_named_parts_answers_it_alone():
    """Operating lease liabilities at the end of two years: the later report tags the earlier year's current and
    noncurrent parts, which add up to the earlier total: one addition, one document (audit defect, issue 60). Parts that
    do not add up to it, or elements whose names merely start alike, leave the question asked."""
    concept = "us-gaap:OperatingLeaseLiability"
    lease = {"concept": concept, "label": "total operating lease liabilities"}
    earlier = _side("acme-10k-23", "1", "Acme", "instant", "2023-12-31", "2023-12-31", 901e6, "901", **lease)
    later = _side("acme-10k-24", "1", "Acme", "instant", "2024-12-31", "2024-12-31", 875e6, "875", **lease)
    for side in (earlier, later):
        side["gold_quote"] = f"| Total operating lease liabilities | {side['printed']} |"
    year_before = earlier["period_key"]

    def tagged(parts: dict[str, float]) -> _Corpus:
        return _Corpus(period_values={("acme-10k-24", name, year_before): {value} for name, value in parts.items()})

    in_parts = tagged({f"{concept}Current": 166e6, f"{concept}Noncurrent": 735e6})
    rejected, reject = _collect()
    assert two.change_over_time([earlier, later], in_parts, reject) == []
    assert (
        rejected[0][5] == two.ONE_DOCUMENT_SUFFICES
        and "Current + us-gaap:OperatingLeaseLiabilityNoncurrent" in (rejected[0][6])
    )
    for corpus in (
        tagged({f"{concept}Current": 166e6, f"{concept}Noncurrent": 700e6}),  # another sum
        tagged({f"{concept}Current": 901e6}),  # one part alone is no addition
        tagged({"us-gaap:OperatingLeaseLiabilitiesPaymentsDue": 166e6, f"{concept}sNoncurrent": 735e6}),  # alike only
        _Corpus(
            period_values={  # the parts of another year
                ("acme-10k-24", f"{concept}Current", later["period_key"]): {166e6},
                ("acme-10k-24", f"{concept}Noncurrent", later["period_key"]): {735e6},
            }
        ),
    ):
        rejected, reject = _collect()
        assert len(two.change_over_time([earlier, later], corpus, reject)) == 1, corpus.period_values
    assert two.tagged_in_parts({f"{concept}Current": {1.0, 166e6}, f"{concept}Noncurrent": {735e6}}, concept, 901e6)
