"""The offline extractive baseline reader.

Deterministic and model-free: it finds the passage line whose label best matches the question,
picks the figure in the column of the asked fiscal year, cites that passage, or declines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

from edgar_eval.answering.text_tools import asked_years, content_tokens

READER_ID = "extractive-baseline/1"
TUNED_ON = ("demo", "edgar")  # the corpora it was written against: its figures there are in-sample
_MIN_LABEL_MATCH = 0.75
_NUMBER = re.compile(r"^\(?-?\$?\s*\d[\d,]*(?:\.\d+)?\)?%?$|^[\u2014\u2013-]$")
_YEAR = re.compile(r"\b(19\d{2}|20\d{2})\b")
_SCALE = re.compile(r"\bin\s+(thousands|millions|billions)\b", re.I)
_SCALE_FACTOR = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
_SCALE_WORD = {"thousands": "thousand", "millions": "million", "billions": "billion"}


@dataclass(frozen=True)
class Passage:
    chunk_id: str
    text: str


@dataclass(frozen=True)
class ReaderAnswer:
    answered: bool
    text: str
    figure: float | None
    cited_chunk_ids: tuple[str, ...]
    decline_reason: str | None


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _number_value(cell: str) -> float | None:
    cell = cell.strip()
    if not _NUMBER.match(cell) or cell.endswith("%"):
        return None
    if cell in ("\u2014", "\u2013", "-"):
        return 0.0
    negative = cell.startswith("(") and cell.endswith(")")
    digits = re.sub(r"[^\d.]", "", cell)
    value = float(digits)
    return -value if negative else value


def _label_score(question_tokens: list[str], label: str) -> float:
    label_tokens = content_tokens(label.lower())
    if not question_tokens or not label_tokens:
        return 0.0
    shared = len(set(question_tokens) & set(label_tokens))
    return 2 * shared / (len(set(question_tokens)) + len(set(label_tokens)))


@dataclass(frozen=True)
class _Candidate:
    score: float
    passage_rank: int
    line_index: int
    label: str
    shown: str
    value: float
    scale_word: str
    currency: bool
    chunk_id: str


def _row_candidate(lines: list[str], index: int, years: list[int], question_tokens: list[str]):
    cells = _cells(lines[index])
    numbers = cast(list[tuple[str, float]], [(c, _number_value(c)) for c in cells[1:] if _number_value(c) is not None])
    if not numbers:
        return None
    label = cells[0]
    score = _label_score(question_tokens, label)
    if score < _MIN_LABEL_MATCH:
        return None
    header_years: list[int] = []
    for previous in range(index - 1, -1, -1):
        if lines[previous].startswith("|"):
            found = [int(y) for y in _YEAR.findall(lines[previous])]
            if found and not any(
                _number_value(c) is not None and not _YEAR.fullmatch(c) for c in _cells(lines[previous])[1:]
            ):
                header_years = found
                break
        else:
            break
    if not years:
        column = 0
    elif len(header_years) == len(numbers) and years[0] in header_years:
        column = header_years.index(years[0])
    else:
        return None  # the passage does not show which column is the asked year
    shown, value = numbers[column]
    return label, score, shown, value, "$" in cells


def read(question: str, passages: list[Passage]) -> ReaderAnswer:
    years = asked_years(question)
    question_tokens = content_tokens(question)
    best: _Candidate | None = None
    for rank, passage in enumerate(passages):
        lines = passage.text.splitlines()
        scale_match = _SCALE.search(passage.text)
        scale = scale_match.group(1).lower() if scale_match else ""
        for index, line in enumerate(lines):
            if not line.startswith("|"):
                continue
            found = _row_candidate(lines, index, years, question_tokens)
            if found is None:
                continue
            label, score, shown, value, currency = found
            candidate = _Candidate(score, rank, index, label, shown, value, scale, currency, passage.chunk_id)
            if best is None or (candidate.score, -candidate.passage_rank, -candidate.line_index) > (
                best.score,
                -best.passage_rank,
                -best.line_index,
            ):
                best = candidate
    if best is None:
        return ReaderAnswer(False, "", None, (), "no passage line matches the asked line item and period")
    per_share = "per share" in best.label.lower()
    factor = 1.0 if per_share else _SCALE_FACTOR.get(best.scale_word, 1.0)
    unit_word = "" if per_share or not best.scale_word else f" {_SCALE_WORD[best.scale_word]}"
    money = "$" if best.currency else ""
    when = f" for fiscal {years[0]}" if years else ""
    text = f"{best.label}{when}: {money}{best.shown}{unit_word} [{best.chunk_id}]."
    return ReaderAnswer(True, text, best.value * factor, (best.chunk_id,), None)
