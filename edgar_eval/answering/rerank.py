"""The offline reranker: a lexical and figure-aware second look at the passages a retriever found.

No cross-encoder ships its weights in a package this project can install, so the offline stage is a documented rule,
not a model. It scores each passage for a question as

    2 x line     the best share of the question's content words on one line of the passage that prints a figure
                 (a table row or a sentence holding the asked line item and a number)
  + 1 x cover    the share of the question's content words anywhere in the passage
  + 0.5 x year   1 when the passage prints every year the question asks (as four digits), else 0

Content words are the question's lower-case words less stopwords and names (answering.text_tools), compared on their
first five letters so "expenditure" meets "expenditures". Ties keep the retriever's order. Scores are rounded, so a
rerun orders the same passages the same way on any machine. A /rerank server (adapters.rerank_http) is the other
adapter of the same port.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from edgar_eval.answering.text_tools import asked_years, content_tokens
from edgar_eval.domain.ports import Reranked

LEXICAL_RERANKER_ID = "lexical-figure/1"
LINE_WEIGHT, COVER_WEIGHT, YEAR_WEIGHT = 2.0, 1.0, 0.5
SCORE_DECIMALS = 6
_FIGURE = re.compile(r"\d[\d,]*\d|\d")
_PREFIX = 5


def _stems(words: Sequence[str]) -> set[str]:
    return {w[:_PREFIX] for w in words}


def _line_stems(line: str) -> set[str]:
    return _stems(re.findall(r"[a-z][a-z'\-]*", line.lower()))


def lexical_score(question_stems: set[str], years: list[int], passage: str) -> float:
    """The passage's score for a question's content-word stems and asked years (see the module's formula)."""
    if question_stems:
        cover = len(question_stems & _line_stems(passage)) / len(question_stems)
        line = max(
            (
                len(question_stems & _line_stems(text)) / len(question_stems)
                for text in passage.splitlines()
                if _FIGURE.search(text)
            ),
            default=0.0,
        )
    else:
        cover = line = 0.0
    year = float(all(str(y) in passage for y in years))
    return round(LINE_WEIGHT * line + COVER_WEIGHT * cover + YEAR_WEIGHT * year, SCORE_DECIMALS)


class LexicalFigureReranker:
    """The offline reranker of the module's formula. With `remember_scores`, each (query, passage) score is computed
    once and kept until close(): for repeated measurements of the same questions (the noise band's replicas find
    mostly the same passages), never where the rerank's own time per question is measured."""

    reranker_id = LEXICAL_RERANKER_ID

    def __init__(self, remember_scores: bool = False) -> None:
        self._scores: dict[tuple[str, str], float] | None = {} if remember_scores else None

    def _score(self, query: str, stems: set[str], years: list[int], text: str) -> float:
        if self._scores is None:
            return lexical_score(stems, years, text)
        key = (query, text)
        if key not in self._scores:
            self._scores[key] = lexical_score(stems, years, text)
        return self._scores[key]

    def rerank(self, query: str, documents: Sequence[str], top_n: int) -> list[Reranked]:
        stems, years = _stems(content_tokens(query)), asked_years(query)
        scores = [self._score(query, stems, years, text) for text in documents]
        order = sorted(range(len(documents)), key=lambda i: (-scores[i], i))[: max(top_n, 0)]
        return [Reranked(index=i, relevance_score=scores[i]) for i in order]

    def close(self) -> None:
        """Forgets the remembered scores; holds nothing else."""
        if self._scores is not None:
            self._scores.clear()
