"""A table-aware reader: offline, deterministic, and reading only the passages it is given.

It answers a template question ("What was Apple's total revenue for fiscal 2024?", "... for the six months ended
July 27, 2025?", "... as of June 29, 2025?") the way a person reads a financial table:

1. The line item: the words between the company and the period, looked up in the shared table of line-item names
   (`corpus.line_items.LABEL_SYNONYMS`: "total revenue" is also "total net sales", "net revenues", ...). A table
   row whose label (first cell) is one of those names matches; an exact name beats a row that starts with it, which
   beats a row that merely contains it.
2. The period: the table's header rows (the rows above its first row of figures) give each column its words; a
   header row with fewer cells spans the row below it evenly ("Three Months Ended | Six Months Ended" over four
   dates). A fiscal year matches a column naming that year and no shorter duration; a quarter, six or nine months
   match a column with the end date and that duration (a table with no duration words is read as the question's
   own); an "as of" date matches a column with that date.
3. The row's figures: "$" cells join the figure after them, "%" and ")" cells the figure before; when the row holds
   more figures than the header has columns, percentage figures (change columns, "% of net sales") are set aside.
4. The scale: the nearest "(in millions)", "in thousands", "dollars in millions" line above the table; a per-share
   row is never scaled.

It answers with the printed figure in its scale and cites the passage, or declines: no row names the item, or no
column matches the period, or the header cannot be aligned with the row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edgar_eval.answering.extractive import Passage, ReaderAnswer
from edgar_eval.corpus.line_items import LABEL_SYNONYMS
from edgar_eval.corpus.number_words import SCALE_FACTORS
from edgar_eval.corpus.table_headers import SCALE_LINE, header_length, scale_line, table_blocks
from edgar_eval.corpus.table_headers import cells as _cells
from edgar_eval.corpus.table_headers import row_values as _row_values

READER_ID = "table-reader/1"
_QUESTION = re.compile(r"^What (?:was|were) (?P<company>.+?)['\u2019]s? (?P<item>.+?) (?P<when>for|at the end of|as of) (?P<period>.+?)\??$", re.I)
_MONTHS = {m: k + 1 for k, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}
_DATE = re.compile(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+(\d{1,2}),?\s+((?:19|20)\d{2})\b", re.I)
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_SCALE_WORD = {"thousands": "thousand", "millions": "million", "billions": "billion"}
_DURATIONS = {"Q": re.compile(r"three months|quarter|13 weeks|thirteen weeks", re.I),
              "H": re.compile(r"six months|26 weeks|twenty-six weeks", re.I),
              "9M": re.compile(r"nine months|39 weeks|thirty-nine weeks", re.I)}
_ANY_DURATION = re.compile(r"three months|six months|nine months|quarter|weeks", re.I)


@dataclass(frozen=True)
class AskedPeriod:
    kind: str  # "FY", "Q", "H", "9M" or "instant"
    year: int | None
    date: tuple[int, int, int] | None  # (year, month, day)


def parse_question(question: str) -> tuple[str, AskedPeriod] | None:
    """(line item words, period) of a template question, or None when it is not one."""
    match = _QUESTION.match(question.strip())
    if not match:
        return None
    item, when, period = match.group("item").lower(), match.group("when").lower(), match.group("period")
    date = _date_of(period)
    if when == "for" and period.lower().startswith("fiscal"):
        years = _YEAR.findall(period)
        return (item, AskedPeriod("FY", int(years[0]), None)) if years else None
    if when == "at the end of":
        years = _YEAR.findall(period)
        return (item, AskedPeriod("instant", int(years[0]), None)) if years else None
    if date is None:
        return None
    if when == "as of":
        return item, AskedPeriod("instant", date[0], date)
    for kind, words in (("Q", "the quarter"), ("H", "the six months"), ("9M", "the nine months")):
        if period.lower().startswith(words):
            return item, AskedPeriod(kind, date[0], date)
    return None


def _date_of(text: str) -> tuple[int, int, int] | None:
    match = _DATE.search(text)
    if not match:
        return None
    return int(match.group(3)), _MONTHS[match.group(1)[:3].lower()], int(match.group(2))


def _columns(header_rows: list[list[str]], values: int) -> list[str]:
    """Each leaf column's words, upper header rows spread evenly over the row below. A one-cell row under the
    header ("Assets", "Net sales:") names a group of rows, not a column; a header row with one cell more than the
    row has figures carries the label column's heading ("(Dollars in millions)") first."""
    rows = [r for r in header_rows if r and not all(c in ("$", "%") or c.lower().startswith("% of") for c in r)]
    rows = [r[1:] if len(r) == values + 1 else r for r in rows if len(r) > 1 or len(rows) == 1]
    if not rows:
        return []
    columns = list(rows[-1])
    for upper in reversed(rows[:-1]):
        if len(upper) < len(columns) and len(columns) % len(upper) == 0:
            span = len(columns) // len(upper)
            columns = [f"{upper[k // span]} {c}" for k, c in enumerate(columns)]
        elif len(upper) == len(columns):
            columns = [f"{u} {c}" for u, c in zip(upper, columns)]
    return columns


def _matches(column: str, period: AskedPeriod, table_has_durations: bool) -> bool:
    if period.kind in ("FY", "instant") and period.date is None:
        years = {int(y) for y in _YEAR.findall(column)}
        return period.year in years and not _ANY_DURATION.search(column)
    date = _date_of(column)
    if date != period.date:
        return False
    if period.kind == "instant":
        return not _ANY_DURATION.search(column)
    return bool(_DURATIONS[period.kind].search(column)) or not table_has_durations


def _label_rank(label: str, names: tuple[str, ...]) -> int:
    text = re.sub(r"\s+", " ", label.lower().replace("\u2019", "'")).strip(" :")
    if text in names:
        return 3
    if any(text.startswith(n) for n in names):
        return 2
    if any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text) for n in names):
        return 1
    return 0


@dataclass(frozen=True)
class _Found:
    rank: int
    passage_rank: int
    line: int
    label: str
    shown: str
    scale: str
    chunk_id: str


def _scale_above(lines: list[str], table_start: int, header_text: str) -> str:
    """The table's scale: stated in its header rows, else on the nearest scale line above it."""
    match = SCALE_LINE.search(header_text) or SCALE_LINE.search(scale_line(lines, table_start) or "")
    return _SCALE_WORD[match.group(1).lower()] if match else ""


def _candidates(passage: Passage, rank: int, names: tuple[str, ...], period: AskedPeriod):
    lines = passage.text.splitlines()
    for start, end in table_blocks(lines):
        rows = [_cells(lines[k]) for k in range(start, end)]
        first_data = header_length(lines, start, end)
        if first_data is None:
            continue
        header_rows = rows[:first_data]
        columns = _columns(header_rows, len(_row_values(rows[first_data][1:])))
        header_text = " ".join(" ".join(r) for r in header_rows)
        durations = bool(_ANY_DURATION.search(header_text))
        wanted = [k for k, c in enumerate(columns) if _matches(c, period, durations)]
        if len(wanted) != 1:
            continue  # no column, or two, for the period: a reader cannot tell
        scale = _scale_above(lines, start, header_text)
        for k in range(first_data, len(rows)):
            row = rows[k]
            if len(row) < 2:
                continue
            label_rank = _label_rank(row[0], names)
            if not label_rank:
                continue
            values = _row_values(row[1:])
            if len(values) != len(columns):
                plain = [v for v in values if not v.endswith("%")]
                kept = [c for c in columns if not re.search(r"change|%|percent", c, re.I)]
                if len(plain) == len(kept) and columns[wanted[0]] in kept:
                    values, index = plain, kept.index(columns[wanted[0]])
                else:
                    continue
            else:
                index = wanted[0]
            yield _Found(label_rank, rank, start + k, row[0], values[index], scale, passage.chunk_id)


def _value(shown: str) -> float:
    digits = re.sub(r"[^\d.]", "", shown)
    if not digits:
        return 0.0
    negative = "(" in shown or shown.startswith("-")
    return -float(digits) if negative else float(digits)


def read_tables(question: str, passages: list[Passage]) -> ReaderAnswer:
    parsed = parse_question(question)
    if parsed is None:
        return ReaderAnswer(False, "", None, (), "not a question about one line item and one period")
    item, period = parsed
    names = tuple(dict.fromkeys((item, *LABEL_SYNONYMS.get(item, ()))))
    found = [f for rank, passage in enumerate(passages) for f in _candidates(passage, rank, names, period)]
    if not found:
        return ReaderAnswer(False, "", None, (), "no table row names the line item with a column for the asked period")
    best = min(found, key=lambda f: (-f.rank, f.passage_rank, f.line))
    per_share = "per share" in best.label.lower() or "per share" in item
    scale = "" if per_share else best.scale
    figure = _value(best.shown) * SCALE_FACTORS.get(scale, 1.0)
    text = f"{best.label}: {best.shown}{' ' + scale if scale else ''} [{best.chunk_id}]."
    return ReaderAnswer(True, text, figure, (best.chunk_id,), None)
