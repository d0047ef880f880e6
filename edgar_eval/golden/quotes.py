"""Quote verification: does an evidence quote occur verbatim in the corpus, and where.

A golden-question candidate names its evidence as `{"document": label, "quote": text}`. The label
is the model's word and is not trusted: the quote is searched in every filing, and the filing is
resolved by that search (the label only breaks ties when the quote occurs in several filings).

Matching rules
--------------
* Both the quote and the text are normalised the same way before comparing: whitespace runs
  collapse to one space (so a line break in the text reads as a space), and quotation marks map
  to straight ones (‘ ’ ‚ ‛ ′ -> ' and “ ” „ ‟ ″ -> "). Nothing else is normalised: dashes, `—`
  cells and `(43)` must be printed exactly.
* A prose quote (no `|`) must be a substring of a filing's normalised text. It cannot run across
  a table row: rows are lines that start and end with `|`, and a prose quote holds no `|`.
* A table-row quote (any `|`) is compared cell by cell against the table-row lines of the text
  (Markdown pipe rows, one per line, non-empty cells only). Both sides are reduced to canonical
  cells (`row_cells`): cells that are only a currency sign are dropped, a leading currency sign is
  stripped from a cell, and cells that are only `%`, `)`, `pts`, `bps` or `x` are glued to the cell
  before them, because filings differ in whether they print these in cells of their own. The
  quote's canonical cells must then be a contiguous run of ONE row's canonical cells, in order.
  Leading and trailing pipes of the quote are ignored.
* A quote's location in a filing is its first occurrence there: for prose, the exact span in the
  original text; for a row quote, the whole row line that first holds its cells.

Speed
-----
Quotes are checked in the thousands against tens of megabytes, so the index concatenates every
filing's normalised text into one string and every table row's canonical cells into another,
and a quote costs one `str.find` per filing over these, with no regular expression per quote.
The separators are ASCII control characters that normalisation turns into spaces, so they can
never occur inside a normalised quote and a match can never run across two filings or two rows.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

_QUOTE_MARKS = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
    }
)
_WS = re.compile(r"\s+")
_ROW_LINE = re.compile(r"^\|[^\n]*", re.M)
_CURRENCY_CELLS = frozenset({"$", "€", "£", "US$"})
_SUFFIX_CELLS = frozenset({"%", ")", "pts", "bps", "x"})
_LEADING_CURRENCY = re.compile(r"^(?:US\$|\$|€|£)\s*")
# The same suffix printed inside the number's own cell after a space ("(8) %") reads as "(8)%".
_SPACED_SUFFIX = re.compile(r"(?<=[\d)])\s+(%|\)|pts|bps|x)$")

# str.isspace() holds for \x1c-\x1f, so normalisation maps them to spaces: they can separate
# filings, rows and cells without ever being part of a normalised quote or cell.
_FILING_SEP = "\x1e"
_ROW_SEP = "\x1e"
_CELL_SEP = "\x1f"


def normalise_quote(text: str) -> str:
    """Whitespace collapsed to single spaces and stripped; curly and prime quotation marks straight."""
    return _WS.sub(" ", text.translate(_QUOTE_MARKS)).strip()


def is_table_row_quote(quote: str) -> bool:
    return "|" in quote


def row_cells(line_or_quote: str) -> tuple[str, ...]:
    """Canonical cells of a pipe row (a text line or a quote): see the module's matching rules."""
    cells: list[str] = []
    for raw in normalise_quote(line_or_quote).split("|"):
        cell = raw.strip()
        if not cell or cell in _CURRENCY_CELLS:
            continue
        if cell in _SUFFIX_CELLS and cells:
            cells[-1] += cell
            continue
        cell = _LEADING_CURRENCY.sub("", cell)
        if cell:
            cells.append(_SPACED_SUFFIX.sub(r"\1", cell))
    return tuple(cells)


def _row_key(cells: Sequence[str]) -> str:
    # Separators on both ends so a key matches whole cells only, never the tail of a longer cell.
    return _CELL_SEP + _CELL_SEP.join(cells) + _CELL_SEP


@dataclass(frozen=True)
class QuoteLocation:
    filing_id: str
    start: int  # offset into the original text of the filing
    end: int  # for a row: the row line's end (newline excluded); for prose: the quote's end
    is_table_row: bool


@dataclass(frozen=True)
class QuoteMatch:
    quote: str
    found: bool
    location: QuoteLocation | None
    documents: tuple[str, ...]  # every filing holding the quote, in the index's order
    reason: str  # "" when found, else one line saying why not


class _OffsetMap:
    """Maps an index in a normalised text back to the original: piecewise, one piece per place
    where collapsing whitespace shortened the text, since between those the two run in step."""

    def __init__(self, norm_starts: list[int], orig_starts: list[int]) -> None:
        self.norm_starts = norm_starts
        self.orig_starts = orig_starts

    def __call__(self, index: int) -> int:
        piece = bisect_right(self.norm_starts, index) - 1
        return self.orig_starts[piece] + index - self.norm_starts[piece]


def _normalise_with_map(text: str) -> tuple[str, _OffsetMap]:
    """The text as `normalise_quote` would read it (less the final strip, which offsets don't
    need), with the map from its indices back to the original's."""
    marked = text.translate(_QUOTE_MARKS)  # one char for one char: offsets unchanged
    pieces: list[str] = []
    norm_starts, orig_starts = [0], [0]
    pos = length = 0
    for run in _WS.finditer(marked):
        start, end = run.span()
        if end - start == 1 and marked[start] == " ":
            continue
        pieces.append(marked[pos:start])
        pieces.append(" ")
        length += start - pos + 1
        pos = end
        if end - start > 1:
            norm_starts.append(length)
            orig_starts.append(end)
    pieces.append(marked[pos:])
    return "".join(pieces), _OffsetMap(norm_starts, orig_starts)


class QuoteIndex:
    """Every filing's text, prepared once so that each quote is found with a few `str.find` calls."""

    def __init__(self, texts: Mapping[str, str], order: Sequence[str] | None = None) -> None:
        self.order: tuple[str, ...] = tuple(order) if order is not None else tuple(sorted(texts))
        unknown = [f for f in self.order if f not in texts]
        if unknown or len(set(self.order)) != len(self.order):
            raise ValueError(f"order must name filings of texts, each once (unknown: {unknown})")
        self._position = {filing: i for i, filing in enumerate(self.order)}

        prose_parts: list[str] = []
        row_parts: list[str] = []
        self._prose_ranges: list[tuple[int, int]] = []  # per filing: its span in self._prose
        self._row_ranges: list[tuple[int, int]] = []  # per filing: its span in self._rows
        self._offset_maps: list[_OffsetMap] = []
        # Per row, in the order of self._rows: where its key starts there, and where its line is.
        self._row_key_starts: list[int] = []
        self._row_lines: list[tuple[int, int, int]] = []  # (filing index, line start, line end)
        prose_length = rows_length = 0
        for i, filing in enumerate(self.order):
            text = texts[filing]
            normalised, offsets = _normalise_with_map(text)
            self._prose_ranges.append((prose_length, prose_length + len(normalised)))
            self._offset_maps.append(offsets)
            prose_parts.append(normalised)
            prose_length += len(normalised) + len(_FILING_SEP)

            first_row_start = rows_length
            for line in _ROW_LINE.finditer(text):
                cells = row_cells(line.group())
                if not cells:
                    continue
                key = _row_key(cells)
                self._row_key_starts.append(rows_length)
                self._row_lines.append((i, line.start(), line.end()))
                row_parts.append(key)
                rows_length += len(key) + len(_ROW_SEP)
            self._row_ranges.append((first_row_start, rows_length))
        self._prose = _FILING_SEP.join(prose_parts)
        self._rows = _ROW_SEP.join(row_parts)

    # -- searching -----------------------------------------------------------------------------

    def _first_hit(self, needle: str, filing_index: int, table_row: bool) -> int:
        """Position of the needle's first occurrence in one filing's part of the joined string, or -1."""
        haystack, (start, end) = (
            (self._rows, self._row_ranges[filing_index])
            if table_row
            else (self._prose, self._prose_ranges[filing_index])
        )
        return haystack.find(needle, start, end)

    def _location(self, hit: int, needle: str, filing_index: int, table_row: bool) -> QuoteLocation:
        if table_row:
            filing, line_start, line_end = self._row_lines[bisect_right(self._row_key_starts, hit) - 1]
            return QuoteLocation(self.order[filing], line_start, line_end, True)
        local = hit - self._prose_ranges[filing_index][0]
        offsets = self._offset_maps[filing_index]
        # The needle is stripped, so its first and last characters are not collapsed whitespace
        # and map back exactly.
        start, end = offsets(local), offsets(local + len(needle) - 1) + 1
        return QuoteLocation(self.order[filing_index], start, end, False)

    def _filing_indices(self, within: Collection[str] | None) -> list[int]:
        if within is None:
            return list(range(len(self.order)))
        return sorted(self._position[f] for f in set(within) if f in self._position)

    @staticmethod
    def _needle(quote: str) -> tuple[str, bool, tuple[str, ...]]:
        normalised = normalise_quote(quote)
        if is_table_row_quote(normalised):
            cells = row_cells(normalised)
            return (_row_key(cells) if cells else ""), True, cells
        return normalised, False, ()

    def find(self, quote: str, prefer: str | None = None, within: Collection[str] | None = None) -> QuoteMatch:
        """Where the quote occurs. `prefer` (the model's label, as a filing id) is the resolved
        filing when it holds the quote; otherwise the first filing, in index order, that does.
        `within` limits the search to those filings."""
        needle, table_row, cells = self._needle(quote)
        if not needle:
            return QuoteMatch(quote, False, None, (), "empty quote")
        indices = self._filing_indices(within)
        hits: dict[int, int] = {}
        for i in indices:
            hit = self._first_hit(needle, i, table_row)
            if hit >= 0:
                hits[i] = hit
        if not hits:
            reason = self._row_miss_reason(cells, indices) if table_row else self._prose_miss_reason(needle, indices)
            return QuoteMatch(quote, False, None, (), reason)
        preferred = self._position.get(prefer) if prefer is not None else None
        chosen = preferred if preferred in hits else next(iter(hits))
        location = self._location(hits[chosen], needle, chosen, table_row)
        return QuoteMatch(quote, True, location, tuple(self.order[i] for i in hits), "")

    def occurrences(self, quote: str, filing_id: str) -> list[QuoteLocation]:
        """Every occurrence of the quote in one filing, in text order (one per row for a row quote)."""
        needle, table_row, _ = self._needle(quote)
        if not needle or filing_id not in self._position:
            return []
        i = self._position[filing_id]
        haystack, (start, end) = (
            (self._rows, self._row_ranges[i]) if table_row else (self._prose, self._prose_ranges[i])
        )
        found = []
        hit = haystack.find(needle, start, end)
        while hit >= 0:
            location = self._location(hit, needle, i, table_row)
            found.append(location)
            if table_row:  # one location per row: go on from the next row
                row = bisect_right(self._row_key_starts, hit)
                hit = self._row_key_starts[row] if row < len(self._row_key_starts) else end
            else:
                hit += 1
            hit = haystack.find(needle, hit, end)
        return found

    # -- explaining a miss ---------------------------------------------------------------------

    def _found_anywhere(self, needle: str, indices: list[int], table_row: bool) -> bool:
        return any(self._first_hit(needle, i, table_row) >= 0 for i in indices)

    def _longest_found_prefix(self, parts: Sequence[str], joined, indices: list[int], table_row: bool) -> int:
        """How many leading parts are found together; a prefix of a found run is found, so bisect."""
        low, high = 0, len(parts) - 1  # the whole is known not to be found
        while low < high:
            middle = (low + high + 1) // 2
            if self._found_anywhere(joined(parts[:middle]), indices, table_row):
                low = middle
            else:
                high = middle - 1
        return low

    def _scope(self, indices: list[int]) -> str:
        return "the corpus" if len(indices) == len(self.order) else f"the {len(indices)} filings searched"

    def _prose_miss_reason(self, needle: str, indices: list[int]) -> str:
        words = needle.split(" ")
        agreed = self._longest_found_prefix(words, " ".join, indices, False)
        reason = f"quote not found in {self._scope(indices)}"
        if agreed:
            reason += (
                f"; its first {agreed} of {len(words)} words are found, then the text differs at {words[agreed]!r}"
            )
        return reason

    def _row_miss_reason(self, cells: tuple[str, ...], indices: list[int]) -> str:
        reason = f"row cells not found in order within one table row of {self._scope(indices)}"
        agreed = self._longest_found_prefix(cells, _row_key, indices, True)
        if agreed:
            return (
                reason + f"; its first {agreed} of {len(cells)} cells are, then no row goes on with {cells[agreed]!r}"
            )
        return reason + f"; no table row holds the cell {cells[0]!r}"
