"""Figures in a sentence, written in digits or in English words.

Three things, all pure:

* `words_to_number` reads one number phrase ("twenty-three", "one hundred and five", "one point five billion",
  "3.2 million", "a billion", "minus five") to its value, or None.
* `number_to_words` prints a whole number 0..10**15 in words ("two thousand twenty-four"); the two round-trip.
* `find_number_phrases` returns every number printed in a sentence as a `Figure`: its value, whether it is a
  percentage, its printed scale word, its span and the digits as written. Numbers that state no quantity are
  kept but labelled: a year ("fiscal 2024", "'24") is kind "year"; a number right after Note, page, Item,
  Exhibit, Part, Section (and lists of them: "Notes 9 and 10"), a day of a date ("December 31") and a form or
  rule identifier ("10-K", "COVID-19") is kind "reference". Only kind "figure" states a quantity.

Judgment calls, kept here so a reader of the citation check can find them:

* A lone "one" is not a figure ("one of our segments", "one-time charge"); "one percent", "one hundred",
  "one point five" and "one million" are. `words_to_number("one")` still reads 1.
* Digits glued to letters ("P3", "FY2024", "Q3", "1st", "5G") are not numbers at all and are not returned.
* A parenthesised number is negative ("(1,234)"), as are "-5", "minus five" and "negative 3%".
* Scale abbreviations count only when glued to the digits: "$1.9B", "$450M", "$3.2bn", "$12k".
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from decimal import Decimal

UNIT_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
TEN_WORDS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12, "quadrillion": 10**15}
_NUMBER_WORDS = (
    frozenset(UNIT_WORDS) | frozenset(TEN_WORDS) | frozenset(_SCALES) | {"hundred", "point", "and", "a", "an"}
)
_UNIT_NAMES = {v: k for k, v in UNIT_WORDS.items()}
_TEN_NAMES = {v: k for k, v in TEN_WORDS.items()}

SCALE_FACTORS: dict[str, float] = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_ABBREVIATED_SCALE = {
    "k": "thousand",
    "m": "million",
    "mm": "million",
    "mn": "million",
    "b": "billion",
    "bn": "billion",
    "tn": "trillion",
}

KIND_FIGURE = "figure"
KIND_YEAR = "year"
KIND_REFERENCE = "reference"


@dataclass(frozen=True)
class Figure:
    """One number printed in a sentence.

    value: signed, with the printed scale applied ("$1.9 billion" -> 1.9e9; "(1,234)" -> -1234.0).
    digits: the numeral as written ("1,234.5"); for words, the numeral they spell ("one point five" -> "1.5").
    decimals: digits written after the decimal point; with the scale it sets `half_unit`.
    number_start/number_end: the span of the digits alone (equal to start/end for words).
    """

    text: str
    start: int
    end: int
    value: float
    is_percent: bool
    scale_word: str | None
    digits: str
    decimals: int
    kind: str
    in_words: bool
    negative: bool
    number_start: int
    number_end: int
    reference_label: str | None = None

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)

    @property
    def is_figure(self) -> bool:
        """True when the number states a quantity; years and references back nothing and need no citation."""
        return self.kind == KIND_FIGURE

    @property
    def scale_factor(self) -> float:
        return SCALE_FACTORS.get(self.scale_word, 1.0) if self.scale_word else 1.0

    @property
    def half_unit(self) -> float:
        """Half a unit of the last written digit, in the figure's own scale ("$1.9 billion" -> 5e7)."""
        return 0.5 * 10.0 ** (-self.decimals) * self.scale_factor

    @property
    def significant_digits(self) -> int:
        """How many digits are written, leading zeros aside ("1,948" -> 4, "0.25" -> 2, "12" -> 2)."""
        return len("".join(c for c in self.digits if c.isdigit()).lstrip("0"))


# ---------------------------------------------------------------------------------------------- words


@dataclass(frozen=True)
class _Parsed:
    mantissa: Decimal  # the number before a trailing scale word
    scale_word: str | None
    decimals: int

    @property
    def value(self) -> Decimal:
        return self.mantissa * (_SCALES[self.scale_word] if self.scale_word else 1)


def _below_hundred(tokens: list[str], i: int) -> tuple[int, int] | None:
    if i >= len(tokens):
        return None
    token = tokens[i]
    if token in TEN_WORDS:
        value = TEN_WORDS[token]
        if i + 1 < len(tokens) and 1 <= UNIT_WORDS.get(tokens[i + 1], 0) <= 9:
            return value + UNIT_WORDS[tokens[i + 1]], i + 2
        return value, i + 1
    if UNIT_WORDS.get(token, 0) >= 1:
        return UNIT_WORDS[token], i + 1
    return None


def _group(tokens: list[str], i: int) -> tuple[int, int, bool] | None:
    """1..999 ("a hundred and five", "twenty-three"), or 1000..9999 as "fifteen hundred" (flagged big)."""
    n = len(tokens)
    if i < n and tokens[i] in ("a", "an"):
        if i + 1 < n and tokens[i + 1] in _SCALES:
            return 1, i + 1, False
        if i + 1 < n and tokens[i + 1] == "hundred":
            head, j, big = 100, i + 2, False
        else:
            return None
    else:
        first = _below_hundred(tokens, i)
        if first is None:
            return None
        value, j = first
        if j < n and tokens[j] == "hundred" and (value <= 9 or value % 10 != 0):
            head, j, big = value * 100, j + 1, value > 9
        else:
            return value, j, False
    rest_at = j + 1 if j < n and tokens[j] == "and" else j
    rest = _below_hundred(tokens, rest_at)
    if rest is not None:
        return head + rest[0], rest[1], big
    return head, j, big


def _parse_prefix(tokens: list[str]) -> tuple[_Parsed, int] | None:
    """The longest number phrase at the start of `tokens` (lower-case words, hyphens removed) and how many
    tokens it takes, or None."""
    n = len(tokens)
    if n == 0:
        return None
    if tokens[0] == "zero":
        integer, i, scales_used, last_scale = 0, 1, 0, None
    else:
        integer, i, scales_used, last_scale, previous = 0, 0, 0, None, 10**18
        while i < n:
            if scales_used and tokens[i] == "and":
                # "one thousand and one", "a million and fifty": only a last group under a hundred follows "and"
                tail = _below_hundred(tokens, i + 1)
                if tail is not None and (
                    tail[1] >= n or tokens[tail[1]] not in _SCALES and tokens[tail[1]] != "hundred"
                ):
                    integer += tail[0]
                    last_scale, i = None, tail[1]
                break
            group = _group(tokens, i)
            if group is None:
                break
            value, j, big = group
            if j < n and tokens[j] in _SCALES and _SCALES[tokens[j]] < previous and not big:
                integer += value * _SCALES[tokens[j]]
                previous = _SCALES[tokens[j]]
                last_scale, scales_used, i = tokens[j], scales_used + 1, j + 1
                continue
            if big and scales_used:
                break
            integer += value
            last_scale, i = None, j
            break
        if i == 0:
            return None
    if i + 1 < n and tokens[i] == "point" and scales_used == 0 and UNIT_WORDS.get(tokens[i + 1], 10) <= 9:
        fraction = []
        i += 1
        while i < n and UNIT_WORDS.get(tokens[i], 10) <= 9:
            fraction.append(str(UNIT_WORDS[tokens[i]]))
            i += 1
        scale = None
        if i < n and tokens[i] in _SCALES:
            scale, i = tokens[i], i + 1
        return _Parsed(Decimal(f"{integer}.{''.join(fraction)}"), scale, len(fraction)), i
    if last_scale is not None:
        return _Parsed(Decimal(integer) / _SCALES[last_scale], last_scale, 0), i
    return _Parsed(Decimal(integer), None, 0), i


def _parse_words(tokens: list[str]) -> _Parsed | None:
    """The whole token list read as one number, or None."""
    found = _parse_prefix(tokens)
    return found[0] if found is not None and found[1] == len(tokens) else None


_DIGIT_PHRASE = re.compile(
    r"(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)\s*(?P<scale>thousand|million|billion|trillion)?s?", re.I
)


def words_to_number(text: str) -> float | None:
    """The value of one number phrase in words or digits with an optional scale word; None if it is not one.

    Accepts a leading "minus"/"negative"/"-", a leading "$", and a trailing "%"/"percent" (which leaves the
    value as written). "one point five billion" -> 1.5e9; "3.2 million" -> 3.2e6; "a billion" -> 1e9.
    """
    s = text.strip().lower()
    negative = False
    sign = re.match(r"(?:minus|negative)\s+|[-\u2212]\s*", s)
    if sign:
        negative, s = True, s[sign.end() :]
    s = s.removeprefix("us$").removeprefix("$").strip()
    s = re.sub(r"\s*(?:%|per\s?cent)$", "", s)
    if not s:
        return None
    digit = _DIGIT_PHRASE.fullmatch(s)
    if digit:
        if digit.group("scale") is None and s[-1:] == "s":
            return None
        value = float(digit.group("num").replace(",", ""))
        if digit.group("scale"):
            value *= SCALE_FACTORS[digit.group("scale").lower()]
    else:
        if not re.fullmatch(r"[a-z]+(?:(?:\s*-\s*|\s+|\s*,\s*)[a-z]+)*", s):
            return None
        parsed = _parse_words(re.findall(r"[a-z]+", s))
        if parsed is None:
            return None
        value = float(parsed.value)
    return -value if negative else value


def _below_thousand_words(n: int) -> str:
    parts = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        parts.append(f"{_UNIT_NAMES[hundreds]} hundred")
    if rest:
        if rest < 20:
            parts.append(_UNIT_NAMES[rest])
        else:
            tens, unit = divmod(rest, 10)
            parts.append(_TEN_NAMES[tens * 10] + (f"-{_UNIT_NAMES[unit]}" if unit else ""))
    return " ".join(parts)


def number_to_words(n: int) -> str:
    """A whole number 0..10**15 in words, American style: 105 -> "one hundred five",
    2024 -> "two thousand twenty-four"."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 10**15:
        raise ValueError(f"number_to_words takes a whole number 0..10**15, got {n!r}")
    if n == 0:
        return "zero"
    parts = []
    for word in ("quadrillion", "trillion", "billion", "million", "thousand"):
        count, n = divmod(n, _SCALES[word])
        if count:
            parts.append(f"{_below_thousand_words(count)} {word}")
    if n:
        parts.append(_below_thousand_words(n))
    return " ".join(parts)


# ---------------------------------------------------------------------------------------------- finder

_CORE = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d])(?![.,]\d)|(?<![\w.,])\.\d+(?![\d.])")
# A table prints the percent sign in a cell of its own: "| 23.3 | % |" is 23.3%.
_PERCENT = re.compile(r"(?:\s?\|)?\s?%|\s+(?:percent(?:age points?)?|per\s?cent|pct)\b", re.I)
_SCALE_WORD = re.compile(r"[\s-]?(thousand|million|billion|trillion)s?\b", re.I)
_SCALE_ABBREVIATION = re.compile(r"(bn|mn|MM|tn|k|K|m|M|b|B)(?![\w])")
_MULTIPLE = re.compile(r"[x\u00d7](?![\w])")
_CURRENCY_BEFORE = re.compile(r"(?:US\$|\$|\u20ac|\u00a3|USD\s)\s?\Z")
_SIGN_WORD_BEFORE = re.compile(r"\b(?:minus|negative)\s+\Z", re.I)
_QUANTITY_AFTER = r"(?!\s*(?:%|percent\b|per\s?cent\b|thousand|million|billion|trillion))"

_REF_WORD = r"(?:\b(?:notes?|footnotes?|pages?|items?|exhibits?|parts?|sections?|schedules?)\s+|\bpp?\.\s*)"
_REF_TOKEN = r"\d+(?:\.\d+)*(?!\d)[A-Za-z]?(?![A-Za-z0-9])(?:\([A-Za-z0-9]{1,4}\))*(?!,\d)"
_REF_SEP = r"\s*(?:,|&|\band\b|\bor\b|\bthrough\b|\bto\b|-|\u2013|\u2014)\s*"
_REFERENCE = re.compile(
    rf"{_REF_WORD}(?P<list>{_REF_TOKEN}{_QUANTITY_AFTER}(?:{_REF_SEP}{_REF_TOKEN}{_QUANTITY_AFTER})*)", re.I
)
_REF_WORD_BEFORE = re.compile(rf"{_REF_WORD}\Z", re.I)
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DATES = (
    re.compile(rf"\b{_MONTH}\s+(?P<list>[0-3]?\d)(?:st|nd|rd|th)?(?![\w]){_QUANTITY_AFTER}(?!,\d{{3}})"),
    re.compile(rf"(?<![\w.,])(?P<list>[0-3]?\d)(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?![\w])"),
    re.compile(r"(?<![\w.,-])(?P<list>\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4})(?![\w/-])"),
)
_FORM_SUFFIX = re.compile(r"-[A-Z]{1,2}[A-Z0-9]{0,3}(?![a-z])")
_YEAR = re.compile(r"(?:19|20)\d{2}")
_WORD = re.compile(r"[A-Za-z]+")
_LONGEST_PHRASE = 48  # words; 999,999,999,999,999 in words takes 24


def _reference_label(word: str) -> str:
    """ "Notes" -> "note", "pp." -> "page"."""
    word = word.strip().rstrip(".").lower()
    if word in ("p", "pp"):
        return "page"
    return word.removesuffix("s")


def _reference_regions(sentence: str) -> _Regions:
    regions = [
        (m.start("list"), m.end("list"), _reference_label(re.split(r"[\s.]", m.group(0))[0]))
        for m in _REFERENCE.finditer(sentence)
    ]
    for pattern in _DATES:
        regions.extend((m.start("list"), m.end("list"), "date") for m in pattern.finditer(sentence))
    return _Regions(regions)


def _before(sentence: str, position: int, width: int = 64) -> str:
    """The text just before `position`: lookbehinds stay cheap on a long passage."""
    return sentence[max(0, position - width) : position]


def _reference_word_before(sentence: str, position: int) -> str | None:
    match = _REF_WORD_BEFORE.search(_before(sentence, position))
    return _reference_label(re.split(r"[\s.]", match.group(0))[0]) if match else None


class _Regions:
    """Reference spans (start, end, label), looked up by position."""

    def __init__(self, regions: list[tuple[int, int, str]]):
        self._regions = sorted(regions)
        self._starts = [r[0] for r in self._regions]
        self._reach = []  # the furthest end among regions so far, so overlapping spans are found
        furthest = -1
        for _, end, _ in self._regions:
            furthest = max(furthest, end)
            self._reach.append(furthest)

    def label(self, position: int) -> str | None:
        k = bisect.bisect_right(self._starts, position) - 1
        while k >= 0 and self._reach[k] > position:
            start, end, label = self._regions[k]
            if start <= position < end:
                return label
            k -= 1
        return None


def _identifier_context(sentence: str, start: int, end: int) -> bool:
    """ "10-K", "8-K", "20-F" (digits then a hyphen and capitals) or "COVID-19", "S-1", "10b-5" (letters, hyphen,
    digits)."""
    if _FORM_SUFFIX.match(sentence, end):
        return True
    return bool(re.search(r"[A-Za-z]-\Z", _before(sentence, start)))


def _left_decoration(sentence: str, start: int) -> tuple[int, bool, bool, bool]:
    """(new start, opened with "(", has currency, minus sign) for the characters before the digits."""
    j, opened, currency, minus = start, False, False, False
    for _ in range(4):
        before = _before(sentence, j)
        if not opened and before.endswith("("):
            opened, j = True, j - 1
            continue
        match = _CURRENCY_BEFORE.search(before) if not currency else None
        if match:
            currency, j = True, j - (len(before) - match.start())
            continue
        if not minus and before[-1:] in ("-", "\u2212") and (j == 1 or sentence[j - 2] in " \t\n($[:"):
            minus, j = True, j - 1
            continue
        break
    return j, opened, currency, minus


def _digit_figures(sentence: str, regions: _Regions) -> list[Figure]:
    figures = []
    for core in _CORE.finditer(sentence):
        s, e = core.span()
        scale_word = None
        is_percent = False
        pos = e
        if sentence[e : e + 1].isalpha():
            abbreviation = _SCALE_ABBREVIATION.match(sentence, e)
            multiple = _MULTIPLE.match(sentence, e)
            if abbreviation:
                scale_word = _ABBREVIATED_SCALE[abbreviation.group(1).lower()]
                pos = abbreviation.end()
            elif multiple:
                pos = multiple.end()
            else:
                continue  # glued to letters: "3D", "1st", "5G"
        start, opened, currency, minus = _left_decoration(sentence, s)
        closed = False
        if scale_word is None:
            percent = _PERCENT.match(sentence, pos)
            if percent:
                is_percent, pos = True, percent.end()
            else:
                scale = _SCALE_WORD.match(sentence, pos)
                if scale:
                    scale_word, pos = scale.group(1).lower(), scale.end()
        if opened and sentence[pos : pos + 1] == ")":
            closed, pos = True, pos + 1
            if not is_percent and scale_word is None:
                percent = _PERCENT.match(sentence, pos)
                scale = None if percent else _SCALE_WORD.match(sentence, pos)
                if percent:
                    is_percent, pos = True, percent.end()
                elif scale:
                    scale_word, pos = scale.group(1).lower(), scale.end()
        if opened and not closed:
            start = start + 1 if sentence[start] == "(" else start
        sign_word = _SIGN_WORD_BEFORE.search(_before(sentence, start))
        if sign_word:
            start, minus = start - len(sign_word.group(0)), True
        digits = core.group(0)
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        magnitude = float(digits.replace(",", "")) * (SCALE_FACTORS[scale_word] if scale_word else 1.0)
        negative = minus or (opened and closed)
        label = regions.label(s)
        if label is None:
            label = _reference_word_before(sentence, start)
        if label is None and _identifier_context(sentence, s, e):
            label = "identifier"
        if label is not None:
            kind = KIND_REFERENCE
        elif _is_year(sentence, digits, s, currency, is_percent, scale_word, pos):
            kind = KIND_YEAR
        else:
            kind = KIND_FIGURE
        figures.append(
            Figure(
                text=sentence[start:pos],
                start=start,
                end=pos,
                value=-magnitude if negative else magnitude,
                is_percent=is_percent,
                scale_word=scale_word,
                digits=digits,
                decimals=decimals,
                kind=kind,
                in_words=False,
                negative=negative,
                number_start=s,
                number_end=e,
                reference_label=label,
            )
        )
    return figures


def _is_year(
    sentence: str, digits: str, start: int, currency: bool, is_percent: bool, scale: str | None, end: int
) -> bool:
    if currency or is_percent or scale:
        return False
    if _YEAR.fullmatch(digits):
        return True
    # "FY '24", "fiscal '23": two digits after an apostrophe
    return len(digits) == 2 and digits.isdigit() and sentence[start - 1 : start] in ("'", "\u2019")


def _word_figures(sentence: str, taken: list[tuple[int, int]], regions: _Regions) -> list[Figure]:
    taken = sorted(taken)
    starts = [a for a, _ in taken]

    def inside_digit_figure(position: int) -> bool:
        k = bisect.bisect_right(starts, position) - 1
        return k >= 0 and position < taken[k][1]

    tokens = [
        m
        for m in _WORD.finditer(sentence)
        if m.group(0).lower() in _NUMBER_WORDS and not inside_digit_figure(m.start())
    ]
    runs: list[list[re.Match[str]]] = []
    for token in tokens:
        if runs and re.fullmatch(r"\s+|\s*-\s*", sentence[runs[-1][-1].end() : token.start()]):
            runs[-1].append(token)
        else:
            runs.append([token])
    figures = []
    for run in runs:
        words = [t.group(0).lower() for t in run]
        i = 0
        while i < len(run):
            prefix = _parse_prefix(words[i : i + _LONGEST_PHRASE])
            if prefix is None:
                i += 1
                continue
            parsed, j = prefix[0], i + prefix[1]
            start, end = run[i].start(), run[j - 1].end()
            i = j
            percent = _PERCENT.match(sentence, end)
            if percent:
                is_percent, stop = True, percent.end()
            else:
                is_percent, stop = False, end
            if sentence[start:end].lower() == "one" and not is_percent:
                continue  # a lone "one" is a pronoun or determiner far more often than a figure
            sign = _SIGN_WORD_BEFORE.search(_before(sentence, start))
            shown_start = start - len(sign.group(0)) if sign else start
            magnitude = float(parsed.value)
            label = regions.label(start)
            if label is None:
                label = _reference_word_before(sentence, start)
            figures.append(
                Figure(
                    text=sentence[shown_start:stop],
                    start=shown_start,
                    end=stop,
                    value=-magnitude if sign else magnitude,
                    is_percent=is_percent,
                    scale_word=parsed.scale_word,
                    digits=str(parsed.mantissa),
                    decimals=parsed.decimals,
                    kind=KIND_REFERENCE if label else KIND_FIGURE,
                    in_words=True,
                    negative=bool(sign),
                    number_start=start,
                    number_end=end,
                    reference_label=label,
                )
            )
    return figures


def find_number_phrases(sentence: str) -> list[Figure]:
    """Every number printed in `sentence`, in order: digits ("$1,234.5 million", "(1,234)", "24.1%", "2.97",
    "$1.9B") and words ("one point five billion", "twenty-three percent"). Check `Figure.kind` (or
    `Figure.is_figure`): years and references are returned too, labelled."""
    regions = _reference_regions(sentence)
    digit_figures = _digit_figures(sentence, regions)
    word_figures = _word_figures(sentence, [(f.start, f.end) for f in digit_figures], regions)
    return sorted(digit_figures + word_figures, key=lambda f: f.start)
