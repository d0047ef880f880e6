"""Where a filing prints a line item's words beside a figure: the rule behind absent-concept and other-year twins."""

from edgar_eval.golden.labels import CONCEPT_LABELS, LABEL_SYNONYMS, concept_words
from edgar_eval.golden.printed_words import PrintedIndex

FILING = """SELECTED FINANCIAL DATA
| | Fiscal 2024 | Fiscal 2023 | Fiscal 2020 |
| Net sales | $ | 159,514 | $ | 152,669 | $ | 132,110 |
| Share-based compensation | 450 | 420 | 401 |
Our Shareholders’ Equity was $6,640 million at year end. We describe our purchases of property and equipment in Note 4.
Stock repurchases are part of our capital allocation strategy.
"""


def test_words_count_only_beside_a_figure():
    index = PrintedIndex.of([FILING])
    assert index.printed(concept_words("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax")) == "net sales"
    assert index.printed(concept_words("us-gaap:ShareBasedCompensation")) == "share-based compensation"
    assert index.printed(concept_words("us-gaap:StockholdersEquity")) == "shareholders' equity"  # curly apostrophe
    # Named in prose with no figure but a note number: not printed beside a figure.
    assert index.printed(concept_words("us-gaap:PaymentsToAcquirePropertyPlantAndEquipment")) is None
    assert index.printed(concept_words("us-gaap:PaymentsForRepurchaseOfCommonStock")) is None
    assert index.printed(concept_words("us-gaap:InventoryNet")) is None


def test_a_table_row_counts_for_the_years_its_header_prints():
    index = PrintedIndex.of([FILING])
    words = concept_words("us-gaap:Revenues")
    assert index.printed(words, 2020) == "net sales" and index.printed(words, 2024) == "net sales"
    assert index.printed(words, 2019) is None
    assert index.printed(concept_words("us-gaap:StockholdersEquity"), 2020) is None  # the sentence names no year


def test_every_label_has_its_words():
    assert set(CONCEPT_LABELS.values()) <= set(LABEL_SYNONYMS)
    assert all(concept_words(c)[0] == label for c, label in CONCEPT_LABELS.items())


def test_a_row_printing_two_items_together_answers_neither():
    from edgar_eval.golden.fairness import combined_row

    retained = concept_words("us-gaap:RetainedEarningsAccumulatedDeficit")
    assert (
        combined_row("| Retained earnings and Additional paid-in capital | 165,371 |", retained)
        == "additional paid-in capital"
    )
    assert combined_row("| Retained earnings | 165,371 |", retained) is None
    assert (
        combined_row("Retained earnings and additional paid-in capital were 165,371.", retained) is None
    )  # prose: not a row
    assert (
        combined_row(
            "| Cash, cash equivalents and restricted cash | 1,234 |",
            concept_words("us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents"),
        )
        is None
    )
    assert (
        combined_row(
            "| Prepaid expenses and other current assets | 1,234 |",
            concept_words("us-gaap:PrepaidExpenseAndOtherAssetsCurrent"),
        )
        is None
    )
    assert (
        combined_row(
            "| Accrued compensation and benefits | 1,234 |", concept_words("us-gaap:EmployeeRelatedLiabilitiesCurrent")
        )
        is None
    )
    assert combined_row("| Marketing and sales | 1,234 |", concept_words("us-gaap:SellingAndMarketingExpense")) is None
