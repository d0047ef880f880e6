"""Where a filing prints a line item's words beside a figure, and for which years.

An unanswerable template question must not be answerable by a reader: an absent-concept question is kept only when
none of its concept's words (label and synonyms, `labels.concept_words`) is printed beside a figure in its scope, and
an other-year question only when its year is not printed as a period beside the concept's words. "Beside a figure"
is read the way a person reads a filing:

* a table row whose label cell (its first cell) holds the words and whose other cells hold a figure;
* a sentence of prose that holds the words and a figure (a number that is not a year).

"For a year": a table row counts for the years its table prints as column headers (the rows above its first row of
figures: "Fiscal 2020", "2020"); a sentence counts for the years it names.

Words match whole, case-insensitively, with curly apostrophes read as straight ones, so "shareholders' equity"
matches "Shareholders’ Equity" and "revenue" does not match "revenues" unless listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_FIGURE = re.compile(r"(?<![\w.])\(?\$?\s?\d[\d,]*(?:\.\d+)?\)?%?")
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(\"\u201c])")


def _normal(text: str) -> str:
    return text.lower().replace("\u2019", "'").replace("\u2018", "'")


_REFERENCE_BEFORE = re.compile(r"\b(?:notes?|items?|pages?|parts?|sections?|exhibits?|rules?|form|schedule)\s*$", re.I)


def _has_figure(text: str) -> bool:
    """A number that is not a year, nor a reference ("Note 4", "Item 7", "page 12")."""
    for match in _FIGURE.finditer(text):
        if _REFERENCE_BEFORE.search(text, max(0, match.start() - 12), match.start()):
            continue
        digits = re.sub(r"\D", "", match.group(0))
        if digits and not (_YEAR.fullmatch(digits) and "," not in match.group(0) and "." not in match.group(0)):
            return True
    return False


@dataclass
class PrintedIndex:
    """One scope's rows and sentences that print a figure, with the years each counts for."""

    entries: list[tuple[str, frozenset[int]]] = field(default_factory=list)  # (normalised words, years)
    shown: list[tuple[str, str]] = field(default_factory=list)  # (source, the row or sentence as printed), per entry
    _cache: dict[int | None, str] = field(default_factory=dict)

    @classmethod
    def of(cls, texts: Iterable[str], sources: Iterable[str] | None = None) -> "PrintedIndex":
        index = cls()
        texts = list(texts)
        for text, source in zip(texts, sources if sources is not None else [""] * len(texts)):
            index._add(text, source)
        return index

    def _add(self, text: str, source: str = "") -> None:
        header_years: set[int] = set()
        in_table, seen_figures = False, False
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith("|"):
                if not in_table:
                    header_years, in_table, seen_figures = set(), True, False
                cells = [c.strip() for c in stripped.strip("|").split("|")]
                label, rest = (cells[0], " ".join(cells[1:])) if cells else ("", "")
                if _has_figure(rest) and label and not _YEAR.fullmatch(label.strip()):
                    seen_figures = True
                    self.entries.append((_normal(label), frozenset(header_years)))
                    self.shown.append((source, stripped))
                elif not seen_figures:
                    header_years |= {int(y) for y in _YEAR.findall(stripped)}
                continue
            in_table = False
            for sentence in _SENTENCE_END.split(stripped):
                if _has_figure(sentence):
                    self.entries.append((_normal(sentence), frozenset(int(y) for y in _YEAR.findall(sentence))))
                    self.shown.append((source, sentence))

    def _joined(self, year: int | None) -> str:
        if year not in self._cache:  # one string per year: each word is then one search, not one per row
            self._cache[year] = "\n".join(text for text, years in self.entries if year is None or year in years)
        return self._cache[year]

    def printed(self, words: Iterable[str], year: int | None = None) -> str | None:
        """The first of `words` printed beside a figure (for `year`, when given), or None."""
        joined = self._joined(year)
        for word in words:
            if word and re.search(rf"(?<![\w]){re.escape(_normal(word))}(?![\w])", joined):
                return word
        return None

    def passages(self, words: Iterable[str], limit: int = 8) -> list[tuple[str, str]]:
        """(source, row or sentence as printed) of the entries printing one of `words` beside a figure, a balanced
        share per source (each source's first matches, sources taking turns), for a person to read."""
        patterns = [re.compile(rf"(?<![\w]){re.escape(_normal(w))}(?![\w])") for w in words if w]
        by_source: dict[str, list[tuple[str, str]]] = {}
        for (text, _), shown in zip(self.entries, self.shown):
            if any(p.search(text) for p in patterns):
                by_source.setdefault(shown[0], []).append(shown)
        picked: list[tuple[str, str]] = []
        turn = 0
        while len(picked) < limit and any(turn < len(q) for q in by_source.values()):
            picked += [q[turn] for q in by_source.values() if turn < len(q)][: limit - len(picked)]
            turn += 1
        return sorted(picked, key=lambda pair: pair[0])
