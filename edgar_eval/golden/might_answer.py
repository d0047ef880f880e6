"""What in a search scope might answer a question about a line item: the golden builder's own rule for calling a
question unanswerable, conservative by design and independent of every reader.

No list of words proves a negative: companies name one line in their own words ("purchases of property, equipment
and software" for capital expenditures), print a total as a heading over its components, or file their statements
in an exhibit. So the rule never asks "is one of the usual names printed?" but "is anything printed or tagged that
might mean it?", and it reads no reader's vocabulary (an import-linter contract and a test hold that):

* A concept's words are its label's and its XBRL name's (CamelCase parts: PaymentsToAcquirePropertyPlantAndEquipment
  gives payments, acquire, property, plant, equipment), as Snowball stems, so plurals, -ing and -ed forms agree.
* Of those, the distinctive stems are the ones that do not recur across the builder's line items: a stem in at least
  `COMMON_SHARE` of the labelled concepts (expense, income, net, total, current, tax, ...) names a family of items, not
  one. The share is computed from the concepts, not listed. A concept with no distinctive stem is never asked as
  absent: nothing could tell its absence from a line named in other words.
* Near the concept: a table row of the scope whose label holds a distinctive stem beside a figure; a heading row (a
  label with no figure) that holds one over rows of figures (one addition answers it); a sentence that holds one and
  a figure; a concept the scope tags (any namespace, the company's own extension concepts and dimension members
  included) whose name holds one of the label's distinctive stems or two of the name's; and a row, heading or
  tagged name that holds more than half of the label's stems, common ones included ("Other current assets" for
  prepaid expenses and other current assets).
* A total or a figure computed from others (`DERIVED`: gross profit, total costs and expenses, net property and
  equipment, ...) is never asked as absent: its components, printed under whatever names, answer it by one
  computation.

Blind spots, said in the README too: a line named with none of the concept's words and no tag holding them nor
tagged with an element of the concept's taxonomy family (`TAXONOMY_FAMILIES`: "materials and supplies" is an
inventory, and tagged as one), a figure printed only in a chart or an image,
and statements filed beside the 10-K under words `statements_elsewhere` does not read. The shipped MiniLM embedder
was tried as a further signal and does not separate such synonyms from unrelated lines (cosine 0.51 for inventories
against materials and supplies, 0.47 against property and equipment; 0.58 for advertising expense against cost of
revenue, 0.44 against marketing), so it is not used: a threshold between those would call noise near.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import Stemmer

from edgar_eval.golden.labels import CONCEPT_LABELS

COMMON_SHARE = 0.06  # a stem in 6 or more of the 94 labelled concepts names a family (expense, tax, income, lease)
_FUNCTION_WORDS = frozenset("a an and are as at by for from in into is its of on or per the to with".split())
_WORD = re.compile(r"[a-z]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z]*|[a-z]+|\d+")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_FIGURE = re.compile(r"(?<![\w.])\(?\$?\s?\d[\d,]*(?:\.\d+)?\)?%?")
_REFERENCE_BEFORE = re.compile(r"\b(?:notes?|items?|pages?|parts?|sections?|exhibits?|rules?|form|schedule)\s*$", re.I)
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(\"\u201c])")

# Totals and figures computed from others, by the taxonomy's own calculation relations: the components answer them
# by one addition or subtraction, under whatever names a filing prints them.
DERIVED = frozenset(
    {
        "us-gaap:Revenues",
        "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
        "us-gaap:GrossProfit",
        "us-gaap:SellingGeneralAndAdministrativeExpense",
        "us-gaap:OperatingExpenses",
        "us-gaap:CostsAndExpenses",
        "us-gaap:OperatingIncomeLoss",
        "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
        "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesForeign",
        "us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesDomestic",
        "us-gaap:IncomeTaxExpenseBenefit",
        "us-gaap:DeferredIncomeTaxExpenseBenefit",
        "us-gaap:EffectiveIncomeTaxRateContinuingOperations",
        "us-gaap:NetIncomeLoss",
        "us-gaap:ComprehensiveIncomeNetOfTax",
        "us-gaap:EarningsPerShareBasic",
        "us-gaap:EarningsPerShareDiluted",
        "us-gaap:DepreciationDepletionAndAmortization",
        "us-gaap:DepreciationAndAmortization",
        "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents",
        "us-gaap:AssetsCurrent",
        "us-gaap:PropertyPlantAndEquipmentNet",
        "us-gaap:PropertyPlantAndEquipmentGross",
        "us-gaap:IntangibleAssetsNetExcludingGoodwill",
        "us-gaap:Assets",
        "us-gaap:LiabilitiesCurrent",
        "us-gaap:OperatingLeaseLiability",
        "us-gaap:LongTermDebt",
        "us-gaap:Liabilities",
        "us-gaap:StockholdersEquity",
        "us-gaap:DeferredTaxAssetsNet",
        "us-gaap:NetCashProvidedByUsedInOperatingActivities",
        "us-gaap:NetCashProvidedByUsedInInvestingActivities",
        "us-gaap:NetCashProvidedByUsedInFinancingActivities",
    }
)


# Elements of the taxonomy that report the same holding under other words: a filer that tags one of them holds the
# asked item, whatever its row says ("Materials and supplies" is a railroad's inventory, tagged
# us-gaap:MaterialsSuppliesAndOther). Local names, matched as prefixes in any namespace. Added where an independent
# audit found a defect the stems missed (reviews/edgar/audit-v2.jsonl), each held by a constructed test.
TAXONOMY_FAMILIES: dict[str, tuple[str, ...]] = {
    "us-gaap:InventoryNet": (
        "Inventory",
        "MaterialsSuppliesAndOther",
        "OtherInventory",
        "RetailRelatedInventory",
        "IncreaseDecreaseInInventories",
        "IncreaseDecreaseInMaterialsAndSupplies",
    ),
}


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def stems(text: str) -> frozenset[str]:
    """The Snowball stems of a text's words, function words left out; "share-based" reads as share and based."""
    words = [w for w in _WORD.findall(text.lower().replace("\u2019", "'")) if w not in _FUNCTION_WORDS]
    return frozenset(_stemmer().stemWords(words))


def concept_name_words(concept: str) -> str:
    """An XBRL concept's name as words: "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment" -> "payments to acquire
    property plant and equipment"; "Sharebased" stays one word, as the taxonomy spells it."""
    local = concept.split(":", 1)[-1]
    return " ".join(part.lower() for part in _CAMEL.findall(local))


def concept_stems(concept: str) -> frozenset[str]:
    """Every stem of a concept's label and of its XBRL name."""
    return stems(CONCEPT_LABELS.get(concept, "")) | stems(concept_name_words(concept))


@lru_cache(maxsize=1)
def common_stems() -> frozenset[str]:
    """Stems that recur across the labelled concepts (in `COMMON_SHARE` of them or more): they name a family."""
    counts = Counter(stem for concept in CONCEPT_LABELS for stem in concept_stems(concept))
    floor = COMMON_SHARE * len(CONCEPT_LABELS)
    return frozenset(stem for stem, n in counts.items() if n >= floor)


def distinctive_stems(concept: str) -> frozenset[str]:
    return concept_stems(concept) - common_stems()


def can_be_absent(concept: str) -> str | None:
    """None when a question about `concept` may be asked as absent at all; else why not."""
    if concept in DERIVED:
        return "a total or a computed figure: its components, under any names, answer it by one computation"
    if not distinctive_stems(concept):
        return (
            "its words (" + ", ".join(sorted(concept_stems(concept))) + ") all name families of line items: nothing "
            "could tell its absence from a line named in other words"
        )
    return None


def has_figure(text: str) -> bool:
    """A number that is not a year, nor a reference ("Note 4", "Item 7", "page 12")."""
    for match in _FIGURE.finditer(text):
        if _REFERENCE_BEFORE.search(text, max(0, match.start() - 12), match.start()):
            continue
        figure = match.group(0)
        digits = re.sub(r"\D", "", figure)
        if digits and not (_YEAR.fullmatch(digits) and "," not in figure and "." not in figure):
            return True
    return False


@dataclass(frozen=True)
class Evidence:
    """One thing in scope that might answer the question: a tagged concept, a row, a heading or a sentence."""

    filing_id: str
    kind: str  # "tagged", "row", "heading", "sentence"
    shown: str  # as printed (a row label, a heading, a sentence) or the concept's name
    years: frozenset[int]  # the years it is printed for (table header years, or the years a sentence names)
    figures: tuple[str, ...] = ()  # a row's figures as printed, without "$", parentheses or "%"
    line: str = ""  # a row or heading's whole line as printed, for a person to read

    def describe(self) -> str:
        what = {"tagged": "tags", "row": "prints the row", "heading": "prints the heading", "sentence": "prints"}
        return f"{self.filing_id} {what[self.kind]} {self.shown[:160]!r}"


class ScopeText:
    """One filing's rows, headings, sentences and tagged concepts, each with its stems: built once per filing."""

    def __init__(self, filing_id: str, text: str, tagged_concepts: Iterable[str] = ()):
        self.filing_id = filing_id
        self.entries: list[tuple[frozenset[str], Evidence]] = []
        for concept in sorted(set(tagged_concepts)):
            words = concept_name_words(concept)
            self.entries.append((stems(words), Evidence(filing_id, "tagged", concept, frozenset())))
        self._read(text)
        self._by_stem: dict[str, list[int]] = {}
        for k, (held, _) in enumerate(self.entries):
            for stem in held:
                self._by_stem.setdefault(stem, []).append(k)

    def _read(self, text: str) -> None:
        header_years: set[int] = set()
        in_table, seen_figures = False, False
        heading: tuple[frozenset[str], str] | None = None  # a label-only row waiting for figure rows under it
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith("|"):
                if not in_table:
                    header_years, in_table, seen_figures, heading = set(), True, False, None
                cells = [c.strip() for c in stripped.strip("|").split("|")]
                label, rest = (cells[0], " ".join(cells[1:])) if cells else ("", "")
                if label and has_figure(rest):
                    seen_figures = True  # a row of figures, a year's row of a maturity schedule too: the header is over
                    if _YEAR.fullmatch(label):
                        continue
                    years = frozenset(header_years)
                    figures = tuple(m.group(0).strip("$()% ") for m in _FIGURE.finditer(rest))
                    row = Evidence(self.filing_id, "row", label, years, figures, stripped)
                    self.entries.append((stems(label), row))
                    if heading is not None:  # a heading over rows of figures: their sum answers it
                        shown = f"{heading[1]}\n{stripped}"
                        self.entries.append(
                            (heading[0], Evidence(self.filing_id, "heading", heading[1], years, (), shown))
                        )
                        heading = None
                    continue
                if label and not rest.strip() and not _YEAR.search(label):
                    heading = (stems(label), label)  # "Costs and expenses:" over its component rows
                elif not seen_figures:
                    header_years |= {int(y) for y in _YEAR.findall(stripped)}
                continue
            in_table, heading = False, None
            for sentence in _SENTENCE_END.split(stripped):
                if has_figure(sentence):
                    years = frozenset(int(y) for y in _YEAR.findall(sentence))
                    self.entries.append((stems(sentence), Evidence(self.filing_id, "sentence", sentence, years)))

    def near(self, asked: "Asked", year: int | None = None) -> list[Evidence]:
        """The entries that might answer `asked` (printed for `year`, when given), in text order: a row, heading or
        sentence holding a distinctive stem; a tagged name holding a distinctive stem of the label, or two of the
        name's (a CamelCase name has many parts: "CrossCurrencySwapContractsMember" is no contract liability); a row,
        heading or tagged name holding most of the label's stems."""
        hits: Counter[int] = Counter(k for stem in asked.distinctive for k in self._by_stem.get(stem, []))
        by_label = {k for stem in asked.distinctive & asked.label for k in self._by_stem.get(stem, [])}
        tagged_need = min(2, len(asked.distinctive))
        near = {k for k, n in hits.items() if self.entries[k][1].kind != "tagged" or k in by_label or n >= tagged_need}
        near |= {
            k
            for stem in asked.label
            for k in self._by_stem.get(stem, [])
            if self.entries[k][1].kind != "sentence" and len(self.entries[k][0] & asked.label) >= asked.covering
        }
        if asked.family:
            near |= {
                k
                for k, (_, e) in enumerate(self.entries)
                if e.kind == "tagged" and e.shown.split(":", 1)[-1].startswith(asked.family)
            }
        found = [self.entries[k][1] for k in sorted(near)]
        return [e for e in found if year is None or year in e.years]


@dataclass(frozen=True)
class Asked:
    """What a question about one concept asks, as stems: its distinctive ones, and its label's (module doc); and the
    taxonomy elements that report the same holding (`TAXONOMY_FAMILIES`)."""

    distinctive: frozenset[str]
    label: frozenset[str]
    family: tuple[str, ...] = ()

    @property
    def covering(self) -> int:
        """How many of the label's stems a short label must hold to name the same line: more than half, two at least
        ("Other current assets" for prepaid expenses and other current assets)."""
        return max(2, len(self.label) // 2 + 1) if len(self.label) > 1 else 1

    @classmethod
    def of(cls, concept: str) -> "Asked":
        label = stems(CONCEPT_LABELS.get(concept, "")) or stems(concept_name_words(concept))
        return cls(distinctive_stems(concept), label, TAXONOMY_FAMILIES.get(concept, ()))


class ScopeTexts:
    """Every filing's ScopeText, read on first use and kept: many questions share a scope, and the builder, its
    invariants and the audit sheet each ask for the same filings."""

    def __init__(self, texts: Mapping[str, str], tagged: Mapping[str, Iterable[str]] | None = None):
        self._texts = texts
        self._tagged = tagged or {}
        self._read: dict[str, ScopeText] = {}

    def of(self, filing_ids: Iterable[str]) -> list[ScopeText]:
        """The filings' texts in the order given, leaving out any filing without text."""
        out = []
        for f in filing_ids:
            if f not in self._texts:
                continue
            if f not in self._read:
                self._read[f] = ScopeText(f, self._texts[f], self._tagged.get(f, ()))
            out.append(self._read[f])
        return out


_TOTAL_WORDS = frozenset({"total", "net"})


def rival_rows(scope: Iterable[ScopeText], label: str, gold_row: str, years: set[int], printed: str) -> list[Evidence]:
    """Where the filing prints the gold under its own words (`gold_row`: "Purchases of property and equipment") and
    elsewhere a row that names the asked line item itself ("Total capital expenditures" for capital expenditures: the
    label's stems, "total" and "net" aside) in a table whose header prints one of `years`, without the gold figure
    `printed`: a second figure a careful reader would give for the question. Where the gold row itself carries the
    asked words, a row of that name elsewhere is a breakdown (a segment's operating income), not a rival."""
    asked = stems(label) - _TOTAL_WORDS
    if stems(gold_row) - _TOTAL_WORDS == asked:
        return []
    found = []
    for text in scope:
        for held, evidence in text.entries:
            if evidence.kind == "row" and held - _TOTAL_WORDS == asked and evidence.years & years:
                if printed not in evidence.figures:
                    found.append(evidence)
    return found


def nearest(scope: Iterable[ScopeText], concept: str, year: int | None = None) -> Evidence | None:
    """The first thing in the scope's filings that might answer a question about `concept`, or None (module doc)."""
    asked = Asked.of(concept)
    for text in scope:
        found = text.near(asked, year)
        if found:
            return found[0]
    return None


def evidence_sheet(scope: Iterable[ScopeText], concept: str, year: int | None = None, limit: int = 8) -> list[Evidence]:
    """Up to `limit` things in scope that might answer it, for a person to read: the filings take turns, printed rows
    and headings first, then sentences, then tagged names."""
    asked = Asked.of(concept)
    order = {"row": 0, "heading": 0, "sentence": 1, "tagged": 2}
    queues = [sorted(text.near(asked, year), key=lambda e: order[e.kind]) for text in scope]
    picked: list[Evidence] = []
    for turn in range(max((len(q) for q in queues), default=0)):
        picked += [q[turn] for q in queues if turn < len(q)]
    return picked[:limit]


def asked_words(concept: str) -> str:
    """What the rule looks for, said for a reviewer: the distinctive stems and the label's."""
    asked = Asked.of(concept)
    return (
        f"distinctive stems {', '.join(sorted(asked.distinctive)) or '(none)'}; label stems "
        f"{', '.join(sorted(asked.label))} ({asked.covering} of them name the line)"
    )


# "Item 8. Financial Statements and Supplementary Data: Refer to pages 46 through 121 of the Annual Report to
# Stockholders, which are incorporated herein by reference": the statements live in a document the 10-K points at.
_ITEM_HEADING = re.compile(r"\bitem\s+(7|8)\s*[.:\u2014\u2013-]", re.I)
_BY_REFERENCE = re.compile(r"incorporated\s+(?:herein\s+)?by\s+reference", re.I)
_ELSEWHERE = re.compile(
    r"annual\s+report\s+to\s+(?:stock|share)holders|exhibit\s+13\b|annual\s+report\s+to\s+security", re.I
)
_ITEM_WINDOW = 600  # characters after an Item 7 or Item 8 heading read for the pointer
SPARSE_FACTS_SHARE = 0.25  # a 10-K tagging under a quarter of the corpus's usual count holds no statements of its own


def statements_elsewhere(form: str, text: str, numeric_facts: int, usual_numeric_facts: float | None) -> str | None:
    """Why a 10-K's financial statements are not in its own text (Items 7 and 8 incorporated by reference from an
    annual-report exhibit), or None. Read from the filing's own words at its Item 7 and Item 8 headings; failing
    those, from a tagged-fact count far under the corpus's usual one for a 10-K."""
    if form != "10-K":
        return None
    for match in _ITEM_HEADING.finditer(text):
        window = text[match.start() : match.start() + _ITEM_WINDOW]
        if _BY_REFERENCE.search(window) and _ELSEWHERE.search(window):
            return f"Item {match.group(1)} is incorporated by reference from the annual report to stockholders"
    if usual_numeric_facts and numeric_facts < SPARSE_FACTS_SHARE * usual_numeric_facts:
        return (
            f"it tags {numeric_facts} numeric facts where a 10-K of this corpus usually tags "
            f"{usual_numeric_facts:,.0f}: its statements are not in its own text"
        )
    return None
