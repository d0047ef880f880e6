"""Is this the same figure? The one policy the judge, the citation check, the answer-support gate and the pattern
baseline all apply.

A *stated* figure is the one under test: a figure of an answer (the judge, the citation check) or of a gold answer
(the answer-support gate). A *reference* is what it is checked against: a figure printed in a passage or a quote,
or the golden case's value. Three questions decide whether they are the same figure.

Magnitude. |stated| and |reference| agree within half a unit of the stated figure's last written digit when the
stated figure keeps at least two significant digits ("$1.9 billion": within $50 million; "$391.0 billion" for
391,035 million), otherwise within 2% of it ("$1 billion" is not 1,204 million; "$2 billion" is 1,980 million).
A percentage is always held to half a unit of its last digit ("7%" for 6.6%): its scale is fixed, so a whole
percent is the filings' own reporting precision, not a scale word hiding a coarse rounding.
Why: an answer is held to the precision it claims, and a one-digit answer claims a rounding so coarse that half a
unit ("$1 billion" +/- $500 million) would accept a figure a quarter off. Only the stated figure's precision
counts: an answer more precise than its passage ("$1,948 million" against a printed "$1.9 billion") claims digits
nobody printed.

Kind. A percentage matches only a percentage; an amount, a per-share amount and a share count each only their
own kind (`unit_class`), so "grew 5% to $391.0 billion" is judged on its dollar figure, and "$6.08 per diluted
share" beside a net income is another quantity.

Sign, with the filings' conventions (`reference_sign`, `stated_sign`):
* A stated figure is negative when it is printed so ("(812)", "-$611 million", "$(611) million") or when a word
  attached to it says so: a loss, deficit, decrease, decline, "negative", "down", "used in" within a few words
  before it with no other figure and no "to" / "from" in between ("a net loss of $8 million", "decreased $50
  million", but not "decreased 5% to $812 million"), or "loss" / "decrease" right after it ("$812 million
  loss").
* A reference in a table row reads its row's label (the first cell):
  - a row that names an outflow or a contra account (purchases of, payments for, repurchases, dividends paid,
    capital expenditures, cash used in, acquisitions, treasury stock, accumulated depreciation, "Less:") prints
    parentheses as a presentation convention: it backs the plain amount, whatever sign the answer states;
  - a row that names a negative quantity outright ("Net loss", "Accumulated deficit", "Accumulated other
    comprehensive loss") holds a negative whether or not it prints parentheses;
  - any other row ("Net income (loss)", "Operating income", "Gain (loss) on ...", "Change in ...") is signed as
    printed: parentheses or a minus mean negative, and back only an answer that says loss / decrease / negative
    / "(...)" / "-".
* A reference in prose is signed the way a stated figure is, so "a net loss of $8 million" backs "a loss of $8
  million" and not "net income of $8 million".
* A golden case's value is signed as tagged, except for a line item that names an outflow ("capital
  expenditures", "dividends paid"), whose sign is a presentation convention like the row's.

Scale words and table scale lines are the readers' (`number_words`, the citation check's passage scales); this
module compares values once they are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edgar_eval.corpus.number_words import Figure, find_number_phrases

RELATIVE_TOLERANCE = 0.02
MIN_DIGITS_FOR_HALF_UNIT = 2

NEGATIVE, POSITIVE, ANY_SIGN = -1, 1, 0

PERCENT, PER_SHARE, SHARES, AMOUNT = "percent", "per_share", "shares", "amount"

_OUTFLOW = re.compile(
    r"\b(?:purchases?\s+of|payments?\s+(?:for|of|to|on)|repurchases?(?:\s+of)?|dividends?(?:\s+paid)?|capital\s+expenditures?"
    r"|used\s+in|acquisitions?|treasury\s+stock|accumulated\s+depreciation|accumulated\s+amortization"
    r"|taxes\s+paid|interest\s+paid|cash\s+paid|spending\s+on)\b|^\s*less\b",
    re.I,
)
_EITHER_WAY = re.compile(
    r"provided\s+by\s*\(?\s*used\s+in|\((?:loss|losses|income|expense|gain|decrease|increase|used in)\)", re.I
)
_NEGATIVE_NAME = re.compile(r"\b(?:loss|losses|deficit|decrease|decline)\b", re.I)
_NEGATIVE_BEFORE = re.compile(
    r"\b(?:loss|losses|deficit|decrease[ds]?|declined?|declines|negative|minus|down|used\s+in|used\s+for|outflows?|fell|dropped)\b",
    re.I,
)
_LEVEL_MARK = re.compile(r"\b(?:to|from)\b", re.I)
_NEGATIVE_AFTER = re.compile(r"\s*(?:\)|\])?\s*(?:net\s+)?(?:loss|losses|decrease|decline|deficit|outflow)\b", re.I)
_WORD = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*")
_PER_SHARE_AFTER = re.compile(r"\s*(?:per|a)\s+(?:basic\s+|diluted\s+|common\s+)*(?:share|unit)\b", re.I)
_SHARES_AFTER = re.compile(r"\s*(?:(?:basic|diluted|common|weighted[- ]average)\s+)*shares\b", re.I)
_BEFORE_WORDS = 5


def tolerance(stated: Figure) -> float:
    """How far a reference may lie from `stated` (the module doc: half a unit, or 2% of a one-digit amount)."""
    if stated.is_percent or stated.significant_digits >= MIN_DIGITS_FOR_HALF_UNIT:
        return stated.half_unit
    return RELATIVE_TOLERANCE * abs(stated.value)


def magnitudes_agree(stated: Figure, reference_magnitude: float) -> bool:
    target = abs(stated.value)
    return abs(abs(reference_magnitude) - target) <= tolerance(stated) + 1e-9 * max(target, abs(reference_magnitude))


def signs_agree(stated: int, reference: int) -> bool:
    return reference == ANY_SIGN or stated == ANY_SIGN or stated == reference


def row_label(text: str, figure: Figure) -> str | None:
    """The first cell of the table row `figure` stands in, or None when it stands in prose."""
    line_start = text.rfind("\n", 0, figure.start) + 1
    line_end = text.find("\n", figure.end)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    if not line.lstrip().startswith("|"):
        return None
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return cells[0] if cells else ""


def label_sign(label: str) -> int | None:
    """What a row or line-item label says of its figures' sign: ANY_SIGN for an outflow or contra account,
    NEGATIVE for a negative quantity named outright, None when the printing decides."""
    if _EITHER_WAY.search(label):
        return None
    if _OUTFLOW.search(label):
        return ANY_SIGN
    if _NEGATIVE_NAME.search(label):
        return NEGATIVE
    return None


def stated_sign(text: str, figure: Figure, previous_end: int = 0) -> int:
    """The sign `text` states for `figure`; `previous_end` is where the figure before it (in its sentence) ends."""
    if figure.negative:
        return NEGATIVE
    before = _EITHER_WAY.sub(" ", text[previous_end : figure.start])  # "Net income (loss) was" claims no loss
    words = list(_WORD.finditer(before))[-_BEFORE_WORDS:]
    if words:
        window = before[words[0].start() :]
        hits = list(_NEGATIVE_BEFORE.finditer(window))
        if hits and not _LEVEL_MARK.search(window, hits[-1].end()):
            return NEGATIVE
    if _NEGATIVE_AFTER.match(text, figure.end):
        return NEGATIVE
    return POSITIVE


_CLAUSE_START = re.compile(r"[.;\n](?=[^.;\n]*$)")


def copied_row_sign(text: str, stated: "SignedFigure", previous_end: int = 0) -> "SignedFigure":
    """A figure an answer copies as printed, parentheses included, after the words of a row that names the direction
    ("Purchases of property and equipment: (1,234)", "Net cash used in investing activities (5,000)"): the parentheses
    are the row's presentation, and the figure states the amount with either sign, as that row backs it."""
    if not stated.figure.negative:
        return stated
    clause = text[previous_end : stated.figure.start]
    boundary = _CLAUSE_START.search(clause)
    label = clause[boundary.end() :] if boundary else clause
    if label_sign(label) == ANY_SIGN:
        return SignedFigure(stated.figure, ANY_SIGN, stated.unit)
    return stated


def reference_sign(text: str, figure: Figure, previous_end: int = 0) -> int:
    """The sign a printed figure holds: its row label's say, else as printed (module doc)."""
    label = row_label(text, figure)
    if label is None:
        return stated_sign(text, figure, previous_end)
    said = label_sign(label)
    if said is not None:
        return said
    return NEGATIVE if figure.negative else POSITIVE


def unit_class(text: str, figure: Figure) -> str:
    if figure.is_percent:
        return PERCENT
    if _PER_SHARE_AFTER.match(text, figure.end):
        return PER_SHARE
    if _SHARES_AFTER.match(text, figure.end):
        return SHARES
    return AMOUNT


@dataclass(frozen=True)
class SignedFigure:
    """A figure read with its sign and kind: what the policy compares."""

    figure: Figure
    sign: int
    unit: str

    @property
    def magnitude(self) -> float:
        return abs(self.figure.value)


def _signed(text: str, figures: list[Figure], sign_of) -> list[SignedFigure]:
    out, previous_end = [], 0
    for figure in figures:
        out.append(SignedFigure(figure, sign_of(text, figure, previous_end), unit_class(text, figure)))
        previous_end = figure.end
    return out


def stated_figures(text: str, figures: list[Figure] | None = None) -> list[SignedFigure]:
    """The quantity figures of `text` (or the given ones, offsets into `text`) with the sign each states."""
    found = figures if figures is not None else [f for f in find_number_phrases(text) if f.is_figure]
    return _signed(text, found, stated_sign)


def reference_figures(text: str) -> list[SignedFigure]:
    """The quantity figures printed in a passage or quote, each with the sign it holds."""
    return _signed(text, [f for f in find_number_phrases(text) if f.is_figure], reference_sign)


def backs(stated: SignedFigure, reference: SignedFigure, reference_magnitude: float | None = None) -> bool:
    """Does the printed `reference` (read at `reference_magnitude` when rescaled by a table's scale line) back
    `stated`? Percent only with percent; magnitude within the stated figure's tolerance; signs agree."""
    if stated.figure.is_percent != reference.figure.is_percent:
        return False
    magnitude = reference.magnitude if reference_magnitude is None else reference_magnitude
    return magnitudes_agree(stated.figure, magnitude) and signs_agree(stated.sign, reference.sign)


def matches_value(stated: SignedFigure, value: float, sign: int) -> bool:
    """Does `stated` state a known value (a golden case's), whose sign is `sign` (ANY_SIGN for an outflow)?"""
    return magnitudes_agree(stated.figure, value) and signs_agree(stated.sign, sign)


def value_sign(value: float, label: str = "") -> int:
    """The sign of a tagged value, unless its line item's label makes the sign a presentation convention."""
    if label_sign(label) == ANY_SIGN:
        return ANY_SIGN
    return NEGATIVE if value < 0 else POSITIVE


RESTATEMENT_TOLERANCE = 0.005  # the same figure in millions and in thousands, or rounded a decimal less, stays one


def values_differ(a: float, b: float) -> bool:
    """Whether two values of one quantity for one period are two figures (a restatement, a split, a revised estimate),
    not one figure rounded two ways. The golden review cases and the answerer's review exit both decide it here."""
    high = max(abs(a), abs(b))
    return bool(high) and abs(a - b) / high > RESTATEMENT_TOLERANCE
