"""How a template question is worded: the question, its period in words, the answer in the units the filing prints
it in, and the question's id (a hash of its kind, company and wording)."""

from __future__ import annotations

import hashlib

import pandas as pd

_DURATION_WORDS = {"Q": "the quarter", "H": "the six months", "9M": "the nine months"}
_UNIT_WORDS = {3: " thousand", 6: " million", 9: " billion"}


def printed_answer(printed: str, value: float, unit: str | None, scale: int) -> str:
    """The answer in the units the filing prints it in: "$60,922 million", "$2.97", "24.1%"."""
    sign = "-" if value < 0 else ""
    if unit == "pure" and scale == -2:
        return f"{sign}{printed}%"
    words = _UNIT_WORDS.get(scale, "")
    if unit == "USD":
        return f"{sign}${printed}{words}"
    if unit == "USD/shares":
        return f"{sign}${printed}"
    if unit == "shares":
        return f"{sign}{printed}{words} shares"
    return f"{sign}{printed}{words}" + (f" {unit}" if unit and unit != "pure" else "")


def period_phrase(form: str, period_kind: str, period_end: str, fiscal_year: int) -> str:
    if form == "10-K":
        return f"at the end of fiscal {fiscal_year}" if period_kind == "instant" else f"for fiscal {fiscal_year}"
    date = pd.Timestamp(period_end)
    spoken = f"{date:%B} {date.day}, {date.year}"
    return f"as of {spoken}" if period_kind == "instant" else f"for {_DURATION_WORDS[period_kind]} ended {spoken}"


def _period_words(when: str) -> str:
    """The period a phrase of period_phrase names, without its preposition: "fiscal 2024", "June 30, 2025"."""
    return when.removeprefix("for ").removeprefix("at ").removeprefix("as of ")


def question_text(company: str, label: str, when: str) -> str:
    return f"What was {company}'s {label} {when}?"


def _question_id(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:12]
