"""Table-chunk expansion: a retrieved chunk that lies in a table brings the table's header rows and the rows by it.

A fixed-size chunk cuts tables wherever its characters run out, so the asked row may sit just past a passage's end,
or its column headings far above its start. An expanded passage reaches `rows` table rows further up and down from
each end that lies inside a table (never past the table's own first or last row), and opens with the table's scale
line and header rows when it starts below them (`table_headers.header_context`: the same rule a chunk's own header
follows). A chunk that touches no table, or whose ends lie in prose, is read as it is.

What the expansion costs is more text: every figure this module's callers print beside a hit rate is paired with
the characters read.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from edgar_eval.corpus.table_headers import header_context, scale_line, table_blocks


@dataclass(frozen=True)
class Expansion:
    start: int  # the expanded span in the filing's text
    end: int
    text: str  # what is read: the header context, then text[start:end]
    expanded: bool  # False when the chunk is read as it is


class FilingTables:
    """One filing's text, its line starts and its tables (as line ranges), found once and used for every chunk."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.line_starts = [0]
        for line in self.lines[:-1]:
            self.line_starts.append(self.line_starts[-1] + len(line) + 1)
        self.blocks = table_blocks(self.lines)
        self._block_starts = [first for first, _ in self.blocks]

    def _line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset) - 1

    def _block_of(self, line: int) -> tuple[int, int] | None:
        k = bisect.bisect_right(self._block_starts, line) - 1
        if k >= 0 and self.blocks[k][0] <= line < self.blocks[k][1]:
            return self.blocks[k]
        return None

    def _line_end(self, line: int) -> int:
        return self.line_starts[line] + len(self.lines[line])

    def expand(self, start: int, end: int, chunk_text: str, rows: int) -> Expansion:
        """The passage for the chunk spanning [start, end) (`chunk_text`: the chunk as stored, its own header
        included), reaching `rows` table rows beyond each end that lies inside a table."""
        if rows <= 0 or end <= start:
            return Expansion(start, end, chunk_text, False)
        first_line, last_line = self._line_of(start), self._line_of(end - 1)
        new_start, new_end = start, end
        opening = self._block_of(first_line)
        if opening is not None:
            new_start = self.line_starts[max(opening[0], first_line - rows)]
        closing = self._block_of(last_line)
        if closing is not None:
            new_end = max(end, self._line_end(min(closing[1] - 1, last_line + rows)))
        if (new_start, new_end) == (start, end):
            return Expansion(start, end, chunk_text, False)
        if opening is not None and new_start == self.line_starts[opening[0]]:
            scale = scale_line(self.lines, opening[0])  # the header rows are in the passage; its scale is above
            context = f"{scale}\n" if scale else ""
        else:
            context = header_context(self.text, new_start)
        return Expansion(new_start, new_end, context + self.text[new_start:new_end], True)
