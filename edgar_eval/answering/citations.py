"""The citation check of the reference answerer: every figure it states must be printed in a passage it cites.

Rule (project brief): every sentence with a figure (digits or words) carries a citation marker; every figure
in a cited sentence is printed in a cited passage. Note, page, item and exhibit numbers (and years, dates and
form names, see `number_words`) back nothing and need no marker; a percentage is backed only by a percentage;
an unscaled passage number is rescaled (thousand/million/billion) only when it has 3+ digits.

Markers. The default syntax is `[P<n>]`, the passage id in square brackets ("[P3]"); several ids may share one
bracket ("[P1, P3]") or stand side by side ("[P1][P3]"). The ids are the keys of `passages`. Any other syntax
is a regular expression whose first group (or whole match, without groups) holds the comma- or
semicolon-separated ids: `BRACKETED_ID_MARKER_PATTERN` takes any space-free bracketed id, such as the chunk
ids ("[0000320193-24-000123:00005]") the extractive reader prints. Markers are read from the answer only;
what a passage says never cites anything.

Outcome. `reason` is "no_valid_citation" when some figure-bearing sentence has no marker, or when any
sentence cites an id not among `passages`; otherwise "unsupported_claim" when a figure of a cited sentence is
not printed in any passage that sentence cites; otherwise None and `ok` is True.

Matching. By the project's one figure-matching policy (`edgar_eval.corpus.figure_match`): a percentage only by a
percentage; magnitudes within half a unit of the answer's last written digit when it keeps two significant digits,
else within 2% ("$1.9 billion": within $50 million; "$1 billion" is not backed by 1,204 million); signs as the
filings mean them: "(812)" on a "Net income (loss)" row backs only a loss, on a "Purchases of property and
equipment" row the plain amount. A passage figure is read as printed (with its own scale word: "$1.9 billion"),
and, when it has no scale word and 3+ significant digits, also times every scale the passage text names
("(in millions)", "thousands", "$5 million"), so "1,948" under "(In millions)" backs "$1.9 billion".

Shown arithmetic. A figure no cited passage prints is backed when its sentence shows the one step that gives it: two
figures of the same sentence, each printed in a cited passage, joined by "less" or "minus" (their difference) or
"plus" (their sum), with no other figure between them ("$3,262 million for the second half: $5,935 million for the year
less $2,673 million for the six months [P1][P4]"). Magnitudes are compared (the operands' signs are their own,
checked as printed), within the derived figure's tolerance. Only one step: a figure backed this way backs no other.

Sentences. Split after . ! ? followed by space and a capital, digit, symbol or quote, and at every line
break. Not after decimal points, abbreviations ("Inc.", "Corp.", "U.S.", "No."), initials, or a list number
at the start of a line ("1. "). Markers right after the full stop ("... $1.9 billion. [P1]") belong to the
sentence they follow. A sentence that cites several passages may draw each figure from any of them, and its scale
from any of them: "(22,925) [P8]" with "(Dollars in millions)" printed in P3, both cited in one sentence, backs
"22,925 million" (a filing states its tables' scale once for many of them, often outside the passage of the row).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from edgar_eval.corpus.figure_match import (
    SignedFigure,
    backs,
    magnitudes_agree,
    reference_figures,
    stated_figures,
    tolerance,
)
from edgar_eval.corpus.number_words import SCALE_FACTORS, Figure, find_number_phrases
from edgar_eval.corpus.sentences import sentence_spans

DEFAULT_MARKER_PATTERN = r"\[(P\d+(?:\s*[,;]\s*P\d+)*)\]"
BRACKETED_ID_MARKER_PATTERN = r"\[([^\[\]\s,;]+(?:\s*[,;]\s*[^\[\]\s,;]+)*)\]"
MIN_RESCALE_DIGITS = 3

NO_VALID_CITATION = "no_valid_citation"
UNSUPPORTED_CLAIM = "unsupported_claim"
Reason = Literal["no_valid_citation", "unsupported_claim"]

_OPERATOR = re.compile(r"\b(less|minus|plus)\b", re.I)
_LIST_NUMBER = re.compile(r"[ \t]*(?:\d{1,3}[.)]|\(\d{1,3}\))(?=\s)")
_PASSAGE_SCALES = (
    (re.compile(r"\b(thousand|million|billion|trillion)s?\b", re.I), None),
    (re.compile(r"\bin\s+\$?\s?000s?\b|\(\s*\$?\s?000s?\s*\)", re.I), "thousand"),
    (re.compile(r"\(\s*(?:in\s+)?\$?\s?(?:MM|M|mm)\s*\)|\bin\s+\$?\s?MM\b"), "million"),
)


@dataclass(frozen=True)
class FigureCheck:
    figure: Figure
    backed: bool
    backed_by: str | None  # the passage id whose figure backs it
    backing_text: str | None  # that passage figure as printed
    why: str


@dataclass(frozen=True)
class SentenceCheck:
    sentence: str
    start: int
    end: int
    figures: tuple[Figure, ...]  # the figures that need backing (kind "figure")
    references: tuple[Figure, ...]  # years, dates, note/page/item numbers: they back nothing, need nothing
    cited_ids: tuple[str, ...]
    unknown_ids: tuple[str, ...]
    checks: tuple[FigureCheck, ...]
    reason: Reason | None
    failed_figure: Figure | None
    why: str


@dataclass(frozen=True)
class CitationVerdict:
    ok: bool
    reason: Reason | None
    sentences: tuple[SentenceCheck, ...]

    @property
    def failures(self) -> tuple[SentenceCheck, ...]:
        return tuple(s for s in self.sentences if s.reason is not None)

    @property
    def why(self) -> str:
        failed = self.failures
        return "; ".join(f"{s.reason}: {s.why}" for s in failed) if failed else "every figure is cited and backed"


def _compile(marker_pattern: str | re.Pattern[str]) -> re.Pattern[str]:
    return marker_pattern if isinstance(marker_pattern, re.Pattern) else re.compile(marker_pattern)


def _marker_ids(match: re.Match[str]) -> list[str]:
    body = match.group(1) if match.re.groups else match.group(0)
    return [part.strip() for part in re.split(r"[,;]", body) if part.strip()]


def split_sentences(text: str, marker_pattern: str | re.Pattern[str] = DEFAULT_MARKER_PATTERN) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences of `text`, whitespace trimmed, citation markers kept with their sentence."""
    return sentence_spans(text, _compile(marker_pattern))


def _masked(text: str, start: int, end: int, marker: re.Pattern[str]) -> str:
    """The sentence with markers (and a list number opening a line) blanked, offsets kept."""
    sentence = list(text[start:end])
    for match in marker.finditer(text, start, end):
        for k in range(match.start() - start, match.end() - start):
            sentence[k] = " "
    previous = start - 1
    while previous >= 0 and text[previous] in " \t":
        previous -= 1
    if previous < 0 or text[previous] == "\n":
        bullet = _LIST_NUMBER.match(text, start, end)
        if bullet:
            for k in range(bullet.start() - start, bullet.end() - start):
                sentence[k] = " "
    return "".join(sentence)


def _sentence_figures(text: str, start: int, end: int, marker: re.Pattern[str]) -> list[Figure]:
    return find_number_phrases(_masked(text, start, end, marker))


@dataclass(frozen=True)
class _PassageIndex:
    figures: tuple[SignedFigure, ...]
    scales: tuple[float, ...]


def passage_scales(passage_text: str) -> tuple[float, ...]:
    """The scale factors a passage names anywhere in its text ("(In millions)" -> (1e6,))."""
    found: set[float] = set()
    for pattern, fixed in _PASSAGE_SCALES:
        for match in pattern.finditer(passage_text):
            found.add(SCALE_FACTORS[fixed or match.group(1).lower()])
    return tuple(sorted(found))


def _index(passage_text: str) -> _PassageIndex:
    return _PassageIndex(tuple(reference_figures(passage_text)), passage_scales(passage_text))


def _readings(figure: Figure, scales: tuple[float, ...], min_rescale_digits: int) -> list[float]:
    values = [abs(figure.value)]
    if figure.scale_word is None and not figure.is_percent and figure.significant_digits >= min_rescale_digits:
        values.extend(abs(figure.value) * factor for factor in scales)
    return values


def _find_backing(
    stated: SignedFigure, index: _PassageIndex, scales: tuple[float, ...], min_rescale_digits: int
) -> Figure | None:
    if not stated.figure.is_figure:
        return None
    for candidate in index.figures:
        for value in _readings(candidate.figure, scales, min_rescale_digits):
            if backs(stated, candidate, value):
                return candidate.figure
    return None


def _check_sentence(
    text: str,
    start: int,
    end: int,
    passages: dict[str, str],
    marker: re.Pattern[str],
    indexes: dict[str, _PassageIndex],
    min_rescale_digits: int,
) -> SentenceCheck:
    masked = _masked(text, start, end, marker)
    found = find_number_phrases(masked)
    figures = tuple(f for f in found if f.is_figure)
    signed = stated_figures(masked, list(figures))
    references = tuple(f for f in found if not f.is_figure)
    cited: list[str] = []
    for match in marker.finditer(text, start, end):
        cited.extend(i for i in _marker_ids(match) if i not in cited)
    unknown = tuple(i for i in cited if i not in passages)
    sentence = text[start:end]

    def verdict(checks=(), reason=None, failed=None, why="") -> SentenceCheck:
        return SentenceCheck(
            sentence, start, end, figures, references, tuple(cited), unknown, tuple(checks), reason, failed, why
        )

    if unknown:
        return verdict(
            reason=NO_VALID_CITATION,
            failed=figures[0] if figures else None,
            why=f"cites {', '.join(unknown)}, not among the passages provided",
        )
    if not figures:
        return verdict(why="no figure")
    if not cited:
        return verdict(
            reason=NO_VALID_CITATION, failed=figures[0], why=f"states {figures[0].text!r} without a citation marker"
        )
    checks = []
    for passage_id in cited:
        if passage_id not in indexes:
            indexes[passage_id] = _index(passages[passage_id])
    scales = tuple(sorted({scale for passage_id in cited for scale in indexes[passage_id].scales}))
    for figure, stated in zip(figures, signed):
        backing = None
        for passage_id in cited:
            candidate = _find_backing(stated, indexes[passage_id], scales, min_rescale_digits)
            if candidate is not None:
                backing = (passage_id, candidate)
                break
        if backing:
            checks.append(
                FigureCheck(
                    figure, True, backing[0], backing[1].text, f"printed in {backing[0]} as {backing[1].text!r}"
                )
            )
        else:
            kind = "percentage" if figure.is_percent else "number"
            sign = "negative " if stated.sign < 0 else ""
            checks.append(
                FigureCheck(
                    figure,
                    False,
                    None,
                    None,
                    f"no {sign}{kind} within {tolerance(figure):g} of {figure.text!r} in {', '.join(cited)}",
                )
            )
    checks = _shown_steps(masked, signed, checks)
    failed = next((c for c in checks if not c.backed), None)
    if failed:
        return verdict(checks, UNSUPPORTED_CLAIM, failed.figure, failed.why)
    return verdict(checks, why="every figure backed")


def _shown_steps(masked: str, signed: list[SignedFigure], checks: list[FigureCheck]) -> list[FigureCheck]:
    """The checks with each figure no passage prints backed where the sentence shows the one step giving it (module
    doc: two passage-backed figures joined by less, minus or plus, nothing but words between them)."""
    if all(c.backed for c in checks):
        return checks
    steps = []
    for k in range(len(signed) - 1):
        a, b = signed[k], signed[k + 1]
        operators = _OPERATOR.findall(masked[a.figure.end : b.figure.start])
        if not (checks[k].backed and checks[k + 1].backed) or len(operators) != 1:
            continue
        if a.figure.is_percent != b.figure.is_percent:
            continue
        plus = operators[0].lower() == "plus"
        value = a.magnitude + b.magnitude if plus else a.magnitude - b.magnitude
        steps.append((value, a.figure.is_percent, f"{a.figure.text.strip()} {operators[0]} {b.figure.text.strip()}"))
    out = []
    for check, stated in zip(checks, signed):
        step = next(
            (
                (value, shown)
                for value, percent, shown in steps
                if not check.backed and percent == stated.figure.is_percent and magnitudes_agree(stated.figure, value)
            ),
            None,
        )
        out.append(replace(check, backed=True, why=f"one step shown in its sentence: {step[1]}") if step else check)
    return out


def check_citations(
    answer_text: str,
    passages: dict[str, str],
    marker_pattern: str | re.Pattern[str] = DEFAULT_MARKER_PATTERN,
    min_rescale_digits: int = MIN_RESCALE_DIGITS,
) -> CitationVerdict:
    """Check that every figure of `answer_text` is cited and printed in a passage it cites (see the module doc)."""
    marker = _compile(marker_pattern)
    indexes: dict[str, _PassageIndex] = {}
    sentences = tuple(
        _check_sentence(answer_text, start, end, passages, marker, indexes, min_rescale_digits)
        for start, end in split_sentences(answer_text, marker)
    )
    reasons = {s.reason for s in sentences}
    reason: Reason | None = (
        NO_VALID_CITATION
        if NO_VALID_CITATION in reasons
        else UNSUPPORTED_CLAIM
        if UNSUPPORTED_CLAIM in reasons
        else None
    )
    return CitationVerdict(reason is None, reason, sentences)


def answer_figures(answer_text: str, marker_pattern: str | re.Pattern[str] = DEFAULT_MARKER_PATTERN) -> list[Figure]:
    """The figures (kind "figure") of an answer, offsets into `answer_text`, markers and list numbers ignored."""
    marker = _compile(marker_pattern)
    return [
        _shift(f, start)
        for start, end in split_sentences(answer_text, marker)
        for f in _sentence_figures(answer_text, start, end, marker)
        if f.is_figure
    ]


def _shift(figure: Figure, offset: int) -> Figure:
    return replace(
        figure,
        start=figure.start + offset,
        end=figure.end + offset,
        number_start=figure.number_start + offset,
        number_end=figure.number_end + offset,
    )
