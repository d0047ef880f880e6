"""A table-aware reader: offline, deterministic, and reading only the passages it is given.

It answers a template question ("What was Apple's total revenue for fiscal 2024?", "... for the six months ended
July 27, 2025?", "... as of June 29, 2025?") the way a person reads a financial table:

1. The line item: the words between the company and the period, and the names of the group of the reader's own
   vocabulary whose names cover those words (`answering.line_item_names.LINE_ITEM_NAMES`, groups with no keys:
   "total revenue" finds the group that also holds "total net sales", "net revenues", ...; `item_names`).
   Labels and names compare as word sets (`label_words`); a row scores by the share of its label's words the best name
   accounts for, and rows below a third are about something else. A qualifier row is read with its group heading
   ("Earnings per share:" / "Basic"); an opening balance never answers.
2. The period: the table's header rows (the rows above its first row of figures) give each column its words; a
   header row with fewer cells spans the row below it evenly ("Three Months Ended | Six Months Ended" over four
   dates), a period stated once above or beside the years spans every column. A fiscal year matches a column naming
   that year and no shorter duration; a quarter, six or nine months match a column with the end date and that
   duration (a table with no duration words is read as the question's own); an "as of" date matches a column with
   that date. Columns of a change, an adjustment or a figure as previously reported are not the period's; a
   restated column beside others of the period is.
3. The row's figures: "$" cells join the figure after them, "%" and ")" cells the figure before; when the row holds
   more or fewer figures than the header has columns, change and percent columns, or trailing columns that name no
   year, are set aside.
4. The scale: a scale row inside the body, the header rows, or the nearest scale line above the table; failing
   those, the scale the passages state most often, whose passage is then cited too. Per-share figures and rates are
   never scaled; share counts take the scale stated for shares.

It answers with the printed figure in its scale and cites the passage, or declines: no row names the item, or no
column matches the period, or the header cannot be aligned with the row.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from edgar_eval.answering.extractive import Passage, ReaderAnswer
from edgar_eval.answering.line_item_names import LINE_ITEM_NAMES
from edgar_eval.corpus.number_words import SCALE_FACTORS
from edgar_eval.corpus.table_headers import PERIOD_WORDS, SCALE_LINE, header_length, scale_line, table_blocks
from edgar_eval.corpus.table_headers import cells as _cells
from edgar_eval.corpus.table_headers import row_values as _row_values

READER_ID = "table-reader/1"
# A model of the mistakes language models make on filings, not a language model: the table reader, except that where
# it would decline it answers from the nearest row label (one sharing a word with the asked item) and the nearest
# column (the year nearest the asked one): mis-selection of a printed figure, never a figure no passage prints.
EAGER_READER_ID = "eager-reader/1"
# The corpora its rules and synonyms were written and corrected against: its figures there are in-sample, and on
# filings it was not tuned on it has scored lower (issue 32).
TUNED_ON = ("demo", "edgar")
_QUESTION = re.compile(
    r"^What (?:was|were) (?P<company>.+?)['\u2019]s? (?P<item>.+?) (?P<when>for|at the end of|as of) "
    r"(?P<period>fiscal (?:19|20)\d{2}|the (?:quarter|three months|six months|nine months) ended .+|"
    r"[A-Z][a-z]+\.? \d{1,2}, (?:19|20)\d{2})\??$",
    re.I,
)
_MONTHS = {
    m: k + 1 for k, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))
}
_DATE = re.compile(
    r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+(\d{1,2}),?\s+((?:19|20)\d{2})\b", re.I
)
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_SCALE_WORD = {"thousands": "thousand", "millions": "million", "billions": "billion"}
_DURATIONS = {
    "Q": re.compile(r"three months|quarter|13 weeks|thirteen weeks", re.I),
    "H": re.compile(r"six months|26 weeks|twenty-six weeks", re.I),
    "9M": re.compile(r"nine months|39 weeks|thirty-nine weeks", re.I),
}
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


def _heads_label_column(row: list[str], values: int) -> bool:
    """A header row whose first cell heads the label column ("(Dollars in millions)", "CONSOLIDATED AMOUNTS",
    "Millions, for the three months ended June 30,"): its other cells spread evenly over the figures, and either all
    of its cells would not, or only the others name periods."""
    if len(row) < 2 or values % (len(row) - 1) or _YEAR.search(row[0]):
        return False
    return values % len(row) != 0 or (not PERIOD_WORDS.search(row[0]) and any(PERIOD_WORDS.search(c) for c in row[1:]))


def _split_label_heading(row: list[str], values: int) -> list[list[str]]:
    if not _heads_label_column(row, values):
        return [row]
    return [[row[0]], row[1:]] if PERIOD_WORDS.search(row[0]) else [row[1:]]


def _columns(header_rows: list[list[str]], values: int) -> list[str]:
    """Each leaf column's words, upper header rows spread evenly over the row below. A one-cell row under the
    header ("Assets", "Net sales:") names a group of rows, not a column, unless it names a period ("Six Months Ended
    June 30,"), which spans every column; the label column's heading is set aside, and where it names a period
    ("... for the three months ended June 30,") that period spans every column too."""
    rows = [r for r in header_rows if r and not all(c in ("$", "%") or c.lower().startswith("% of") for c in r)]
    rows = [r for r in rows if len(r) > 1 or PERIOD_WORDS.search(r[0])]
    rows = [part for r in rows for part in _split_label_heading(r, values)]
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


_NOT_THE_FIGURE = re.compile(r"previously reported|\badjustments?\b|\bchange\b|\bimpact\b", re.I)
_RESTATED = re.compile(r"\bas restated\b|\brestated\b|\bas adjusted\b|\brecast\b", re.I)


def _period_columns(columns: Sequence[str], period: AskedPeriod, table_has_durations: bool) -> list[int]:
    """The columns holding the asked period's figure. A column of the figure as previously reported, of a change or
    of an adjustment is not one; where a restated column stands beside others of the period, it is the one."""
    wanted = [
        k for k, c in enumerate(columns) if _matches(c, period, table_has_durations) and not _NOT_THE_FIGURE.search(c)
    ]
    restated = [k for k in wanted if _RESTATED.search(columns[k])]
    return restated if len(wanted) > 1 and len(restated) == 1 else wanted


_STOP_WORDS = frozenset({"and", "of", "the", "for", "in", "a", "an", "to", "common", "s"})
# A row label that only qualifies the group heading above it ("Earnings per share:" / "Basic"; "Current:" / "Federal")
# is read with that heading.
_QUALIFIERS = frozenset(
    {
        "basic",
        "diluted",
        "federal",
        "foreign",
        "state",
        "domestic",
        "current",
        "deferred",
        "u.s.",
        "united states",
        "non-u.s.",
        "international",
        "state and local",
        "total",
    }
)
_MIN_SHARE = 1 / 3  # below it the row is about something else that mentions the item ("... (included in net revenues)")
_NOT_ASKED = re.compile(r"\bbeginning\b", re.I)  # an opening balance never answers a template question


def _continues(group: str, label: str) -> bool:
    """A row label read with the group heading above it: a qualifier ("Earnings per share:" / "Basic") or the end of
    the heading's phrase ("Cash paid during the period for:" / "Interest")."""
    return label.lower().strip(" :") in _QUALIFIERS or bool(
        re.search(r"\b(?:for|of|from|in)\s*:?$", group.strip(), re.I)
    )


def label_words(label: str) -> frozenset[str]:
    """The words of a line-item name, as a set: case, punctuation, '&', plurals, footnote marks and filler words
    ("of", "the", "common") set aside, so "Earnings per common share - basic" and "basic earnings per share" agree."""
    text = label.lower().replace("\u2019", "'").replace("&", " and ")
    words = (re.sub(r"(?<=[a-z])\d+$", "", w) for w in re.findall(r"[a-z][a-z0-9]*", text))
    return frozenset(
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in words
        if w and w not in _STOP_WORDS
    )


def label_score(label: str, names: tuple[frozenset[str], ...]) -> tuple[float, int]:
    """How well a row label names the asked item: (share of the label's words a name accounts for, that name's length),
    for the best name whose words all appear in the label; (0, 0) when none does. "Cash and cash equivalents" scores
    1.0 for "cash and cash equivalents", "Cash and cash equivalents, including restricted" a third."""
    words = label_words(label)
    scores = [(len(n) / len(words), len(n)) for n in names if n and words and n <= words]
    best = max(scores, default=(0.0, 0))
    return best if best[0] >= _MIN_SHARE else (0.0, 0)


# Words that name no line item by themselves: a question may carry them ("research and development expense", "cash flow
# from operating activities", "weighted average basic shares outstanding") where a row label leaves them out.
_NAMING_NOTHING = frozenset({"total", "net", "expense", "amount", "outstanding", "flow", "spending", "on"})
_GROUPS = tuple(tuple(dict.fromkeys(label_words(n) for n in group)) for group in LINE_ITEM_NAMES)


def item_names(item: str) -> tuple[frozenset[str], ...]:
    """The names a row may print for the asked item: its own words, and the names of the group of `LINE_ITEM_NAMES`
    that reads it. A group applies when its names that fit inside the asked words (each name's words all among them)
    account for every asked word that names something (`_NAMING_NOTHING` aside); of those, the group whose fitting
    names account for most asked words wins, then one that holds the asked words as one of its names (groups that
    still tie all apply). "research and development expense" takes the research group; "current portion of long-term
    debt" none (no group names the current portion, and the long-term debt group leaves "current portion" unread), so
    it is read by its own words."""
    asked = label_words(item)
    best, chosen = (0, False), []
    for group in _GROUPS:
        covered = frozenset().union(*(n for n in group if n and n <= asked))
        if not covered or asked - covered - _NAMING_NOTHING:
            continue
        coverage = (len(covered), asked in group)
        if coverage > best:
            best, chosen = coverage, [group]
        elif coverage == best:
            chosen.append(group)
    return tuple(dict.fromkeys([asked, *(n for group in chosen for n in group)]))


@dataclass(frozen=True)
class _Found:
    score: tuple[float, int]
    guesses: int  # the eager reader's: 0 read as asked; 1 or 2 the nearest column and/or the nearest row taken instead
    passage_rank: int
    line: int
    label: str
    shown: str
    scale_text: str
    chunk_id: str
    columns: tuple[str, ...] = ()  # its table's columns (the periods the table prints)
    column: int = 0  # the column read


_SHARES_SCALE = re.compile(r"\bshares?\b[^()|]*?\bin\s+(thousands|millions|billions)\b", re.I)
_SHARES_UNSCALED = re.compile(r"\bexcept\b[^)|]*?\bshares?\b(?!\s*(?:data|amounts?|information)\b)", re.I)


def _scale(scale_text: str, unscaled: bool, share_count: bool) -> str:
    """The scale word for a row, from the words that state its table's scale (a scale row inside the body first, then
    the header rows, then the line above): a per-share figure or a rate is never scaled; a share count takes the
    scale stated for shares ("number of shares, which are reflected in thousands", "SHARES IN MILLIONS") and is
    unscaled where the amounts' scale excepts shares ("Millions, Except Share and Per Share Amounts")."""
    if unscaled:
        return ""
    if share_count:
        match = _SHARES_SCALE.search(scale_text)
        if match:
            return _SCALE_WORD[match.group(1).lower()]
        if _SHARES_UNSCALED.search(scale_text):
            return ""
    match = SCALE_LINE.search(scale_text)
    return _SCALE_WORD[match.group(1).lower()] if match else ""


def _nearest_column(columns: Sequence[str], period: AskedPeriod, table_has_durations: bool) -> int | None:
    """The eager reader's column when none is the asked period's: the column whose year lies nearest the asked one (the
    later of two as near), among the columns of the asked duration (any column, where none names one), as a reader does
    that takes the latest figure it sees for a year the table does not print."""
    years = [(k, [int(y) for y in _YEAR.findall(c)]) for k, c in enumerate(columns) if not _NOT_THE_FIGURE.search(c)]
    if period.year is None:
        return None
    asked_year = period.year

    def of_duration(column: str) -> bool:
        if period.kind in ("FY", "instant"):
            return not _ANY_DURATION.search(column)
        return bool(_DURATIONS[period.kind].search(column)) or not table_has_durations

    dated = [(k, max(y)) for k, y in years if y]
    fitting = [(k, year) for k, year in dated if of_duration(columns[k])] or dated
    ranked = sorted(fitting, key=lambda ky: (abs(ky[1] - asked_year), -ky[1], ky[0]))
    return ranked[0][0] if ranked else None


def nearest_label_score(label: str, asked: frozenset[str]) -> tuple[float, int]:
    """The eager reader's score of a row that names nothing asked: the share of the label's and the question's words
    they hold in common (Jaccard), and how many; (0, 0) when they share no word."""
    words = label_words(label) - _NAMING_NOTHING
    shared = words & (asked - _NAMING_NOTHING)
    return (len(shared) / len(words | asked), len(shared)) if shared else (0.0, 0)


@dataclass(frozen=True)
class _TableLayout:
    """What a table of a passage is, whatever the question: its rows' cells, where its figures start, its columns and
    the scale printed above it. Shared by every question that reads the passage: nothing may change it."""

    start: int  # the passage line of its first row
    rows: tuple[tuple[str, ...], ...]
    closed: tuple[bool, ...]  # whether each row's line ends with its closing pipe (a passage may cut its last row)
    first_data: int  # its first row of figures
    columns: tuple[str, ...]
    durations: bool  # whether the header names durations ("Three Months Ended")
    table_scale: str


@functools.lru_cache(maxsize=16384)
def _layouts(text: str) -> tuple[_TableLayout, ...]:
    """The tables of a passage that hold a row of figures, read once per passage text: the measurement reads the same
    retrieved passages for many questions and replicas, and finding their tables again was most of a read."""
    lines = text.splitlines()
    found = []
    for start, end in table_blocks(lines):
        rows = [_cells(lines[k]) for k in range(start, end)]
        first_data = header_length(lines, start, end)
        if first_data is None:
            continue
        header_rows = rows[:first_data]
        header_text = " ".join(" ".join(r) for r in header_rows)
        found.append(
            _TableLayout(
                start=start,
                rows=tuple(tuple(row) for row in rows),
                closed=tuple(lines[k].rstrip().endswith("|") for k in range(start, end)),
                first_data=first_data,
                columns=tuple(_columns(header_rows, len(_row_values(rows[first_data][1:])))),
                durations=bool(_ANY_DURATION.search(header_text)),
                table_scale=f"{header_text} | {scale_line(lines, start) or ''}",
            )
        )
    return tuple(found)


def _candidates(
    passage: Passage, rank: int, names: tuple[frozenset[str], ...], period: AskedPeriod, eager: bool = False
):
    """The rows that name the asked item with a figure in the asked period's column. `eager`: also a row whose label
    only shares a word with the asked item, and the nearest column where the table prints no column of the period
    (each such step counted in `guesses`), the mistakes of a reader that answers rather than decline."""
    asked = names[0] if names else frozenset()
    for table in _layouts(passage.text):
        start, rows, columns = table.start, table.rows, table.columns
        wanted = _period_columns(columns, period, table.durations)
        column_guess = 0
        if len(wanted) != 1:
            nearest = _nearest_column(columns, period, table.durations) if eager and not wanted else None
            if nearest is None:
                continue  # no column, or two, for the period: a reader cannot tell
            wanted, column_guess = [nearest], 1
        table_scale = table.table_scale
        group = body_scale = ""
        for k in range(table.first_data, len(rows)):
            row = rows[k]
            if len(row) == 1:
                group = row[0]
                body_scale = row[0] if SCALE_LINE.search(row[0]) else body_scale
            if len(row) < 2 or not table.closed[k] or _NOT_ASKED.search(row[0]):
                continue  # a heading, the passage's cut last row, or an opening balance
            label = f"{group} {row[0]}" if group and _continues(group, row[0]) else row[0]
            score, label_guess = label_score(label, names), 0
            if not score[0] and eager:
                score, label_guess = nearest_label_score(label, asked), 1
            if not score[0]:
                continue
            aligned = _align(_row_values(list(row[1:])), columns, wanted[0])
            if aligned is None:
                continue
            values, index = aligned
            if not re.search(r"\d", values[index]):
                continue  # a dash: nothing printed for the period
            yield _Found(
                score,
                column_guess + label_guess,
                rank,
                start + k,
                label.strip(),
                values[index],
                f"{body_scale} | {table_scale}",
                passage.chunk_id,
                columns,
                wanted[0],
            )


def _align(values: list[str], columns: Sequence[str], wanted: int) -> tuple[list[str], int] | None:
    """The row's figures and the index of the wanted column among them. When the row holds fewer or more figures than
    the header has columns, the columns that hold no figure of the period are set aside: change and percent
    columns with the row's percentage figures, or, for a row that leaves them empty, trailing columns that name no
    year ("Estimated Useful Lives")."""
    if len(values) == len(columns):
        return values, wanted
    plain = [v for v in values if not v.endswith("%")]
    periods = [c for c in columns if _YEAR.search(c)]
    for figures, kept in (
        (plain, [c for c in columns if not re.search(r"change|%|percent", c, re.I)]),
        (values, periods if len(values) < len(columns) and periods == list(columns[: len(periods)]) else []),
    ):
        if len(figures) == len(kept) and columns[wanted] in kept:
            return figures, kept.index(columns[wanted])
    return None


def _value(shown: str) -> float:
    digits = re.sub(r"[^\d.]", "", shown)
    if not digits:
        return 0.0
    negative = "(" in shown or shown.startswith("-")
    return -float(digits) if negative else float(digits)


def _spoken(label: str) -> str:
    """A row label as the answer says it: without footnote marks ("Depreciation (1)", "equivalents1,2") or the
    figures some labels carry ("..., net of accumulated depreciation of $23,208 and $22,925"), which a reader of the
    answer would take for other values of the quantity."""
    text = re.sub(r"\s*\(\d{1,2}\)|(?<=[A-Za-z])\d{1,2}(?:,\d{1,2})*\b", "", label)
    figure = re.search(r"[$\d]", text)
    if figure:
        text = re.sub(r"\s+(?:of|and|at|to|for|was|were|in)?\s*$", "", text[: figure.start()].rstrip(" ,;:("))
    return text.strip() or label


def _usual_scale(passages: list[Passage]) -> tuple[str, str | None]:
    """The scale the passages state most often ("in millions") and the first passage that states it, for a table
    whose own scale line lies outside its passage: a filer states its statements' scale once for many tables and
    keeps it throughout. ("", None) when none is stated or two scales tie."""
    counts = Counter(m.group(1).lower() for p in passages for m in SCALE_LINE.finditer(p.text))
    ranked = counts.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return "", None
    word = ranked[0][0]
    stating = next(p.chunk_id for p in passages if any(m.group(1).lower() == word for m in SCALE_LINE.finditer(p.text)))
    return f"in {word}", stating


@dataclass(frozen=True)
class _Asked:
    asked: frozenset[str]
    per_share: bool
    share_count: bool


def _found_rows(question: str, passages: list[Passage], eager: bool = False) -> tuple[_Asked, list[_Found]] | None:
    """The rows that name the asked line item with a column for the asked period (`eager`: or the nearest row and
    column), or None for a question that is not about one line item and one period."""
    parsed = parse_question(question)
    if parsed is None:
        return None
    item, period = parsed
    asked = label_words(item)
    per_share_asked = {"per", "share"} <= asked
    share_count = "share" in asked and not per_share_asked
    names = item_names(item)
    found = [
        f
        for rank, passage in enumerate(passages)
        for f in _candidates(passage, rank, names, period, eager)
        if not (share_count and f.shown.startswith("$"))
    ]  # a dollar figure is no share count
    return _Asked(frozenset(asked), per_share_asked, share_count), found


@dataclass(frozen=True)
class RowRead:
    """One table row read for the asked figure: its passage, what it prints, and the figure in units."""

    chunk_id: str
    label: str
    shown: str
    scale: str
    figure: float
    cited: tuple[str, ...]
    per_share: bool


def _row_read(found: _Found, asked: _Asked, passages: list[Passage]) -> RowRead:
    cited = [found.chunk_id]
    scale_text = found.scale_text
    if not SCALE_LINE.search(scale_text):
        usual, stating = _usual_scale(passages)
        scale_text = f"{scale_text} | {usual}"
        own_text = next(p.text for p in passages if p.chunk_id == found.chunk_id)
        if stating and stating != found.chunk_id and not SCALE_LINE.search(own_text):
            cited.append(stating)  # the passage that states the scale backs it
    per_share = asked.per_share or {"per", "share"} <= label_words(found.label)
    percentage = found.shown.endswith("%") or "rate" in asked.asked
    scale = _scale(scale_text, per_share or percentage, asked.share_count and not per_share)
    figure = _value(found.shown) * SCALE_FACTORS.get(scale, 1.0)
    return RowRead(found.chunk_id, found.label, found.shown, scale, figure, tuple(cited), per_share)


def rows_read(question: str, passages: list[Passage]) -> list[RowRead]:
    """Every row the reader ranks first (the best label match, however many passages print it), in passage order:
    what the passages say the asked figure is. The reader answers from the first; review compares them all."""
    read = _found_rows(question, passages)
    if read is None or not read[1]:
        return []
    asked, found = read
    top = max(f.score for f in found)
    best = sorted((f for f in found if f.score == top), key=lambda f: (f.passage_rank, f.line))
    return [_row_read(f, asked, passages) for f in best]


def _rank(found: _Found) -> tuple:
    """The order the reader prefers rows in: read as asked, the best label, the earliest passage and line."""
    return found.guesses, -found.score[0], -found.score[1], found.passage_rank, found.line


@dataclass(frozen=True)
class TableRead:
    """One table row read for a single-figure question, as the table reader reads it: the row, its label as an answer
    says it, whether the question asks a share count, and the columns of its table (the periods it prints)."""

    row: RowRead
    spoken: str
    share_count: bool
    columns: tuple[str, ...]
    column: int
    passage_rank: int


def table_reads(question: str, passages: list[Passage]) -> list[TableRead] | None:
    """Every row the table reader finds for a single-figure question, in the order it prefers them (the first is the
    row `read_tables` answers from), or None when the question is not about one line item and one period."""
    read = _found_rows(question, passages)
    if read is None:
        return None
    asked, found = read
    return [
        TableRead(
            _row_read(f, asked, passages), _spoken(f.label), asked.share_count, f.columns, f.column, f.passage_rank
        )
        for f in sorted(found, key=_rank)
    ]


def period_dates(passages: list[Passage], duration: str) -> list[tuple[int, int, int]]:
    """The end dates (year, month, day) of the columns of the passages' tables that name a duration ("Q", "H", "9M":
    "Six Months Ended June 30, 2023"), latest first: the periods of that length the passages print."""
    found = {
        date
        for passage in passages
        for table in _layouts(passage.text)
        for column in table.columns
        if _DURATIONS[duration].search(column) and (date := _date_of(column)) is not None
    }
    return sorted(found, reverse=True)


def columns_dates(columns: Sequence[str]) -> list[tuple[int, int, int]]:
    """The dates the columns of a table name, or each named year's last day where a column names a year only, leaving
    out columns of a change, an adjustment or a figure as previously reported."""
    dates = []
    for column in columns:
        if _NOT_THE_FIGURE.search(column):
            continue
        date = _date_of(column)
        dates += [date] if date else [(int(y), 12, 31) for y in _YEAR.findall(column)]
    return dates


def read_tables(question: str, passages: list[Passage], eager: bool = False) -> ReaderAnswer:
    """The table reader's answer. `eager`: the eager reader's (EAGER_READER_ID), which reads as the table reader does
    and, where that would decline, answers from the nearest row and the nearest column instead."""
    read = _found_rows(question, passages, eager)
    if read is None:
        return ReaderAnswer(False, "", None, (), "not a question about one line item and one period")
    asked, found = read
    if not found:
        return ReaderAnswer(False, "", None, (), "no table row names the line item with a column for the asked period")
    best = min(found, key=_rank)
    row = _row_read(best, asked, passages)
    # a share count is said as one, or it reads as an amount
    unit = " shares" if asked.share_count and not row.per_share else ""
    where = "".join(f"[{c}]" for c in row.cited)
    text = f"{_spoken(best.label)}: {best.shown}{' ' + row.scale if row.scale else ''}{unit} {where}."
    return ReaderAnswer(True, text, row.figure, row.cited, None)
