"""The report as one self-contained HTML5 document: inline CSS, inline SVG figures, no scripts.

Filing text is untrusted input, so every title, cell, note and preface line goes
through ``html.escape`` and a Content-Security-Policy forbids scripts and every
external resource should anything slip through.  The only links are the table of
contents' in-page ones (``href="#anchor"``, the anchor made of letters, digits,
``-`` and ``_`` only).  Output is deterministic: no
timestamps, tables and figures in the order given.

The preface and table notes are the Markdown lines ``render_report`` takes: a line
starting with ``- `` is a bullet, `` `text` `` is code, and outside code the
backslash escapes and ``&amp;`` that ``md_cell`` adds are undone (as a Markdown
renderer would) before the text is HTML-escaped, so one preface feeds both
renderers.  Titles, cells and ``read_from`` are plain text, as ``render_report``
takes them.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from html import escape

import pandas as pd

from edgar_eval.report.markdown import ReportTable, heading_anchors

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'none'; object-src 'none'; style-src 'unsafe-inline'; "
    "base-uri 'none'; form-action 'none'"
)

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 80rem; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9em; background: #f4f4f4; padding: 0 .2em; overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: .9rem; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: left; vertical-align: top; }
thead th { background: #f0f0f0; }
tbody tr:nth-child(even) { background: #fafafa; }
p.source { color: #555; font-size: .85rem; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
nav.contents ul { columns: 2 20rem; padding-left: 1.2rem; }
""".strip()  # noqa: E501  (one CSS rule per line, as the report carries it)

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CODE_SPAN = re.compile(r"(`[^`]*`)")
_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])|&amp;")
_SVG_NS = "{http://www.w3.org/2000/svg}"
_SVG_ELEMENTS = frozenset({"svg", "g", "title", "desc", "rect", "line", "polyline", "circle", "text", "tspan"})


def _escape(value: object) -> str:
    return escape(_CONTROL.sub("\ufffd", str(value)), quote=True)


def html_cell(value: object) -> str:
    """A cell as ``md_cell`` reads it (missing values ``n/a``, whitespace collapsed), HTML-escaped."""
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return _escape(re.sub(r"\s+", " ", str(value)).strip())


def inline(text: str) -> str:
    """One Markdown line: code spans become ``<code>``, ``md_cell``'s escapes are undone outside them; all escaped."""
    out = []
    for i, part in enumerate(_CODE_SPAN.split(text)):
        if i % 2:
            out.append(f"<code>{_escape(part[1:-1])}</code>")
        else:
            out.append(_escape(_MARKDOWN_ESCAPE.sub(lambda m: m.group(1) or "&", part)))
    return "".join(out)


def _blocks(lines: list[str]) -> list[str]:
    """Runs of ``- `` lines as one list, other lines as paragraphs; blank lines only separate."""
    out: list[str] = []
    bullets: list[str] = []
    for line in [*lines, ""]:
        if line.startswith("- "):
            bullets.append(f"<li>{inline(line[2:].strip())}</li>")
            continue
        if bullets:
            out += ["<ul>", *bullets, "</ul>"]
            bullets = []
        if line.strip():
            out.append(f"<p>{inline(line.strip())}</p>")
    return out


def _table(frame: pd.DataFrame) -> list[str]:
    if len(frame.columns) == 0:
        return ['<p class="empty">No rows.</p>']
    head = "".join(f"<th>{html_cell(c)}</th>" for c in frame.columns)
    body = [
        "<tr>" + "".join(f"<td>{html_cell(v)}</td>" for v in row) + "</tr>" for row in frame.itertuples(index=False)
    ]
    return [
        '<div class="table-wrap"><table>',
        f"<thead><tr>{head}</tr></thead>",
        "<tbody>",
        *body,
        "</tbody>",
        "</table></div>",
    ]


def check_svg(svg: str) -> str:
    """``svg`` if it is one well-formed SVG of lines, shapes and text only; else ``ValueError``.

    Figures are inserted unescaped, so this guards against a figure that carries
    scripts, links, foreign content or event handlers.
    """
    if re.search(r"<!|<\?", svg):
        raise ValueError("figure holds a declaration, comment or processing instruction")
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as error:
        raise ValueError(f"figure is not well-formed XML: {error}") from error
    if root.tag != _SVG_NS + "svg":
        raise ValueError(f"figure root is {root.tag!r}, not an SVG element")
    for element in root.iter():
        name = element.tag.removeprefix(_SVG_NS)
        if name not in _SVG_ELEMENTS:
            raise ValueError(f"figure holds a {name!r} element")
        for attribute, value in element.attrib.items():
            if (
                attribute.lower().startswith("on")
                or "href" in attribute.lower()
                or attribute.startswith("{")
                or "url(" in value.lower()
            ):
                raise ValueError(f"figure holds a {attribute!r} attribute")
    return svg


def render_html(
    title: str,
    preface: list[str],
    tables: list[ReportTable],
    figures: list[tuple[str, str]],
    contents_after: int | None = None,
) -> str:
    """The report as one HTML5 document: preface, each table with its note, provenance and the figures drawn from it
    (each under its title), then each of ``figures`` under its title.

    With ``contents_after`` every section heading carries an id (the anchor GitHub gives the same heading in the
    Markdown) and a linked table of contents follows that many sections (0: right after the preface)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_escape(CONTENT_SECURITY_POLICY)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_escape(title)}</title>",
        f"<style>\n{_STYLE}\n</style>",
        "</head>",
        "<body>",
        f"<h1>{_escape(title)}</h1>",
        *_blocks(preface),
    ]
    headings = [table.title for table in tables] + [figure_title for figure_title, _ in figures]
    anchors = heading_anchors(headings)

    def heading(i: int) -> str:
        anchor = "" if contents_after is None else f' id="{_escape(anchors[i])}"'
        return f"<h2{anchor}>{html_cell(headings[i])}</h2>"

    for i, table in enumerate(tables):
        if contents_after == i:
            parts += _contents(headings, anchors)
        parts.append(heading(i))
        if table.note:
            parts += _blocks([table.note])
        parts += _table(table.frame)
        parts += _blocks(list(table.after))
        p = table.provenance
        parts.append(
            f'<p class="source">Source: asset <code>{_escape(p.asset)}</code>, data version '
            f"<code>{_escape(p.data_version)}</code>, read from {html_cell(p.read_from)}.</p>"
        )
        for figure_title, svg in table.figures:
            parts += [f"<h3>{html_cell(figure_title)}</h3>", "<figure>", check_svg(svg).strip(), "</figure>"]
    if contents_after is not None and contents_after >= len(tables):
        parts += _contents(headings, anchors)
    for i, (figure_title, svg) in enumerate(figures, start=len(tables)):
        parts += [heading(i), "<figure>", check_svg(svg).strip(), "</figure>"]
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


def _contents(headings: list[str], anchors: list[str]) -> list[str]:
    """The table of contents: a list of links to every section heading, in order."""
    return [
        '<nav class="contents">',
        "<p>Contents:</p>",
        "<ul>",
        *(f'<li><a href="#{_escape(a)}">{html_cell(h)}</a></li>' for h, a in zip(headings, anchors)),
        "</ul>",
        "</nav>",
    ]
