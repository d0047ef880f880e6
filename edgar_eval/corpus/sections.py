"""Part x Item sections of 10-K, 10-Q and 8-K filings, the notes start, and cross-reference stubs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from edgar_eval.domain.filings import Section

_PART = re.compile(r"^PART\s+(IV|III|II|I)\b\.?", re.I)
_ITEM = re.compile(r"^ITEM\s+(\d{1,2}[A-C]?)\s*(?:[.:\u2013\u2014-]|\s|$)\s*(.*)$", re.I)
_ITEM_8K = re.compile(r"^ITEM\s+(\d\.\d{2})\s*[.:\u2013\u2014-]?\s*(.*)$", re.I)
_NOTE_ONE = re.compile(r"^(?:NOTE\s+1\b|1\.\s+(?:Summary|Basis|Organization|Description|Nature))", re.I)
_CROSS_REFERENCE_CUES = re.compile(
    r"\b(incorporated\s+(?:herein\s+)?by\s+reference|is\s+set\s+forth|are\s+set\s+forth|see\s+|refer\s+to|included\s+in|appears?\s+in|can\s+be\s+found)",
    re.I,
)
_TARGET_ITEM = re.compile(r"\bItem\s+(\d{1,2}[A-C]?)\b", re.I)
_TARGET_PROXY = re.compile(r"\bproxy\s+statement\b", re.I)
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


def _lines(text: str):
    offset = 0
    for line in text.splitlines(keepends=True):
        yield offset, line.strip()
        offset += len(line)


def _headings(text: str, form: str) -> list[_Heading]:
    headings: list[_Heading] = []
    part = ""
    for offset, line in _lines(text):
        # Table rows are the table of contents or data, never a heading.
        if not line or line.startswith("|") or len(line) > _MAX_HEADING_CHARS:
            continue
        part_match = _PART.match(line)
        if part_match:
            part = f"Part {part_match.group(1).upper()}"
            continue
        if form == "8-K":
            match = _ITEM_8K.match(line)
            if match:
                headings.append(_Heading(offset, "", match.group(1), match.group(2).strip()))
            continue
        match = _ITEM.match(line)
        if not match:
            continue
        item = match.group(1).upper()
        if form == "10-K":
            heading_part = _TEN_K_PARTS.get(item)
            if heading_part is None:
                continue
        else:
            heading_part = part or "Part I"
        headings.append(_Heading(offset, heading_part, item, match.group(2).strip(" .")))
    return headings


def _cross_reference_target(body: str) -> str | None:
    if len(body) > _MAX_STUB_CHARS or not _CROSS_REFERENCE_CUES.search(body):
        return None
    item = _TARGET_ITEM.search(body)
    if item:
        return f"Item {item.group(1).upper()}"
    if _TARGET_PROXY.search(body):
        return "Proxy Statement"
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


def find_notes_start(text: str, sections: list[Section]) -> int | None:
    """Offset of the "Note 1" heading that begins the notes to the financial statements."""
    for offset, line in _lines(text):
        if line and not line.startswith("|") and len(line) <= _MAX_HEADING_CHARS and _NOTE_ONE.match(line):
            return offset
    return None


def section_at(sections: list[Section], offset: int) -> Section | None:
    for section in sections:
        if section.start <= offset < section.end:
            return section
    return None
