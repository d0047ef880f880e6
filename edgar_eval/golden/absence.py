"""Absence review (gate 10): code finds the passages that might answer an absence question; a person decides.

The passages are the ones where the question's distinctive words sit next to a figure: a table row holding one
of the words and a number, or a sentence holding one of the words and a number. Table rows come first (a figure
in a table is the likeliest answer), then the passages that match the rarest words. Decisions are read from a
versioned review file, one JSON object per line, bound to the candidate id and the question's sha256, so an
edited question needs a new decision.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Mapping

from edgar_eval.domain.calendar import MONTH_NAMES

ABSENT = "absent"  # the reviewer read the passages: nothing answers the question
ANSWERED_IN_CORPUS = "answered_in_corpus"  # a passage answers it: not an absence question
DECISIONS = (ABSENT, ANSWERED_IN_CORPUS)
MAX_PASSAGES = 12
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
_FIGURE = re.compile(r"(?<![\w.])\$?\(?\d[\d,]*(?:\.\d+)?\)?%?(?![\w])")
_YEAR = re.compile(r"^(?:19|20)\d{2}$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
# Words of the question that say nothing about what is asked.
_QUESTION_WORDS = frozenset(
    "a an and are as at by did do does for from how in is it its of on or the to was were what which who whom when "
    "where "
    "much many fiscal year years quarter quarters end ended ending during company company's report reported reports "
    "disclose disclosed total amount number period first second third fourth half months month".split()
)


def distinctive_question_words(question: str, company_names: tuple[str, ...] = ()) -> list[str]:
    """Lower-case word stems (five letters, so plurals agree) the question asks about; names and dates left out."""
    names = {w.lower().removesuffix("'s") for name in company_names for w in _WORD.findall(name)}
    months = set(MONTH_NAMES)
    stems: list[str] = []
    for word in _WORD.findall(question):
        token = word.lower().removesuffix("'s").removesuffix("\u2019s").strip("'-")
        if len(token) < 3 or token in _QUESTION_WORDS or token in names or token in months:
            continue
        stem = token[:5]
        if stem not in stems:
            stems.append(stem)
    return stems


@dataclass(frozen=True)
class Passage:
    filing_id: str
    start: int
    end: int
    text: str
    is_table_row: bool
    words: tuple[str, ...]  # the question's stems it holds
    score: float


def _stems(text: str) -> set[str]:
    return {w.lower()[:5] for w in _WORD.findall(text)}


def _has_figure(text: str) -> bool:
    return any(not _YEAR.match(m.group().strip("$()%")) for m in _FIGURE.finditer(text))


def _units(text: str):
    """(start, end, is_table_row) of every table row and prose sentence."""
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\n")
        if stripped.startswith("|"):
            yield offset, offset + len(stripped), True
        elif stripped.strip():
            position = 0
            for piece in _SENTENCE_END.split(stripped):
                start = stripped.find(piece, position)
                yield offset + start, offset + start + len(piece), False
                position = start + len(piece)
        offset += len(line)


def absence_passages(
    question: str, texts: Mapping[str, str], company_names: tuple[str, ...] = (), limit: int = MAX_PASSAGES
) -> list[Passage]:
    """The passages of `texts` (the question's scope) a reviewer must read before calling the question unanswerable."""
    words = distinctive_question_words(question, company_names)
    if not words:
        return []
    found: list[tuple[str, int, int, bool, tuple[str, ...]]] = []
    document_frequency = dict.fromkeys(words, 0)
    for filing_id in sorted(texts):
        text = texts[filing_id]
        for start, end, is_row in _units(text):
            unit = text[start:end]
            held = tuple(w for w in words if w in _stems(unit))
            if held:
                for w in held:
                    document_frequency[w] += 1
                if _has_figure(unit):
                    found.append((filing_id, start, end, is_row, held))
    # A rare word of the question (a place, a product) says more than a common one (sales, customers).
    weight = {w: math.log(1 + 1 / max(n, 1)) + 1 / max(n, 1) for w, n in document_frequency.items()}
    passages = [
        Passage(f, s, e, texts[f][s:e], row, held, round(sum(weight[w] for w in held), 6))
        for f, s, e, row, held in found
    ]
    return _balanced(passages, limit)


def _balanced(passages: list[Passage], limit: int) -> list[Passage]:
    """A balanced share per filing of the scope, so a 10-Q sentence saying a metric is no longer reported is not
    buried under a dozen 10-K rows: filings take turns, each giving its table rows first (a tabled figure is the
    likeliest answer), then its most specific passages; a filing with fewer passages leaves its turns to the others.
    The chosen passages are shown filing by filing, in that order."""
    by_filing: dict[str, list[Passage]] = {}
    for passage in sorted(passages, key=lambda p: (p.filing_id, not p.is_table_row, -p.score, p.start)):
        by_filing.setdefault(passage.filing_id, []).append(passage)
    chosen: dict[str, list[Passage]] = {f: [] for f in by_filing}
    turn, taken = 0, 0
    while taken < min(limit, len(passages)):
        for filing_id, queue in by_filing.items():
            if turn < len(queue) and taken < limit:
                chosen[filing_id].append(queue[turn])
                taken += 1
        turn += 1
    return [p for filing_id in sorted(chosen) for p in chosen[filing_id]]


@dataclass(frozen=True)
class ReviewDecision:
    candidate_id: str
    question_sha256: str
    decision: str
    reason: str
    reviewer: str


class ReviewFileError(ValueError):
    pass


def read_decision_lines(
    text: str,
    where: str,
    fields: tuple[str, ...],
    choice: str,
    choices: tuple[str, ...],
    error: type[ValueError],
    optional: tuple[str, ...] = (),
) -> dict[str, dict[str, str]]:
    """A versioned file of a person's decisions, one JSON object per line, keyed by its first field: every field a
    non-empty string, `choice` one of `choices`, one decision per key. A malformed line stops the read with its line
    number (a decision is never guessed). The absence review and the golden audit both read theirs here."""
    decisions: dict[str, dict[str, str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{where} line {number} is not JSON: {exc.msg}") from None
        if not isinstance(record, dict) or any(
            not isinstance(record.get(f), str) or not record[f].strip() for f in fields
        ):
            raise error(f"{where} line {number} needs non-empty {', '.join(fields)}")
        if record[choice] not in choices:
            raise error(f"{where} line {number}: {choice} must be one of {', '.join(choices)}, not {record[choice]!r}")
        if record[fields[0]] in decisions:
            raise error(f"{where} line {number}: a second {choice} for {record[fields[0]]}")
        decisions[record[fields[0]]] = {f: record[f] for f in fields} | {
            f: str(record[f]) for f in optional if isinstance(record.get(f), str)
        }
    return decisions


def read_review_file(text: str, where: str) -> dict[str, ReviewDecision]:
    """candidate id -> decision; a malformed line stops the read with its line number (a decision is never guessed)."""
    fields = ("candidate_id", "question_sha256", "decision", "reason", "reviewer")
    read = read_decision_lines(text, where, fields, "decision", DECISIONS, ReviewFileError)
    return {key: ReviewDecision(*(record[f] for f in fields)) for key, record in read.items()}


# ------------------------------------------------------------------ the absent-concept review queue's verdicts

ABSENT_CONCEPT_VERDICTS = ("absent", "answered")  # nothing in the passages answers it / a passage answers it
ABSENT_CONCEPT_FIELDS = ("question_id", "case_sha256", "verdict", "reason", "reviewer")


def read_absent_concept_reviews(text: str, where: str) -> dict[str, dict[str, str]]:
    """question id -> a person's verdict on an absent-concept candidate the rule left open (golden.might_answer), with
    the case sha256 it was given on; a malformed line stops the read with its line number."""
    return read_decision_lines(text, where, ABSENT_CONCEPT_FIELDS, "verdict", ABSENT_CONCEPT_VERDICTS, ReviewFileError)


def absent_concept_review_sheet(queue, review_file: str) -> str:
    """The review sheet (Markdown) of the absent-concept candidates the rule leaves open: each question with the
    passages of its scope that might answer it, fenced (filing text is untrusted), and its status. It shows passages,
    never the rule's search words: the reviewer judges what the filing prints."""
    lines = [
        "# Absent-concept candidates awaiting a person",
        "",
        f"Record a verdict per case in `{review_file}`, one JSON object per line: "
        '{"question_id", "case_sha256", "verdict": "absent" | "answered", "reason", "reviewer"}. `absent`: nothing in '
        "the question's scope gives its figure for the asked period (the passages below, and the filings themselves); "
        "`answered`: a passage does, or gives one computation's worth of it. A case whose sha256 changed must be "
        "reviewed again. Unreviewed cases are counted as awaiting review, never admitted.",
        "",
    ]
    for case in queue.itertuples(index=False):
        lines += [
            f"## {case.question_id} ({case.status})",
            "",
            f"case_sha256 `{case.case_sha256}`; filing {case.filing_id}",
            "",
            "```text",
            f"question: {case.question}",
            "passages that might answer it:",
            *[f"- {passage}".replace("```", "'''") for passage in case.passages],
            "```",
            "",
        ]
        if case.reviewer:
            lines += [f"verdict by {case.reviewer}: {case.reason}".replace("\n", " "), ""]
    return "\n".join(lines)
