"""XHTML to clean text with stable offsets.

Every table row becomes one Markdown pipe row on its own line, hidden content (the iXBRL header,
display:none) is dropped, whitespace and entities are normalised, and the offset of every inline
XBRL element's displayed text is recorded so facts can be located in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import lxml.etree as etree

IX_NS = "http://www.xbrl.org/2013/inlineXBRL"
_SKIP_TAGS = {"head", "script", "style", "title", "meta", "link"}
_BLOCK_TAGS = {
    "p",
    "div",
    "br",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "li",
    "ul",
    "ol",
    "table",
    "tr",
    "section",
    "article",
    "header",
    "footer",
    "blockquote",
    "pre",
    "hr",
    "center",
    "dl",
    "dt",
    "dd",
    "body",
    "html",
    "thead",
    "tbody",
    "tfoot",
    "caption",
    "form",
}
_WS = re.compile(r"\s+")
_PAGE_BREAK_BEFORE = re.compile(r"(page-break-before|break-before)\s*:\s*(always|page)", re.I)
_PAGE_BREAK_AFTER = re.compile(r"(page-break-after|break-after)\s*:\s*(always|page)", re.I)
_HIDDEN = re.compile(r"display\s*:\s*none", re.I)
# Filings nest a few dozen elements deep; thousands is a broken or hostile document, refused before
# it can exhaust the interpreter's stack.
MAX_NESTING = 400
_CHAR_MAP = str.maketrans({"\u00a0": " ", "\u2009": " ", "\u200b": "", "\u00ad": "", "\ufeff": ""})


def local_name(element: etree._Element) -> str:
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].lower()


def is_ix(element: etree._Element, name: str) -> bool:
    return element.tag == f"{{{IX_NS}}}{name}"


@dataclass(frozen=True)
class CleanText:
    text: str
    page_breaks: tuple[int, ...]  # offsets where a new page starts
    anchors: dict  # ix element -> (start, end) of its displayed text


class _Builder:
    """Accumulates normalised text; resolves pending anchors to the next written character."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.pending_space = False
        self.pending_newline = False
        self.at_line_start = True
        self.inline_only = 0  # > 0 inside a table cell, where a block boundary is a space
        self.unresolved: list[list] = []
        self.page_breaks: list[int] = []

    def _emit(self, s: str) -> None:
        self.parts.append(s)
        self.length += len(s)

    def add_text(self, raw: str | None) -> None:
        if not raw:
            return
        s = _WS.sub(" ", raw.translate(_CHAR_MAP))
        if not s:
            return
        if s[0] == " ":
            self.pending_space = True
            s = s[1:]
        trailing = s.endswith(" ")
        s = s.rstrip(" ")
        if s:
            if self.pending_newline and not self.at_line_start:
                self._emit("\n")
                self.at_line_start = True
            elif self.pending_space and not self.at_line_start:
                self._emit(" ")
            self.pending_newline = self.pending_space = False
            for anchor in self.unresolved:
                anchor[0] = self.length
            self.unresolved.clear()
            self._emit(s)
            self.at_line_start = False
        if trailing:
            self.pending_space = True

    def block_boundary(self) -> None:
        if self.inline_only:
            self.pending_space = True
        elif not self.at_line_start:
            self.pending_newline = True
            self.pending_space = False

    def hard_newline(self) -> None:
        if not self.at_line_start:
            self._emit("\n")
            self.at_line_start = True
        self.pending_newline = self.pending_space = False

    def page_break(self) -> None:
        self.hard_newline()
        if not self.page_breaks or self.page_breaks[-1] != self.length:
            self.page_breaks.append(self.length)

    def text(self) -> str:
        out = "".join(self.parts)
        return out if out.endswith("\n") or not out else out + "\n"


def _style(element: etree._Element) -> str:
    return element.get("style") or ""


def _is_hidden(element: etree._Element) -> bool:
    return bool(_HIDDEN.search(_style(element))) or is_ix(element, "header")


def _visible_text(element: etree._Element) -> str:
    pieces: list[str] = []

    def walk(node: etree._Element, depth: int = 0) -> None:
        if depth > MAX_NESTING:
            raise NestingTooDeep(f"elements nested more than {MAX_NESTING} deep")
        if _is_hidden(node) or local_name(node) in _SKIP_TAGS:
            return
        if node.text:
            pieces.append(node.text)
        for child in node:
            walk(child, depth + 1)
            if child.tail:
                pieces.append(child.tail)

    walk(element)
    return "".join(pieces).translate(_CHAR_MAP).strip()


class NestingTooDeep(ValueError):
    pass


class _Walker:
    def __init__(self, use_plain_hr_as_break: bool) -> None:
        self.out = _Builder()
        self.anchors: dict = {}
        self.use_plain_hr_as_break = use_plain_hr_as_break
        self.depth = 0

    def walk(self, node: etree._Element) -> None:
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise NestingTooDeep(f"elements nested more than {MAX_NESTING} deep")
            self._walk(node)
        finally:
            self.depth -= 1

    def _walk(self, node: etree._Element) -> None:
        name = local_name(node)
        if not name or name in _SKIP_TAGS or _is_hidden(node):
            return
        style = _style(node)
        if _PAGE_BREAK_BEFORE.search(style):
            self.out.page_break()
        if name == "table":
            self._table(node)
        else:
            anchor = None
            if node.tag in (f"{{{IX_NS}}}nonFraction", f"{{{IX_NS}}}nonNumeric"):
                anchor = [None]
                self.out.unresolved.append(anchor)
            block = name in _BLOCK_TAGS
            if block:
                self.out.block_boundary()
            self.out.add_text(node.text)
            for child in node:
                self.walk(child)
                self.out.add_text(child.tail)
            if anchor is not None:
                if anchor[0] is None:  # element carried no visible text
                    if anchor in self.out.unresolved:
                        self.out.unresolved.remove(anchor)
                else:
                    self.anchors[node] = (anchor[0], self.out.length)
            if block:
                self.out.block_boundary()
        if _PAGE_BREAK_AFTER.search(style) or (
            name == "hr" and self.use_plain_hr_as_break and not _PAGE_BREAK_BEFORE.search(style)
        ):
            self.out.page_break()

    def _rows(self, table: etree._Element):
        for child in table:
            name = local_name(child)
            if name == "tr":
                yield child
            elif name in ("thead", "tbody", "tfoot"):
                yield from self._rows(child)

    def _table(self, table: etree._Element) -> None:
        out = self.out
        for row in self._rows(table):
            if _is_hidden(row):
                continue
            cells = [c for c in row if local_name(c) in ("td", "th") and not _is_hidden(c)]
            filled = [c for c in cells if _visible_text(c)]
            if not filled:
                continue
            out.hard_newline()
            out._emit("|")
            out.at_line_start = False
            for cell in filled:
                out.pending_space = True
                out.pending_newline = False
                out.inline_only += 1
                self.walk_cell(cell)
                out.inline_only -= 1
                out.pending_space = False
                out._emit(" |")
            out.hard_newline()
        out.block_boundary()

    def walk_cell(self, cell: etree._Element) -> None:
        self.out.add_text(cell.text)
        for child in cell:
            self.walk(child)
            self.out.add_text(child.tail)


def extract_text(root: etree._Element) -> CleanText:
    """Clean text of a parsed XHTML document, its page breaks and the ix element anchors."""
    styled_breaks = any(
        _PAGE_BREAK_BEFORE.search(_style(e)) or _PAGE_BREAK_AFTER.search(_style(e))
        for e in root.iter()
        if isinstance(e.tag, str) and e.get("style")
    )
    walker = _Walker(use_plain_hr_as_break=not styled_breaks)
    body = next((e for e in root.iter() if local_name(e) == "body"), root)
    walker.walk(body)
    text = walker.out.text()
    breaks = tuple(b for b in walker.out.page_breaks if 0 < b < len(text))
    return CleanText(text=text, page_breaks=breaks, anchors=walker.anchors)
