"""Page map: where each page of the printed filing starts, and the page number printed on it."""

from __future__ import annotations

import bisect
import re
from collections import Counter

from edgar_eval.domain.filings import Page

_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?[-\u2013\u2014]?\s*(\d{1,4}|[ivxlc]{1,7}|[A-Z]-\d{1,3})\s*[-\u2013\u2014.]?$", re.I
)
_NUMBER_THEN_LABEL = re.compile(r"^(\d{1,4})\s+(\D.{2,60})$")
_LABEL_THEN_NUMBER = re.compile(r"^(.{2,60}\D)\s+(\d{1,4})$")
_MAX_FOOTER_CHARS = 90
_EDGE_LINES = 3


def _candidates(line: str) -> list[tuple[str, str]]:
    """(running label, printed number) readings of a header or footer line.

    Footers print the number alone ("17", "- 17 -", "F-3") or beside a running label that repeats on
    every page ("Apple Inc. | 2024 Form 10-K | 17", "2025 FORM 10-K 3", "4 The Procter & Gamble Company").
    """
    cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else [line.strip()]
    cells = [c for c in cells if c]
    if not cells or len(cells) > 3 or sum(map(len, cells)) > _MAX_FOOTER_CHARS:
        return []
    numbers = [i for i, c in enumerate(cells) if _PAGE_NUMBER.match(c)]
    if len(cells) > 1:
        if len(numbers) != 1:
            return []
        label = " ".join(c for i, c in enumerate(cells) if i != numbers[0])
        return [(label.lower(), _PAGE_NUMBER.match(cells[numbers[0]]).group(1))]
    only = cells[0]
    if numbers:
        return [("", _PAGE_NUMBER.match(only).group(1))]
    found = []
    for pattern, number_group, label_group in ((_NUMBER_THEN_LABEL, 1, 2), (_LABEL_THEN_NUMBER, 2, 1)):
        match = pattern.match(only)
        if match:
            found.append((match.group(label_group).strip().lower(), match.group(number_group)))
    return found


def _edge_candidates(page_text: str) -> list[tuple[str, str]]:
    lines = [line for line in page_text.splitlines() if line.strip()]
    edges = list(reversed(lines[-_EDGE_LINES:])) + lines[:_EDGE_LINES]
    return [candidate for line in edges for candidate in _candidates(line)]


def build_page_map(text: str, page_breaks: tuple[int, ...]) -> list[Page]:
    starts = [0, *page_breaks]
    ends = [*page_breaks, len(text)]
    spans = [(s, e) for s, e in zip(starts, ends) if e > s and text[s:e].strip()]
    per_page = [_edge_candidates(text[s:e]) for s, e in spans]
    # A label beside a number is a running header or footer only if it repeats across pages.
    label_pages = Counter(label for candidates in per_page for label in {label for label, _ in candidates if label})
    running = {label for label, count in label_pages.items() if count >= max(3, len(spans) // 5)}
    pages = []
    for (start, end), candidates in zip(spans, per_page):
        printed = next((number for label, number in candidates if not label or label in running), None)
        pages.append(Page(len(pages), start, end, printed))
    return pages


def page_at(pages: list[Page], offset: int) -> Page:
    index = bisect.bisect_right([p.start for p in pages], offset) - 1
    return pages[max(index, 0)]


def page_label(page: Page) -> str:
    """The printed number where the filing prints one, else the physical page as 'p<index+1>'."""
    return page.printed if page.printed is not None else f"p{page.index + 1}"


def stored_pages(starts, ends, printed) -> list[Page]:
    """A filing's pages as filing_text stores them (starts, ends and printed numbers, in page order); an empty or
    missing printed number is none, so the page is labelled by its position (`page_label`)."""
    return [
        Page(index, int(start), int(end), number if isinstance(number, str) and number else None)
        for index, (start, end, number) in enumerate(zip(starts, ends, printed))
    ]
