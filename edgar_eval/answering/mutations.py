"""Mutants of a right answer: the errors a reader makes with figures, each changing one figure of the answer.

Five kinds, each a way a careful reader knows an answer goes wrong:

* `last_digit`: the last written digit raised by one (mod 10): "$1.9 billion" -> "$1.0 billion", "1,948" -> "1,949".
  One unit of the last digit is more than the policy's half unit, so the figure is no longer the printed one.
* `sign_flipped`: a loss stated as a profit or back: "$(611) million" -> "$611 million", "$216 million" ->
  "-$216 million".
* `scale_word`: million <-> billion (thousand -> million): "$1.9 billion" -> "$1.9 million".
* `wrong_column`: the figure of another period from the same table row of the cited passage ("391,035" where the row
  prints "| Total net sales | 391,035 | 383,285 |" -> "383,285"). The passage prints it, so the citation check
  rightly backs it: catching it is the judge's work, not the citation check's.
* `one_significant_digit`: rounded to one significant digit, written in the scale that keeps it one digit
  ("$1,948 million" -> "$2 billion", "$216 million" -> "$0.2 billion"). The policy holds one digit to 2%, so such
  a mutant is withheld unless the figure happens to lie within 2% of the rounding, or the cited passage prints
  another figure that does (a table holds dozens: the check asks only that some cited figure backs it).

Years, references, markers and figures in words are never mutated. A mutant identical to the answer (no other
column, no scale word) is not made.
"""

from __future__ import annotations

import math
import re

from edgar_eval.answering.citations import DEFAULT_MARKER_PATTERN, answer_figures
from edgar_eval.corpus.figure_match import reference_figures, row_label
from edgar_eval.corpus.number_words import Figure

LAST_DIGIT, SIGN_FLIPPED, SCALE_WORD, WRONG_COLUMN, ONE_DIGIT = (
    "last_digit",
    "sign_flipped",
    "scale_word",
    "wrong_column",
    "one_significant_digit",
)
MUTANT_KINDS = (LAST_DIGIT, SIGN_FLIPPED, SCALE_WORD, WRONG_COLUMN, ONE_DIGIT)
_SWAPPED_SCALE = {"million": "billion", "billion": "million", "thousand": "million", "trillion": "billion"}
_SCALES = ((1e12, " trillion"), (1e9, " billion"), (1e6, " million"), (1e3, " thousand"))
_SCALE_SPELLING = re.compile(r"(thousand|million|billion|trillion)", re.I)


def _last_digit(text: str, figure: Figure) -> str:
    last = max(k for k in range(figure.number_start, figure.number_end) if text[k].isdigit())
    return text[:last] + str((int(text[last]) + 1) % 10) + text[last + 1 :]


def _sign_flipped(text: str, figure: Figure) -> str:
    shown = text[figure.start : figure.end]
    if figure.negative:
        flipped = shown.replace("(", "", 1).replace(")", "", 1).replace("-", "", 1).replace("\u2212", "", 1)
        return text[: figure.start] + flipped + text[figure.end :]
    return text[: figure.start] + "-" + shown + text[figure.end :]


def _scale_word(text: str, figure: Figure) -> str | None:
    if figure.scale_word not in _SWAPPED_SCALE:
        return None
    shown = text[figure.start : figure.end]
    match = list(_SCALE_SPELLING.finditer(shown))
    if not match:
        return None  # an abbreviation ("$1.9B"): left alone
    word = match[-1]
    swapped = shown[: word.start()] + _SWAPPED_SCALE[figure.scale_word] + shown[word.end() :]
    return text[: figure.start] + swapped + text[figure.end :]


def _one_digit(text: str, figure: Figure) -> str | None:
    value = abs(figure.value)
    if value == 0 or figure.is_percent:
        return None
    factor, word = 1.0, ""
    if figure.scale_word or value >= 1e6:  # a scaled amount: the largest scale that leaves at least 0.1
        factor, word = next((f, w) for f, w in _SCALES if value >= 0.1 * f or f == 1e3)
    scaled = value / factor
    exponent = math.floor(math.log10(scaled))
    rounded = round(scaled, -exponent)
    exponent = math.floor(math.log10(rounded))  # 0.96 rounds to 1: written "1", not "1.0"
    written = f"{rounded:.{max(0, -exponent)}f}" if exponent < 0 else f"{int(rounded)}"
    currency = "$" if "$" in text[figure.start : figure.number_start] else ""
    sign = "-" if figure.negative else ""
    return text[: figure.start] + f"{sign}{currency}{written}{word}" + text[figure.end :]


def _wrong_column(text: str, figure: Figure, passages: list[str]) -> str | None:
    """The figure's digits replaced by those of the next figure in the same row of a cited passage, where a
    figure of that row prints the answer's digits."""
    digits = re.sub(r"[^\d.]", "", figure.digits)
    for passage in passages:
        printed = reference_figures(passage)
        for k, candidate in enumerate(printed):
            if re.sub(r"[^\d.]", "", candidate.figure.digits) != digits or row_label(passage, candidate.figure) is None:
                continue
            line_end = passage.find("\n", candidate.figure.end)
            same_row = [p for p in printed[k + 1 :] if line_end < 0 or p.figure.start < line_end] + [
                p for p in printed[:k] if passage.rfind("\n", 0, candidate.figure.start) < p.figure.start
            ]
            other = next((p for p in same_row if re.sub(r"[^\d.]", "", p.figure.digits) != digits), None)
            if (
                other is not None
            ):  # the other column as printed (its parentheses too), in the answer's currency and scale
                printed_cell = other.figure.text.strip().replace("$", "").strip()
                currency = "$" if "$" in text[figure.start : figure.number_start] else ""
                scale = f" {figure.scale_word}" if figure.scale_word else ""
                return text[: figure.start] + currency + printed_cell + scale + text[figure.end :]
    return None


def figure_mutations(
    answer_text: str, passages: list[str] | None = None, marker_pattern: str = DEFAULT_MARKER_PATTERN
) -> list[tuple[str, str]]:
    """(kind, mutant) for every figure written in digits and every kind that applies to it (module doc)."""
    mutants: list[tuple[str, str]] = []
    for figure in answer_figures(answer_text, marker_pattern):
        if figure.in_words:
            continue
        made = {
            LAST_DIGIT: _last_digit(answer_text, figure),
            SIGN_FLIPPED: _sign_flipped(answer_text, figure),
            SCALE_WORD: _scale_word(answer_text, figure),
            WRONG_COLUMN: _wrong_column(answer_text, figure, passages or []),
            ONE_DIGIT: _one_digit(answer_text, figure),
        }
        mutants.extend((kind, mutant) for kind, mutant in made.items() if mutant is not None and mutant != answer_text)
    return mutants


def digit_mutations(answer_text: str, marker_pattern: str = DEFAULT_MARKER_PATTERN) -> list[str]:
    """The `last_digit` mutants alone, one per figure written in digits."""
    return [mutant for kind, mutant in figure_mutations(answer_text, None, marker_pattern) if kind == LAST_DIGIT]
