"""Golden-question candidates: what a model (or a person) proposes before the ten admission gates decide.

A candidate is read from a JSON object in the brief's proposal schema (question, answer_type, gold_answer,
evidence [{document, quote}], requires_documents) plus its pattern and provenance. Reading never guesses: a
malformed object becomes a `CandidateProblem` with its reason, which the proposals asset records as a rejection.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import cast

PATTERNS = ("D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8")
ANSWER_TYPES = ("number", "string", "list", "refusal")
MAX_QUOTES = 6


@dataclass(frozen=True)
class Evidence:
    document: str  # the proposer's label for the document; the gates resolve the real one by searching the quote
    quote: str


@dataclass(frozen=True)
class Candidate:
    candidate_id: str
    pattern: str
    question: str
    answer_type: str
    gold_answer: str
    evidence: tuple[Evidence, ...]
    requires_documents: int
    source: str  # "import:<file>", "chat:<model>", "demo-planted"
    prompt_version: str = ""
    excerpt_ids: tuple[str, ...] = ()
    expected: dict = field(default_factory=dict, compare=False)  # a hand-written verdict, when the source gives one

    @property
    def question_sha256(self) -> str:
        """What a review decision is bound to: an edited question needs a new decision."""
        return hashlib.sha256(self.question.encode()).hexdigest()

    def to_record(self) -> dict:
        return {
            "candidate_id": self.candidate_id,
            "pattern": self.pattern,
            "question": self.question,
            "answer_type": self.answer_type,
            "gold_answer": self.gold_answer,
            "evidence": [{"document": e.document, "quote": e.quote} for e in self.evidence],
            "requires_documents": self.requires_documents,
            "source": self.source,
            "prompt_version": self.prompt_version,
            "excerpt_ids": list(self.excerpt_ids),
            "expected": self.expected or None,
        }


@dataclass(frozen=True)
class CandidateProblem:
    candidate_id: str
    source: str
    reason: str
    pattern: str = ""  # the pattern the proposal names, when it names one of PATTERNS: the funnel counts it there


def _text(record: dict, name: str, problems: list[str], required: bool = True) -> str:
    value = record.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        problems.append(f"{name} must be a non-empty string")
        return ""
    return " ".join(value.split())


def candidate_from_record(
    record: object,
    candidate_id: str,
    source: str,
    pattern: str | None = None,
    prompt_version: str = "",
    excerpt_ids: tuple[str, ...] = (),
) -> Candidate | CandidateProblem:
    """One proposal object -> a Candidate, or the reason it cannot be one. `pattern` overrides a missing field
    (a model prompted for one pattern need not repeat it)."""
    if not isinstance(record, dict):
        return CandidateProblem(candidate_id, source, f"a proposal must be a JSON object, not {type(record).__name__}")
    problems: list[str] = []
    chosen = record.get("pattern", pattern) or pattern
    if chosen not in PATTERNS:
        problems.append(f"pattern must be one of {', '.join(PATTERNS)}, not {chosen!r}")
    question = _text(record, "question", problems)
    answer_type = record.get("answer_type")
    if answer_type not in ANSWER_TYPES:
        problems.append(f"answer_type must be one of {', '.join(ANSWER_TYPES)}, not {answer_type!r}")
    gold = record.get("gold_answer")
    if isinstance(gold, list) and all(isinstance(g, (str, int, float)) for g in gold):
        gold = "; ".join(str(g) for g in gold)  # a list answer given as a JSON array
    elif isinstance(gold, (int, float)) and not isinstance(gold, bool):
        gold = str(gold)
    gold_answer = _text({"gold_answer": gold}, "gold_answer", problems)
    evidence: list[Evidence] = []
    raw = record.get("evidence")
    if not isinstance(raw, list) or (not raw and chosen != "D8"):
        problems.append("evidence must be a non-empty list of {document, quote}")
    else:
        if len(raw) > MAX_QUOTES:
            problems.append(f"evidence holds {len(raw)} quotes; at most {MAX_QUOTES} are read")
        for position, item in enumerate(raw[:MAX_QUOTES], start=1):
            if not isinstance(item, dict) or not isinstance(item.get("quote"), str) or not item["quote"].strip():
                problems.append(f"evidence item {position} has no quote")
                continue
            document = item.get("document")
            evidence.append(Evidence(document if isinstance(document, str) else "", item["quote"]))
    required = record.get("requires_documents", len({e.document for e in evidence}))
    if isinstance(required, bool) or not isinstance(required, int) or required < 0:
        problems.append(f"requires_documents must be a whole number, not {required!r}")
        required = 0
    if problems:
        return CandidateProblem(candidate_id, source, "; ".join(problems), chosen if chosen in PATTERNS else "")
    expected = cast(dict, record.get("expected")) if isinstance(record.get("expected"), dict) else {}
    return Candidate(  # no problems: the pattern and the answer type are among those listed
        str(record.get("id") or candidate_id),
        cast(str, chosen),
        question,
        cast(str, answer_type),
        gold_answer,
        tuple(evidence),
        required,
        source,
        prompt_version,
        excerpt_ids,
        expected,
    )


def read_jsonl(text: str, source: str) -> tuple[list[Candidate], list[CandidateProblem]]:
    """Candidates from JSON Lines; a line that is not JSON or not a proposal is a problem, never skipped silently."""
    candidates: list[Candidate] = []
    problems: list[CandidateProblem] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fallback_id = f"{source}#{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(CandidateProblem(fallback_id, source, f"line {number} is not JSON: {exc.msg}"))
            continue
        made = candidate_from_record(record, fallback_id, source)
        cast(list, problems if isinstance(made, CandidateProblem) else candidates).append(made)
    seen: set[str] = set()
    unique: list[Candidate] = []
    for candidate in candidates:
        if candidate.candidate_id in seen:
            problems.append(
                CandidateProblem(
                    candidate.candidate_id, source, "duplicate candidate id in the same source", candidate.pattern
                )
            )
        else:
            seen.add(candidate.candidate_id)
            unique.append(candidate)
    return unique, problems
