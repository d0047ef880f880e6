"""Part x Item sections of 10-K, 10-Q and 8-K filings, the notes start, and cross-reference stubs."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from edgar_eval.domain.filings import Section

_PART = re.compile(r"^PART\s+(IV|III|II|I)\b[.:\u2013\u2014-]?\s*(.*)$", re.I)
_ITEM = re.compile(r"^ITEM\s+(\d{1,2}[A-C]?)\s*(?:[.:\u2013\u2014-]|\s|$)\s*(.*)$", re.I)
_ITEM_8K = re.compile(r"^ITEM\s+(\d\.\d{2})\s*[.:\u2013\u2014-]?\s*(.*)$", re.I)
_NOTES_HEADING = re.compile(
    r"^notes\s+to\s+(?:the\s+)?(?:condensed\s+)?(?:consolidated\s+)?(?:combined\s+)?financial\s+statements"
    r"(?:\s*\((?:unaudited|continued)\))?\s*:?$", re.I)
_NOTE_ONE = re.compile(
    r"^(?:note\s+1\b|1\.\s*(?:summary|basis|organization|description|nature|significant|financial\s+statements|background|"
    r"general|the\s+company|overview|business))", re.I)
_PAGE_NUMBER_CELL = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,7}|[A-Z]-\d{1,3})(?:\s*[-\u2013]\s*\d{1,4})?$", re.I)
_CROSS_REFERENCE_CUES = re.compile(
    r"\b(incorporated\s+(?:herein\s+)?by\s+reference|is\s+set\s+forth|are\s+set\s+forth|see\s+|refer\s+to|included\s+in|appears?\s+in|can\s+be\s+found)",
    re.I,
)
_TARGET_ITEM = re.compile(r"\bItem\s+(\d{1,2}[A-C]?)\b", re.I)
_TARGET_PROXY = re.compile(r"\bproxy\s+statement\b", re.I)
_TARGET_STATEMENTS_HERE = re.compile(r"\bfinancial\s+statements\b.*\b(?:in|of)\s+this\s+(?:annual\s+)?report\b", re.I | re.S)
STATEMENTS_ELSEWHERE = "financial statements elsewhere in this report"
_TARGET_ANNUAL_REPORT = re.compile(r"\bannual\s+report\s+to\s+(?:stockholders|shareholders|shareowners)\b", re.I)
_MAX_HEADING_CHARS = 160
_MAX_STUB_CHARS = 900

_TEN_K_PARTS = {
    **{i: "Part I" for i in ("1", "1A", "1B", "1C", "2", "3", "4")},
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
            if not cells or (len(cells) > 1 and _PAGE_NUMBER_CELL.match(cells[-1])):
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


def find_sections(text: str, form: str) -> list[Section]:
    """Sections keyed by part and item, in document order.

    A key that occurs several times (a table of contents written as prose, running headers) keeps
    its longest occurrence: the real section holds the text, the others are one line each.
    """
    headings = _headings(text, form)
    if not headings:
        return [Section(part="", item="", title="Document", start=0, end=len(text))]
    spans = []
    for heading, following in zip(headings, [*headings[1:], None]):
        end = following.start if following else len(text)
        spans.append((heading, end))
    best: dict[tuple[str, str], tuple[_Heading, int]] = {}
    for heading, end in spans:
        key = (heading.part, heading.item)
        if key not in best or end - heading.start > best[key][1] - best[key][0].start:
            best[key] = (heading, end)
    sections = []
    for heading, end in sorted(best.values(), key=lambda pair: pair[0].start):
        first_line_end = text.find("\n", heading.start, end)
        body = text[first_line_end + 1 : end].strip() if first_line_end != -1 else ""
        sections.append(
            Section(
                part=heading.part,
                item=heading.item,
                title=heading.title,
                start=heading.start,
                end=end,
                cross_reference_target=_cross_reference_target(body),
            )
        )
    return sections


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
