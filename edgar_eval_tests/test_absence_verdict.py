"""The absence rule's three outcomes (golden.might_answer.absence_verdict) on filings constructed for each class: what
a careful reader takes as the filing printing a line item (rejected), what leaves it open (a person's review), and
what is no evidence at all (a tag name, an extension concept, the cover page, a word far from any figure). Every row
and sentence here is written for the test; no filing text is copied."""

from __future__ import annotations

from collections import Counter

from edgar_eval.golden import might_answer as rule
from edgar_eval.golden.might_answer import (
    ABSENT,
    PRINTED,
    REVIEW,
    Name,
    PrintedNames,
    ScopeText,
    absence_verdict,
    cover_page_end,
    forward_schedule,
    label_name,
)

ADVERTISING = "us-gaap:AdvertisingExpense"
COMMERCIAL_PAPER = "us-gaap:CommercialPaper"
LEASE_LIABILITY = "us-gaap:FinanceLeaseLiability"
GENERAL_ADMIN = "us-gaap:GeneralAndAdministrativeExpense"
RIGHT_OF_USE = "us-gaap:OperatingLeaseRightOfUseAsset"
CAPEX = "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"
PREPAID = "us-gaap:PrepaidExpenseAndOtherAssetsCurrent"
TREASURY = "us-gaap:TreasuryStockValueAcquiredCostMethod"
INVENTORY = "us-gaap:InventoryNet"
AMORTIZATION = "us-gaap:AmortizationOfIntangibleAssets"
OPERATING_LEASE_COST = "us-gaap:OperatingLeaseCost"

INCOME_STATEMENT = """CONSOLIDATED STATEMENTS OF OPERATIONS
| | Fiscal 2025 | Fiscal 2024 |
| Net sales | $ | 8,210 | $ | 7,980 |
| Cost of sales | 5,001 | 4,870 |
| Selling, general and administrative | 1,377 | 1,208 |
| Operating income | 1,832 | 1,902 |
"""


def _verdict(concept, *texts, years=(2025,), names=None, rare=frozenset(), tagged=(), body_start=0):
    scope = [ScopeText(f"f{k}", text, tagged if k == 0 else (), body_start) for k, text in enumerate(texts)]
    if names is None:
        names = [n for n in [label_name(concept)] if n is not None]
    return absence_verdict(scope, concept, set(years), names, rare)


def test_a_row_naming_the_item_with_a_figure_for_the_period_is_printed():
    text = INCOME_STATEMENT + "| Advertising | 212 | 198 |\n"
    verdict = _verdict(ADVERTISING, text)
    assert verdict.outcome == PRINTED and verdict.rule == rule.PRINTED_ROW and "Advertising" in verdict.detail


def test_a_tag_name_or_an_extension_concept_is_no_printed_evidence():
    """A candidate used to be rejected when one stem of its label sat inside any tag name: a lease liability for a
    trading-plan flag's tag, right-of-use assets for an extension about short-term borrowings."""
    tags = [
        "ecd:Rule10b51ArrTrdFlag",
        "xyz:ShortTermBorrowingsRightToUseFacilityMember",
        "xyz:FinanceLeaseProgramMember",
    ]
    assert _verdict(RIGHT_OF_USE, INCOME_STATEMENT, tagged=tags).outcome == ABSENT
    assert _verdict(LEASE_LIABILITY, INCOME_STATEMENT, tagged=tags).outcome == ABSENT


def test_the_cover_page_is_not_read():
    cover = (
        "FORM 10-K\nThe registrant meets the conditions set forth in General Instructions H(1)(a) and (b) of Form 10-K "
        "and files with the reduced disclosure format; general and administrative matters are described in Item 1 of "
        "the $1,000 million program.\n"
    )
    text = cover + INCOME_STATEMENT.replace("Selling, general and administrative", "Marketing")
    assert _verdict(GENERAL_ADMIN, text).outcome == PRINTED  # read from the first character, the cover counts
    assert _verdict(GENERAL_ADMIN, text, body_start=len(cover)).outcome == ABSENT
    assert cover_page_end(len(text) * 20, [len(cover), len(text)]) == len(cover)
    assert cover_page_end(len(text), [len(text)]) == 0  # one page: no cover page to leave out


def test_a_sentence_prints_the_item_only_with_an_amount_beside_its_words():
    near = "Advertising costs were $412 million in fiscal 2025."
    far = (
        "Over 85% of our cash, cash equivalents and marketable debt securities held at the end of the year were "
        "managed within North America and at our regional treasury centers."
    )
    assert _verdict(ADVERTISING, near).rule == rule.PRINTED_SENTENCE
    assert _verdict(TREASURY, far).outcome == ABSENT
    assert _verdict(ADVERTISING, "We rely on advertising partners to reach customers.").outcome == ABSENT


def test_a_sentence_saying_there_is_none_answers_the_question():
    none = "There was no commercial paper outstanding at the end of fiscal 2025."
    immaterial = "Advertising costs were not material in fiscal 2025."
    unrelated = "We do not expect to update these statements, other than as required by law."
    assert _verdict(COMMERCIAL_PAPER, none).rule == rule.PRINTED_NONE
    assert _verdict(ADVERTISING, immaterial).rule == rule.PRINTED_NONE
    assert _verdict(ADVERTISING, unrelated).outcome == ABSENT


def test_a_name_printed_for_other_periods_only_goes_to_review():
    old = "| | Fiscal 2023 | Fiscal 2022 |\n| Advertising | 150 | 140 |\n"
    verdict = _verdict(ADVERTISING, old, years=(2025,))
    assert verdict.outcome == REVIEW and verdict.rule == rule.PRINTED_OTHER_PERIODS
    assert "Advertising" in verdict.evidence[0].line
    assert _verdict(ADVERTISING, old, years=(2023,)).outcome == PRINTED


def test_a_row_holding_most_of_the_labels_words_goes_to_review():
    balance = "| | December 31, 2025 | December 31, 2024 |\n| Other current assets | 301 | 288 |\n"
    verdict = _verdict(PREPAID, balance)
    assert verdict.outcome == REVIEW and verdict.rule == rule.NEAR_ROW


def test_a_row_under_another_name_other_companies_print_is_printed_and_two_rare_words_go_to_review():
    cash_flows = (
        "| | Fiscal 2025 | Fiscal 2024 |\n| Purchases of property, equipment and software | (1,377) | (1,208) |\n"
    )
    alone = _verdict(CAPEX, cash_flows)
    assert alone.outcome == ABSENT  # the label alone ("capital expenditures") does not name the row
    rare = frozenset({"properti", "equip"})
    assert _verdict(CAPEX, cash_flows, rare=rare).outcome == REVIEW
    label = label_name(CAPEX)
    assert label is not None
    printed_elsewhere = Name("purchases of property and equipment", frozenset({"purchas", "properti", "equip"}), 5)
    verdict = _verdict(CAPEX, cash_flows, names=[label, printed_elsewhere])
    assert verdict.outcome == PRINTED and "5 other companies" in verdict.detail


def _names(rows_by_company: dict[str, list[str]]) -> PrintedNames:
    """Each company's filing prints its rows beside a capex fact of its own."""
    texts, facts, cik_of = {}, [], {}
    for cik, rows in rows_by_company.items():
        text = "".join(f"| {row} | (1,{k:03d}) |\n" for k, row in enumerate(rows))
        texts[f"{cik}-10k"], cik_of[f"{cik}-10k"] = text, cik
        offset = 0
        for line in text.splitlines(keepends=True):
            facts.append((f"{cik}-10k", CAPEX, offset + line.index("(1,")))
            offset += len(line)
    return PrintedNames.read(facts, texts, cik_of)


def test_names_learned_from_the_corpus_leave_the_asked_company_out():
    names = _names(
        {
            "1": ["Purchases of property and equipment"],
            "2": ["Purchases of property and equipment"],
            "3": ["Capital expenditures (1)"],
            "4": ["Additions to plant and machinery"],  # printed by one company: no consensus
        }
    )
    words = {n.words for n in names.names(CAPEX, "9")}
    assert "purchases of property and equipment" in words
    assert "additions to plant and machinery" not in words
    # company 1 asks: only company 2 prints the name now, under the consensus of two
    assert "purchases of property and equipment" not in {n.words for n in names.names(CAPEX, "1")}


def test_rare_words_are_counted_over_other_companies_rows():
    names = PrintedNames({}, {"1": Counter({"": 1000, "properti": 2}), "2": Counter({"": 10, "properti": 10})})
    assert "properti" in names.rare_stems(CAPEX, "2")  # 2 of company 1's 1,000 rows
    assert "properti" not in names.rare_stems(CAPEX, "1")  # every row of company 2's
    assert names.rare_stems(CAPEX, "3") == names.rare_stems(CAPEX, "3") and "equip" in names.rare_stems(CAPEX, "3")


def test_the_taxonomy_family_still_answers_an_inventories_question():
    balance = "| | 2025 | 2024 |\n| Materials and supplies | 512 | 498 |\n"
    assert _verdict(INVENTORY, balance).outcome == ABSENT
    verdict = _verdict(INVENTORY, balance, tagged=["us-gaap:MaterialsSuppliesAndOther"])
    assert verdict.outcome == PRINTED and verdict.rule == rule.FAMILY_TAGGED


def test_a_forward_schedule_under_the_concepts_words_answers_an_other_year_twin_carelessly():
    schedule = (
        "Estimated future amortization expense of intangible assets is as follows:\n"
        "| Fiscal year | Amount |\n| 2026 | 1,130 |\n| 2027 | 990 |\n| Total | 2,120 |\n"
    )
    scope = [ScopeText("f0", schedule)]
    found = forward_schedule(scope, AMORTIZATION, 2026)
    assert found is not None and found.kind == "schedule" and "amortization" in found.shown
    assert forward_schedule(scope, AMORTIZATION, 2028) is None
    leases = "Maturities of lease liabilities:\n| | 2026 | 2027 | Thereafter |\n| Payments | 140 | 120 | 300 |\n"
    assert forward_schedule([ScopeText("f0", leases)], OPERATING_LEASE_COST, 2027) is not None
    unrelated = "Our debt matures as follows:\n| 2026 | 500 |\n"
    assert forward_schedule([ScopeText("f0", unrelated)], AMORTIZATION, 2026) is None


# The independent audit of edgar-wide (reviews/edgar-wide/audit-v2.jsonl, before these rules) found three defects;
# each is a constructed case here, written for the test.


def test_a_row_holding_two_words_of_the_items_names_goes_to_review():
    """Audit defect: accrued compensation printed as "Payrolls and employee benefits ..." (no word of the label; the
    names other companies print, "accrued payroll ..." and "... compensation and benefits", share two of its words)."""
    accrued = "us-gaap:EmployeeRelatedLiabilitiesCurrent"
    note = "| | December 31, 2025 | December 31, 2024 |\n| Payrolls and employee benefits | 3,099 | 3,298 |\n"
    label = label_name(accrued)
    assert label is not None
    assert _verdict(accrued, note).outcome == ABSENT  # the label alone does not reach it
    learned = [
        label,
        Name("accrued payroll and related expenses", frozenset({"accru", "payrol", "relat"}), 2),
        Name("accrued compensation and benefits", frozenset({"accru", "compens", "benefit"}), 5),
    ]
    verdict = _verdict(accrued, note, names=learned)
    assert verdict.outcome == REVIEW and verdict.rule == rule.NEAR_ROW


def test_no_debt_at_all_answers_a_question_about_a_portion_of_debt_so_a_person_decides():
    """Audit defect: "we had no outstanding debt balances" answers "current portion of long-term debt" ($0), though
    the sentence holds one word of the label."""
    current_debt = "us-gaap:LongTermDebtCurrent"
    none = "As of December 31, 2025, we had no outstanding debt balances under our credit facility."
    verdict = _verdict(current_debt, none)
    assert verdict.outcome == REVIEW and verdict.rule == rule.NIL_NEARBY
    verbs = "Additional debt financing may not be available on favorable terms, or at all."
    assert _verdict(current_debt, verbs).outcome == ABSENT  # a verb's "not" denies no figure
    assert _verdict(current_debt, "We did not have any debt outstanding in fiscal 2025.").rule == rule.NIL_NEARBY


def test_a_row_under_the_gold_rows_name_in_a_table_without_years_is_a_second_fair_answer():
    """Audit defect (answerable): share repurchases at 439 paid in the cash flow statement and at 442 in the equity
    statement under the same row name: two fair answers, so no question."""
    cash_flows = "| | 2025 | 2024 |\n| Repurchases of common stock | (439) | (496) |\n"
    equity = "| | Shares | Amount | Total |\n| Repurchases of common stock | (863) | (15) | (442) |\n"
    scope = [ScopeText("f0", cash_flows + "\n" + equity)]
    rivals = rule.rival_rows(scope, "spending on share repurchases", "Repurchases of common stock", {2025}, "439")
    assert [r.figures[-1] for r in rivals] == ["442"]
    same = "| | Shares | Amount | Total |\n| Repurchases of common stock | (863) | (15) | (439) |\n"
    agreeing = [ScopeText("f0", cash_flows + "\n" + same)]
    assert (
        rule.rival_rows(agreeing, "spending on share repurchases", "Repurchases of common stock", {2025}, "439") == []
    )


def test_a_plan_that_made_no_contributions_answers_its_expense_so_a_person_decides():
    """Audit defect (second round): "did not make matching contributions" answers "defined contribution plan expense"
    (none), though no "no" stands before the words."""
    plan = "us-gaap:DefinedContributionPlanCostRecognized"
    denied = "The Company did not make matching contributions for the years ended December 31, 2025 and 2024."
    verdict = _verdict(plan, denied)
    assert verdict.outcome == REVIEW and verdict.rule == rule.NIL_NEARBY
    assert _verdict(plan, "We may not achieve the plans described in this report.").outcome == ABSENT


def test_a_cost_of_revenue_tagged_as_cost_of_goods_sold_answers_it_whatever_the_row_says():
    """Audit defect (shared corpus): "Cost of products sold" answers "cost of revenue"; the filer tags it
    us-gaap:CostOfGoodsAndServicesSold, an element of the same family."""
    statement = "| | 2025 | 2024 |\n| Cost of products sold | 41,164 | 40,848 |\n"
    assert _verdict("us-gaap:CostOfRevenue", statement).outcome == ABSENT  # no word of the label
    tagged = ["us-gaap:CostOfGoodsAndServicesSold"]
    verdict = _verdict("us-gaap:CostOfRevenue", statement, tagged=tagged)
    assert verdict.outcome == PRINTED and verdict.rule == rule.FAMILY_TAGGED
    assert _verdict("us-gaap:CostOfRevenue", statement, tagged=["us-gaap:CostOfServicesCapitalized"]).outcome == PRINTED
    assert _verdict("us-gaap:CostOfRevenue", statement, tagged=["us-gaap:CostsAndExpenses"]).outcome == ABSENT


def test_no_longer_having_a_repurchase_program_sends_a_repurchase_question_to_a_person():
    """Audit defect (edgar-wide, third round): "no longer has a stock repurchase plan" answers spending on share
    repurchases (none), five words from its "no"."""
    repurchases = "us-gaap:PaymentsForRepurchaseOfCommonStock"
    sentence = "Effective this quarter, the Company no longer has a stock repurchase plan or program."
    verdict = _verdict(repurchases, sentence)
    assert verdict.outcome == REVIEW and verdict.rule == rule.NIL_NEARBY


def test_a_net_gold_row_has_the_gross_row_of_the_questions_name_as_a_rival():
    """Audit defect (edgar-wide, answerable): "Interest expense, net" 1,505 beside "Interest expense" 1,653 gross, for
    "interest expense": two fair answers."""
    statement = "| | 2025 | 2024 |\n| Interest expense, net | 1,505 | 1,276 |\n"
    discussion = "| | 2025 | 2024 |\n| Interest expense | 1,653 | 1,380 |\n| Interest income | (148) | (104) |\n"
    scope = [ScopeText("f0", statement + "\n" + discussion)]
    rivals = rule.rival_rows(scope, "interest expense", "Interest expense, net", {2025}, "1,505")
    assert [r.shown for r in rivals] == ["Interest expense"]
    plain = [ScopeText("f0", "| | 2025 |\n| Interest expense | 1,505 |\n| Segment interest expense | 700 |\n")]
    assert rule.rival_rows(plain, "interest expense", "Interest expense", {2025}, "1,505") == []


def test_an_item_called_not_significant_later_in_its_sentence_answers_the_question():
    """Audit defect (shared corpus, fourth round): "Short-term and variable lease expenses for fiscal years 2025, 2024
    and 2023 were not significant" answers variable lease cost."""
    sentence = "Short-term and variable lease expenses for fiscal years 2025, 2024 and 2023 were not significant."
    verdict = _verdict("us-gaap:VariableLeaseCost", sentence)
    assert verdict.outcome == PRINTED and verdict.rule == rule.PRINTED_NONE


REPURCHASES = "us-gaap:PaymentsForRepurchaseOfCommonStock"


def test_a_zero_stated_in_words_is_not_asked_as_absent():
    """Issue 60: filings that say in words the amount was zero ("did not repurchase any shares during fiscal 2025")
    answer the question, with zero: it is not asked as not reported, and a person decides (the words may deny less
    than the line item: repurchases under one program). Said of another year, or with a modal ("may not
    repurchase"), it denies nothing of the asked year."""
    stated = [
        "The Company did not repurchase any shares of its common stock during fiscal 2025.",
        "The Company did not repurchase any shares of its common stock.",
        "No shares were repurchased under the program in 2025.",
        "There were no repurchases of common stock during the fiscal year ended June 30, 2025.",
        "The Company has never repurchased shares of its common stock.",
    ]
    for sentence in stated:
        verdict = _verdict(REPURCHASES, INCOME_STATEMENT + sentence + "\n")
        assert (verdict.outcome, verdict.rule) == (REVIEW, rule.NIL_NEARBY), sentence
    for sentence in (
        "The Company did not repurchase any shares of its common stock during fiscal 2023.",
        "We may not repurchase shares of our common stock in 2025 if conditions change.",
    ):
        assert _verdict(REPURCHASES, INCOME_STATEMENT + sentence + "\n").outcome == ABSENT, sentence


def test_a_name_a_sentence_gives_a_tagged_figure_is_learned_like_a_row_label():
    """Issue 60: names are learned from other companies' tagged sentences too ("Capital spending was $412 million"),
    two words or more, never across another figure, and never from the company asked about."""
    text = "In fiscal 2025, capital spending was $412 million."
    assert rule.sentence_name_at(text, text.index("$")) == "capital spending"
    text = "Amortization of intangible assets was $88 million."
    assert rule.sentence_name_at(text, text.index("$")) == "Amortization of intangible assets"
    text = "Sales rose 4% and capital spending was $412 million."
    assert rule.sentence_name_at(text, text.index("$")) == ""  # a figure before it: not the sentence's first
    text = "Charges were $5 million."
    assert rule.sentence_name_at(text, text.index("$")) == ""  # one word names too much
    texts = {
        f"{c}-10k": f"Net sales grew.\nIn fiscal 2025, capital spending was $4{k}2 million.\n"
        for k, c in enumerate("abc")
    }
    facts = [(f"{c}-10k", CAPEX, texts[f"{c}-10k"].index("$") + 1) for c in "abc"]
    names = PrintedNames.read(facts, texts, {f"{c}-10k": c for c in "abc"})
    learned = [name for name in names.names(CAPEX, "a") if name.words == "capital spending"]
    assert [name.companies for name in learned] == [2]  # b and c print it; a, the company asked, is left out
    two_print = PrintedNames.read(facts[:2], texts, {f"{c}-10k": c for c in "abc"})
    assert "capital spending" not in [name.words for name in two_print.names(CAPEX, "a")]  # b alone: no consensus
    spending = INCOME_STATEMENT + "Capital spending was $512 million in fiscal 2025.\n"
    assert _verdict(CAPEX, spending, names=learned).outcome == PRINTED
    assert _verdict(CAPEX, spending).outcome == ABSENT  # without what the other companies print: nothing names it


# Issue 60: elements learned to report the same holding, from what other companies print beside them.
CONTRACT_LIABILITIES = "us-gaap:ContractWithCustomerLiabilityCurrent"  # labelled "current contract liabilities"
DEFERRED_REVENUE_ELEMENT = "us-gaap:DeferredRevenueCurrent"


def _printed(rows_by_company: dict[str, list[tuple[str, str]]]) -> PrintedNames:
    """Each company's 10-K prints its rows (label, element) under a year header, each row's figure tagged with the
    row's element."""
    texts, facts, cik_of = {}, [], {}
    for cik, rows in rows_by_company.items():
        text = "| | 2025 | 2024 |\n" + "".join(
            f"| {label} | 3,{k:03d} | 2,{k:03d} |\n" for k, (label, _) in enumerate(rows)
        )
        filing = f"{cik}-10k"
        texts[filing], cik_of[filing] = text, cik
        for label, element in rows:
            facts.append((filing, element, text.index(f"| {label} |") + len(label) + 4))
    return PrintedNames.read(facts, texts, cik_of)


MEMBERSHIP_BALANCE = "| | 2025 | 2024 |\n| Deferred subscription fees | 2,174 | 2,042 |\n| Accounts payable | 9,100 |\n"


def _asked(printed: PrintedNames, cik: str, tagged: tuple[str, ...] = (DEFERRED_REVENUE_ELEMENT,)):
    concept = CONTRACT_LIABILITIES
    names = printed.names(concept, cik)
    scope = [ScopeText("asked-10k", MEMBERSHIP_BALANCE, tagged)]
    return absence_verdict(scope, concept, {2025}, names, frozenset(), printed.kin(concept, cik))


def test_an_element_other_companies_print_under_the_concepts_name_answers_it_whatever_the_row_says():
    """Issue 60: a row "Deferred subscription fees", tagged with an element other companies print under the concept's
    name, answers "current contract liabilities" although no word of the row names it. Two other companies print that
    element as "Contract liabilities": it joins the concept's family for the question."""
    printed = _printed(
        {
            "b": [
                ("Contract liabilities", DEFERRED_REVENUE_ELEMENT),
                ("Accounts payable", "us-gaap:AccountsPayableCurrent"),
            ],
            "c": [("Contract liabilities", DEFERRED_REVENUE_ELEMENT)],
            "d": [("Current contract liabilities", CONTRACT_LIABILITIES)],
        }
    )
    [kin] = printed.kin(CONTRACT_LIABILITIES, "a")
    assert (kin.element, kin.words, kin.companies) == (DEFERRED_REVENUE_ELEMENT, "contract liabilities", 2)
    verdict = _asked(printed, "a")
    assert verdict.outcome == PRINTED and verdict.rule == rule.FAMILY_TAGGED
    assert "2 other companies print as 'contract liabilities'" in verdict.detail
    assert _asked(printed, "a", tagged=()).outcome == ABSENT  # nothing the filing prints or tags names it
    assert _asked(printed, "a", tagged=("us-gaap:DeferredRevenueNoncurrent",)).outcome == ABSENT  # whole names only


def test_an_element_only_the_asked_company_prints_under_the_name_teaches_nothing():
    """Leave one company out: what the asked company prints itself is never evidence of its own family."""
    printed = _printed(
        {
            "a": [("Contract liabilities", DEFERRED_REVENUE_ELEMENT)],
            "b": [("Contract liabilities", DEFERRED_REVENUE_ELEMENT)],
            "c": [("Contract liabilities", DEFERRED_REVENUE_ELEMENT)],
        }
    )
    assert [k.companies for k in printed.kin(CONTRACT_LIABILITIES, "z")] == [3]
    assert [k.companies for k in printed.kin(CONTRACT_LIABILITIES, "a")] == [2]  # b and c, not a
    alone = _printed(
        {"a": [("Contract liabilities", DEFERRED_REVENUE_ELEMENT)], "b": [("Accounts payable", "x:Other")]}
    )
    assert alone.kin(CONTRACT_LIABILITIES, "a") == []
    assert _asked(alone, "a").outcome == ABSENT


def test_one_other_company_is_no_consensus():
    printed = _printed(
        {"b": [("Contract liabilities", DEFERRED_REVENUE_ELEMENT)], "c": [("Accounts payable", "x:AccountsPayable")]}
    )
    assert printed.kin(CONTRACT_LIABILITIES, "a") == []
    assert _asked(printed, "a").outcome == ABSENT


def test_an_element_printed_under_words_sharing_one_word_with_the_concept_does_not_join():
    """ "Other current liabilities" shares common words, "Contract assets" and "Contract costs" a word of the XBRL name
    with one of their own, "Contract liabilities and customer deposits" adds a holding of its own, and "Deferred
    revenue" is a wider holding under other words: none names current contract liabilities, however many companies
    print it."""
    rows = [
        ("Other current liabilities", "us-gaap:OtherLiabilitiesCurrent"),
        ("Contract assets", "us-gaap:ContractWithCustomerAssetNetCurrent"),
        ("Contract liabilities and customer deposits", "x:ContractLiabilitiesAndDeposits"),
        ("Contract costs", "us-gaap:CapitalizedContractCostNet"),
        ("Deferred revenue", DEFERRED_REVENUE_ELEMENT),
    ]
    printed = _printed({cik: rows for cik in "bcde"})
    assert printed.kin(CONTRACT_LIABILITIES, "a") == []
    tagged = tuple(element for _, element in rows)
    assert _asked(printed, "a", tagged=tagged).outcome == ABSENT


def test_an_element_most_companies_print_as_something_else_is_a_wider_holding():
    """Two companies print the element under the concept's name, three under another: under KIN_SHARE, it does not
    join (an accrued-liabilities element a few filers use for one of its lines is not that line)."""
    wide = "us-gaap:AccruedLiabilitiesCurrent"
    printed = _printed(
        {
            "b": [("Contract liabilities", wide)],
            "c": [("Contract liabilities", wide)],
            "d": [("Accrued liabilities", wide)],
            "e": [("Accrued liabilities", wide)],
            "f": [("Accrued expenses", wide)],
        }
    )
    assert printed.kin(CONTRACT_LIABILITIES, "a") == []  # 2 of the 5 others
    assert _asked(printed, "a", tagged=(wide,)).outcome == ABSENT
    # asked of f, 2 of the 4 others print it under the concept's name: at KIN_SHARE, it joins
    assert [k.element for k in printed.kin(CONTRACT_LIABILITIES, "f")] == [wide]


def test_a_printed_label_names_a_concept_with_its_words_and_none_of_its_own():
    label = label_name(CONTRACT_LIABILITIES)
    assert label is not None
    for words, named in (
        ("contract liabilities", True),
        ("contract liabilities, current", True),
        ("total current contract liabilities", True),
        ("contract liabilities, current portion", False),  # "portion" is no word of the concept's: conservative
        ("contract liabilities and customer deposits", False),
        ("deferred revenue", False),  # a wider holding, tagged apart: no word of the concept's own
        ("contract assets", False),
        ("other current liabilities", False),
        ("current", False),
        ("contract", False),  # one word names too much
    ):
        assert rule.names_concept(words, CONTRACT_LIABILITIES, [label]) is named, words


def test_an_element_another_company_tags_beside_the_concept_with_another_value_is_another_holding():
    """Two companies print a tax note's row "Contract liabilities" beside a deferred tax asset element; a third tags
    that element and the asked concept for one period with different values: two holdings, the element does not join.
    An element tagged for periods of time (a change in the balance) never joins a balance's family."""
    tax_asset = "us-gaap:DeferredTaxAssetsDeferredIncome"
    rows = {"b": [("Contract liabilities", tax_asset)], "c": [("Contract liabilities", tax_asset)]}
    texts = {f"{c}-10k": "| | 2025 |\n| Contract liabilities | 1,000 |\n" for c in "bcd"}
    cik_of = {f"{c}-10k": c for c in "bcd"}
    facts = [(f"{c}-10k", tax_asset, texts[f"{c}-10k"].index("1,000")) for c in rows]
    instant = "instant||2025-12-31"
    same = {("d-10k", CONTRACT_LIABILITIES, instant): {900.0}, ("d-10k", tax_asset, instant): {900.0}}
    assert [k.element for k in PrintedNames.read(facts, texts, cik_of, same).kin(CONTRACT_LIABILITIES, "a")] == [
        tax_asset
    ]
    apart = {("d-10k", CONTRACT_LIABILITIES, instant): {900.0}, ("d-10k", tax_asset, instant): {210.0}}
    printed = PrintedNames.read(facts, texts, cik_of, apart)
    assert printed.kin(CONTRACT_LIABILITIES, "a") == []
    assert _asked(printed, "a", tagged=(tax_asset,)).outcome == ABSENT
    assert printed.kin(CONTRACT_LIABILITIES, "d") != []  # d is asked: what d tags is left out
    flow = {
        ("d-10k", CONTRACT_LIABILITIES, instant): {900.0},
        ("b-10k", tax_asset, "duration|2025-01-01|2025-12-31"): {45.0},
    }
    assert PrintedNames.read(facts, texts, cik_of, flow).kin(CONTRACT_LIABILITIES, "a") == []


# Issue 60, third round: a holding that contains the asked item, said to be nil, answers it with none.
FINISHED_GOODS = "us-gaap:InventoryFinishedGoodsNetOfReserves"
CURRENT_DEBT = "us-gaap:LongTermDebtCurrent"


def test_a_wider_holding_said_nil_answers_the_item_with_none():
    """Audit defect (third round): "has no short-term borrowings" answers "commercial paper outstanding" (none), a
    holding the taxonomy sums into short-term borrowings; so for finished goods within inventories and the current
    portion within long-term debt. Every sentence is written for the test."""
    denied = [
        (COMMERCIAL_PAPER, "The Company has no short-term borrowings."),
        (COMMERCIAL_PAPER, "At December 31, 2025, we did not have any short-term debt outstanding."),
        (COMMERCIAL_PAPER, "There were no short-term bank borrowings at year end."),
        (FINISHED_GOODS, "As a services company, we hold no inventories."),
        (CURRENT_DEBT, "We had no long-term debt as of the end of fiscal 2025."),
        (COMMERCIAL_PAPER, "The Company does not have short-term debt."),
        (COMMERCIAL_PAPER, "We had no outstanding short-term borrowings at December 31, 2025."),
    ]
    for concept, sentence in denied:
        verdict = _verdict(concept, INCOME_STATEMENT + sentence + "\n")
        assert (verdict.outcome, verdict.rule) == (PRINTED, rule.WIDER_NONE), sentence
        assert sentence[:40] in verdict.detail and "contains the item" in verdict.detail


def test_a_wider_holding_named_without_a_denial_or_denied_in_part_does_not_answer_the_item():
    """The guards: a sentence naming the wider holding without denying it; one denying it for another year, or with a
    modal; one narrowed to a facility or a subsidiary, or excepting the item; one where the name modifies another
    noun ("no inventory write-downs"); and an item with no wider holding listed."""
    kept = [
        (COMMERCIAL_PAPER, "Short-term borrowings consist of bank loans and overdrafts."),
        (COMMERCIAL_PAPER, "Short-term debt was $1,200 million at December 31, 2025."),
        (COMMERCIAL_PAPER, "The Company had no short-term borrowings at the end of fiscal 2023."),
        (COMMERCIAL_PAPER, "We may not have short-term borrowings available on favorable terms."),
        (COMMERCIAL_PAPER, "There were no short-term borrowings outstanding under the revolving credit facility."),
        (COMMERCIAL_PAPER, "Our foreign subsidiaries had no short-term debt."),
        (COMMERCIAL_PAPER, "We had no short-term borrowings other than commercial paper notes."),
        (FINISHED_GOODS, "We recorded no inventory write-downs in fiscal 2025."),
        (CURRENT_DEBT, "There are no long-term debt maturities until 2030."),
        (CURRENT_DEBT, "Therefore, the Company is not filing any instruments evidencing long-term debt."),
        (COMMERCIAL_PAPER, "We may not have any short-term borrowings available when we need them."),
        (COMMERCIAL_PAPER, "No covenant restricts our short-term borrowings."),
        (ADVERTISING, "The Company has no short-term borrowings."),
    ]
    for concept, sentence in kept:
        verdict = _verdict(concept, INCOME_STATEMENT + sentence + "\n")
        assert verdict.rule != rule.WIDER_NONE, sentence


def test_the_wider_holdings_are_labelled_concepts_and_never_the_item_itself():
    for concept, holdings in rule.WIDER_HOLDINGS.items():
        assert concept in rule.CONCEPT_LABELS, concept
        own = rule.stems(rule.CONCEPT_LABELS[concept])
        for holding in holdings:
            assert rule.stems(holding) != own, (concept, holding)  # wider than the item, not its own name


def test_a_contract_liability_is_asked_by_its_own_name_not_as_deferred_revenue():
    """Issue 60, third round: "current deferred revenue" named a wider holding filers tag apart (deferred membership
    fees under us-gaap:DeferredRevenueCurrent), so a filing printing deferred revenue answered an absent-concept
    question worded as it; and "total debt" named more than us-gaap:LongTermDebt holds. Each is asked by its own name,
    and a row printing the wider holding does not answer it by its words."""
    assert rule.CONCEPT_LABELS[CONTRACT_LIABILITIES] == "current contract liabilities"
    assert rule.CONCEPT_LABELS["us-gaap:LongTermDebt"] == "long-term debt, including current portion"
    deferred = "| | 2025 | 2024 |\n| Deferred revenue | 2,174 | 2,042 |\n"
    assert _verdict(CONTRACT_LIABILITIES, deferred).outcome != PRINTED
    own = "| | 2025 | 2024 |\n| Contract liabilities | 2,174 | 2,042 |\n"
    assert _verdict(CONTRACT_LIABILITIES, own).rule == rule.PRINTED_ROW


# Issue 60, fourth round: an amount printed beside the item's own distinctive words, in the company's phrasing. Every
# row and sentence is written for the test.
FX = "us-gaap:ForeignCurrencyTransactionGainLossBeforeTax"
ACQUISITIONS = "us-gaap:PaymentsToAcquireBusinessesNetOfCashAcquired"
FX_WORDS = frozenset({"foreign", "currenc", "transact"})


def _phrased(*texts, years=(2025,), distinctive=FX_WORDS, claimed=None, concept=FX, heads=frozenset()):
    scope = [ScopeText(f"f{k}", text) for k, text in enumerate(texts)]
    names = [n for n in [label_name(concept)] if n is not None]
    return absence_verdict(scope, concept, set(years), names, distinctive=distinctive, claimed=claimed, heads=heads)


def test_an_amount_beside_two_distinctive_words_together_goes_to_review():
    sentence = "Currency swings in our foreign currency positions reduced earnings by $0.4 billion in fiscal 2025."
    assert _phrased(INCOME_STATEMENT).outcome == ABSENT
    verdict = _phrased(INCOME_STATEMENT + sentence + "\n")
    assert (verdict.outcome, verdict.rule) == (REVIEW, rule.DISTINCTIVE_PRICED)
    assert sentence[:30] in verdict.evidence[0].shown
    row = "| | Fiscal 2025 | Fiscal 2024 |\n| Net foreign currency remeasurement impact | (31) | 12 |\n"
    assert _phrased(row).outcome == REVIEW  # a row holding two of the label's words was sent to a person already
    bought = "| | 2025 | 2024 |\n| Purchases of franchise businesses, acquisitions of stores | (410) | (78) |\n"
    words = frozenset({"busi", "acquisit"})
    assert _phrased(bought, concept=ACQUISITIONS, distinctive=words).rule == rule.DISTINCTIVE_PRICED


def test_distinctive_words_without_an_amount_for_the_period_or_apart_or_claimed_leave_it_absent():
    kept = [
        "We are exposed to foreign currency risk in the markets we serve.",  # no amount
        "Foreign currency movements reduced earnings by $0.4 billion in fiscal 2023.",  # another year only
        "Foreign sales grew 12%, helped by $40 million of new products; our currency policy is described in Note 9.",
        "| | Fiscal 2023 | Fiscal 2022 |\n| Foreign currency remeasurement | (31) | 12 |",  # another year's columns
        "| | Fiscal 2025 | Fiscal 2024 |\n| Foreign | 310 | 288 |",  # one word: a tax note's jurisdiction
    ]
    for text in kept:
        assert _phrased(INCOME_STATEMENT + "Other matters.\n" + text + "\n").outcome == ABSENT, text
    words = frozenset({"busi", "acquisit"})
    sold = "| | 2025 | 2024 |\n| Pending acquisitions of businesses held for sale | 410 | 78 |\n"
    assert _phrased(sold, concept=ACQUISITIONS, distinctive=words).rule == rule.DISTINCTIVE_PRICED
    claimed = _phrased(sold, concept=ACQUISITIONS, distinctive=words, claimed=lambda label: "sale" in label)
    assert claimed.outcome == ABSENT  # a label the corpus prints for another element names that element
    assert _phrased(sold, concept=ACQUISITIONS, distinctive=frozenset({"busi"})).outcome == ABSENT  # one word alone
    apart = "| | 2025 | 2024 |\n| Businesses exited and other net assets from acquisitions | 410 | 78 |\n"
    assert _phrased(apart, concept=ACQUISITIONS, distinctive=words).outcome == ABSENT  # the words far apart


def _fx_printed(rows_by_company: dict[str, list[str]], row_share_padding: int = 0) -> PrintedNames:
    """Each company's 10-K prints its rows under a year header, the first row's figure tagged as the FX concept;
    `row_share_padding` other rows per company, to make the words rare among row labels."""
    texts, facts, cik_of = {}, [], {}
    for cik, rows in rows_by_company.items():
        padding = [f"Line item number {k}" for k in range(row_share_padding)]
        text = "| | 2025 | 2024 |\n" + "".join(
            f"| {label} | 3,{k:03d} | 2,{k:03d} |\n" for k, label in enumerate(rows + padding)
        )
        filing = f"{cik}-10k"
        texts[filing], cik_of[filing] = text, cik
        facts.append((filing, FX, text.index(f"| {rows[0]} |") + len(rows[0]) + 4))
    return PrintedNames.read(facts, texts, cik_of)


def test_distinctive_words_are_learned_from_other_companies_only():
    """Leave one company out: a word is the item's own when two other companies print it beside the concept's facts and
    it is rare among the other companies' row labels."""
    printed = _fx_printed(
        {
            "a": ["Foreign currency transaction losses"],
            "b": ["Foreign currency losses, net"],
            "c": ["Foreign exchange (gain) loss"],
        },
        row_share_padding=200,
    )
    assert printed.distinctive_words(FX, "z") == frozenset({"foreign", "currenc"})  # b and a print currency
    assert printed.distinctive_words(FX, "a") == frozenset({"foreign"})  # a asked: currency has b alone
    assert "transact" not in printed.distinctive_words(FX, "z")  # printed by a alone
    common = _fx_printed({c: ["Foreign currency losses"] for c in "bcd"})  # every row holds the words: not rare
    assert common.distinctive_words(FX, "a") == frozenset()


def test_a_label_other_companies_print_for_another_element_is_claimed():
    texts = {f"{c}-10k": "| | 2025 |\n| Foreign currency translation adjustments | 1,000 |\n" for c in "bcd"}
    cik_of = {f: f[0] for f in texts}
    other = "us-gaap:OtherComprehensiveIncomeForeignCurrencyTransactionAndTranslationAdjustmentNetOfTax"
    facts = [(f, other, texts[f].index("1,000")) for f in sorted(texts)[:2]]
    printed = PrintedNames.read(facts, texts, cik_of)
    assert printed.claimed("Foreign currency translation adjustments", FX, "a")
    assert not printed.claimed("Foreign currency translation adjustments", FX, "b")  # b asked: c alone prints it
    assert not printed.claimed("Foreign currency remeasurement", FX, "a")


def test_an_amount_beside_the_items_words_is_shown_first_when_near_rows_send_the_case_to_a_person():
    """Issue 60, fourth round: a person read eight passages of near rows ("Less: foreign currency effect") and admitted
    the question; the sentence printing the amount was the ninth. It is shown first, so the case is reviewed again."""
    rows = "".join(f"| Gain on sale of foreign unit {k} | {k} | {k + 1} |\n" for k in range(1, 10))
    near = "| | 2025 | 2024 |\n" + rows
    sentence = "The effects of foreign currency movements on earnings were $0.3 billion in fiscal 2025.\n"
    verdict = _phrased(near + "Other matters.\n" + sentence)
    assert verdict.outcome == REVIEW and verdict.evidence[0].shown == sentence.strip()
    assert len(verdict.evidence) == rule._REVIEW_EVIDENCE


# Issue 60, fourth round, second pass: the head of the label as filers print it ("Purchases of" for "Payments to
# Acquire"), learned from other elements' rows of other companies. Every row is written for the test.
PPE = "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"
INVESTMENTS = "us-gaap:PaymentsToAcquireInvestments"
INTANGIBLES = "us-gaap:PaymentsToAcquireIntangibleAssets"
BUSINESSES = frozenset({"busi"})
CASH_FLOWS = "| | 2025 | 2024 | 2023 |\n"


def _rows_printed(rows_by_company: dict[str, list[tuple[str, str]]]) -> PrintedNames:
    """Each company's 10-K prints its (label, element) rows, each row's first figure tagged with its element."""
    texts, facts, cik_of = {}, [], {}
    for cik, rows in rows_by_company.items():
        text = CASH_FLOWS + "".join(f"| {label} | (4{k}1.2) | (80{k}.0) |\n" for k, (label, _) in enumerate(rows))
        filing = f"{cik}-10k"
        texts[filing], cik_of[filing] = text, cik
        facts += [(filing, element, text.index(f"(4{k}1.2)")) for k, (_, element) in enumerate(rows)]
    return PrintedNames.read(facts, texts, cik_of)


def test_a_labels_head_is_learned_from_other_elements_of_other_companies():
    assert rule.label_head(ACQUISITIONS) == ("payments to acquire", frozenset({"busi", "net", "cash"}))
    change = rule.label_head("us-gaap:IncreaseDecreaseInAccountsPayable")
    assert change is not None and change[0] == "increase decrease in"
    assert rule.printed_head("Purchases of property and equipment") == "purchases of"
    assert rule.printed_head("Increase (decrease) in accounts payable") == "increase decrease in"
    assert rule.printed_head("Acquisitions, net of cash acquired") == ""  # "net of" opens nothing
    assert rule.printed_head("Capital expenditures") == ""
    printed = _rows_printed(
        {
            "a": [("Acquisitions of investments", INVESTMENTS), ("Purchases of equipment", PPE)],
            "b": [("Purchases of property and equipment", PPE), ("Acquisitions of investments", INVESTMENTS)],
            "c": [("Purchases of intangible assets", INTANGIBLES), ("Additions to property", PPE)],
            "d": [("Buyouts of businesses", ACQUISITIONS)],
            "e": [("Buyouts of businesses", ACQUISITIONS)],
        }
    )
    heads = printed.printed_heads(ACQUISITIONS, "z")
    assert {"purchases of", "acquisitions of"} <= heads  # a, b and c print purchases; a and b acquisitions
    assert "acquisitions of" not in printed.printed_heads(ACQUISITIONS, "a")  # the asked company's own print aside
    assert "additions to" not in heads  # printed by c alone
    assert "buyouts of" not in heads  # printed beside the asked concept only: the head is learned from other elements
    assert printed.printed_heads("us-gaap:ProceedsFromSaleOfProductiveAssets", "z") == frozenset()  # no other element


def test_a_row_opening_with_a_learned_head_and_holding_a_distinctive_word_goes_to_review():
    """McDonald's prints "Purchases of restaurant businesses" on its cash flow statement: one distinctive word alone
    ("businesses") is too weak a signal, but under the head other companies print for payments to acquire it names the
    item."""
    heads = frozenset({"purchases of", "acquisitions of"})

    def verdict(row: str, heads: frozenset[str] = heads, claimed=None):
        text = CASH_FLOWS + f"| {row} | (441.2) | (807.0) | (374.2) |\n"
        return _phrased(text, concept=ACQUISITIONS, distinctive=BUSINESSES, claimed=claimed, heads=heads)

    found = verdict("Purchases of restaurant businesses")
    assert (found.outcome, found.rule) == (REVIEW, rule.HEAD_PRICED)
    assert found.evidence[0].shown == "Purchases of restaurant businesses"
    assert verdict("Purchases of restaurant businesses", heads=frozenset()).outcome == ABSENT  # no head learned
    assert verdict("Purchases of restaurant equipment").outcome == ABSENT  # the head, no distinctive word
    assert verdict("Sales of restaurant businesses").outcome == ABSENT  # the word under another head
    assert verdict("Businesses purchased from franchisees").outcome == ABSENT  # the word, no head
    assert verdict("Purchases of restaurant businesses", claimed=lambda label: True).outcome == ABSENT
    other_year = "| | 2022 | 2021 |\n| Purchases of restaurant businesses | (441.2) | (807.0) |\n"
    assert _phrased(other_year, concept=ACQUISITIONS, distinctive=BUSINESSES, heads=heads).outcome == ABSENT
