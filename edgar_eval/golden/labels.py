"""Readable labels for the concepts questions are asked about (the raw tag is no question)."""

from __future__ import annotations

import re

CONCEPT_LABELS = {
    "us-gaap:Revenues": "total revenue",
    "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax": "total revenue",
    "us-gaap:CostOfRevenue": "cost of revenue",
    "us-gaap:GrossProfit": "gross profit",
    "us-gaap:ResearchAndDevelopmentExpense": "research and development expense",
    "us-gaap:SellingGeneralAndAdministrativeExpense": "selling, general and administrative expense",
    "us-gaap:RestructuringCharges": "restructuring charges",
    "us-gaap:OperatingIncomeLoss": "operating income",
    "us-gaap:OtherNonoperatingIncomeExpense": "other income (expense), net",
    "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest": "income before income taxes",
    "us-gaap:IncomeTaxExpenseBenefit": "provision for income taxes",
    "us-gaap:NetIncomeLoss": "net income",
    "us-gaap:EarningsPerShareBasic": "basic net income per share",
    "us-gaap:EarningsPerShareDiluted": "diluted net income per share",
    "us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding": "weighted average diluted shares",
    "us-gaap:CashAndCashEquivalentsAtCarryingValue": "cash and cash equivalents",
    "us-gaap:AccountsReceivableNetCurrent": "accounts receivable, net",
    "us-gaap:InventoryNet": "inventories",
    "us-gaap:PropertyPlantAndEquipmentNet": "property and equipment, net",
    "us-gaap:Goodwill": "goodwill",
    "us-gaap:Assets": "total assets",
    "us-gaap:LiabilitiesCurrent": "total current liabilities",
    "us-gaap:LongTermDebtNoncurrent": "long-term debt",
    "us-gaap:Liabilities": "total liabilities",
    "us-gaap:StockholdersEquity": "total stockholders' equity",
}

# Words whose presence in a filing's text means it may report the concept after all.
ABSENCE_PROBES = {
    "us-gaap:InventoryNet": ("inventor",),
    "us-gaap:ResearchAndDevelopmentExpense": ("research and development",),
    "us-gaap:RestructuringCharges": ("restructuring",),
    "us-gaap:Goodwill": ("goodwill",),
    "us-gaap:LongTermDebtNoncurrent": ("long-term debt",),
}


def label_for(concept: str) -> str:
    if concept in CONCEPT_LABELS:
        return CONCEPT_LABELS[concept]
    local = concept.split(":", 1)[-1]
    return re.sub(r"(?<!^)(?=[A-Z])", " ", local).lower()
