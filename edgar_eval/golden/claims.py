"""The text-only gates of a golden-question candidate: what its answer claims and how its question reads.

Five pure gates, each returning a `Verdict` whose reason names the figure, word or count it turned on:

* `answer_support`: every figure of the gold answer is printed in a quote, or is one arithmetic step from two
  quoted figures (`answer_figures_in_quotes` says which quotes print each figure directly).
* `plain_english`: the question is one sentence of at most 35 words; every answer sentence at most 30.
* `period_named`: the question names a fiscal year, quarter, date or year (pattern D8 is excepted).
* `source_naming`: the question does not name a form, filing, item, section, statement or note.
* `direction`: "increased", "lower than", "up from" ... agree with the two figures they relate.

Figures are read by `edgar_eval.corpus.number_words.find_number_phrases`; years, dates and note/item/form
numbers are labelled there and are never figures here.

Judgment calls:

* Answer figures written in words count only when they carry a scale word or a percent sign ("one point five
  billion", "twenty percent"); bare counts in words ("two direct customers", "ten-for-one") describe rather
  than report, and filings print them in words too. Quoted figures in words are all usable.
* Tolerance and sign: the project's one figure-matching policy (`edgar_eval.corpus.figure_match`): half a unit of
  the answer's last written digit when it keeps two significant digits, else 2%, so "$1.9 billion" is backed by
  1,948 (million), "$1,000 million" is not backed by 1,025.6 and "$1 billion" is not backed by 1,204 (million); a
  quoted figure backs the answer's directly only with the sign the policy reads for both ("(812)" on a "Net income
  (loss)" row backs "a net loss of $812 million", not "net income of $812 million").
* A quoted number without a scale word (a table cell, "31") is read at 10^0, 10^3, 10^6 and 10^9, whatever its
  digit count; one with a scale word ("$10.2 billion") and every percentage are read as written. Two unscaled
  numbers combined by a sum or difference share one scale (they come from tables in one unit); a scaled and an
  unscaled one may meet at any scale of the unscaled one.
* One step is a + b, |a - b|, a / b or a / b * 100 over two distinct quoted figures (signs dropped, so a
  difference with a negative "(187)" is the sum of magnitudes). Sums and differences keep percent with percent
  (a percentage-point change); ratios take two non-percent figures, and a / b * 100 backs only a percentage.
  A ratio is never rescaled: it has no unit.
* Table rows: a "%" or "pts" cell joins the number before it (percentage points compare as percentages), a
  ")" cell closes the number before it, and a "$" cell joins the number after it.
* Sentences end where the citation check's do (`edgar_eval.corpus.sentences`): at . ! ? followed by whitespace
  and a character that is not lower-case, or at a line break; not after a decimal point, an abbreviation, an
  initial or a list number.
* A period is a fiscal year ("fiscal 2024", "fiscal years 2024 and 2023", "FY24"), a quarter with its year
  ("Q3 2024", "3Q24"), a date ("September 28, 2024", "June 2024"), or a year after a preposition or a
  possessive ("in 2024", "Apple's 2024 net sales"); "Notes Due 2024" names a debt issue, not a period. A quarter,
  half or nine months without a year ("the second quarter") names no period by itself.
* Source naming flags "Risk Factors" only capitalised (the section); lower-case "risk factors" is a topic.
  "Note" flags only before a number ("Note 9", "Notes 9 and 10") or in "notes to the financial statements";
  "0.584% Notes Due 2024" names a debt issue. "statement" flags only in the named statements.
* Direction reads pairs of adjacent figures inside one clause (clauses split at sentence ends, ";", ", and",
  ", but", "while", "whereas"): "from A to B" (old A, new B); "A ... from B", "A compared with B",
  "A versus B", "A higher than B" (new A, old B). The governing word is the one between A and B, else the last
  one before A unless it states a change amount ("increased $3 million from $10 million": A is the change, not
  the new level). "more"/"less"/"greater"/"fewer" count only between A and B ("A, more than B"): before a figure
  they bound it ("more than $5 million"). Negation ("did not increase") is not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from edgar_eval.corpus.figure_match import magnitudes_agree, reference_figures, signs_agree, stated_figures
from edgar_eval.corpus.number_words import Figure, find_number_phrases
from edgar_eval.corpus.periods import named_period
from edgar_eval.corpus.sentences import sentence_spans

SCALES = (1.0, 1e3, 1e6, 1e9)
MAX_QUESTION_WORDS = 35
MAX_ANSWER_SENTENCE_WORDS = 30
ABSENCE_PATTERN = "D8"


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str  # "" or a short explanation when it passes; always a specific reason when it fails


# ---------------------------------------------------------------------------------------------- figures


def claimed_figures(text: str) -> list[Figure]:
    """The figures of `text` a gate checks, in order: kind "figure", in digits, or in words with a scale or %.
    `answer_figures_in_quotes` and `support_details` index into this list."""
    return [
        f
        for f in find_number_phrases(text)
        if f.is_figure and (not f.in_words or f.scale_word is not None or f.is_percent)
    ]


_UNIT_CELL = re.compile(r"\s*\|\s*(%|pts)(?=\s*\||\s*$)")
_CLOSING_CELL = re.compile(r"\s*\|\s*\)(?=\s*\||\s*$)")
_CURRENCY_CELL = re.compile(r"(?:(?<=\|\s)|^)\$\s*\|\s*")


def normalise_row(quote: str) -> str:
    """A table-row quote with its unit cells joined to their numbers: "72.4 | % | $ | 12" -> "72.4% | $12"."""
    if "|" not in quote:
        return quote
    row = _UNIT_CELL.sub("%", quote)
    row = _CLOSING_CELL.sub(")", row)
    return _CURRENCY_CELL.sub("$", row)


@dataclass(frozen=True)
class _Quoted:
    value: float  # magnitude as printed, scale word applied
    scaled: bool  # a scale word fixes its magnitude; else it is read at every scale
    percent: bool
    quote: int
    text: str
    sign: int = 0  # the sign it holds by the policy (ANY_SIGN when its row names an outflow)

    def readings(self) -> tuple[float, ...]:
        return (self.value,) if self.scaled or self.percent else tuple(self.value * s for s in SCALES)


def _quoted_figures(quotes: Sequence[str]) -> list[_Quoted]:
    found = []
    for k, quote in enumerate(quotes):
        for signed in reference_figures(normalise_row(quote)):
            f = signed.figure
            found.append(_Quoted(abs(f.value), f.scale_word is not None, f.is_percent, k, f.text.strip(), signed.sign))
    return found


def _direct_quotes(figure: Figure, sign: int, quoted: list[_Quoted]) -> set[int]:
    return {
        q.quote
        for q in quoted
        if q.percent == figure.is_percent
        and signs_agree(sign, q.sign)
        and any(magnitudes_agree(figure, r) for r in q.readings())
    }


def _reading_pairs(a: _Quoted, b: _Quoted) -> list[tuple[float, float]]:
    if a.scaled or b.scaled:
        return [(x, y) for x in a.readings() for y in b.readings()]
    return [(a.value * s, b.value * s) for s in SCALES]  # two table numbers: one unit


def _steps(a: _Quoted, b: _Quoted, percent: bool) -> Iterator[tuple[float, str]]:
    """(value, how) for every one-step result of a and b that could back a figure (percent or not)."""
    if a.percent != b.percent:
        return
    big, small = (a, b) if a.value >= b.value else (b, a)
    if a.percent:
        if percent:  # a percentage-point sum or difference
            yield a.value + b.value, f"{a.text} + {b.text}"
            yield big.value - small.value, f"{big.text} - {small.text}"
        return
    for x, y in _reading_pairs(a, b):
        if not percent:
            yield x + y, f"{a.text} + {b.text}"
            yield abs(x - y), f"{big.text} - {small.text}"
        for num, den, shown in ((x, y, f"{a.text} / {b.text}"), (y, x, f"{b.text} / {a.text}")):
            if den:
                yield (num / den * 100.0, shown + " * 100") if percent else (num / den, shown)


def _one_step(figure: Figure, quoted: list[_Quoted]) -> tuple[str, frozenset[int]] | None:
    """The closest one step from two quoted figures that gives `figure` ("391,035 - 296,105") and the quotes its
    operands come from, or None."""
    target, best = abs(figure.value), None
    for i, a in enumerate(quoted):
        for b in quoted[i + 1 :]:
            for value, shown in _steps(a, b, figure.is_percent):
                if magnitudes_agree(figure, value) and (best is None or abs(value - target) < best[0]):
                    best = (abs(value - target), shown, frozenset(q.quote for q in (a, b) if q.quote >= 0))
    return (best[1], best[2]) if best else None


def _as_stated(figure: Figure, quotes: frozenset[int]) -> _Quoted:
    """A quoted figure read at the scale the answer states for it ("$1,611 million" backed by a table's "1,611"),
    so a step may combine figures of different scales the way the answer itself reads them."""
    return _Quoted(abs(figure.value), True, figure.is_percent, min(quotes), figure.text.strip())


@dataclass(frozen=True)
class FigureSupport:
    figure: Figure
    quotes: frozenset[int]  # the quotes that print it directly
    step: str | None  # when no quote prints it: the one step that gives it ("391,035 - 296,105")
    step_quotes: frozenset[int] = frozenset()  # the quotes the step's operands come from

    @property
    def supported(self) -> bool:
        return bool(self.quotes) or self.step is not None


def support_details(gold_answer: str, quotes: Sequence[str]) -> list[FigureSupport]:
    """For each of `claimed_figures(gold_answer)`: the quotes printing it, else the one step giving it. A step's
    operands are quoted figures, read at every scale, or the answer's own quoted figures at the scale it states."""
    quoted = _quoted_figures(quotes)
    figures = claimed_figures(gold_answer)
    signs = [s.sign for s in stated_figures(gold_answer, figures)]
    direct = [frozenset(_direct_quotes(f, sign, quoted)) for f, sign in zip(figures, signs)]
    stated = [_as_stated(f, d) for f, d in zip(figures, direct) if d]
    details = []
    for figure, printed in zip(figures, direct):
        step = None if printed else _one_step(figure, quoted + stated)
        details.append(FigureSupport(figure, printed, step[0] if step else None, step[1] if step else frozenset()))
    return details


def answer_figures_in_quotes(gold_answer: str, quotes: Sequence[str]) -> dict[int, set[int]]:
    """Index into `claimed_figures(gold_answer)` -> the quote indices that print that figure directly."""
    quoted = _quoted_figures(quotes)
    figures = claimed_figures(gold_answer)
    return {
        i: _direct_quotes(f, s.sign, quoted)
        for i, (f, s) in enumerate(zip(figures, stated_figures(gold_answer, figures)))
    }


def answer_support(gold_answer: str, quotes: Sequence[str], answer_type: str) -> Verdict:
    """Every figure of the answer is quoted, or one arithmetic step from two quoted figures."""
    details = support_details(gold_answer, quotes)
    if not details:
        return Verdict(True, "refusal states no figure" if answer_type == "refusal" else "no figure to support")
    for d in details:
        if not d.supported:
            return Verdict(False, f"{d.figure.text.strip()} is neither quoted nor one step from two quoted figures")
    steps = [f"{d.figure.text.strip()} = {d.step}" for d in details if not d.quotes]
    direct = len(details) - len(steps)
    return Verdict(True, f"{direct} figure(s) quoted" + (f"; one step: {'; '.join(steps)}" if steps else ""))


# ---------------------------------------------------------------------------------------------- sentences


def sentences(text: str) -> list[str]:
    """The sentences of `text`, trimmed (corpus/sentences.py says where a sentence ends)."""
    return [text[start:end] for start, end in sentence_spans(text)]


def _words(sentence: str) -> int:
    return len(sentence.split())


def plain_english(
    question: str,
    gold_answer: str,
    max_question_words: int = MAX_QUESTION_WORDS,
    max_answer_sentence_words: int = MAX_ANSWER_SENTENCE_WORDS,
) -> Verdict:
    """The question is one sentence of at most `max_question_words` words; each answer sentence has at most
    `max_answer_sentence_words` (words: whitespace-separated tokens)."""
    parts = sentences(question)
    if len(parts) > 1:
        return Verdict(False, f"question is {len(parts)} sentences, not one (second begins {parts[1][:40]!r})")
    words = _words(question)
    if words > max_question_words:
        return Verdict(False, f"question has {words} words (limit {max_question_words})")
    longest = 0
    for k, sentence in enumerate(sentences(gold_answer), start=1):
        count = _words(sentence)
        if count > max_answer_sentence_words:
            return Verdict(False, f"answer sentence {k} has {count} words (limit {max_answer_sentence_words})")
        longest = max(longest, count)
    return Verdict(True, f"question {words} words; longest answer sentence {longest} words")


# ---------------------------------------------------------------------------------------------- period


def period_named(question: str, pattern: str) -> Verdict:
    """The question names the period it asks about (pattern D8, an absence question, is excepted)."""
    if pattern == ABSENCE_PATTERN:
        return Verdict(True, "D8 excepted")
    named = named_period(question)
    if named:
        return Verdict(True, f"names {named!r}")
    return Verdict(False, "question names no fiscal year, quarter, date or year")


# ---------------------------------------------------------------------------------------------- source naming

_SOURCE_WORD = (
    r"(?:10-K|10-Q|8-K|20-F|filings?|reports?|statements?|proxy|MD&A|notes?|footnotes?|exhibits?|"
    r"sections?|items?|disclosures?|documents?|balance\s+sheets?|sec)"
)
_FILING_KIND = r"(?:original|restated|amended|later|earlier|latest|subsequent|prior|SEC|annual|quarterly)"
_SOURCES = (
    re.compile(
        rf"\baccording\s+to\s+(?:the|its|their|this|that|[\w.&]+['\u2019]s?)\s+(?:[\w&-]+\s+){{0,3}}?"
        rf"{_SOURCE_WORD}\b",
        re.I,
    ),
    re.compile(r"\b(?:Form\s+)?(?:10-K|10-Q|8-K|20-F|40-F|6-K)(?:/A)?\b", re.I),
    re.compile(r"\bDEF\s*14A\b", re.I),
    re.compile(r"\bproxy\s+statements?\b", re.I),
    re.compile(r"\b(?:annual|quarterly|current)\s+reports?\b", re.I),
    re.compile(
        rf"\b(?:the|this|that|its|their)\s+(?:{_FILING_KIND}\s+)?filings?\b|\b{_FILING_KIND}\s+filings?\b", re.I
    ),
    re.compile(r"\bItems?\s+\d+[A-Z]?\b", re.I),
    re.compile(r"\bPart\s+(?:IV|I{1,3})\b"),  # case-sensitive: "part i..." is prose
    re.compile(r"\bMD&A\b|\bManagement['\u2019]s\s+Discussion\b", re.I),
    re.compile(r"\bRisk\s+Factors\b|\brisk\s+factors\s+section\b"),
    re.compile(r"\bbalance\s+sheets?\b|\bincome\s+statements?\b|\bcash[\s-]+flows?\s+statements?\b", re.I),
    re.compile(
        r"\bstatements?\s+of\s+(?:consolidated\s+)?(?:operations|cash\s+flows?|(?:comprehensive\s+)?income|"
        r"(?:stockholders|shareholders)['\u2019]?\s+equity|financial\s+(?:position|condition))\b",
        re.I,
    ),
    re.compile(r"\b(?:consolidated\s+)?financial\s+statements\b", re.I),
    re.compile(r"\bnotes?\s+\d+[A-Z]?(?![\w%]|\.\d|,\d|\s*%)", re.I),  # not "Notes 2.5%"
    re.compile(r"\bfootnotes?\b", re.I),
    re.compile(r"\bexhibits?\b", re.I),
)


def source_naming(question: str) -> Verdict:
    """The question does not tell the system where to look (form, filing, item, section, statement, note)."""
    for regex in _SOURCES:
        match = regex.search(question)
        if match:
            return Verdict(False, f"question names its source: {match.group(0)!r}")
    return Verdict(True, "")


# ---------------------------------------------------------------------------------------------- direction

_UP = (
    "increase",
    "increased",
    "increases",
    "increasing",
    "higher",
    "rose",
    "rise",
    "rises",
    "risen",
    "rising",
    "grew",
    "grow",
    "grows",
    "grown",
    "growing",
    "up",
    "more",
    "greater",
)
_DOWN = (
    "decrease",
    "decreased",
    "decreases",
    "decreasing",
    "lower",
    "fell",
    "fall",
    "falls",
    "fallen",
    "falling",
    "declined",
    "decline",
    "declines",
    "declining",
    "down",
    "less",
    "fewer",
)
_POLARITY = {**{w: 1 for w in _UP}, **{w: -1 for w in _DOWN}}
_BETWEEN_ONLY = frozenset({"more", "greater", "less", "fewer"})  # before a figure they bound it: "more than $5"
_DIRECTION_WORD = re.compile(r"\b(" + "|".join(sorted(_POLARITY, key=len, reverse=True)) + r")\b", re.I)
_CLAUSE_BREAK = re.compile(r";|,\s*(?:and|but)\s|\b(?:while|whereas)\b", re.I)
_FROM_TO = re.compile(r"^\s*to\s*$", re.I)
_NEW_THEN_OLD = re.compile(
    r"^[\s,]*(?:[^\s;]+\s+){0,6}?(?:from|compared\s+(?:with|to)|than|versus|vs\.?|against)\s*$", re.I
)
_CHANGE_AMOUNT = re.compile(r"^\s*(?:by\s+)?(?:about|approximately|nearly|almost|some)?\s*$", re.I)


def _clauses(text: str) -> list[str]:
    return [c for s in sentences(text) for c in _CLAUSE_BREAK.split(s) if c.strip()]


def _governing_word(clause: str, a: Figure, b: Figure) -> re.Match[str] | None:
    """The direction word relating a and b: one between them, else the last before a that does not state a
    change amount (see the module doc)."""
    between = [m for m in _DIRECTION_WORD.finditer(clause, a.end, b.start)]
    if between:
        return between[-1]
    before = [m for m in _DIRECTION_WORD.finditer(clause, 0, a.start) if m.group(1).lower() not in _BETWEEN_ONLY]
    if before and not _CHANGE_AMOUNT.match(clause[before[-1].end() : a.start]):
        return before[-1]
    return None


def _direction_claims(text: str) -> list[tuple[str, Figure, Figure, re.Match[str]]]:
    """(clause, new, old, direction word) for every direction claim between two figures."""
    claims = []
    for clause in _clauses(text):
        figures = claimed_figures(clause)
        for a, b in zip(figures, figures[1:]):
            if a.is_percent != b.is_percent:
                continue
            between = clause[a.end : b.start]
            if _FROM_TO.match(between) and re.search(r"\bfrom\s*$", clause[: a.start], re.I):
                new, old = b, a
                word = next(
                    iter(
                        reversed(
                            [
                                m
                                for m in _DIRECTION_WORD.finditer(clause, 0, a.start)
                                if m.group(1).lower() not in _BETWEEN_ONLY
                            ]
                        )
                    ),
                    None,
                )
            elif _NEW_THEN_OLD.match(between):
                new, old = a, b
                word = _governing_word(clause, a, b)
            else:
                continue
            if word is not None:
                claims.append((clause, new, old, word))
    return claims


def _check_direction(text: str, where: str) -> Verdict | None:
    for _, new, old, word in _direction_claims(text):
        up = _POLARITY[word.group(1).lower()] > 0
        if (new.value > old.value) != up or new.value == old.value:
            relation = "not above" if up else "not below"
            return Verdict(
                False, f"{where} says {word.group(1)!r} but {new.text.strip()} is {relation} {old.text.strip()}"
            )
    return None


def direction(question: str, gold_answer: str) -> Verdict:
    """Direction words agree with the two figures they relate, in the answer and in the question."""
    for text, where in ((gold_answer, "answer"), (question, "question")):
        failed = _check_direction(text, where)
        if failed:
            return failed
    checked = len(_direction_claims(gold_answer)) + len(_direction_claims(question))
    if not checked:
        return Verdict(True, "no direction claim between two figures")
    return Verdict(True, f"{checked} direction claim(s) agree with their figures")
