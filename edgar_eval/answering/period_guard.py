"""Period guard: decline a question that names a year the passages the generator read do not print as a period.

The guard reads what the generator read, and nothing else: the passages retrieved for the question. It knows no
filing's metadata, no tagged fact's fiscal year and no company's fiscal calendar (the golden builder picks its
other-year twins from the tagged facts' fiscal years; a guard that read those too would decline exactly the twins by
construction, and its false-answer effect would be no measurement). A year counts as printed when a passage prints it
as a period:

* in a table's header rows (the rows above its first row of figures: "| 2025 | 2024 |", "| Fiscal 2024 |",
  "| January 26, 2025 |"), for every table but a schedule of years to come (maturities, estimated amortization,
  minimum payments: "thereafter", "after 2029", "estimated", "maturities", "due in" in its rows or the two lines above
  it, or a forward-looking word such as "ending" in its header), whose year columns are not years reported;
* in a sentence as a fiscal year ("fiscal 2025", "fiscal years 2025 and 2024", "FY2025") or as the end of a period
  ("the year ended December 31, 2024", "years ended January 26, 2025, January 28, 2024 and January 29, 2023",
  "three months ended June 29, 2025", "as of September 28, 2024"), with the years listed after it; in a table's row
  label only as the end of a period ("Balance as of December 31, 2025": a row "Fiscal 2027" is a schedule's year).
  A forward-looking sentence ("we expect", "will", "outlook", "guidance", "ending") prints a year to come, not one
  reported, and is not read; nor is a bare year elsewhere ("the 2026 Notes", "expire in 2030").

Fiscal years that end in the next calendar year: the guard does no fiscal-calendar arithmetic, because the passages
do not say which convention a company follows (NVIDIA's fiscal 2025 ended January 26, 2025; Home Depot's fiscal 2024
ended February 2, 2025). A date counts as the year it prints, a fiscal label as the year it names. So for Home Depot a
passage printing "February 2, 2025" prints 2025 and one printing "Fiscal 2024" prints 2024: a question asking fiscal
2024 passes where the passages print that label or any period of 2024 (the prior year's end, January 28, 2024, is
one), and is declined where they print only the fiscal year's end date, a recall cost arm D reports; an other-year
twin asking fiscal 2025 passes where a passage prints the February 2, 2025 end date, a false answer arm D reports.
Both are outcomes of the gate under test, measured on the golden questions, not corrected here.

A question that names no year passes; one that names several passes only when the passages print every one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from edgar_eval.answering.text_tools import asked_years
from edgar_eval.corpus.table_headers import cells, header_length, table_blocks


@dataclass(frozen=True)
class GuardVerdict:
    passes: bool
    reason: str


_YEAR = r"(?:19|20)\d{2}"
_YEAR_FOUND = re.compile(rf"(?<!\d)({_YEAR})(?!\d)")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE = rf"{_MONTH}\s+\d{{1,2}},?\s+{_YEAR}"
# the years listed after the first ("..., 2024, 2023 and 2022"; "... 2024 and December 31, 2023")
_MORE = rf"(?:\s*(?:,|and|, and)\s*(?:{_DATE}|{_YEAR}(?!\s*(?:notes|senior|term))))*"
_FISCAL_LABEL = rf"\bfiscal(?:\s+years?)?\s+{_YEAR}(?!\d){_MORE}|\bFY\s?'?{_YEAR}(?!\d)"
_PERIOD_END = (
    rf"\b(?:years?|quarters?|months|weeks|periods?)\s+ended\s+{_DATE}{_MORE}|\b(?:as\s+of|at)\s+{_DATE}{_MORE}"
)
_PROSE_PERIOD = re.compile(f"{_FISCAL_LABEL}|{_PERIOD_END}", re.I)
_ROW_PERIOD = re.compile(_PERIOD_END, re.I)  # a row label "Fiscal 2027" is a year of a schedule, not a period
_FUTURE = re.compile(
    r"\b(?:expects?|expected|expecting|anticipates?|anticipated|will|plans?|planned|outlook|guidance|forecasts?|"
    r"projects?|projected|intends?|ending|beginning|through|until|scheduled|estimated?)\b",
    re.I,
)
# a table of years to come (maturities, estimated amortization, minimum payments): its year columns are not periods
# reported. Read in the table's rows and the two lines above it, and in its header rows "ending" ("Fiscal years
# ending June 30") and the other forward-looking words too.
_SCHEDULE = re.compile(
    rf"\bthereafter\b|\bafter\s+{_YEAR}\b|\bbeyond\b|\bmaturit(?:y|ies)\b|\bcommencing\b|\bestimated\b|"
    r"\bremainder\s+of\b|\bnext\s+(?:\w+\s+)?(?:fiscal\s+)?years\b|\bpayments\s+due\b|\bdue\s+(?:in|by)\b|"
    r"\bfuture\b|\bexpected\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(\"\u201c])|\n")


def _header_years(lines: list[str]) -> set[int]:
    years: set[int] = set()
    for start, end in table_blocks(lines):
        rows = header_length(lines, start, end)
        if not rows:
            continue
        header = "\n".join(lines[start : start + rows])
        around = "\n".join(lines[max(0, start - 2) : end])
        if _SCHEDULE.search(around) or _FUTURE.search(header):
            continue  # years to come, not years reported
        years |= {int(y) for y in _YEAR_FOUND.findall(header)}
    return years


def _phrase_years(text: str) -> set[int]:
    years: set[int] = set()
    for line in text.splitlines():
        in_table = line.startswith("|")
        for sentence in cells(line) if in_table else _SENTENCE.split(line):
            if _FUTURE.search(sentence):
                continue  # a year to come is not a year reported
            for match in (_ROW_PERIOD if in_table else _PROSE_PERIOD).finditer(sentence):
                years |= {int(y) for y in _YEAR_FOUND.findall(match.group(0))}
    return years


def printed_years(passages: Iterable[str]) -> set[int]:
    """The years the passages print as periods: table header years and fiscal or period-end years in sentences."""
    years: set[int] = set()
    for text in passages:
        years |= _header_years(text.splitlines()) | _phrase_years(text)
    return years


def period_guard(question: str, printed: set[int]) -> GuardVerdict:
    """Pass when every year the question names is among `printed` (`printed_years` of the passages it is answered
    from)."""
    years = asked_years(question)
    if not years:
        return GuardVerdict(True, "no year named")
    missing = sorted(set(years) - printed)
    if missing:
        shown = ", ".join(map(str, sorted(printed))) or "no year"
        return GuardVerdict(False, f"out_of_period: asks {', '.join(map(str, missing))}; the passages print {shown}")
    return GuardVerdict(True, "year printed")
