"""Where a sentence ends, in answers, questions and quotes: one splitter for the citation check and the golden gates.

A stop (. ! ?, with closing quotes or brackets) ends a sentence when whitespace and a word that is not lower case
follow it on the same line; a line break always ends one. A dot after an abbreviation ("Inc.", "U.S."), an initial
("J. Smith") or a list number ("1. Revenue") does not.
"""

from __future__ import annotations

import re

_TERMINAL = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*")
_ABBREVIATIONS = frozenset(
    "inc corp co cos ltd llc plc lp llp no nos vs v mr mrs ms dr jr sr st approx est fig figs jan feb mar apr jun jul "
    "aug sep sept oct nov dec cf al dept div bros ref vol govt p pp".split()
)


def _is_abbreviation(text: str, line_start: int, dot: int) -> bool:
    before = text[line_start:dot]
    if re.fullmatch(r"\s*(?:[-*\u2022+]\s*)?\(?\d{1,3}", before):
        return True  # "1. Revenue ..." numbers a list
    word = re.search(r"([A-Za-z][A-Za-z.]*)\Z", before)
    if not word:
        return False
    token = word.group(1)
    if "." in token:
        return True  # "U.S", "e.g", "i.e", "N.A"
    if len(token) == 1 and token.isupper():
        return True  # an initial: "J. Smith"
    return token.lower() in _ABBREVIATIONS


def sentence_spans(text: str, marker: re.Pattern[str] | None = None) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences of `text`, whitespace trimmed; a `marker` (a citation) right after a
    sentence's stop stays with that sentence."""
    spans: list[tuple[int, int]] = []
    line_start = 0
    for line in text.split("\n"):
        line_end = line_start + len(line)
        cut = line_start
        for terminal in _TERMINAL.finditer(text, line_start, line_end):
            if terminal.start() < cut:
                continue
            if (
                text[terminal.start()] == "."
                and terminal.group(0)[:2] != ".."
                and _is_abbreviation(text, line_start, terminal.start())
            ):
                continue
            stop = terminal.end()
            while True:
                gap = stop
                while gap < line_end and text[gap] in " \t":
                    gap += 1
                following = marker.match(text, gap, line_end) if marker is not None else None
                if not following:
                    break
                stop = following.end()
            nxt = stop
            while nxt < line_end and text[nxt].isspace():
                nxt += 1
            if nxt == stop and nxt < line_end:
                continue  # no space after the stop: "1.5", "U.S.A"
            if nxt < line_end and text[nxt].islower():
                continue
            spans.append((cut, stop))
            cut = stop
        spans.append((cut, line_end))
        line_start = line_end + 1
    trimmed = []
    for start, end in spans:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            trimmed.append((start, end))
    return trimmed
