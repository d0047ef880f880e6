"""How a user names what a question asks about: a readable label per concept (company names: corpus.company_names).

Only concepts with a label here become questions: a label written once per concept reads the same
for every company, which the other-company and absent-concept questions rely on, and a raw tag
("PaymentsToAcquirePropertyPlantAndEquipment") is not how anyone asks.
"""

from __future__ import annotations

import re

CONCEPT_LABELS = {
    # operations
    "us-gaap:Revenues": "total revenue",
    "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax": "total revenue",
    "us-gaap:CostOfRevenue": "cost of revenue",
    "us-gaap:CostOfGoodsAndServicesSold": "cost of sales",
    "us-gaap:GrossProfit": "gross profit",
    "us-gaap:ResearchAndDevelopmentExpense": "research and development expense",
    "us-gaap:SellingGeneralAndAdministrativeExpense": "selling, general and administrative expense",
    "us-gaap:SellingAndMarketingExpense": "sales and marketing expense",
    "us-gaap:GeneralAndAdministrativeExpense": "general and administrative expense",
    "us-gaap:OperatingExpenses": "total operating expenses",
    "us-gaap:CostsAndExpenses": "total costs and expenses",
    "us-gaap:RestructuringCharges": "restructuring charges",
    "us-gaap:OperatingIncomeLoss": "operating income",
    "us-gaap:InterestExpense": "interest expense",
    "us-gaap:InterestExpenseNonoperating": "interest expense",
    "us-gaap:InvestmentIncomeInterest": "interest income",
    "us-gaap:OtherNonoperatingIncomeExpense": "other income (expense), net",
    "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest": (
        "income before income taxes"
    ),
    "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesForeign": "foreign income before income taxes",
    "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesDomestic": "domestic income before income taxes",
    "us-gaap:IncomeTaxExpenseBenefit": "provision for income taxes",
    "us-gaap:CurrentFederalTaxExpenseBenefit": "current federal income tax expense",
    "us-gaap:CurrentForeignTaxExpenseBenefit": "current foreign income tax expense",
    "us-gaap:DeferredIncomeTaxExpenseBenefit": "deferred income tax expense",
    "us-gaap:EffectiveIncomeTaxRateContinuingOperations": "effective tax rate",
    "us-gaap:NetIncomeLoss": "net income",
    "us-gaap:ComprehensiveIncomeNetOfTax": "comprehensive income",
    "us-gaap:EarningsPerShareBasic": "basic earnings per share",
    "us-gaap:EarningsPerShareDiluted": "diluted earnings per share",
    "us-gaap:WeightedAverageNumberOfSharesOutstandingBasic": "weighted average basic shares outstanding",
    "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding": "weighted average diluted shares outstanding",
    "us-gaap:OperatingLeaseCost": "operating lease cost",
    "us-gaap:ShareBasedCompensation": "stock-based compensation expense",
    "us-gaap:AllocatedShareBasedCompensationExpense": "stock-based compensation expense",
    "us-gaap:DepreciationDepletionAndAmortization": "depreciation and amortization",
    "us-gaap:DepreciationAndAmortization": "depreciation and amortization",
    "us-gaap:Depreciation": "depreciation expense",
    # financial position
    "us-gaap:CashAndCashEquivalentsAtCarryingValue": "cash and cash equivalents",
    "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents": "cash, cash equivalents and restricted "
    "cash",
    "us-gaap:AccountsReceivableNetCurrent": "accounts receivable, net",
    "us-gaap:InventoryNet": "inventories",
    "us-gaap:PrepaidExpenseAndOtherAssetsCurrent": "prepaid expenses and other current assets",
    "us-gaap:AssetsCurrent": "total current assets",
    "us-gaap:PropertyPlantAndEquipmentNet": "property and equipment, net",
    "us-gaap:PropertyPlantAndEquipmentGross": "gross property and equipment",
    "us-gaap:AccumulatedDepreciationDepletionAndAmortizationPropertyPlantAndEquipment": "accumulated depreciation",
    "us-gaap:OperatingLeaseRightOfUseAsset": "operating lease right-of-use assets",
    "us-gaap:Goodwill": "goodwill",
    "us-gaap:IntangibleAssetsNetExcludingGoodwill": "intangible assets, net",
    "us-gaap:OtherAssetsNoncurrent": "other non-current assets",
    "us-gaap:Assets": "total assets",
    "us-gaap:AccountsPayableCurrent": "accounts payable",
    "us-gaap:EmployeeRelatedLiabilitiesCurrent": "accrued compensation",
    # The element's own name (the taxonomy's "Contract with Customer, Liability, Current"): "deferred revenue" names
    # a wider holding filers tag apart (us-gaap:DeferredRevenueCurrent: deferred membership fees, say), and one that
    # tags both reports two figures, so a question worded as deferred revenue would be false where it is printed.
    "us-gaap:ContractWithCustomerLiabilityCurrent": "current contract liabilities",
    "us-gaap:LiabilitiesCurrent": "total current liabilities",
    "us-gaap:OperatingLeaseLiabilityCurrent": "current operating lease liabilities",
    "us-gaap:OperatingLeaseLiabilityNoncurrent": "non-current operating lease liabilities",
    "us-gaap:OperatingLeaseLiability": "total operating lease liabilities",
    "us-gaap:FinanceLeaseLiability": "finance lease liabilities",
    # "long-term debt" alone is two figures in one filing: the balance sheet's non-current line and the debt note's
    # total carrying amount with the current portion (an independent audit's defect, Abbott FY2023). "Total debt"
    # names a wider holding still: it adds short-term borrowings and commercial paper, which us-gaap:LongTermDebt
    # leaves out, so the element is asked by its own reading, with its current portion.
    "us-gaap:LongTermDebtNoncurrent": "long-term debt, net of current portion",
    "us-gaap:LongTermDebt": "long-term debt, including current portion",
    "us-gaap:OtherLiabilitiesNoncurrent": "other long-term liabilities",
    "us-gaap:Liabilities": "total liabilities",
    "us-gaap:RetainedEarningsAccumulatedDeficit": "retained earnings",
    "us-gaap:AccumulatedOtherComprehensiveIncomeLossNetOfTax": "accumulated other comprehensive income (loss)",
    "us-gaap:StockholdersEquity": "total stockholders' equity",
    "us-gaap:UnrecognizedTaxBenefits": "unrecognized tax benefits",
    "us-gaap:DeferredTaxAssetsValuationAllowance": "valuation allowance on deferred tax assets",
    # The taxonomy's own label: "Deferred Tax Assets, Net of Valuation Allowance" (before deferred tax liabilities);
    # "net deferred tax assets" reads as assets less liabilities, a different row (an audited defect, NVIDIA FY2023).
    "us-gaap:DeferredTaxAssetsNet": "deferred tax assets, net of valuation allowance",
    "us-gaap:RevenueRemainingPerformanceObligation": "remaining performance obligations",
    # cash flows
    "us-gaap:NetCashProvidedByUsedInOperatingActivities": "cash flow from operating activities",
    "us-gaap:NetCashProvidedByUsedInInvestingActivities": "cash flow from investing activities",
    "us-gaap:NetCashProvidedByUsedInFinancingActivities": "cash flow from financing activities",
    "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment": "capital expenditures",
    "us-gaap:PaymentsForRepurchaseOfCommonStock": "spending on share repurchases",
    "us-gaap:PaymentsOfDividends": "dividends paid",
    "us-gaap:PaymentsOfDividendsCommonStock": "dividends paid",
    "us-gaap:PaymentsToAcquireBusinessesNetOfCashAcquired": "cash paid for acquisitions",
    "us-gaap:IncomeTaxesPaidNet": "income taxes paid",
    "us-gaap:InterestPaidNet": "interest paid",
    # Leaf items some companies report and others never have (a commercial paper programme, treasury stock, finished
    # goods): answerable where reported, and the pool that absent-concept questions are drawn from elsewhere.
    "us-gaap:AdvertisingExpense": "advertising expense",
    "us-gaap:CommercialPaper": "commercial paper outstanding",
    "us-gaap:TreasuryStockValueAcquiredCostMethod": "treasury stock, at cost",
    "us-gaap:TreasuryStockCommonValue": "treasury stock, at cost",
    "us-gaap:AvailableForSaleSecuritiesDebtSecurities": "available-for-sale debt securities",
    "us-gaap:InventoryFinishedGoodsNetOfReserves": "finished goods inventory",
    "us-gaap:DefinedContributionPlanCostRecognized": "defined contribution plan expense",
    "us-gaap:VariableLeaseCost": "variable lease cost",
    "us-gaap:AmortizationOfIntangibleAssets": "amortization of intangible assets",
    "us-gaap:ForeignCurrencyTransactionGainLossBeforeTax": "foreign currency transaction gain (loss)",
    "us-gaap:CommonStockDividendsPerShareDeclared": "dividends declared per share",
    "us-gaap:LongTermDebtCurrent": "current portion of long-term debt",
    "us-gaap:DeferredTaxAssetsOperatingLossCarryforwards": "deferred tax assets for operating loss carryforwards",
    "us-gaap:AccruedLiabilitiesCurrent": "accrued liabilities",
}


# Concepts no user asks about: cover-page share counts, identifiers and dates of issue, par values.
BOILERPLATE_NAMESPACES = ("dei:",)
BOILERPLATE_CONCEPTS = frozenset(
    {
        "us-gaap:CommonStockSharesAuthorized",
        "us-gaap:CommonStockSharesIssued",
        "us-gaap:CommonStockSharesOutstanding",
        "us-gaap:CommonStockParOrStatedValuePerShare",
        "us-gaap:CommonStockNoParValue",
        "us-gaap:PreferredStockSharesAuthorized",
        "us-gaap:PreferredStockSharesIssued",
        "us-gaap:PreferredStockSharesOutstanding",
        "us-gaap:PreferredStockParOrStatedValuePerShare",
        "us-gaap:TreasuryStockShares",
        "us-gaap:CommonStockValue",
    }
)

_WORDS = re.compile(r"[a-z][a-z'-]+")
_GENERIC_WORDS = frozenset(
    {
        "total",
        "net",
        "other",
        "and",
        "of",
        "the",
        "for",
        "per",
        "on",
        "in",
        "to",
        "from",
        "current",
        "non-current",
        "expense",
        "expenses",
        "income",
        "loss",
        "flow",
        "activities",
        "paid",
        "spending",
    }
)


def label_for(concept: str) -> str | None:
    return CONCEPT_LABELS.get(concept)


def is_boilerplate(concept: str) -> bool:
    return concept.startswith(BOILERPLATE_NAMESPACES) or concept in BOILERPLATE_CONCEPTS


def distinctive_words(label: str) -> list[str]:
    """The words of a label that name its line item (the first five letters, so plurals and -ies agree)."""
    words = _WORDS.findall(label.lower())
    kept = [w for w in words if w not in _GENERIC_WORDS] or words
    return [w[:5] for w in kept]
