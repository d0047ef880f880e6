"""Small text helpers shared by the guard, the reader and the relevance features."""

from __future__ import annotations

import re

STOPWORDS = frozenset(
    "a an and are as at by did do does for from how in is it its much of on or report reported the "
    "to was were what which end fiscal year during company's".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
_YEAR = re.compile(r"\b(19\d{2}|20\d{2})\b")


def asked_years(question: str) -> list[int]:
    return [int(y) for y in _YEAR.findall(question)]


def content_tokens(text: str) -> list[str]:
    """Lower-case content words; capitalised words (names) and stopwords are not content."""
    tokens = []
    for word in _WORD.findall(text):
        if word[0].isupper() and not word.isupper():
            continue
        token = word.lower().removesuffix("'s").strip("'-")
        if token and token not in STOPWORDS:
            tokens.append(token)
    return tokens


def name_tokens(question: str) -> list[str]:
    """Capitalised words after the first: the names a question asks about."""
    words = _WORD.findall(question)[1:]
    return [w.removesuffix("'s").lower() for w in words if w[0].isupper() and not w.isupper()]
