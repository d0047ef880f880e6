"""Where a table's header is: the rows above its first row of figures, and the scale line above the table.

Shared by the chunker (a chunk that starts inside a table carries that table's header, or no reader can tell its
columns apart) and the table-aware reader (which column is the asked period).
"""

from __future__ import annotations

import re

_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_NUMBER_CELL = re.compile(r"^\(?-?\$?\s*\d[\d,]*(?:\.\d+)?\)?%?$|^[\u2014\u2013-]$")
# "(In millions)", "Dollars in thousands", "($ in millions)", "SHARES IN MILLIONS", and a cell or parenthesis that opens
# with the scale: "| Millions, Except Per Share Amounts |", "(Millions of Dollars)".
SCALE_LINE = re.compile(r"(?:\b(?:in|dollars in|amounts in)\s+|(?:^|[(|])\s*)(thousands|millions|billions)\b", re.I)
_SCALE_LOOKBACK = 5  # lines above a table searched for its scale line
_MAX_HEADER_ROWS = 8  # header rows a chunk carries at most (periods, dates, units, a group heading or two)


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|") if c.strip()]


def row_values(row_cells: list[str]) -> list[str]:
    """The figures of a row as printed: "$" joined to the next cell, "%" and ")" to the previous one."""
    values: list[str] = []
    pending_currency = False
    for cell in row_cells:
        if cell == "$":
            pending_currency = True
            continue
        if cell in ("%", ")") and values:
            values[-1] += cell
            continue
        values.append(("$" if pending_currency else "") + cell)
        pending_currency = False
    return [v for v in values if _NUMBER_CELL.match(v.replace("$", "").replace(" ", ""))]


def has_figures(row_cells: list[str]) -> bool:
    """A label and figures other than years: a header row of years ("| 2024 | 2023 |") holds no figures."""
    return len(row_cells) > 1 and any(not _YEAR.fullmatch(v.replace("$", "")) for v in row_values(row_cells[1:]))


PERIOD_WORDS = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)|\b(?:ended|as of|months|weeks)\b", re.I)


def _heads_a_period(row_cells: list[str]) -> bool:
    """A row of column headings: every cell names a period ("| As of |", "| June 30, 2025 | December 31, 2024 |")."""
    return bool(row_cells) and all(PERIOD_WORDS.search(c) for c in row_cells)


def table_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(first line, end line) of each table: a run of pipe rows, split where a new header starts below rows of
    figures (two tables printed one under the other, the second with its own period headings)."""
    blocks, start = [], None
    for k, line in enumerate([*lines, ""]):
        if line.startswith("|") and start is None:
            start = k
        elif not line.startswith("|") and start is not None:
            blocks.extend(_stacked_tables(lines, start, k))
            start = None
    return blocks


def _stacked_tables(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    starts, last_figures = [start], None
    for k in range(start, end):
        row = cells(lines[k])
        if has_figures(row):
            last_figures = k
        elif last_figures is not None and last_figures >= starts[-1] and _heads_a_period(row):
            starts.append(last_figures + 1)  # the new table's header opens after the last row of figures
    return list(zip(starts, [*starts[1:], end]))


def header_length(lines: list[str], start: int, end: int) -> int | None:
    """How many rows of the block open it before its first row of figures; None when it has no row of figures."""
    return next((k - start for k in range(start, end) if has_figures(cells(lines[k]))), None)


def scale_line(lines: list[str], start: int) -> str | None:
    """The nearest line above a table (within a few) that states its scale ("(In millions)")."""
    for k in range(start - 1, max(-1, start - 1 - _SCALE_LOOKBACK), -1):
        if SCALE_LINE.search(lines[k]):
            return lines[k]
    return None


def header_context(text: str, offset: int) -> str:
    """What a chunk starting at `offset` inside a table needs above its own text to be read: the table's scale line
    and header rows, as printed, one per line, and the start of the row the offset cuts (so the chunk's first row
    keeps its label); "" when the offset is not inside a table."""
    line_start = text.rfind("\n", 0, offset) + 1
    if not text.startswith("|", line_start):
        return ""
    before = text[:line_start].split("\n")[:-1]  # whole lines above the one the chunk starts in
    first = len(before)
    while first > 0 and before[first - 1].startswith("|"):
        first -= 1
    first = _stacked_tables(before, first, len(before))[-1][0] if first < len(before) else first
    rows = header_length(before, first, len(before))
    if rows is None:  # no figures above: they are the header only when the cut row holds figures (not a contents list)
        cut_row = text[line_start : text.find("\n", line_start) if "\n" in text[line_start:] else len(text)]
        rows = len(before) - first if has_figures(cells(cut_row)) else 0
    rows = rows if rows <= _MAX_HEADER_ROWS else 0  # a longer run without figures is not a header
    context = [line for line in (scale_line(before, first),) if line] + before[first : first + rows] if rows else []
    return "".join(f"{line}\n" for line in context) + text[line_start:offset]
