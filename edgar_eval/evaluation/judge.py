"""Right or wrong against the golden case, by the one figure-matching policy (`edgar_eval.corpus.figure_match`).

The judge reads the answer's text, not only its first figure:

* The figures it compares are those of the gold's kind (`unit_class`): against a dollar amount, "grew 5% to $X"
  is judged on $X, and "or $6.08 per diluted share" beside a net income is another quantity; against a per-share
  gold, a bare "$6.08" counts and "$93.7 billion" does not.
* The answer is right when one of them states the gold (magnitude within the stated figure's tolerance, sign as
  the gold's; an outflow's sign is a presentation convention, and so are the parentheses of a figure copied as
  printed after a row's words that name the direction: "Net cash used in investing activities: (5,000)") and no
  other figure of that kind gives a rival value for the asked quantity.
* A figure of the gold's kind that does not state the gold is a rival unless the answer marks it as something
  else: another period or a comparison ("up from $383.3 billion", "compared with", "versus", "in fiscal 2023"
  when another year was asked, "a year earlier"), a change ("an increase of $7.8 billion", "up $7.8 billion",
  "by $X"), or a part ("including", "of which"). "$391.0 billion or $383.3 billion" is wrong: two values.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import cast

from edgar_eval.answering.answerer import ANSWERED, CheckedAnswer
from edgar_eval.answering.citations import answer_figures
from edgar_eval.corpus.figure_match import (
    AMOUNT,
    PER_SHARE,
    PERCENT,
    SignedFigure,
    copied_row_sign,
    matches_value,
    stated_figures,
    value_sign,
)
from edgar_eval.domain.routes import NO_ANSWER

_OTHER_ROLE_BEFORE = re.compile(
    r"\b(?:from|compared|comparison|versus|vs|prior|previous|preceding|last|earlier|ago|up|down|increase[ds]?|increased"
    r"|decrease[ds]?|decreased|rose|fell|grew|declined|change|changed|by|including|includes|included|of\s+which|excluding"
    r"|against|over)\b",
    re.I,
)
_OTHER_ROLE_AFTER = re.compile(
    r"^[^.;]{0,40}?\b(?:a\s+year\s+(?:earlier|ago|before)|(?:the\s+)?(?:prior|previous|preceding)\s+(?:fiscal\s+)?(?:year|quarter|period)"
    r"|last\s+year|increase|decrease|change|higher|lower|more|less)\b",
    re.I,
)
_YEAR_AFTER = re.compile(
    r"^\s*(?:million|billion|thousand)?\s*,?\s*(?:in|for|during|of|at\s+the\s+end\s+of)\s+(?:fiscal\s+(?:year\s+)?)?((?:19|20)\d{2})\b",
    re.I,
)
_YEAR = re.compile(r"\b((?:19|20)\d{2})\b")
_WINDOW_WORDS = 6
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Judgement:
    correct: bool
    figure: float | None  # the stated figure that answers the question (the matching one, else the first)
    why: str


def _marked_as_other(text: str, stated: SignedFigure, previous_end: int, asked_year: int | None) -> bool:
    before = text[previous_end : stated.figure.start]
    words = list(_WORD.finditer(before))[-_WINDOW_WORDS:]
    if words and _OTHER_ROLE_BEFORE.search(before[words[0].start() :]):
        return True
    after = text[stated.figure.end :]
    if _OTHER_ROLE_AFTER.match(after):
        return True
    year = _YEAR_AFTER.match(after)
    if year and asked_year is not None and int(year.group(1)) != asked_year:
        return True
    years_before = _YEAR.findall(before)
    return bool(years_before and asked_year is not None and int(years_before[-1]) != asked_year)


def _gold_kind(gold_answer: str | None, label: str) -> str | None:
    if "per share" in label.lower():
        return PER_SHARE
    read = stated_figures(gold_answer) if gold_answer else []
    return read[0].unit if read else None


def _comparable(stated: SignedFigure, gold_kind: str | None) -> bool:
    """Of the gold's kind. A per-share gold is often written as a bare dollar figure ("diluted EPS was $6.08"): a
    dollar figure without a scale word counts, one with a scale word ("$93.7 billion") is another quantity."""
    if gold_kind is None or stated.unit == gold_kind:
        return True
    return gold_kind == PER_SHARE and stated.unit == AMOUNT and stated.figure.scale_word is None


def judge_answer(
    answer_text: str, gold_value: float | None, gold_answer: str | None, label: str = "", asked_year: int | None = None
) -> Judgement:
    """Does `answer_text` state the gold figure (and no rival value for it)? See the module doc."""
    if gold_value is None or gold_value != gold_value:  # NaN: no figure to state
        return Judgement(False, None, "the golden case has no figure")
    gold_kind = _gold_kind(gold_answer, label)
    found = answer_figures(answer_text)
    stated = stated_figures(answer_text, found)
    if not stated:
        return Judgement(False, None, "the answer states no figure")
    comparable = [s for s in stated if _comparable(s, gold_kind)]
    if not comparable:
        return Judgement(False, stated[0].figure.value, f"no figure of the gold's kind ({gold_kind})")
    sign = value_sign(gold_value, label)
    if gold_kind == PERCENT:  # XBRL tags a rate as a fraction (0.233); the gold answer writes it as printed (23.3%)
        gold_value = stated_figures(cast(str, gold_answer))[0].magnitude * (-1 if gold_value < 0 else 1)
    previous_end = {id(s): (stated[k - 1].figure.end if k else 0) for k, s in enumerate(stated)}
    right = [
        s for s in comparable if matches_value(copied_row_sign(answer_text, s, previous_end[id(s)]), gold_value, sign)
    ]
    rivals = [
        s
        for s in comparable
        if s not in right and not _marked_as_other(answer_text, s, previous_end[id(s)], asked_year)
    ]
    if not right:
        return Judgement(
            False, comparable[0].figure.value, f"{comparable[0].figure.text.strip()!r} does not state the gold"
        )
    if rivals:
        return Judgement(
            False,
            right[0].figure.value,
            f"{right[0].figure.text.strip()!r} states the gold but {rivals[0].figure.text.strip()!r} gives another "
            "value",
        )
    return Judgement(True, right[0].figure.value, f"{right[0].figure.text.strip()!r} states the gold")


_UP = re.compile(r"\b(?:increas\w*|rose|risen|grew|grown|higher|up|gain\w*|improv\w*)\b", re.I)
_DOWN = re.compile(r"\b(?:decreas\w*|fell|fallen|declin\w*|lower|down|dropp\w*|reduc\w*)\b", re.I)
_MORE = re.compile(r"\b(?:more|higher|larger|greater|bigger|exceed\w*|above|outpac\w*)\b", re.I)
DIRECTIONS = {"increase": (_UP, _DOWN), "decrease": (_DOWN, _UP)}


def _direction_right(answer_text: str, direction: str, others: list[str]) -> tuple[bool, str]:
    """Whether the answer says `direction`: increase or decrease in words of that family and none of the other; or,
    for a comparison, the company named next to the first comparative word ("Tesla reported more", "more was reported
    by Tesla") is the one that reported more (`others`: the other companies)."""
    if direction in DIRECTIONS:
        right, wrong = DIRECTIONS[direction]
        said = bool(right.search(answer_text))
        if said and not wrong.search(answer_text):
            return True, f"says {direction}"
        return False, f"does not say {direction}" if not said else f"says {direction} and its opposite"
    names = [direction, *others]
    lowered = answer_text.lower()
    comparative = _MORE.search(answer_text)
    if comparative is None:
        found = sorted((lowered.find(n.lower()), n) for n in names if n.lower() in lowered)
        named = found[0][1] if found else None
        return named == direction, f"names {named or 'no company'} first and no comparative word"
    sentence_start = max(answer_text.rfind(".", 0, comparative.start()), 0)
    before = [(lowered.rfind(n.lower(), sentence_start, comparative.start()), n) for n in names]
    before = [(at, n) for at, n in before if at >= 0]
    if before:
        named = max(before)[1]
    else:
        after = [(lowered.find(n.lower(), comparative.end()), n) for n in names]
        after = [(at, n) for at, n in after if at >= 0]
        named = min(after)[1] if after else None
    return named == direction, f"says {named or 'no company'} reported more"


def judge_figures(
    answer_text: str, figures: list[dict], direction: str = "", others: list[str] | None = None
) -> Judgement:
    """A two-document answer (golden.two_documents): right when it states every figure the gold requires, each within
    its own tolerance and of its own kind (corpus.figure_match), and, where the gold has one, the direction word."""
    stated = stated_figures(answer_text, answer_figures(answer_text))
    if not stated:
        return Judgement(False, None, "the answer states no figure")
    for figure in (f for f in figures if f["required"]):
        kind = _gold_kind(figure["answer"], "")
        value = float(figure["value"])
        if kind == PERCENT:
            value = stated_figures(figure["answer"])[0].magnitude * (-1 if value < 0 else 1)
        sign = value_sign(value, "")
        if not any(_comparable(s, kind) and matches_value(s, value, sign) for s in stated):
            return Judgement(False, stated[0].figure.value, f"{figure['role']}: {figure['answer']} is not stated")
    if direction:
        right, why = _direction_right(answer_text, direction, others or [])
        if not right:
            return Judgement(False, stated[0].figure.value, f"every figure stated, but the answer {why}")
    return Judgement(
        True, stated[0].figure.value, "every required figure stated" + (f", {direction}" if direction else "")
    )


def judge_case(answer_text: str, case) -> Judgement:
    """The judge every reader and arm is scored with, for a golden case (`case`: its gold_value, gold_answer, label,
    fiscal_year, and for a two-document kind gold_figures and gold_direction)."""
    figures = json.loads(getattr(case, "gold_figures", "") or "[]")
    if figures:
        direction = str(getattr(case, "gold_direction", "") or "")
        companies = [f["role"] for f in figures if f["role"] != direction] if direction not in DIRECTIONS else []
        return judge_figures(answer_text, figures, direction, companies)
    return judge_answer(answer_text, case.gold_value, case.gold_answer, case.label, int(case.fiscal_year))


def states_any(answer_text: str, reference_text: str) -> bool:
    """Does the answer state one of the figures of a written reference answer (the hard-question set's)? Each
    reference figure is read with the sign its text states."""
    answer = stated_figures(answer_text, answer_figures(answer_text))
    return any(
        matches_value(a, r.magnitude, r.sign) and a.unit == r.unit
        for a in answer
        for r in stated_figures(reference_text)
    )


def is_correct(
    expected_route: str,
    answered: bool,
    answer_text: str,
    gold_value: float | None,
    gold_answer: str | None,
    label: str = "",
    asked_year: int | None = None,
) -> bool:
    if expected_route == "answer":
        return answered and judge_answer(answer_text, gold_value, gold_answer, label, asked_year).correct
    return not answered


def pattern_case_correct(expected_route: str, reference_answer: str, checked: CheckedAnswer) -> bool:
    """A hard-question case is right when a no_answer case is declined, or an answer case's answer states a figure of
    the reference answer."""
    if expected_route == NO_ANSWER:
        return checked.outcome != ANSWERED
    if checked.outcome != ANSWERED or checked.generation is None:
        return False
    return states_any(checked.generation.text, reference_answer)
