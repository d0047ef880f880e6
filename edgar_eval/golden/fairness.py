"""The fairness rules of template questions, as code: which figure may become a question, and why not.

A figure is a fair question when a reader could find it and recognise it: it is printed, it names a
line item a person asks about, it is not a number printed all over the filing with other meanings,
and the question does not give it away. Every rule returns a reason; the builder keeps every one.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from edgar_eval.golden.labels import distinctive_words
from edgar_eval.golden.might_answer import (
    DISTINCTIVE_PRICED,
    FAMILY_TAGGED,
    FORWARD_SCHEDULE,
    HEAD_PRICED,
    HEADING_OVER_COMPONENTS,
    NEAR_ROW,
    NIL_NEARBY,
    PRINTED_NONE,
    PRINTED_OTHER_PERIODS,
    PRINTED_ROW,
    PRINTED_SENTENCE,
    WIDER_NONE,
    row_label,
    stems,
)
from edgar_eval.golden.two_documents import TWO_DOCUMENT_RULES

# Rule names, in the order they are applied; the first that fails is the recorded reason.
# a weighted-average share count off tenfold or more from its filing's net income / EPS: its tagged scale is wrong
# (golden.share_counts), so no question is built from it
SHARE_SCALE = "share_count_scale_disagrees"
BOILERPLATE = "boilerplate_concept"
DIMENSIONED = "dimensioned_fact"
OTHER_PERIOD = "outside_reported_periods"
NOT_PRINTED = "not_printed"
NO_LABEL = "no_readable_label"
AMBIGUOUS = "ambiguous_label"
SMALL_OR_ROUND = "small_or_round_figure"
IN_QUESTION = "answer_in_question"
OTHER_MEANINGS = "printed_with_other_meanings"
QUOTA_CONCEPT = "quota_per_concept"
QUOTA_COVER = "quota_cover_page"
QUOTA_STATEMENT = "quota_statement_type"
QUOTA_FILING = "quota_per_filing"
QUOTA_COMPANY = "quota_per_company"
# An absent-concept candidate (golden.might_answer; the printed and review rules are named there):
STATEMENTS_ELSEWHERE = "statements_elsewhere"  # a 10-K of the scope incorporates its statements from an exhibit
CANNOT_BE_ABSENT = "cannot_be_shown_absent"  # a total or computed figure, or a concept with no distinctive words
# an absent-concept question worded like a line item the scope does report (another tag, one label)
LABEL_REPORTED = "label_reported"
# an absent concept already asked of another filing whose question searches the same filings (a 10-K and a 10-Q of one
# fiscal year): the same absence, asked twice
ASKED_IN_SCOPE = "asked_of_another_filing_of_its_scope"
AWAITING_REVIEW = "awaiting_review"  # the words leave it open and no verdict of a person's is on file
REVIEWED_ANSWERED = "reviewed_answered"  # a person read the passages: the filing answers it
# the figure's row joins the line item with another ("Retained earnings and additional paid-in capital")
COMBINED_ROW = "combined_row"
# the scope prints a second row naming the line item itself with another figure for the period ("Total capital
# expenditures" beside the tagged "Purchases of property and equipment"): two fair answers, so no question
SEVERAL_FAIR_ANSWERS = "several_fair_answers"
# a segment, geography or product figure whose row does not print the member's name: no plain words to ask it in
MEMBER_NOT_PRINTED = "member_not_printed"
# another filing of the question's own scope tags its period with another value (a restatement, a split): two answers
# in one scope, asked instead as a conflicting-values review case
RESTATED_IN_SCOPE = "restated_in_scope"
YEAR_PRINTED = (
    "year_printed"  # an other-year question whose year the company's filings print beside the concept's words
)
# The rules that only say what a question is never about (a cover-page count, a segment, a comparative year):
# counted, but not what a reader of the rejections looks for first.
PRE_FILTERS = (BOILERPLATE, DIMENSIONED, OTHER_PERIOD, NOT_PRINTED, NO_LABEL)
RULES = (
    SHARE_SCALE,
    BOILERPLATE,
    DIMENSIONED,
    OTHER_PERIOD,
    NOT_PRINTED,
    NO_LABEL,
    AMBIGUOUS,
    SMALL_OR_ROUND,
    IN_QUESTION,
    COMBINED_ROW,
    OTHER_MEANINGS,
    SEVERAL_FAIR_ANSWERS,
    RESTATED_IN_SCOPE,
    QUOTA_CONCEPT,
    QUOTA_COVER,
    QUOTA_STATEMENT,
    QUOTA_FILING,
    QUOTA_COMPANY,
    STATEMENTS_ELSEWHERE,
    CANNOT_BE_ABSENT,
    LABEL_REPORTED,
    ASKED_IN_SCOPE,
    FAMILY_TAGGED,
    PRINTED_ROW,
    HEADING_OVER_COMPONENTS,
    PRINTED_SENTENCE,
    PRINTED_NONE,
    WIDER_NONE,
    PRINTED_OTHER_PERIODS,
    NEAR_ROW,
    NIL_NEARBY,
    DISTINCTIVE_PRICED,
    HEAD_PRICED,
    AWAITING_REVIEW,
    REVIEWED_ANSWERED,
    YEAR_PRINTED,
    FORWARD_SCHEDULE,
    MEMBER_NOT_PRINTED,
    *TWO_DOCUMENT_RULES,
)


@dataclass(frozen=True)
class FairnessLimits:
    min_significant_digits: int = 3  # "12", "3.5", "1,200" and dashes identify nothing
    max_other_meaning_pages: int = 1  # pages printing the same figure where it means something else
    self_identifying_digits: int = (
        4  # an untagged "391,035" is the same figure again; an untagged "244" may be anything
    )
    per_concept_per_filing: int = 1
    cover_share: float = 0.1  # of one filing's answerable questions, at least one allowed
    statement_share: float = 0.4  # no statement type takes more of one filing's questions
    per_filing: int = 12
    per_company: int = 24


_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w]|[.,]\d)|(?<![\w.,])\d+(?:\.\d+)?(?![\w]|[.,]\d)")


def significant_digits(printed: str) -> int:
    """Digits that carry information: leading zeros never, trailing zeros of a whole number neither ("1,200" has 2)."""
    digits = re.sub(r"\D", "", printed).lstrip("0")
    return len(digits if "." in printed else digits.rstrip("0"))


def printed_figure(displayed: str) -> str:
    """The figure as it stands in the text, without the parentheses or sign around it."""
    return re.sub(r"[^\d.,]", "", displayed).strip(".,")


def answer_in_question(printed: str, question: str) -> bool:
    figure = re.sub(r"\D", "", printed)
    return bool(figure) and any(figure in re.sub(r"\D", "", token) for token in _NUMBER.findall(question))


class FigureIndex:
    """Where every number of one filing's text stands, by its printed form, with the page and line of each."""

    def __init__(self, filing_id: str, text: str, page_starts: list[int], page_labels: list[str]):
        self.filing_id = filing_id
        self.text = text
        self._page_starts = page_starts
        self._page_labels = page_labels
        self._at: dict[str, list[int]] = {}
        for match in _NUMBER.finditer(text):
            self._at.setdefault(match.group(), []).append(match.start())

    def offsets(self, printed: str) -> list[int]:
        return self._at.get(printed, [])

    def figures(self) -> list[str]:
        """Every number the filing prints, as printed, once each."""
        return list(self._at)

    def page(self, offset: int) -> str:
        index = max(bisect.bisect_right(self._page_starts, offset) - 1, 0)
        return self._page_labels[index] if self._page_labels else "p1"

    def is_first_page(self, offset: int) -> bool:
        return len(self._page_starts) < 2 or offset < self._page_starts[1]

    def line(self, offset: int) -> str:
        start = self.text.rfind("\n", 0, offset) + 1
        end = self.text.find("\n", offset)
        return self.text[start : end if end != -1 else len(self.text)]


@dataclass(frozen=True)
class Occurrences:
    gold: list[tuple[str, int]]  # (filing_id, offset) where the figure is printed with this meaning
    other_pages: list[str]  # "filing#page" where the same printed figure means something else


def classify_occurrences(
    printed: str,
    label: str,
    tagged_here: set[tuple[str, int]],
    tagged_anywhere: set[tuple[str, int]],
    indexes: list[FigureIndex],
    self_identifying_digits: int,
) -> Occurrences:
    """Each place the scope prints this figure: tagged with this concept and period, or an untagged mention (MD&A
    restates headline figures untagged) when the figure is specific enough to be itself or its line names the line
    item, is gold. A place tagged with another concept or period, or an untagged short figure, means something else."""
    words = distinctive_words(label)
    specific = significant_digits(printed) >= self_identifying_digits
    gold, other = [], set()
    for index in indexes:
        for offset in index.offsets(printed):
            key = (index.filing_id, offset)
            if key in tagged_here:
                gold.append(key)
            elif key not in tagged_anywhere and (specific or all(w in index.line(offset).lower() for w in words)):
                gold.append(key)
            else:
                other.add(f"{index.filing_id}#{index.page(offset)}")
    gold_pages = {f"{f}#{i.page(o)}" for f, o in gold for i in indexes if i.filing_id == f}
    return Occurrences(gold=gold, other_pages=sorted(other - gold_pages))


_STATEMENT_TITLES = [
    (
        "balance sheet",
        re.compile(r"balance\s+sheets?|statements?\s+of\s+(?:consolidated\s+)?financial\s+position", re.I),
    ),
    ("cash flow statement", re.compile(r"statements?\s+of\s+(?:consolidated\s+)?cash\s+flows?", re.I)),
    (
        "equity statement",
        re.compile(
            r"statements?\s+of\s+(?:consolidated\s+)?(?:changes\s+in\s+)?(?:stockholders|shareholders|shareowners|share\s+owners)[\u2019']?\s+equity|statements?\s+of\s+(?:changes\s+in\s+)?equity",
            re.I,
        ),
    ),
    (
        "income statement",
        re.compile(
            r"statements?\s+of\s+(?:consolidated\s+)?(?:comprehensive\s+)?(?:income|operations|earnings|(?:net\s+)?loss)",
            re.I,
        ),
    ),
]
_HEADING_LINE = re.compile(
    r"^[|\s]*[A-Za-z\s,.&'\u2019-]{0,80}?(?:balance\s+sheets?|statements?\s+of\b)", re.I
)  # a registrant name may lead


_TABLE_OF_CONTENTS_ENTRY = re.compile(r"(?:\b\d{1,3}|\b[A-Z]-\d{1,3})\s*$|\bpage\b|\bsee\b", re.I)


def statement_headings(text: str) -> list[tuple[int, str]]:
    """(offset, statement type) of each short line titling a primary statement, in text order."""
    found = []
    position = 0
    for line in text.split("\n"):
        stripped = line.strip(" |")
        if 0 < len(stripped) <= 120 and _HEADING_LINE.match(line) and not _TABLE_OF_CONTENTS_ENTRY.search(stripped):
            for kind, pattern in _STATEMENT_TITLES:
                if pattern.search(stripped):
                    found.append((position, kind))
                    break
        position += len(line) + 1
    return found


def statement_type_at(headings: list[tuple[int, str]], offset: int, notes_start: int | None) -> str:
    """Where a figure is printed: one of the primary statements, the notes, or elsewhere (MD&A, cover)."""
    if notes_start is not None and offset >= notes_start:
        return "notes"
    index = bisect.bisect_right([h[0] for h in headings], offset) - 1
    if index < 0:
        return "other"
    return headings[index][1]


_JOINED = re.compile(
    r"^\s*(?:,\s*)?(?:and|&)\s+(?!other\b|related\b|equivalents?\b|restricted\b|similar\b|benefits?\b|employee)"
    r"([a-z][a-z' -]{3,})",
    re.I,
)


def combined_row(row: str, own: frozenset[str]) -> str | None:
    """The other item a table row's label joins to the line item ("Retained earnings and additional paid-in capital"
    -> "additional paid-in capital"), or None: a figure printed for two items together is not the figure of one of
    them. `own` is the line item's stems (golden.might_answer.concept_stems: its label's and its XBRL name's words).
    Read only when the label's words before the join name the item; "... and other", "... and equivalents", "... and
    restricted cash", "... and benefits", and words of the item's own ("Marketing and sales" for sales and marketing,
    "Research and development") complete the item rather than add one."""
    if not row.lstrip().startswith("|"):
        return None
    label = row_label(row).lower().replace("\u2019", "'")
    for joint in re.finditer(r"(?:,\s*)?\s(?:and|&)\s", label):
        if not stems(label[: joint.start()]) & own:
            return None
        joined = _JOINED.match(label[joint.start() :])
        if joined and not stems(joined.group(1)) <= own:
            return joined.group(1).strip()
    return None
