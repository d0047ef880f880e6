"""Review when the passages read disagree on the asked figure: two filings print it with two values for the same
period (a restatement, a stock split, an 8-K estimate against the later report). Which value holds is for a person to
say, so the answerer sends the question to review instead of answering from whichever passage ranked first.

The figures compared are the rows the table reader ranks first for the question in each passage: what the reader
would have answered from that passage. Two filings disagree when their figures are two values, not one rounded two ways
(corpus.figure_match.values_differ). Rows of one filing are not compared with each other: one filing printing
two rows that match the question equally is the reader's ambiguity, not conflicting evidence.
"""

from __future__ import annotations

from edgar_eval.answering.extractive import Passage
from edgar_eval.answering.table_reader import rows_read
from edgar_eval.corpus.figure_match import values_differ


def filing_of(chunk_id: str) -> str:
    return chunk_id.rsplit(":", 1)[0]


def passages_disagree(question: str, passages: list[Passage]) -> str | None:
    """Why the passages disagree on the asked figure (naming the two filings, passages and printed figures), or None."""
    first: dict[str, tuple[int, str, float]] = {}  # filing -> (passage position, printed, figure) of its first row
    position = {p.chunk_id: i for i, p in enumerate(passages)}
    for row in rows_read(question, passages):
        first.setdefault(filing_of(row.chunk_id), (position[row.chunk_id], row.shown, row.figure))
    read = sorted(first.items(), key=lambda item: item[1][0])
    for i, (filing_a, (at_a, shown_a, value_a)) in enumerate(read):
        for filing_b, (at_b, shown_b, value_b) in read[i + 1 :]:
            if values_differ(value_a, value_b):
                return (
                    f"the passages disagree on the asked figure: P{at_a + 1} ({filing_a}) prints {shown_a}, "
                    f"P{at_b + 1} ({filing_b}) prints {shown_b}"
                )
    return None
