"""Part x Item sections of 10-K, 10-Q and 8-K filings, the notes start, and cross-reference stubs."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from edgar_eval.domain.filings import Section

_PART = re.compile(r"^PART\s+(IV|III|II|I)\b[.:\u2013\u2014-]?\s*(.*)$", re.I)
# "Item 7.", "ITEM 1A -", "Item 4A", and unspaced "Item10." all open an item.
_ITEM = re.compile(r"^ITEM\s*(\d{1,2}[A-C]?)(?![\dA-Z])\s*(?:[.:\u2013\u2014-]|\s|$)\s*(.*)$", re.I)
_ITEM_8K = re.compile(r"^ITEM\s+(\d\.\d{2})\s*[.:\u2013\u2014-]?\s*(.*)$", re.I)
_NOTES_HEADING = re.compile(
    r"^notes\s+to\s+(?:the\s+)?(?:condensed\s+)?(?:consolidated\s+)?(?:combined\s+)?financial\s+statements"
    r"(?:\s*\((?:unaudited|continued)\))?\s*:?$",
    re.I,
)
_NOTE_ONE = re.compile(
    r"^(?:note\s+1\b|1\.\s*(?:summary|basis|organization|description|nature|significant|financial\s+statements|background|"
    r"general|the\s+company|overview|business))",
    re.I,
)
_PAGE_NUMBER_CELL = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,7}|[A-Z]-\d{1,3})(?:\s*[-\u2013]\s*\d{1,4})?$", re.I)
_CROSS_REFERENCE_CUES = re.compile(
    r"\b(incorporated\s+(?:herein\s+)?by\s+reference|is\s+set\s+forth|are\s+set\s+forth|see\s+|refer\s+to|included\s+in|appears?\s+in|can\s+be\s+found)",
    re.I,
)
_TARGET_ITEM = re.compile(r"\bItem\s+(\d{1,2}[A-C]?)\b", re.I)
_TARGET_PROXY = re.compile(r"\bproxy\s+statement\b", re.I)
_TARGET_STATEMENTS_HERE = re.compile(
    r"\bfinancial\s+statements\b.*\b(?:in|of)\s+this\s+(?:annual\s+)?report\b", re.I | re.S
)
STATEMENTS_ELSEWHERE = "financial statements elsewhere in this report"
_TARGET_ANNUAL_REPORT = re.compile(r"\bannual\s+report\s+to\s+(?:stockholders|shareholders|shareowners)\b", re.I)
_MAX_HEADING_CHARS = 160
_MAX_STUB_CHARS = 900

_TEN_K_PARTS = {
    **{i: "Part I" for i in ("1", "1A", "1B", "1C", "2", "3", "4", "4A")},
    **{i: "Part II" for i in ("5", "6", "7", "7A", "8", "9", "9A", "9B", "9C")},
    **{i: "Part III" for i in ("10", "11", "12", "13", "14")},
    **{i: "Part IV" for i in ("15", "16")},
}


@dataclass(frozen=True)
class _Heading:
    start: int
    part: str
    item: str
    title: str


def _is_contents_row(line: str) -> bool:
    """A table row that ends in a page number: a table-of-contents entry."""
    if not line.startswith("|"):
        return False
    cells = [c.strip() for c in line.strip("|").split("|") if c.strip()]
    return len(cells) > 1 and bool(_PAGE_NUMBER_CELL.match(cells[-1]))


def _heading_lines(text: str):
    """(offset, heading text) for each line that could be a heading.

    Filers lay headings out as prose lines or as one-row tables ("| Item 7. | Management's ... |");
    a table row that ends in a page number is a table-of-contents entry, never a heading.
    """
    offset = 0
    for raw in text.splitlines(keepends=True):
        line = raw.strip()
        start, offset = offset, offset + len(raw)
        if not line or len(line) > _MAX_HEADING_CHARS:
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|") if c.strip()]
            if not cells or _is_contents_row(line):
                continue
            line = " ".join(cells)
        yield start, line


def _item_order(item: str) -> float:
    return int(item.rstrip("ABC")) + (0.5 if item[-1] in "ABC" else 0.0)


def _headings(text: str, form: str) -> list[_Heading]:
    """Item headings in document order, each with its part.

    A 10-K's part follows from the item number. A 10-Q repeats item numbers, so its part comes from
    the PART heading before the item, counted only when the next item heading is an Item 1 (a table of
    contents lists "PART II" long before the body reaches it); failing that, an item number lower than
    the one before it starts the other part.
    """
    found: list[tuple[int, str, str, str | None]] = []  # offset, item, title, part marker seen just before
    marker: str | None = None
    for offset, line in _heading_lines(text):
        part_match = _PART.match(line)
        if part_match:
            marker = f"Part {part_match.group(1).upper()}"
            line = part_match.group(2).strip()
            if not line:
                continue
        match = (_ITEM_8K if form == "8-K" else _ITEM).match(line)
        if not match:
            continue
        item = match.group(1).upper()
        if form == "10-K" and item not in _TEN_K_PARTS:
            continue
        found.append((offset, item, match.group(2).strip(" .:"), marker))
        marker = None
    headings: list[_Heading] = []
    part, previous = "Part I", None
    for offset, item, title, seen_part in found:
        if form == "8-K":
            headings.append(_Heading(offset, "", item, title))
            continue
        if form == "10-K":
            headings.append(_Heading(offset, _TEN_K_PARTS[item], item, title))
            continue
        order = _item_order(item)
        if seen_part is not None and item == "1":
            part = seen_part
        elif previous is not None and order < previous:
            part = "Part II" if part == "Part I" else "Part I"
        previous = order
        headings.append(_Heading(offset, part, item, title))
    return headings


def _cross_reference_target(body: str) -> str | None:
    if len(body) > _MAX_STUB_CHARS or not _CROSS_REFERENCE_CUES.search(body):
        return None
    item = _TARGET_ITEM.search(body)
    if item:
        return f"Item {item.group(1).upper()}"
    if _TARGET_PROXY.search(body):
        return "Proxy Statement"
    if _TARGET_ANNUAL_REPORT.search(body):
        return "Annual Report to Stockholders"
    if _TARGET_STATEMENTS_HERE.search(body):
        return STATEMENTS_ELSEWHERE
    return None


_TOC_GAP = 600  # characters: headings closer than this to the one before are listed, not opened
_TOC_MIN_RUN = 3


def _table_of_contents_end(headings: list[_Heading]) -> int:
    """Where a table of contents read as headings ends (its rows print no page numbers), 0 when there is none:
    the run of item headings that opens the document, each within a few hundred characters of the one before,
    when (nearly) every item it lists is opened again after it. A body's closing run of short items (10 to 16,
    incorporated by reference) is close together too, but nothing repeats it."""
    run, listed = 1, {(headings[0].part, headings[0].item)} if headings else set()
    while (
        run < len(headings)
        and headings[run].start - headings[run - 1].start < _TOC_GAP
        and (headings[run].part, headings[run].item) not in listed
    ):  # a table of contents lists an item once
        listed.add((headings[run].part, headings[run].item))
        run += 1
    if run < _TOC_MIN_RUN:
        return 0
    later = {(h.part, h.item) for h in headings[run:]}
    return headings[run - 1].start + 1 if len(listed & later) >= 0.8 * len(listed) else 0


def _runs(headings: list[_Heading], text_end: int) -> list[tuple[list[_Heading], int]]:
    """Consecutive headings of one key (no other item's heading between them) as one run, with the offset where
    the run ends: the next heading of another key. An item heading repeated as a running header on every page
    of the item is one run that spans the whole item."""
    runs: list[tuple[list[_Heading], int]] = []
    for heading in headings:
        if runs and (runs[-1][0][0].part, runs[-1][0][0].item) == (heading.part, heading.item):
            runs[-1][0].append(heading)
        else:
            if runs:
                runs[-1] = (runs[-1][0], heading.start)
            runs.append(([heading], text_end))
    return runs


def _contents_only(text: str, start: int, end: int) -> bool:
    """The text between two headings of one item is a table-of-contents listing: most of its lines (after the
    heading line) are rows ending in page numbers."""
    lines = [line.strip() for line in text[start:end].splitlines()[1:] if line.strip()]
    return bool(lines) and sum(_is_contents_row(line) for line in lines) * 2 >= len(lines)


def find_sections(text: str, form: str) -> list[Section]:
    """Sections keyed by part and item, in document order.

    A key that occurs several times (in a table of contents, or as a running header repeated on every page of the
    item) starts at its first occurrence after the table of contents: of the runs of its headings (a heading and
    its running headers, with no other item's heading between them) the one that spans the most text, from the
    run's first heading that is not a table-of-contents entry. A running header neither ends its own item nor
    starts another; the item runs to the next item's heading.
    """
    headings = _headings(text, form)
    if not headings:
        return [Section(part="", item="", title="Document", start=0, end=len(text))]
    body_from = _table_of_contents_end(headings)
    in_body = {(h.part, h.item) for h in headings if h.start >= body_from}
    headings = [h for h in headings if h.start >= body_from or (h.part, h.item) not in in_body]
    best: dict[tuple[str, str], tuple[list[_Heading], int]] = {}
    for run, end in _runs(headings, len(text)):
        key = (run[0].part, run[0].item)
        if key not in best or end - run[0].start > best[key][1] - best[key][0][0].start:
            best[key] = (run, end)
    chosen = []
    for run, end in best.values():
        while len(run) > 1 and _contents_only(text, run[0].start, run[1].start):
            run = run[1:]
        chosen.append((run[0], end))
    sections = []
    for heading, end in sorted(chosen, key=lambda pair: pair[0].start):
        first_line_end = text.find("\n", heading.start, end)
        body = text[first_line_end + 1 : end].strip() if first_line_end != -1 else ""
        sections.append(
            Section(
                part=heading.part,
                item=heading.item,
                title=heading.title,
                start=heading.start,
                end=end,
                cross_reference_target=_cross_reference_target(_without_running_headers(body, heading)),
            )
        )
    return sections


def _without_running_headers(body: str, heading: _Heading) -> str:
    """The body with lines that repeat the item's own heading dropped, so a running header does not make a
    one-sentence stub look long."""
    return "\n".join(
        line
        for line in body.splitlines()
        if heading.title.lower() not in line.lower() or len(line) > _MAX_HEADING_CHARS
    )


def find_notes_start(text: str) -> int | None:
    """Offset where the notes to the financial statements begin.

    The "Note 1" heading that follows a "Notes to ... Financial Statements" heading, else that
    heading itself, else the first "Note 1" heading. None when the document holds no notes (a 10-K
    whose statements are incorporated by reference from an exhibit, an 8-K, a proxy statement).
    """
    notes_heading = None
    first_note_one = None
    for offset, line in _heading_lines(text):
        if notes_heading is None and _NOTES_HEADING.match(line):
            notes_heading = offset
        elif _NOTE_ONE.match(line):
            if notes_heading is not None:
                return offset if offset - notes_heading < 20_000 else notes_heading
            if first_note_one is None:
                first_note_one = offset
    return notes_heading if notes_heading is not None else first_note_one


def resolve_statement_references(sections: list[Section], notes_start: int | None) -> list[Section]:
    """A stub that points at "the financial statements in this report" points at the item holding the notes."""
    holder = section_at(sections, notes_start) if notes_start is not None else None
    resolved = []
    for section in sections:
        if section.cross_reference_target == STATEMENTS_ELSEWHERE and holder is not None and holder is not section:
            section = replace(section, cross_reference_target=f"Item {holder.item}")
        resolved.append(section)
    return resolved


def section_at(sections: list[Section], offset: int) -> Section | None:
    for section in sections:
        if section.start <= offset < section.end:
            return section
    return None


_SIGNATURES = re.compile(r"^\s*\|?\s*SIGNATURES?\s*\|?\s*$", re.I | re.M)


def item_coverage(text: str, form: str, sections: list[Section]) -> float:
    """The share of the text from the first item heading (a table of contents included) to the last
    "SIGNATURES" heading that lies inside some item's section: what a reader of sections misses is 1 - this."""
    headings = _headings(text, form)
    if not headings:
        return 0.0
    first = headings[0].start
    signatures = [m.start() for m in _SIGNATURES.finditer(text) if m.start() > first]
    end = signatures[-1] if signatures else len(text)
    covered = sum(max(0, min(s.end, end) - max(s.start, first)) for s in sections if s.item)
    return covered / max(end - first, 1)
