"""Markdown report rendering. Every cell is escaped: filing text is untrusted input."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import pandas as pd

_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]|<>])")
_ENTITY_START = re.compile(
    r"&(?=#?[A-Za-z0-9]+;)"
)  # "&lt;" in filing text stays text; "Johnson & Johnson" stays as written


def md_cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    text = re.sub(r"\s+", " ", str(value)).strip()
    text = _ENTITY_START.sub("&amp;", text)
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def percent(value: float) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{100 * value:.1f}%"


def interval(low: float, high: float) -> str:
    if low is None or math.isnan(low):
        return "n/a"
    return f"{100 * low:.1f}% to {100 * high:.1f}%"


@dataclass(frozen=True)
class Provenance:
    asset: str
    data_version: str
    read_from: str  # which partitions or upstream tables


@dataclass(frozen=True)
class ReportTable:
    title: str
    frame: pd.DataFrame  # already formatted for reading
    provenance: Provenance
    note: str = ""
    after: tuple[str, ...] = ()  # Markdown lines under the table (a line starting "- " is a bullet), before its source
    figures: tuple[tuple[str, str], ...] = ()  # (title, SVG) drawn from this table's figures: the HTML shows them here


def heading_anchor(title: str) -> str:
    """The anchor GitHub gives a heading of this (plain-text) title: lower case, punctuation dropped, spaces to
    hyphens; "section" when nothing is left."""
    text = re.sub(r"\s+", " ", title).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-") or "section"


def heading_anchors(titles: list[str]) -> list[str]:
    """One anchor per title, in order; a repeated one gets "-1", "-2" as GitHub numbers them."""
    seen: dict[str, int] = {}
    out = []
    for title in titles:
        anchor = base = heading_anchor(title)
        while anchor in seen:
            seen[base] += 1
            anchor = f"{base}-{seen[base]}"
        seen[anchor] = 0
        out.append(anchor)
    return out


def render_table(frame: pd.DataFrame) -> str:
    header = "| " + " | ".join(md_cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def contents_lines(tables: list[ReportTable]) -> list[str]:
    """The table of contents: one linked bullet per section, to the anchor each section carries."""
    anchors = heading_anchors([table.title for table in tables])
    return ["Contents:", "", *(f"- [{md_cell(t.title)}](#{a})" for t, a in zip(tables, anchors)), ""]


def render_report(title: str, preface: list[str], tables: list[ReportTable], contents_after: int | None = None) -> str:
    """The report as Markdown. With ``contents_after`` each section opens with an explicit anchor (GitHub's own for
    its heading) and a table of contents follows that many sections (0: right after the preface)."""
    parts = [f"# {md_cell(title)}", "", *preface, ""]
    anchors = heading_anchors([table.title for table in tables])
    for i, (table, anchor) in enumerate(zip(tables, anchors)):
        if contents_after == i:
            parts += contents_lines(tables)
        if contents_after is not None:
            parts += [f'<a id="{anchor}"></a>', ""]
        parts += [f"## {md_cell(table.title)}", ""]
        if table.note:
            parts += [table.note, ""]
        parts += [render_table(table.frame), ""]
        if table.after:
            parts += [*table.after, ""]
        p = table.provenance
        parts += [f"Source: asset `{p.asset}`, data version `{p.data_version}`, read from {md_cell(p.read_from)}.", ""]
    if contents_after is not None and contents_after >= len(tables):
        parts += contents_lines(tables)
    return "\n".join(parts).rstrip() + "\n"


def _ratio(k: int, n: int) -> str:
    return f"{k}/{n}"


def _share_cell(share: float, k: int, n: int) -> str:
    """A share as the report prints it with its count: "93.5% (303/324)"."""
    return f"{percent(share)} ({_ratio(k, n)})"
