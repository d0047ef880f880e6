"""The golden builder's absence rule (golden.might_answer) on filings constructed for each class of defect a reader
outside the team found, and on sound absences it must keep. No filing text is copied: every row and sentence here
is written for the test."""

from __future__ import annotations

import pytest

from edgar_eval.golden import might_answer as rule
from edgar_eval.golden.fairness import combined_row
from edgar_eval.golden.labels import CONCEPT_LABELS
from edgar_eval.golden.might_answer import ScopeText, can_be_absent, nearest, statements_elsewhere

CAPEX = "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"
SBC = "us-gaap:ShareBasedCompensation"
LEASE_COST = "us-gaap:OperatingLeaseCost"
INVENTORY = "us-gaap:InventoryNet"
PREPAID = "us-gaap:PrepaidExpenseAndOtherAssetsCurrent"
GOODWILL = "us-gaap:Goodwill"

CASH_FLOWS = """CONSOLIDATED STATEMENTS OF CASH FLOWS
| | Fiscal 2025 | Fiscal 2024 |
| Net income | $ | 4,210 | $ | 3,980 |
| Purchases of property, equipment and software | (1,377) | (1,208) |
| Proceeds from sales of investments | 220 | 150 |
"""

EQUITY_STATEMENT = """CONSOLIDATED STATEMENTS OF SHAREHOLDERS' EQUITY
| | Common stock | Retained earnings | Total |
| Balance at January 1, 2025 | 1,100 | 9,000 | 10,100 |
| Amortization of share-based awards | 143 | — | 143 |
"""

LEASE_NOTE = """Note 9. Leases
| | 2025 | 2024 |
| Lease costs: | | |
| Fixed payments | 118 | 104 |
| Variable payments | 31 | 29 |
"""

BALANCE_SHEET = """CONSOLIDATED BALANCE SHEETS
| | December 31, 2025 | December 31, 2024 |
| Cash and cash equivalents | $ | 2,410 | $ | 1,970 |
| Accounts receivable, net | 812 | 760 |
| Other current assets | 301 | 288 |
| Total current assets | 3,523 | 3,018 |
"""

SOFTWARE_PROSE = (
    "We sell subscriptions to our analytics platform. We hold no physical products for sale.\n"
    "Subscription revenue grew 12% to $3,410 million in fiscal 2025.\n"
)


def _near(concept: str, *texts: str, year: int | None = None, tagged=()):
    scope = [ScopeText(f"f{k}", text, tagged if k == 0 else ()) for k, text in enumerate(texts)]
    return nearest(scope, concept, year)


def test_capital_spending_printed_with_another_asset_class_answers_a_capex_question():
    found = _near(CAPEX, CASH_FLOWS)
    assert found is not None and found.kind == "row" and "equipment and software" in found.shown


def test_share_based_compensation_printed_as_amortisation_of_awards_in_the_equity_statement_answers_it():
    found = _near(SBC, EQUITY_STATEMENT)
    assert found is not None and found.shown == "Amortization of share-based awards"


def test_an_equity_statement_tag_of_compensation_answers_it_when_no_row_words_do():
    tag = "us-gaap:AdjustmentsToAdditionalPaidInCapitalSharebasedCompensationRequisiteServicePeriodRecognitionValue"
    assert _near(SBC, "| Equity awards amortised | 143 |") is None
    found = _near(SBC, "| Equity awards amortised | 143 |", tagged=[tag])
    assert found is not None and found.kind == "tagged"


def test_a_heading_over_component_rows_answers_its_total():
    found = _near(LEASE_COST, LEASE_NOTE)
    assert found is not None and found.kind == "heading" and found.shown == "Lease costs:"


def test_an_expense_total_under_another_usual_name_is_never_asked_as_absent():
    """A company whose only expense total is "Costs and expenses" answers "total operating expenses", and the other
    way round: a total is never an absent-concept question, whatever its scope prints."""
    for concept in ("us-gaap:OperatingExpenses", "us-gaap:CostsAndExpenses", "us-gaap:GrossProfit"):
        assert can_be_absent(concept) is not None


def test_a_row_holding_most_of_the_labels_words_answers_it():
    found = _near(PREPAID, BALANCE_SHEET)
    assert found is not None and found.shown == "Other current assets"


def test_an_inventory_tagged_under_the_taxonomys_other_words_answers_an_inventories_question():
    """The independent audit's one absent-concept defect: a railroad's "Materials and supplies" line is its inventory;
    no word is shared, but the taxonomy element it is tagged with reports the same holding."""
    balance = "| Materials and supplies | 512 | 498 |\n| Other current assets | 301 | 288 |\n"
    assert _near(INVENTORY, balance) is None
    found = _near(INVENTORY, balance, tagged=["us-gaap:MaterialsSuppliesAndOther"])
    assert found is not None and found.kind == "tagged" and found.shown == "us-gaap:MaterialsSuppliesAndOther"
    assert _near(INVENTORY, balance, tagged=["us-gaap:OtherAssetsCurrent"]) is None


def test_a_sound_absence_is_kept():
    assert can_be_absent(INVENTORY) is None and can_be_absent(GOODWILL) is None
    assert _near(INVENTORY, SOFTWARE_PROSE, BALANCE_SHEET) is None
    assert _near(GOODWILL, SOFTWARE_PROSE, BALANCE_SHEET, CASH_FLOWS) is None


def test_words_count_beside_a_figure_only():
    assert _near(GOODWILL, "Goodwill is tested for impairment each year (see Note 7).") is None
    found = _near(GOODWILL, "Goodwill was $1,204 million at year end.")
    assert found is not None and found.kind == "sentence"


def test_a_concept_with_only_family_words_is_never_asked_as_absent():
    indistinct = [c for c in CONCEPT_LABELS if not rule.distinctive_stems(c)]
    assert "us-gaap:OperatingLeaseLiabilityCurrent" in indistinct
    for concept in indistinct:
        why = can_be_absent(concept)
        assert why is not None and ("families" in why or "computed" in why)


def test_the_distinctive_stems_are_computed_from_the_labels_not_listed():
    common = rule.common_stems()
    assert {"expens", "incom", "net", "total"} <= common
    assert not {"goodwil", "inventori", "restructur", "dividend"} & common
    assert all(rule.concept_stems(c) for c in CONCEPT_LABELS)


def test_a_year_counts_for_the_rows_under_its_column_header_and_the_sentences_naming_it():
    assert _near(CAPEX, CASH_FLOWS, year=2025) is not None
    assert _near(CAPEX, CASH_FLOWS, year=2026) is None
    outlook = "We expect capital expenditures of approximately $1,500 million in fiscal 2026."
    found = _near(CAPEX, CASH_FLOWS, outlook, year=2026)
    assert found is not None and found.kind == "sentence"


def test_a_maturity_schedule_of_years_is_no_column_header():
    schedule = "| | Operating leases |\n| 2026 | 140 |\n| 2027 | 120 |\n| Total lease liabilities | 260 |\n"
    assert _near("us-gaap:FinanceLeaseLiability", schedule, year=2026) is None


@pytest.mark.parametrize(
    "text",
    [
        "Item 8. Financial Statements and Supplementary Data: Refer to pages 40 through 98 of the Annual Report to "
        "Stockholders, which are incorporated herein by reference.",
        "ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS. The information required by this item is incorporated by "
        "reference from Exhibit 13 to this report.",
    ],
)
def test_statements_incorporated_from_an_annual_report_exhibit_are_detected(text):
    why = statements_elsewhere("10-K", text, numeric_facts=2_000, usual_numeric_facts=2_000)
    assert why is not None and "incorporated by reference" in why


def test_statements_in_the_filing_are_not_flagged_and_a_sparse_10k_is():
    own = "Item 8. Financial Statements and Supplementary Data\n| Revenue | 1,234 |\n"
    assert statements_elsewhere("10-K", own, numeric_facts=1_900, usual_numeric_facts=2_000) is None
    assert statements_elsewhere("10-Q", own, numeric_facts=10, usual_numeric_facts=2_000) is None
    sparse = statements_elsewhere("10-K", own, numeric_facts=120, usual_numeric_facts=2_000)
    assert sparse is not None and "120 numeric facts" in sparse
    # a proxy's mention of "incorporated by reference" far from an Item 7 or 8 heading proves nothing
    pointer = " incorporated by reference from the Annual Report to Stockholders"
    far = "Item 8. Financial Statements\n" + "x" * 2_000 + pointer
    assert statements_elsewhere("10-K", far, numeric_facts=1_900, usual_numeric_facts=2_000) is None


def test_a_row_printing_two_items_together_answers_neither():
    retained = rule.concept_stems("us-gaap:RetainedEarningsAccumulatedDeficit")
    joined = combined_row("| Retained earnings and Additional paid-in capital | 165,371 |", retained)
    assert joined == "additional paid-in capital"
    assert combined_row("| Retained earnings | 165,371 |", retained) is None
    assert combined_row("Retained earnings and additional paid-in capital were 165,371.", retained) is None
    research = rule.concept_stems("us-gaap:ResearchAndDevelopmentExpense")
    assert combined_row("| Research and development | 4,210 |", research) is None
    payable = rule.concept_stems("us-gaap:AccountsPayableCurrent")
    assert combined_row("| Accounts payable and accrued liabilities | 2,210 |", payable) == "accrued liabilities"
