"""Page map: where each page of the printed filing starts, and the page number printed on it."""

from __future__ import annotations

import bisect
import re

from edgar_eval.domain.filings import Page

_PRINTED = re.compile(
    r"^(?:page\s+)?[-\u2013\u2014]?\s*([0-9]{1,4}|[ivxlc]{1,7}|[A-Z]-[0-9]{1,3})\s*[-\u2013\u2014]?$",
    re.I,
)


def _printed_number(page_text: str) -> str | None:
    lines = [line.strip() for line in page_text.splitlines() if line.strip()]
    # Footers are the usual place; some filers print the number in a header line instead.
    for line in list(reversed(lines[-3:])) + lines[:2]:
        candidate = line.strip("| ").strip()
        match = _PRINTED.match(candidate)
        if match:
            return match.group(1)
    return None


def build_page_map(text: str, page_breaks: tuple[int, ...]) -> list[Page]:
    starts = [0, *page_breaks]
    ends = [*page_breaks, len(text)]
    pages: list[Page] = []
    for start, end in zip(starts, ends):
        if end <= start or not text[start:end].strip():
            continue
        pages.append(Page(len(pages), start, end, _printed_number(text[start:end])))
    return pages


def page_at(pages: list[Page], offset: int) -> Page:
    index = bisect.bisect_right([p.start for p in pages], offset) - 1
    return pages[max(index, 0)]


def page_label(page: Page) -> str:
    """The printed number where the filing prints one, else the physical page as 'p<index+1>'."""
    return page.printed if page.printed is not None else f"p{page.index + 1}"
