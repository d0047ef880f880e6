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
    "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest": "income before income taxes",
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
    "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents": "cash, cash equivalents and restricted cash",
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
    "us-gaap:ContractWithCustomerLiabilityCurrent": "current deferred revenue",
    "us-gaap:LiabilitiesCurrent": "total current liabilities",
    "us-gaap:OperatingLeaseLiabilityCurrent": "current operating lease liabilities",
    "us-gaap:OperatingLeaseLiabilityNoncurrent": "non-current operating lease liabilities",
    "us-gaap:OperatingLeaseLiability": "total operating lease liabilities",
    "us-gaap:FinanceLeaseLiability": "finance lease liabilities",
    "us-gaap:LongTermDebtNoncurrent": "long-term debt",
    "us-gaap:LongTermDebt": "total debt",
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
}

# The words a person (and a filing) uses for each label's line item: the label itself and its synonyms, as filings
# print them in row labels and prose. An absent-concept question is asked only where none of these is printed beside
# a figure; an other-year question only where the asked year is not printed beside one of them.
LABEL_SYNONYMS: dict[str, tuple[str, ...]] = {
    "total revenue": ("total revenue", "total revenues", "revenue", "revenues", "net revenue", "net revenues", "net sales",
                      "total net sales", "total net revenue", "total net revenues", "sales to customers", "operating revenues"),
    "cost of revenue": ("cost of revenue", "cost of revenues", "costs of revenue", "cost of sales", "cost of goods sold",
                        "cost of products sold", "costs of sales", "total cost of revenue", "total cost of sales"),
    "cost of sales": ("cost of sales", "costs of sales", "cost of revenue", "cost of revenues", "cost of goods sold",
                      "cost of products sold", "total cost of sales", "total cost of revenue"),
    "gross profit": ("gross profit", "gross margin"),
    "research and development expense": ("research and development", "research, development", "technology and development",
                                         "research and development expense", "research and development expenses"),
    "selling, general and administrative expense": ("selling, general and administrative", "selling, general, and administrative",
                                                    "selling and administrative", "sg&a"),
    "sales and marketing expense": ("sales and marketing", "selling and marketing", "marketing"),
    "general and administrative expense": ("general and administrative", "administrative expenses"),
    "total operating expenses": ("total operating expenses", "operating expenses", "total operating costs and expenses",
                                 "total operating costs"),
    "total costs and expenses": ("total costs and expenses", "costs and expenses", "total operating costs and expenses"),
    "restructuring charges": ("restructuring", "restructuring charges", "restructuring and other charges", "restructuring costs"),
    "operating income": ("operating income", "operating profit", "income from operations", "operating income (loss)",
                         "earnings from operations", "operating earnings"),
    "interest expense": ("interest expense", "interest expense, net", "interest and debt expense"),
    "interest income": ("interest income", "interest and dividend income", "interest and other income"),
    "other income (expense), net": ("other income (expense), net", "other income (expense)", "other income, net",
                                    "other expense, net", "other (income) expense, net", "other income", "nonoperating income"),
    "income before income taxes": ("income before income taxes", "income before provision for income taxes",
                                   "earnings before income taxes", "income before taxes", "pretax income", "pre-tax income",
                                   "income (loss) before income taxes"),
    "foreign income before income taxes": ("foreign", "non-u.s.", "international"),
    "domestic income before income taxes": ("domestic", "u.s.", "united states"),
    "provision for income taxes": ("provision for income taxes", "income tax expense", "income taxes", "income tax provision",
                                   "provision for taxes", "income tax expense (benefit)", "provision for (benefit from) income taxes"),
    "current federal income tax expense": ("current federal", "federal"),
    "current foreign income tax expense": ("current foreign", "foreign"),
    "deferred income tax expense": ("deferred income taxes", "deferred income tax", "deferred taxes", "deferred tax expense",
                                    "deferred income tax expense (benefit)"),
    "effective tax rate": ("effective tax rate", "effective income tax rate"),
    "net income": ("net income", "net earnings", "net income (loss)", "net loss", "net earnings (loss)",
                   "net income attributable to"),
    "comprehensive income": ("comprehensive income", "total comprehensive income", "comprehensive income (loss)"),
    "basic earnings per share": ("basic earnings per share", "basic net income per share", "earnings per share basic",
                                 "basic", "net income per share"),
    "diluted earnings per share": ("diluted earnings per share", "diluted net income per share", "earnings per share diluted",
                                   "diluted", "net income per share"),
    "weighted average basic shares outstanding": ("weighted-average shares", "weighted average shares", "basic shares",
                                                  "shares used in computing basic", "weighted-average basic", "basic"),
    "weighted average diluted shares outstanding": ("weighted-average shares", "weighted average shares", "diluted shares",
                                                    "shares used in computing diluted", "weighted-average diluted", "diluted"),
    "operating lease cost": ("operating lease cost", "operating lease costs", "operating lease expense", "rent expense"),
    "stock-based compensation expense": ("stock-based compensation", "share-based compensation", "stock based compensation",
                                         "share based compensation", "equity-based compensation", "stock compensation"),
    "depreciation and amortization": ("depreciation and amortization", "depreciation, amortization",
                                      "depreciation, depletion and amortization", "amortization and depreciation",
                                      "depreciation"),  # a filer with one "Depreciation" line answers it (Union Pacific)
    "depreciation expense": ("depreciation expense", "depreciation"),
    "cash and cash equivalents": ("cash and cash equivalents", "cash and equivalents", "cash & cash equivalents"),
    "cash, cash equivalents and restricted cash": ("cash, cash equivalents and restricted cash",
                                                   "cash, cash equivalents, and restricted cash",
                                                   "cash, cash equivalents, restricted cash",
                                                   "cash and cash equivalents and restricted cash",
                                                   "cash, cash equivalents and restricted cash equivalents"),
    "accounts receivable, net": ("accounts receivable, net", "accounts receivable", "receivables, net", "trade receivables",
                                 "trade accounts receivable", "receivables", "accounts and notes receivable"),
    "inventories": ("inventories", "inventory", "merchandise inventories"),
    "prepaid expenses and other current assets": ("prepaid expenses and other current assets", "prepaid expenses",
                                                  "other current assets", "prepaid expenses and other"),
    "total current assets": ("total current assets", "current assets"),
    "property and equipment, net": ("property and equipment, net", "property, plant and equipment, net",
                                    "property, plant, and equipment, net", "net property and equipment", "property and equipment",
                                    "property, plant and equipment", "net property, plant and equipment"),
    "gross property and equipment": ("property and equipment, gross", "gross property", "property, plant and equipment, gross",
                                     "total property and equipment", "total property, plant and equipment"),
    "accumulated depreciation": ("accumulated depreciation", "accumulated depreciation and amortization"),
    "operating lease right-of-use assets": ("operating lease right-of-use assets", "right-of-use assets",
                                            "operating lease assets", "operating lease right of use assets"),
    "goodwill": ("goodwill",),
    "intangible assets, net": ("intangible assets, net", "intangible assets", "other intangible assets",
                               "acquired intangible assets", "intangibles, net"),
    "other non-current assets": ("other non-current assets", "other noncurrent assets", "other assets", "other long-term assets"),
    "total assets": ("total assets",),
    "accounts payable": ("accounts payable", "trade payables", "trade accounts payable", "accounts payable and accrued"),
    "accrued compensation": ("accrued compensation", "employee compensation", "compensation and benefits", "accrued payroll",
                             "employee-related liabilities", "accrued salaries"),
    "current deferred revenue": ("deferred revenue", "unearned revenue", "contract liabilities", "deferred revenues",
                                 "unearned revenues"),
    "total current liabilities": ("total current liabilities", "current liabilities"),
    "current operating lease liabilities": ("current operating lease liabilities", "operating lease liabilities, current",
                                            "current portion of operating lease liabilities", "operating lease liabilities"),
    "non-current operating lease liabilities": ("non-current operating lease liabilities", "noncurrent operating lease liabilities",
                                                "long-term operating lease liabilities", "operating lease liabilities"),
    "total operating lease liabilities": ("total operating lease liabilities", "operating lease liabilities",
                                          "total lease liabilities"),
    "finance lease liabilities": ("finance lease liabilities", "finance lease", "capital lease obligations"),
    "long-term debt": ("long-term debt", "long term debt", "notes payable", "senior notes", "term debt", "long-term borrowings",
                       "borrowings"),
    "total debt": ("total debt", "long-term debt", "total borrowings", "term debt", "notes payable", "senior notes"),
    "other long-term liabilities": ("other long-term liabilities", "other non-current liabilities", "other noncurrent liabilities",
                                    "other liabilities"),
    "total liabilities": ("total liabilities",),
    "retained earnings": ("retained earnings", "accumulated deficit", "reinvested earnings", "retained earnings (accumulated deficit)"),
    "accumulated other comprehensive income (loss)": ("accumulated other comprehensive income", "accumulated other comprehensive loss",
                                                      "accumulated other comprehensive income (loss)"),
    "total stockholders' equity": ("total stockholders' equity", "total shareholders' equity", "total shareowners' equity",
                                   "total equity", "stockholders' equity", "shareholders' equity", "shareowners' equity"),
    "unrecognized tax benefits": ("unrecognized tax benefits", "gross unrecognized tax benefits", "uncertain tax positions"),
    "valuation allowance on deferred tax assets": ("valuation allowance",),
    "deferred tax assets, net of valuation allowance": ("deferred tax assets, net of valuation allowance",
                                                        "net deferred tax assets", "deferred tax assets, net",
                                                        "total deferred tax assets", "deferred income tax assets"),
    "remaining performance obligations": ("remaining performance obligations", "remaining performance obligation",
                                          "contracted revenue not yet recognized", "backlog",
                                          "deferred revenue"),  # Apple discloses them as "total deferred revenue of $X"
    "cash flow from operating activities": ("cash provided by operating activities", "cash from operating activities",
                                            "cash flows from operating activities", "provided by operating activities",
                                            "operating cash flow", "cash generated by operating activities", "operating activities"),
    "cash flow from investing activities": ("cash used in investing activities", "cash provided by (used in) investing activities",
                                            "cash from investing activities", "investing activities"),
    "cash flow from financing activities": ("cash used in financing activities", "cash provided by (used in) financing activities",
                                            "cash from financing activities", "financing activities"),
    "capital expenditures": ("capital expenditures", "purchases of property and equipment", "payments for property, plant and equipment",
                             "purchases of property, plant and equipment", "payments for acquisition of property",
                             "additions to property and equipment", "capital spending", "capital investments",
                             "payments for property and equipment", "purchases of property, plant, and equipment"),
    "spending on share repurchases": ("repurchases of common stock", "repurchase of common stock", "share repurchases",
                                      "stock repurchases", "purchases of treasury stock", "repurchases of stock",
                                      "payments for repurchase of common stock", "common stock repurchased", "buyback"),
    "dividends paid": ("dividends paid", "dividends", "cash dividends", "payments of dividends", "dividends to shareholders"),
    "cash paid for acquisitions": ("acquisitions, net of cash acquired", "acquisition of businesses", "business acquisitions",
                                   "cash paid for acquisitions", "acquisitions of businesses", "payments for acquisitions"),
    "income taxes paid": ("income taxes paid", "cash paid for income taxes", "income taxes, net of refunds"),
    "interest paid": ("interest paid", "cash paid for interest", "interest, net of amounts capitalized"),
}


def concept_words(concept: str) -> tuple[str, ...]:
    """The label of a concept and its synonyms: the words a person uses for it."""
    label = CONCEPT_LABELS.get(concept)
    if label is None:
        return ()
    return tuple(dict.fromkeys((label, *LABEL_SYNONYMS.get(label, ()))))


# Words whose presence in a filing's text means it may report the concept after all; a concept
# without an entry is probed by its label.
ABSENCE_PROBES = {
    "us-gaap:InventoryNet": ("inventor",),
    "us-gaap:ResearchAndDevelopmentExpense": ("research and development", "research, development"),
    "us-gaap:RestructuringCharges": ("restructuring",),
    "us-gaap:Goodwill": ("goodwill",),
    "us-gaap:LongTermDebtNoncurrent": ("long-term debt", "long term debt", "notes payable", "senior notes", "borrowings"),
    "us-gaap:LongTermDebt": ("long-term debt", "long term debt", "notes payable", "senior notes", "borrowings"),
    "us-gaap:GrossProfit": ("gross profit", "gross margin"),
    "us-gaap:CostOfRevenue": ("cost of revenue", "cost of sales", "costs of revenue", "cost of products", "cost of goods"),
    "us-gaap:CostOfGoodsAndServicesSold": ("cost of revenue", "cost of sales", "costs of revenue", "cost of products", "cost of goods"),
    "us-gaap:SellingAndMarketingExpense": ("marketing",),
    "us-gaap:GeneralAndAdministrativeExpense": ("general and administrative",),
    "us-gaap:SellingGeneralAndAdministrativeExpense": ("general and administrative", "selling, general"),
    "us-gaap:IntangibleAssetsNetExcludingGoodwill": ("intangible",),
    "us-gaap:FinanceLeaseLiability": ("finance lease",),
    "us-gaap:PaymentsOfDividends": ("dividend",),
    "us-gaap:PaymentsOfDividendsCommonStock": ("dividend",),
    "us-gaap:PaymentsForRepurchaseOfCommonStock": ("repurchase", "buyback", "buy back"),
    "us-gaap:PaymentsToAcquireBusinessesNetOfCashAcquired": ("acquisition", "acquired", "business combination"),
    "us-gaap:ContractWithCustomerLiabilityCurrent": ("deferred revenue", "contract liabilit", "unearned revenue"),
    "us-gaap:RevenueRemainingPerformanceObligation": ("remaining performance obligation",),
    "us-gaap:EmployeeRelatedLiabilitiesCurrent": ("accrued compensation", "employee compensation", "compensation and benefits",
                                                  "accrued payroll", "employee-related"),
    "us-gaap:InterestExpense": ("interest expense",),
    "us-gaap:InterestExpenseNonoperating": ("interest expense",),
    "us-gaap:InvestmentIncomeInterest": ("interest income",),
    "us-gaap:DeferredTaxAssetsValuationAllowance": ("valuation allowance",),
}

# Concepts no user asks about: cover-page share counts, identifiers and dates of issue, par values.
BOILERPLATE_NAMESPACES = ("dei:",)
BOILERPLATE_CONCEPTS = frozenset({
    "us-gaap:CommonStockSharesAuthorized", "us-gaap:CommonStockSharesIssued", "us-gaap:CommonStockSharesOutstanding",
    "us-gaap:CommonStockParOrStatedValuePerShare", "us-gaap:CommonStockNoParValue", "us-gaap:PreferredStockSharesAuthorized",
    "us-gaap:PreferredStockSharesIssued", "us-gaap:PreferredStockSharesOutstanding", "us-gaap:PreferredStockParOrStatedValuePerShare",
    "us-gaap:TreasuryStockShares", "us-gaap:CommonStockValue",
})

_WORDS = re.compile(r"[a-z][a-z'-]+")
_GENERIC_WORDS = frozenset({"total", "net", "other", "and", "of", "the", "for", "per", "on", "in", "to", "from", "current",
                            "non-current", "expense", "expenses", "income", "loss", "flow", "activities", "paid", "spending"})


def label_for(concept: str) -> str | None:
    return CONCEPT_LABELS.get(concept)


def is_boilerplate(concept: str) -> bool:
    return concept.startswith(BOILERPLATE_NAMESPACES) or concept in BOILERPLATE_CONCEPTS


def absence_probes(concept: str) -> tuple[str, ...]:
    label = CONCEPT_LABELS.get(concept, "")
    return ABSENCE_PROBES.get(concept, (label,) if label else ())


def distinctive_words(label: str) -> list[str]:
    """The words of a label that name its line item (the first five letters, so plurals and -ies agree)."""
    words = _WORDS.findall(label.lower())
    kept = [w for w in words if w not in _GENERIC_WORDS] or words
    return [w[:5] for w in kept]
