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


def render_table(frame: pd.DataFrame) -> str:
    header = "| " + " | ".join(md_cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def render_report(title: str, preface: list[str], tables: list[ReportTable]) -> str:
    parts = [f"# {md_cell(title)}", "", *preface, ""]
    for table in tables:
        parts += [f"## {md_cell(table.title)}", ""]
        if table.note:
            parts += [table.note, ""]
        parts += [render_table(table.frame), ""]
        p = table.provenance
        parts += [f"Source: asset `{p.asset}`, data version `{p.data_version}`, read from {md_cell(p.read_from)}.", ""]
    return "\n".join(parts).rstrip() + "\n"
