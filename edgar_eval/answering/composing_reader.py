"""A reader of two-figure questions: offline, deterministic, composing two single-figure reads of the table reader.

A question that needs two filings asks for two figures and what they make together. This reader parses the question's
own words for the two figures, reads each with the table reader's machinery (`table_reader.table_reads`: the row of the
line item, the column of the period, the table's scale) over the retrieved passages, and composes them as the question
asks; it declines when either read declines, or when the two are not figures of one kind (an amount beside a
per-share figure, a percentage, a share count):

* the part of a year ("What was X's <item> for the second half of fiscal 2023?", "... the fourth quarter of ..."):
  the fiscal year's figure less the year to date that ends before it (six months for a half, nine for a quarter), the
  date read from the passages' own column headings (the latest such column in the fiscal year or the year before);
  the answer states the difference with its arithmetic, in the fiscal year's scale and decimals;
* a change ("How did X's <item> change from [the end of] fiscal 2019 to [the end of] fiscal 2024?"): each year's
  figure, the direction, and the difference with its arithmetic;
* a comparison ("Which reported more <item> for fiscal 2023, A or B, and how much did each report?"): each company's
  figure, read from the passages that name that company and not the other (its name, its first word as a name, or its
  initials: "BMS"); where the passages of one company name it nowhere, from the passages that name neither, the first
  row whose figure is not the other company's; then which is more;
* a restatement ("What was X's <item> <period>, as first reported and as most recently reported?"): the period's figure
  from a table whose latest column is that period (the report that first gave it) and from a table that prints a later
  period too (a later report), the latest such table first.

Any other question is a single-figure question, read as the table reader reads it, so this reader answers every
question the table reader does, with the same answer.

A figure is stated as printed, with its table's scale; a row that names an outflow ("Dividends paid (3,556)") states
the amount, as the filings' parentheses there are presentation (`corpus.figure_match.label_sign`). A derived figure
(a difference) stands in the sentence of its two operands joined by "less", the one step of arithmetic the citation
check accepts (`answering.citations`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from edgar_eval.answering.extractive import Passage, ReaderAnswer
from edgar_eval.answering.table_reader import TableRead, columns_dates, parse_question, period_dates, read_tables
from edgar_eval.answering.table_reader import table_reads as _table_reads
from edgar_eval.corpus.figure_match import ANY_SIGN, label_sign, values_differ
from edgar_eval.corpus.number_words import SCALE_FACTORS

READER_ID = "composing-reader/1"
# Its single-figure reads are the table reader's (tuned on demo and edgar); its question shapes, company attribution and
# period rules were written against the two-document questions of all three corpora, so its figures are in-sample on
# each of them.
TUNED_ON = ("demo", "edgar", "edgar-wide")

PART_OF_YEAR, CHANGE, COMPARISON, RESTATEMENT = "part_of_year", "change", "comparison", "restatement"

_OWNER = r"(?P<company>.+?)['\u2019]s? (?P<item>.+?)"
_PART_OF_YEAR = re.compile(
    rf"^What (?:was|were) {_OWNER} for the (?P<part>second half|fourth quarter) of fiscal "
    r"(?P<year>(?:19|20)\d{2})\??$",
    re.I,
)
_CHANGE = re.compile(
    rf"^How did {_OWNER} change from (?P<at1>the end of )?fiscal (?P<y1>(?:19|20)\d{{2}}) to (?P<at2>the end of )?"
    r"fiscal (?P<y2>(?:19|20)\d{2})\??$",
    re.I,
)
_COMPARISON = re.compile(
    r"^Which (?:company )?reported (?:more|higher|greater) (?P<item>.+?) (?P<when>for|at the end of) fiscal "
    r"(?P<year>(?:19|20)\d{2}), (?P<first>.+?) or (?P<second>.+?),? and how much did each report\??$",
    re.I,
)
_RESTATEMENT = re.compile(
    rf"^What (?:was|were) {_OWNER} (?P<when>(?:for|at the end of|as of) .+?),? as first reported and as most "
    r"recently reported\??$",
    re.I,
)
# A part of a year: the year to date it is the fiscal year less of (the table reader's duration keys).
_YEAR_TO_DATE = {"second half": "H", "fourth quarter": "9M"}
_MONTH_NAMES = ("January February March April May June July August September October November December").split()


@dataclass(frozen=True)
class TwoFigureQuestion:
    """What a two-figure question asks: its shape, and the two single-figure questions whose figures it composes."""

    shape: str
    first: str  # the single-figure question of the first figure (the whole, the earlier year, the first company)
    second: str  # ... of the second ("" for a part of a year: its year to date is read from the passages)
    roles: tuple[str, str]  # how the answer names each figure
    subject: str = ""  # PART_OF_YEAR: whose line item ("Apple's operating income")
    part: str = ""  # PART_OF_YEAR: "second half" or "fourth quarter"
    year: int = 0  # PART_OF_YEAR: the fiscal year


def parse_two_figures(question: str) -> TwoFigureQuestion | None:
    """The two figures a question composes, or None for a single-figure question (module doc)."""
    text = question.strip()
    if match := _PART_OF_YEAR.match(text):
        owner, item, year = match.group("company"), match.group("item"), int(match.group("year"))
        part = match.group("part").lower()
        whole = f"What was {owner}'s {item} for fiscal {year}?"
        return TwoFigureQuestion(PART_OF_YEAR, whole, "", (f"fiscal {year}", part), f"{owner}'s {item}", part, year)
    if match := _CHANGE.match(text):
        owner, item = match.group("company"), match.group("item")
        at1 = "at the end of" if match.group("at1") else "for"
        at2 = "at the end of" if match.group("at2") else "for"
        y1, y2 = match.group("y1"), match.group("y2")
        return TwoFigureQuestion(
            CHANGE,
            f"What was {owner}'s {item} {at1} fiscal {y1}?",
            f"What was {owner}'s {item} {at2} fiscal {y2}?",
            (f"{at1.replace('for', 'in')} fiscal {y1}", f"{at2.replace('for', 'in')} fiscal {y2}"),
        )
    if match := _COMPARISON.match(text):
        item, when, year = match.group("item"), match.group("when"), match.group("year")
        first, second = match.group("first").strip(), match.group("second").strip()
        return TwoFigureQuestion(
            COMPARISON,
            f"What was {first}'s {item} {when} fiscal {year}?",
            f"What was {second}'s {item} {when} fiscal {year}?",
            (first, second),
        )
    if match := _RESTATEMENT.match(text):
        single = f"What was {match.group('company')}'s {match.group('item')} {match.group('when')}?"
        return TwoFigureQuestion(RESTATEMENT, single, single, ("as first reported", "as most recently reported"))
    return None


# --- what each figure is, and how an answer states it ------------------------------------------------------------


def _kind(read: TableRead) -> str:
    """The kind of figure a read is: a percentage, a per-share figure, a share count or an amount. Two figures compose
    only when they are of one kind."""
    if read.row.shown.endswith("%"):
        return "percent"
    if read.row.per_share:
        return "per_share"
    return "shares" if read.share_count else "amount"


def _outflow(read: TableRead) -> bool:
    """A row that names an outflow or a contra account, whose parentheses are presentation: its figure is an amount."""
    return label_sign(read.row.label) == ANY_SIGN


def _value(read: TableRead) -> float:
    return abs(read.row.figure) if _outflow(read) else read.row.figure


def _unit(read: TableRead) -> str:
    return f"{' ' + read.row.scale if read.row.scale else ''}{' shares' if _kind(read) == 'shares' else ''}"


def _stated(read: TableRead) -> str:
    """The figure as the answer states it: as printed, with its scale (and "shares" for a share count); an outflow's
    parentheses dropped."""
    shown = read.row.shown
    if _outflow(read):
        shown = shown.replace("(", "").replace(")", "").replace("-", "")
    return f"{shown}{_unit(read)}"


def _decimals(shown: str) -> int:
    digits = re.sub(r"[^\d.]", "", shown)
    return len(digits.split(".", 1)[1]) if "." in digits else 0


def _derived(value: float, like: TableRead) -> str:
    """A derived figure stated as `like` is: its currency sign, scale, decimals and unit."""
    factor = SCALE_FACTORS.get(like.row.scale, 1.0)
    magnitude = f"{abs(value) / factor:,.{_decimals(like.row.shown)}f}"
    sign = "-" if value < 0 else ""
    currency = "$" if "$" in like.row.shown else ""
    return f"{sign}{currency}{magnitude}{_unit(like)}"


def _markers(*reads: TableRead) -> str:
    cited = dict.fromkeys(c for read in reads for c in read.row.cited)
    return "".join(f"[{c}]" for c in cited)


def _decline(why: str) -> ReaderAnswer:
    return ReaderAnswer(False, "", None, (), why)


def _cited(*reads: TableRead) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c for read in reads for c in read.row.cited))


def _first(question: str, passages: list[Passage]) -> TableRead | None:
    reads = _table_reads(question, passages)
    return reads[0] if reads else None


# --- the four compositions ---------------------------------------------------------------------------------------


def _date_words(date: tuple[int, int, int]) -> str:
    return f"{_MONTH_NAMES[date[1] - 1]} {date[2]}, {date[0]}"


def _part_of_year(asked: TwoFigureQuestion, passages: list[Passage]) -> ReaderAnswer:
    """The fiscal year's figure less the year to date before the asked part: the latest year-to-date column of the
    passages that ends in the fiscal year or the year before (a fiscal year that ends early in a calendar year)."""
    whole = _first(asked.first, passages)
    if whole is None:
        return _decline(f"no table row names the line item for fiscal {asked.year}")
    duration = _YEAR_TO_DATE[asked.part]
    dates = [d for d in period_dates(passages, duration) if d[0] in (asked.year - 1, asked.year)]
    if not dates:
        return _decline(f"no passage prints the year to date before the {asked.part} of fiscal {asked.year}")
    words = "six months" if duration == "H" else "nine months"
    part = _first(f"What was {asked.subject} for the {words} ended {_date_words(dates[0])}?", passages)
    if part is None:
        return _decline(f"no table row names the line item for the {words} ended {_date_words(dates[0])}")
    if _kind(whole) != _kind(part):
        return _decline(f"the two figures are of different kinds ({_kind(whole)} and {_kind(part)})")
    difference = _value(whole) - _value(part)
    text = (
        f"{_derived(difference, whole)} for the {asked.part} of fiscal {asked.year}: {_stated(whole)} for fiscal "
        f"{asked.year} less {_stated(part)} for the year to date at {_date_words(dates[0])} {_markers(whole, part)}."
    )
    return ReaderAnswer(True, text, difference, _cited(whole, part), None)


def _change(asked: TwoFigureQuestion, passages: list[Passage]) -> ReaderAnswer:
    """Each year's figure, the direction of the change, and its size with its arithmetic."""
    earlier, later = _first(asked.first, passages), _first(asked.second, passages)
    if earlier is None or later is None:
        missing = asked.roles[0] if earlier is None else asked.roles[1]
        return _decline(f"no table row names the line item {missing}")
    if _kind(earlier) != _kind(later):
        return _decline(f"the two figures are of different kinds ({_kind(earlier)} and {_kind(later)})")
    before, after = _value(earlier), _value(later)
    if not values_differ(before, after):
        text = (
            f"Unchanged: {_stated(earlier)} {asked.roles[0]} and {_stated(later)} {asked.roles[1]} "
            f"{_markers(earlier, later)}."
        )
        return ReaderAnswer(True, text, after, _cited(earlier, later), None)
    larger, smaller = (later, earlier) if after > before else (earlier, later)
    direction = "An increase" if after > before else "A decrease"
    text = (
        f"{direction} of {_derived(abs(after - before), larger)} ({_stated(larger)} less {_stated(smaller)}): "
        f"{_stated(earlier)} {asked.roles[0]}, {_stated(later)} {asked.roles[1]} {_markers(earlier, later)}."
    )
    return ReaderAnswer(True, text, after, _cited(earlier, later), None)


_NAME_WORD = re.compile(r"[a-z0-9&]+")
_CORPORATE = frozenset(
    {"the", "inc", "corp", "corporation", "co", "company", "companies", "plc", "ltd", "llc", "group"}
)


def _plain(text: str) -> str:
    """Text with a possessive marked "#" and other apostrophes dropped ("McDonald's" -> "McDonald#", "Lowe's" ->
    "Lowe#"): a name ends where its possessive starts."""
    return re.sub(r"['\u2019]s\b", "#", text, flags=re.I).replace("\u2019", "").replace("'", "")


def _name_words(company: str) -> list[str]:
    plain = _plain(company).lower().replace("-", " ").replace(".", " ")
    return [w for w in _NAME_WORD.findall(plain) if w not in _CORPORATE]


def _word(word: str) -> str:
    """A name word as a pattern, a final "s" optional ("Lowes" finds "Lowe", "Abbott" finds "Abbotts")."""
    return rf"{re.escape(word.removesuffix('s'))}s?"


def names_company(text: str, company: str) -> bool:
    """Whether a passage names a company: its whole name, its first word written as a name (capitalised, not followed
    by a lower-case word: "Abbott's", not "General and administrative"), or its initials in capitals ("BMS", "GE")."""
    words = _name_words(company)
    if not words:
        return False
    plain = _plain(text)
    if re.search(r"\b" + r"[\s\-.]+".join(map(_word, words)) + r"\b", plain, re.I):
        return True
    for match in re.finditer(rf"\b{_word(words[0])}\b", plain, re.I):
        if plain[match.start()].isupper() and not re.match(r"\s+[a-z]", plain[match.end() :]):
            return True
    initials = "".join(w[0] for w in words).upper()
    return len(words) > 1 and bool(re.search(rf"\b{re.escape(initials)}\b", plain))


def company_passages(passages: list[Passage], company: str, other: str) -> list[Passage]:
    """The passages of one of two companies: those that name it and not the other (`names_company`). A passage that
    names neither is nobody's: a table of figures seldom names its filer, and reading one as either company's (by its
    words' resemblance to each company's passages, or as the overlapping neighbour of one) gave more wrong answers than
    right ones on edgar-wide."""
    return [p for p in passages if names_company(p.text, company) and not names_company(p.text, other)]


def _company_read(
    question: str, company: str, other: str, passages: list[Passage], elsewhere: float | None = None
) -> TableRead | None:
    """A company's figure from its passages (`company_passages`); `elsewhere`: the other company's figure, when this
    one is to be read from the passages that name neither (the first row whose figure is not it)."""
    if elsewhere is None:
        return _first(question, company_passages(passages, company, other))
    neither = [p for p in passages if not names_company(p.text, company) and not names_company(p.text, other)]
    return next((r for r in _table_reads(question, neither) or [] if values_differ(_value(r), elsewhere)), None)


def _comparison(asked: TwoFigureQuestion, passages: list[Passage]) -> ReaderAnswer:
    """Each company's figure (its own passages; failing them, those that name neither company) and which is more."""
    first_name, second_name = asked.roles
    first = _company_read(asked.first, first_name, second_name, passages)
    second = _company_read(asked.second, second_name, first_name, passages)
    if first is not None and second is None:
        second = _company_read(asked.second, second_name, first_name, passages, _value(first))
    elif second is not None and first is None:
        first = _company_read(asked.first, first_name, second_name, passages, _value(second))
    if first is None or second is None:
        missing = first_name if first is None else second_name
        return _decline(f"no table row of {missing}'s passages names the line item for the asked period")
    if _kind(first) != _kind(second):
        return _decline(f"the two figures are of different kinds ({_kind(first)} and {_kind(second)})")
    if not values_differ(_value(first), _value(second)):
        return _decline("the two companies' figures are the same")
    more = first_name if _value(first) > _value(second) else second_name
    text = (
        f"More was reported by {more}.\n{first_name}: {_stated(first)} {_markers(first)}.\n"
        f"{second_name}: {_stated(second)} {_markers(second)}."
    )
    return ReaderAnswer(True, text, max(_value(first), _value(second)), _cited(first, second), None)


def _latest(columns: Sequence[str]) -> tuple[int, int, int] | None:
    dates = columns_dates(columns)
    return max(dates) if dates else None


def _restatement(asked: TwoFigureQuestion, passages: list[Passage]) -> ReaderAnswer:
    """The period's figure from a table whose latest column is the period (the first report), and from a table that
    prints a later period too (a later report; the latest such table first)."""
    parsed = parse_question(asked.first)
    reads = _table_reads(asked.first, passages)
    if parsed is None or reads is None:
        return _decline("not a question about one line item and one period")
    read_dates = [(read, _latest(read.columns), columns_dates([read.columns[read.column]])) for read in reads]
    first = next((r for r, latest, own in read_dates if own and latest == max(own)), None)
    later = [(latest, -k, r) for k, (r, latest, own) in enumerate(read_dates) if own and latest and latest > max(own)]
    if first is None:
        return _decline("no table prints the period as its latest: no first report of it read")
    if not later:
        return _decline("no table prints a later period beside it: no later report of it read")
    recent = max(later, key=lambda entry: (entry[0], entry[1]))[2]
    if _kind(first) != _kind(recent):
        return _decline(f"the two figures are of different kinds ({_kind(first)} and {_kind(recent)})")
    text = f"As first reported: {_stated(first)} {_markers(first)}.\nAs most recently reported: {_stated(recent)} "
    text += f"{_markers(recent)}."
    return ReaderAnswer(True, text, _value(recent), _cited(first, recent), None)


_COMPOSE = {PART_OF_YEAR: _part_of_year, CHANGE: _change, COMPARISON: _comparison, RESTATEMENT: _restatement}


def read_two_figures(question: str, passages: list[Passage]) -> ReaderAnswer:
    """The composing reader's answer: a two-figure question composed from two reads, any other read by the table
    reader."""
    asked = parse_two_figures(question)
    if asked is None:
        return read_tables(question, passages)
    return _COMPOSE[asked.shape](asked, passages)
