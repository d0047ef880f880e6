"""Golden questions that need two documents, built from the XBRL facts of two filings, no model involved.

Single-document questions ask one figure of one filing; what retrieval and readers miss most is the other half
(BRIEF.md, D4 and D7; public benchmarks lose 14 to 19 points from single-document to longitudinal and cross-company
questions). Four kinds, each from two fair single-figure candidates (golden.figure_selection: printed, labelled, of
their filing's own period, passing the fairness rules), each with its evidence in both filings:

* `granularity` (D4): the second half or the fourth quarter of a fiscal year, one subtraction: the 10-K's fiscal-year
  figure less a 10-Q's six- or nine-month figure of the same year. Kept only where the 10-K neither tags a period
  ending at its year end shorter than the year nor prints the difference: otherwise one document answers it. Never
  of a per-share figure or a rate: a year's earnings per share less six months' is not the second half's (the
  average share counts differ), so those are not asked.
* `restatement` (D7): a figure as first reported and as reported now, where a later filing tags the same concept and
  period with another value (a restatement, a stock split, a revised estimate). The later filing supersedes; a ratio
  of a whole number on a per-share or share figure is said to be consistent with a stock split. Not asked where the
  first filing already prints the later figure (two lines of one period, not a revision).
* `change_over_time`: a company's figure in two fiscal years from two annual reports, where the later report does
  not print the earlier year's figure nor a row of the item's words for that year (otherwise one document answers
  it), with the direction of the change; each figure printed in a row or sentence that names the item (not a
  schedule's bare "Total"), and one read from a sentence not beside another sentence of the item's words with
  another amount for its year (two fair answers).
* `cross_company`: which of two companies reported more of one line item for one fiscal year, and both figures; not
  asked where one company's line says it includes or excludes what the other's does not (`scope_words`: "excluding
  finance leases" against a line that says nothing of them).

Every figure a question's answer must state is in `gold_figures` (value, the answer as printed, its role, whether it
is required, its filing, page and quote): the judge (evaluation.judge.judge_figures) reads them, and `gold_direction`
holds the word that must be right (increase or decrease, the company that reported more). The search scope is every
filing of the company's (or both companies') fiscal years involved.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Protocol

from edgar_eval.corpus.figure_match import values_differ
from edgar_eval.golden.might_answer import ScopeText, names_its_figure, rival_sentences, rows_naming, stems

GRANULARITY = "granularity"
RESTATEMENT = "restatement"
CHANGE_OVER_TIME = "change_over_time"
CROSS_COMPANY = "cross_company"
TWO_DOCUMENT_KINDS = (GRANULARITY, RESTATEMENT, CHANGE_OVER_TIME, CROSS_COMPANY)
PER_COMPANY = 8  # questions of one two-document kind per company (a pair of companies counts for both)

# Why a pair is not asked (golden_rejections rules, under the kind):
ONE_DOCUMENT_SUFFICES = "one_document_suffices"  # one filing prints both figures or the derived one
NO_CHANGE = "no_change"  # the two figures are equal: no direction to state
NOT_THE_SAME_SCOPE = "not_the_same_scope"  # one company's line includes or excludes what the other's does not
DERIVED_TOO_SMALL = "derived_figure_too_small"  # the difference has under three significant digits, or is not positive
NOT_COMPARABLE = "not_comparable"  # two figures of different units or of opposite signs
NOT_ADDITIVE = "not_additive"  # a per-share figure or a rate: a part of a year is not the year less the months
QUOTA_TWO_DOCUMENT = "quota_two_document"  # over PER_COMPANY for a company
NOT_THE_SAME_LINE = "not_the_same_line"  # a restatement's two figures are not printed in rows of one name
FIRST_PRINTS_LATER = "first_prints_later_figure"  # the first filing prints the later figure too: two lines, no revision
RIVAL_SENTENCE = "rival_sentence"  # a gold read from a sentence, another sentence of its words with another amount
FIGURE_NOT_NAMED = "figure_not_named"  # the row or sentence printing a figure does not name the item
TWO_DOCUMENT_RULES = (
    ONE_DOCUMENT_SUFFICES,
    NO_CHANGE,
    NOT_THE_SAME_SCOPE,
    DERIVED_TOO_SMALL,
    NOT_COMPARABLE,
    NOT_ADDITIVE,
    NOT_THE_SAME_LINE,
    FIRST_PRINTS_LATER,
    RIVAL_SENTENCE,
    FIGURE_NOT_NAMED,
    QUOTA_TWO_DOCUMENT,
)

_SPLIT_RATIOS = (2, 3, 4, 5, 10, 20)
_PER_SHARE_UNITS = ("USD/shares", "shares")


# reject(kind, filing_id, cik, concept, period, rule, detail): golden.templates records it as a golden_rejections row


class Corpus(Protocol):
    """What the pairs are checked against (golden.template_scope._Scope)."""

    @property
    def period_values(self) -> Mapping[Any, set[float]]: ...

    def of(self, cik: str, fiscal_year: int) -> list[str]: ...

    def prints(self, filing_id: str, printed: str) -> bool: ...

    def scope_texts(self, filing_ids: list[str]) -> list[ScopeText]: ...


@dataclass(frozen=True)
class Figure:
    """One figure a two-document answer states."""

    value: float
    answer: str  # as the filing prints it, with its unit: "$60,922 million"
    role: str  # what it is in the answer: "fiscal 2023", "Apple", "as first reported", "the second half"
    required: bool
    filing_id: str
    page: str
    quote: str

    def as_dict(self) -> dict:
        return {
            "value": self.value,
            "answer": self.answer,
            "role": self.role,
            "required": self.required,
            "filing_id": self.filing_id,
            "page": self.page,
            "quote": self.quote,
        }


def _figure(side: dict, role: str, required: bool = True) -> Figure:
    page = side["gold_pages"][0].split("#", 1)[-1] if side.get("gold_pages") else ""
    return Figure(
        float(side["gold_value"]),
        side["gold_answer"],
        role,
        required,
        side["source_filing_id"],
        page,
        side["gold_quote"],
    )


def _question(kind: str, question: str, sides: list[dict], figures: list[Figure], **fields) -> dict:
    """A two-document question: both sides' gold chunks, pages and filings; the figures in the order stated."""
    first = sides[0]
    return {
        "kind": kind,
        "question": question,
        "cik": first["cik"],
        "company": first["company"],
        "asked_company": first["company"],
        "fiscal_year": first["fiscal_year"],
        "period": first["period"],
        "concept": first["concept"],
        "label": first["label"],
        "statement_type": first["statement_type"],
        "source_filing_id": first["source_filing_id"],
        "source_form": first["source_form"],
        "source_sha256": first["source_sha256"],
        "gold_chunk_ids": sorted({c for s in sides for c in s["gold_chunk_ids"]}),
        "gold_pages": sorted({p for s in sides for p in s["gold_pages"]}),
        "gold_filing_ids": sorted({f for s in sides for f in s["gold_filing_ids"]}),
        "gold_quote": "\n".join(dict.fromkeys(s["gold_quote"] for s in sides)),
        "gold_figures": json.dumps([f.as_dict() for f in figures]),
        "document_count": len({f.filing_id for f in figures}),
        "on_first_page": any(bool(s.get("on_first_page")) for s in sides),
        **fields,
    }


def _years(side: dict) -> set[int]:
    """The years a table or sentence may print a side's period under: its fiscal year and its period's end year."""
    return {int(side["fiscal_year"]), int(str(side["period_key"]).rsplit("|", 1)[-1][:4])}


def _from_sentence(side: dict) -> bool:
    return not str(side.get("gold_quote", "")).lstrip().startswith("|")


def _period_kind(question: dict) -> str:
    return str(question["period_key"]).split("|", 1)[0]


def _plain(value: float, decimals: int) -> str:
    return f"{value:,.{decimals}f}"


def _derived_printed(fy: dict, part: dict, value: float) -> str | None:
    """The difference as the fiscal-year figure is printed ("47,415" in millions), or None when the two are printed at
    different scales or precisions (no one subtraction of printed figures gives it)."""
    whole, piece = fy["printed"], part["printed"]
    decimals = len(whole.split(".", 1)[1]) if "." in whole else 0
    if (len(piece.split(".", 1)[1]) if "." in piece else 0) != decimals or fy["scale"] != part["scale"]:
        return None
    return _plain(abs(value) / 10.0 ** fy["scale"], decimals)


def _additive(unit: str | None) -> bool:
    """Does a year's figure less its first months' give the rest of the year? Not for a per-share figure (the
    periods' average share counts differ) nor a rate or ratio ("pure"): only for amounts and counts."""
    return "/" not in str(unit or "") and str(unit or "") != "pure"


def _significant_digits(printed: str) -> int:
    digits = printed.replace(",", "").replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) if digits else 0


AnswerOf = Callable[[str, float, "str | None", int], str]  # golden.question_wording.printed_answer


def granularity(fair: list[dict], corpus: Corpus, reject: Callable[..., None], answer_of: AnswerOf) -> list[dict]:
    """The second half or the fourth quarter of a fiscal year: the 10-K's fiscal-year figure less a 10-Q's six- or
    nine-month figure that starts on the same day (module doc). `answer_of`: how an answer is printed."""
    annual = {
        (q["cik"], q["concept"], q["fiscal_year"]): q
        for q in fair
        if q["source_form"] == "10-K" and _period_kind(q) == "FY"
    }
    out = []
    for part in fair:
        kind = _period_kind(part)
        if part["source_form"] != "10-Q" or kind not in ("H", "9M"):
            continue
        fy = annual.get((part["cik"], part["concept"], part["fiscal_year"]))
        if fy is None or str(fy["period_key"]).split("|")[1] != str(part["period_key"]).split("|")[1]:
            continue
        which = "the second half" if kind == "H" else "the fourth quarter"
        value = round(float(fy["gold_value"]) - float(part["gold_value"]), 6)
        where = (GRANULARITY, fy["source_filing_id"], fy["cik"], fy["concept"], fy["period_key"])
        if fy["unit"] != part["unit"] or fy["gold_value"] < 0 or part["gold_value"] < 0:
            reject(*where, NOT_COMPARABLE, f"{fy['gold_answer']} and {part['gold_answer']}")
            continue
        if not _additive(fy["unit"]):
            reject(*where, NOT_ADDITIVE, f"{fy['gold_answer']} less {part['gold_answer']} ({fy['unit']})")
            continue
        shown = _derived_printed(fy, part, value)
        if shown is None or value <= 0 or _significant_digits(shown) < 3:
            reject(*where, DERIVED_TOO_SMALL, f"{fy['gold_answer']} less {part['gold_answer']}")
            continue
        answer = answer_of(shown, value, fy["unit"], int(fy["scale"]))
        end = str(fy["period_key"]).split("|")[2]
        shorter = [
            key
            for (filing_id, concept, key) in corpus.period_values
            if filing_id == fy["source_filing_id"]
            and concept == fy["concept"]
            and key.endswith("|" + end)
            and key != fy["period_key"]
            and not key.startswith("instant")
        ]
        if shorter or corpus.prints(fy["source_filing_id"], shown):
            filing_id = fy["source_filing_id"]
            reject(
                *where,
                ONE_DOCUMENT_SUFFICES,
                f"{filing_id} tags {shorter[0]}" if shorter else f"{filing_id} prints {shown}",
            )
            continue
        company = fy["company"]
        question = f"What was {company}'s {fy['label']} for {which} of fiscal {fy['fiscal_year']}?"
        components = f"{fy['gold_answer']} for fiscal {fy['fiscal_year']} less {part['gold_answer']} {part['when']}"
        gold_answer = f"{answer} ({components})"
        figures = [
            Figure(value, answer, which, True, fy["source_filing_id"], "", ""),
            _figure(fy, f"fiscal {fy['fiscal_year']}", required=False),
            _figure(part, part["when"].removeprefix("for "), required=False),
        ]
        out.append(
            _question(
                GRANULARITY,
                question,
                [fy, part],
                figures,
                gold_value=value,
                gold_answer=gold_answer,
                gold_decimals=fy["gold_decimals"],
                gold_direction="",
                period=f"{which} of fiscal {fy['fiscal_year']}",
                scope_filing_ids=corpus.of(fy["cik"], int(fy["fiscal_year"])),
            )
        )
    return out


def change_over_time(fair: list[dict], corpus: Corpus, reject: Callable[..., None]) -> list[dict]:
    """A company's figure in two fiscal years from two annual reports, where the later one does not print the earlier
    year's figure: the change's direction and both figures (module doc)."""
    by_item: dict[tuple, list[dict]] = {}
    for q in fair:
        if q["source_form"] == "10-K" and _period_kind(q) in ("FY", "instant"):
            by_item.setdefault((q["cik"], q["concept"], _period_kind(q)), []).append(q)
    out = []
    tagged_for: dict[tuple[str, str], dict[str, set[float]]] = {}  # (filing, period) -> concept -> values, read once
    for (filing_id, tagged_concept, period_key), values in corpus.period_values.items():
        tagged_for.setdefault((filing_id, period_key), {})[tagged_concept] = values
    for (cik, concept, _), group in sorted(by_item.items()):
        years = sorted(group, key=lambda q: (q["fiscal_year"], q["source_filing_id"]))
        for earlier, later in zip(years, years[1:]):
            if earlier["fiscal_year"] == later["fiscal_year"]:
                continue
            where = (CHANGE_OVER_TIME, later["source_filing_id"], cik, concept, earlier["period_key"])
            tagged = corpus.period_values.get((later["source_filing_id"], concept, earlier["period_key"]))
            if tagged or corpus.prints(later["source_filing_id"], earlier["printed"]):
                shown = f"{later['source_filing_id']} prints fiscal {earlier['fiscal_year']} too"
                reject(*where, ONE_DOCUMENT_SUFFICES, shown)
                continue
            # the earlier figure in parts named for it: "Operating lease liability, current" and "..., noncurrent" of
            # the earlier year, printed side by side in the later report's note, add up to it (audit defect)
            parts = tagged_in_parts(
                tagged_for.get((later["source_filing_id"], earlier["period_key"]), {}),
                concept,
                float(earlier["gold_value"]),
            )
            if parts:
                in_parts = " + ".join(parts)
                shown = f"{later['source_filing_id']} tags fiscal {earlier['fiscal_year']} in parts: {in_parts}"
                reject(*where, ONE_DOCUMENT_SUFFICES, shown)
                continue
            # a row of the item's words for the earlier year in the later report answers that year from one document,
            # under whatever figure: the earlier gold may be a schedule's total ("| Total | 42,150 |" of debt
            # maturities) where the later report prints "Total long-term debt | 53,067 | 44,111" (audit defects)
            texts = corpus.scope_texts([later["source_filing_id"]])
            year_before = int(later["fiscal_year"]) - int(earlier["fiscal_year"]) == 1
            named = rows_naming(texts, later["label"], _years(earlier), yearless=year_before)
            if named:
                shown = f"{named[0].describe()} for fiscal {earlier['fiscal_year']}"
                reject(*where, ONE_DOCUMENT_SUFFICES, shown)
                continue
            unnamed = [
                side
                for side in (earlier, later)
                if not names_its_figure(str(side["gold_quote"]), str(side["printed"]), side["label"])
            ]
            if unnamed:
                # a maturity schedule's "Total", a segment's obligations: the question's words ask more or other
                shown = (
                    f"{unnamed[0]['source_filing_id']} prints {unnamed[0]['printed']!r} in {unnamed[0]['gold_quote']!r}"
                )
                reject(*where, FIGURE_NOT_NAMED, shown[:300])
                continue
            rivals = [
                rival
                for side in (earlier, later)
                if _from_sentence(side)
                for rival in rival_sentences(
                    corpus.scope_texts([side["source_filing_id"]]), side["label"], _years(side), side["printed"]
                )
            ]
            if rivals:
                reject(*where, RIVAL_SENTENCE, f"{rivals[0].describe()} without the gold figure")
                continue
            if earlier["unit"] != later["unit"]:
                reject(*where, NOT_COMPARABLE, f"{earlier['gold_answer']} and {later['gold_answer']}")
                continue
            if not values_differ(float(earlier["gold_value"]), float(later["gold_value"])):
                reject(*where, NO_CHANGE, f"{earlier['gold_answer']} both years")
                continue
            direction = "increase" if later["gold_value"] > earlier["gold_value"] else "decrease"
            y1, y2 = earlier["fiscal_year"], later["fiscal_year"]
            at = "the end of " if _period_kind(later) == "instant" else ""
            question = f"How did {later['company']}'s {later['label']} change from {at}fiscal {y1} to {at}fiscal {y2}?"
            gold_answer = f"{direction}: {earlier['gold_answer']} in fiscal {y1}, {later['gold_answer']} in fiscal {y2}"
            figures = [_figure(earlier, f"fiscal {y1}"), _figure(later, f"fiscal {y2}")]
            out.append(
                _question(
                    CHANGE_OVER_TIME,
                    question,
                    [later, earlier],
                    figures,
                    gold_value=float(later["gold_value"]),
                    gold_answer=gold_answer,
                    gold_decimals=later["gold_decimals"],
                    gold_direction=direction,
                    period=f"fiscal {y1} to fiscal {y2}",
                    scope_filing_ids=sorted(set(corpus.of(cik, int(y1))) | set(corpus.of(cik, int(y2)))),
                )
            )
    return out


def tagged_in_parts(tagged: Mapping[str, set[float]], concept: str, value: float) -> list[str]:
    """The parts of `concept` one filing tags for one period that add up to `value`: two or three elements named for
    it, their names the concept's own with a word after it (`OperatingLeaseLiabilityCurrent` and
    `OperatingLeaseLiabilityNoncurrent` for `OperatingLeaseLiability`), one value each; [] when no such parts sum to
    it. A filing printing them answers the concept's figure by one addition, from one document."""
    named = sorted(
        (other, amount)
        for other, amounts in tagged.items()
        if other != concept and other.startswith(concept) and other[len(concept) : len(concept) + 1].isupper()
        for amount in sorted(amounts)
    )
    for size in (2, 3):
        for chosen in combinations(named, size):
            if len({other for other, _ in chosen}) == size and not values_differ(sum(a for _, a in chosen), value):
                return [other for other, _ in chosen]
    return []


def cross_company(fair: list[dict], corpus: Corpus, reject: Callable[..., None], seed: int) -> list[dict]:
    """Which of two companies reported more of one line item for one fiscal year, and both figures: each company's
    annual figure, paired with one other company's in a seeded order (module doc)."""
    by_item: dict[tuple, list[dict]] = {}
    for q in fair:
        if q["source_form"] == "10-K" and _period_kind(q) in ("FY", "instant") and q["gold_value"] > 0:
            by_item.setdefault((q["concept"], q["fiscal_year"], _period_kind(q), q["unit"]), []).append(q)
    out = []
    for key, group in sorted(by_item.items()):
        one_each = {q["cik"]: q for q in sorted(group, key=lambda q: q["source_filing_id"])}
        ciks = sorted(one_each)
        random.Random(f"{seed}:{CROSS_COMPANY}:{key}").shuffle(ciks)
        for a, b in zip(ciks[::2], ciks[1::2]):
            first, second = sorted((one_each[a], one_each[b]), key=lambda q: q["company"])
            where = (CROSS_COMPANY, first["source_filing_id"], first["cik"], first["concept"], first["period_key"])
            if not values_differ(float(first["gold_value"]), float(second["gold_value"])):
                reject(*where, NO_CHANGE, f"{first['gold_answer']} both")
                continue
            if scope_words(first["gold_quote"]) != scope_words(second["gold_quote"]):
                shown = " / ".join(str(q["gold_quote"]).strip()[:80] for q in (first, second))
                reject(*where, NOT_THE_SAME_SCOPE, shown)
                continue
            more = first if first["gold_value"] > second["gold_value"] else second
            year = first["fiscal_year"]
            at = "at the end of" if _period_kind(first) == "instant" else "for"
            question = (
                f"Which reported more {first['label']} {at} fiscal {year}, {first['company']} or {second['company']}, "
                "and how much did each report?"
            )
            gold_answer = (
                f"{more['company']}: {first['company']} {first['gold_answer']}, {second['company']} "
                f"{second['gold_answer']}"
            )
            figures = [_figure(first, first["company"]), _figure(second, second["company"])]
            out.append(
                _question(
                    CROSS_COMPANY,
                    question,
                    [first, second],
                    figures,
                    gold_value=float(more["gold_value"]),
                    gold_answer=gold_answer,
                    gold_decimals=more["gold_decimals"],
                    gold_direction=more["company"],
                    asked_company=f"{first['company']} and {second['company']}",
                    pair_ciks=(first["cik"], second["cik"]),
                    period=f"fiscal {year}",
                    scope_filing_ids=sorted(
                        set(corpus.of(first["cik"], int(year))) | set(corpus.of(second["cik"], int(year)))
                    ),
                )
            )
    return out


_SCOPE_QUALIFIER = re.compile(
    r"\b(excluding|excludes|exclusive of|other than|without|including|includes|inclusive of)\s+([^,;|)]+)", re.I
)
_SCOPE_FILLER = frozenset("a an and any of the its our their all other amounts related".split())


def scope_words(quote: str) -> frozenset[tuple[str, str]]:
    """What the line printing a figure says it includes or leaves out ("Total long-term debt, excluding finance
    leases" -> {("without", "finance"), ("without", "leases")}), as (with or without, word) pairs: two companies'
    figures compare as one line item only where their lines say the same (a "Total debt" that holds finance leases and
    short-term borrowings is not the other's long-term debt without them)."""
    found = set()
    for match in _SCOPE_QUALIFIER.finditer(str(quote)):
        polarity = "with" if match.group(1).lower().startswith("inclu") else "without"
        words = " ".join(w for w in re.findall(r"[a-z]+", match.group(2).lower()) if w not in _SCOPE_FILLER)
        found |= {(polarity, stem) for stem in stems(words)}
    return frozenset(found)


def split_ratio(first: float, later: float, unit: str | None, later_printed: str = "") -> int | None:
    """N when a per-share or share figure changed by a whole factor N (a later N-for-1 split divides per-share
    figures by N and multiplies share counts by N), else None. The later figure is read within half a unit of its
    last printed digit ("0.18" for 1.76 / 10)."""
    if unit not in _PER_SHARE_UNITS or not first or not later:
        return None
    decimals = len(later_printed.split(".", 1)[1]) if "." in later_printed else None
    half_unit = 0.5 * 10.0**-decimals if decimals is not None and unit == "USD/shares" else 0.0
    slack = max(0.02, half_unit / abs(later))
    ratio = first / later if unit == "USD/shares" else later / first
    for n in _SPLIT_RATIOS:
        if abs(ratio - n) <= slack * n:
            return n
    return None


def restatement(pairs: Iterable[tuple[dict, dict]], corpus: Corpus, reject: Callable[..., None]) -> list[dict]:
    """A figure as first reported and as reported now (module doc). `pairs`: (first, later) single-figure candidates
    of one concept and period from two filings, the later reporting a later period, their values different
    (golden.value_conflicts finds them where it finds conflicting values). Not asked where the first filing already
    prints the later figure: two lines of one period ("Purchases of property and equipment" gross and net, a
    liability before and after a reclassification), not a revision (an independent audit's defects)."""
    out = []
    for first, later in pairs:
        if corpus.prints(first["source_filing_id"], later["printed"]):
            where = (RESTATEMENT, first["source_filing_id"], first["cik"], first["concept"], first["period_key"])
            reject(*where, FIRST_PRINTS_LATER, f"{first['source_filing_id']} prints {later['printed']!r} too")
            continue
        n = split_ratio(float(first["gold_value"]), float(later["gold_value"]), first.get("unit"), later["printed"])
        why = f"{later['source_filing_id']}, filed after {first['source_filing_id']}, supersedes it" + (
            f" (a change by a factor of {n}, consistent with a {n}-for-1 stock split)" if n else ""
        )
        question = (
            f"What was {first['company']}'s {first['label']} {first['when']}, as first reported and as most recently "
            "reported?"
        )
        gold_answer = f"first reported {first['gold_answer']}; most recently {later['gold_answer']}: {why}"
        figures = [_figure(first, "as first reported"), _figure(later, "as most recently reported")]
        out.append(
            _question(
                RESTATEMENT,
                question,
                [first, later],
                figures,
                gold_value=float(later["gold_value"]),
                gold_answer=gold_answer,
                gold_decimals=later["gold_decimals"],
                gold_direction="",
                review_note=why,
                scope_filing_ids=sorted(
                    set(corpus.of(first["cik"], int(first["filing_fiscal_year"])))
                    | set(corpus.of(later["cik"], int(later["filing_fiscal_year"])))
                ),
            )
        )
    return out


def apply_quota(questions: list[dict], seed: int, reject: Callable[..., None]) -> list[dict]:
    """Up to PER_COMPANY questions of each kind per company (both companies of a cross-company pair count), in a
    seeded order per kind."""
    kept, counts = [], {}
    for kind in TWO_DOCUMENT_KINDS:
        pool = sorted((q for q in questions if q["kind"] == kind), key=lambda q: q["question"])
        random.Random(f"{seed}:{kind}").shuffle(pool)
        for q in pool:
            ciks = set(q.get("pair_ciks") or (q["cik"],))
            if any(counts.get((kind, c), 0) >= PER_COMPANY for c in ciks):
                reject(
                    kind,
                    q["source_filing_id"],
                    q["cik"],
                    q["concept"],
                    "",
                    QUOTA_TWO_DOCUMENT,
                    f"{PER_COMPANY} per company",
                )
                continue
            for c in ciks:
                counts[(kind, c)] = counts.get((kind, c), 0) + 1
            kept.append(q)
    return kept
