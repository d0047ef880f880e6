"""Why each wrong answer is wrong, computed from provenance: the answer's figures against the gold and the passages
the system read. The seed's finding was "mis-selection, not fabrication": a reader that errs mostly gives a figure it
read, from another column, another row, another filing or another company; this measures it on every run.

Categories, the first that applies:

* an answerable question answered wrongly: `superseded value` (the figure a restatement replaced), `scale or sign
  slip` (the gold's magnitude times a thousand, a million or their inverse, or the gold with the opposite sign),
  `wrong period` (another figure of the gold row: another column), `wrong filing` (a figure printed in a passage of a
  filing that holds no gold, of the same company) or `wrong company` (of another company), `wrong line` (a figure of
  another row of a passage holding the gold row), `another figure read` (a figure printed in what it read, elsewhere),
  `printed nowhere read` (a figure in none of the passages: made up, or computed);
* an answerable question declined: `declined, gold read` (the gold chunk was among the passages) or `declined, gold
  not read`;
* an unanswerable question answered (a false answer): `wrong period` for an other-year twin, `wrong company` for an
  other-company twin, `wrong line` for an absent concept, when the figure is printed in what it read (mis-selection);
  `printed nowhere read` when it is not (fabrication);
* `right` otherwise, and `withheld by a gate` for an arm whose gate declined an answer the generator gave.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

import pandas as pd

from edgar_eval.answering.citations import answer_figures
from edgar_eval.corpus.figure_match import stated_figures
from edgar_eval.corpus.frames import iter_rows

RIGHT = "right"
SUPERSEDED = "superseded value"
SCALE_OR_SIGN = "scale or sign slip"
WRONG_PERIOD = "wrong period"
WRONG_FILING = "wrong filing"
WRONG_COMPANY = "wrong company"
WRONG_LINE = "wrong line"
OTHER_FIGURE = "another figure read"
NOT_READ = "printed nowhere read"
DECLINED_GOLD_READ = "declined, gold read"
DECLINED_GOLD_NOT_READ = "declined, gold not read"
WITHHELD = "withheld by a gate"
CATEGORIES = (
    RIGHT,
    SUPERSEDED,
    SCALE_OR_SIGN,
    WRONG_PERIOD,
    WRONG_FILING,
    WRONG_COMPANY,
    WRONG_LINE,
    OTHER_FIGURE,
    NOT_READ,
    DECLINED_GOLD_READ,
    DECLINED_GOLD_NOT_READ,
    WITHHELD,
)
_FALSE_ANSWER_CATEGORY = {"other_year": WRONG_PERIOD, "other_company": WRONG_COMPANY, "absent_concept": WRONG_LINE}
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_SCALES = (1e3, 1e6, 1e9, 1e-3, 1e-6, 1e-9)
_TOLERANCE = 0.005  # a stated figure agrees with a printed one within half a percent


def _numbers(text: str) -> list[float]:
    out = []
    for match in _NUMBER.finditer(text):
        try:
            out.append(float(match.group(0).replace(",", "")))
        except ValueError:
            continue
    return out


def _agrees(a: float, b: float) -> bool:
    return abs(a - b) <= _TOLERANCE * max(abs(a), abs(b)) if a or b else True


def _printed_in(magnitude: float, text: str) -> bool:
    """Whether `text` prints the stated magnitude, at its own scale or in thousands, millions or billions (an answer
    says "$60.9 billion" of a table printing 60,922 in millions)."""
    numbers = _numbers(text)
    return any(_agrees(magnitude, n * scale) for n in numbers for scale in (1.0, 1e3, 1e6, 1e9)) or any(
        _agrees(magnitude, n) for n in numbers
    )


def _answer_magnitudes(answer_text: str) -> list[float]:
    return [s.magnitude for s in stated_figures(answer_text, answer_figures(answer_text))]


SYSTEM_COLUMNS = ["system", "question_id", "kind", "document_count", "category"]


def categories_of(
    system: str,
    outcomes: pd.DataFrame,
    golden: pd.DataFrame,
    read: Mapping[str, list[str]],
    gold_read: Mapping[str, bool],
    texts: Mapping[str, str],
    company_of: Mapping[str, str],
) -> pd.DataFrame:
    """One system's category per question (`outcomes`: question_id, answered, right, answer_text, and `generated`:
    whether the generator answered before a gate; `golden` indexed by question_id; `read`: chunk ids read per
    question)."""
    rows = []
    for outcome in iter_rows(outcomes, index=False):
        case = golden.loc[outcome.question_id]
        if not outcome.answered and getattr(outcome, "generated", False) and case.expected_route == "answer":
            category = WITHHELD
        else:
            passages = [(c, texts.get(c, "")) for c in read.get(outcome.question_id, [])]
            category = categorise(
                case,
                bool(outcome.answered),
                bool(outcome.right),
                str(outcome.answer_text or ""),
                passages,
                bool(gold_read.get(outcome.question_id, False)),
                company_of,
            )
        rows.append(
            {
                "system": system,
                "question_id": outcome.question_id,
                "kind": case.kind,
                "document_count": int(getattr(case, "document_count", 1) or 1),
                "category": category,
            }
        )
    return pd.DataFrame(rows, columns=SYSTEM_COLUMNS)


def category_table(categories: pd.DataFrame) -> pd.DataFrame:
    """Per system and kind: the questions and how many fell in each category (those with any)."""
    counts = categories.groupby(["system", "kind", "category"], sort=True).size()
    return counts.to_frame("questions").reset_index()


def categorise(
    case,
    answered: bool,
    right: bool,
    answer_text: str,
    passages: Sequence[tuple[str, str]],
    gold_read: bool,
    company_of: Mapping[str, str],
) -> str:
    """The category of one system's outcome on one golden case (module doc). `case`: the golden question (kind,
    expected_route, cik, gold_value, gold_quote, gold_filing_ids, gold_figures); `passages`: (chunk id, text) read in
    order; `company_of`: filing id -> cik."""
    answerable = case.expected_route == "answer"
    if not answered:
        if not answerable:
            return RIGHT
        return DECLINED_GOLD_READ if gold_read else DECLINED_GOLD_NOT_READ
    if answerable and right:
        return RIGHT
    if not answerable and case.kind not in _FALSE_ANSWER_CATEGORY:
        return OTHER_FIGURE if answer_text else NOT_READ
    stated = _answer_magnitudes(answer_text)
    read = [(chunk_id.rsplit(":", 1)[0], text) for chunk_id, text in passages]
    in_read = [m for m in stated if any(_printed_in(m, text) for _, text in read)]
    if not answerable:
        return _FALSE_ANSWER_CATEGORY[case.kind] if in_read else NOT_READ
    if not stated:
        return NOT_READ
    figures = json.loads(getattr(case, "gold_figures", "") or "[]")
    first = [abs(float(f["value"])) for f in figures if f.get("role") == "as first reported"]
    now = [abs(float(f["value"])) for f in figures if f.get("role") != "as first reported"]
    if case.kind == "restatement" and any(_agrees(m, v) for m in stated for v in first):
        if not any(_agrees(m, v) for m in stated for v in now):  # the superseded figure, not the current one
            return SUPERSEDED
    gold = abs(float(case.gold_value)) if case.gold_value == case.gold_value else None
    if gold and any(_agrees(m, gold * s) for m in stated for s in _SCALES):
        return SCALE_OR_SIGN
    quote = str(case.gold_quote or "")
    if quote and any(_printed_in(m, quote) for m in stated):
        return WRONG_PERIOD
    gold_filings = set(case.gold_filing_ids)
    for magnitude in in_read:
        for filing_id, text in read:
            if not _printed_in(magnitude, text):
                continue
            if filing_id not in gold_filings:
                same = company_of.get(filing_id) == str(case.cik)
                return WRONG_FILING if same else WRONG_COMPANY
            if quote and any(line.strip() in text for line in quote.splitlines() if line.strip()):
                return WRONG_LINE
    return OTHER_FIGURE if in_read else NOT_READ
