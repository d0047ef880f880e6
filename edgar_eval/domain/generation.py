"""Generation: what a reader model is asked, what it answered, and the port every generator implements. No I/O."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class GenerationRequest:
    """One question with the passages retrieved for it, best first.

    `passages` are (passage_id, text) pairs; the ids are the chunk ids the evaluation scores citations against,
    and never reach the model (it sees P1..Pn). `cik` and `fiscal_year` are for generators that do their own
    retrieval, such as an external RAG service.
    """

    question: str
    passages: tuple[tuple[str, str], ...] = ()
    cik: str | None = None
    fiscal_year: int | None = None
    role: str | None = None  # the asking role, for a service that applies its own permitted-source policy

    def __post_init__(self) -> None:
        if not isinstance(self.question, str) or not self.question.strip():
            raise ValueError("a generation request needs a non-empty question")
        pairs = tuple(tuple(pair) for pair in self.passages)  # lists from pandas or JSON become hashable pairs
        for position, pair in enumerate(pairs):
            if len(pair) != 2 or not all(isinstance(part, str) for part in pair):
                raise TypeError(f"passage {position} must be a (passage_id, text) pair of strings, not {pair!r}")
        pairs = tuple((str(passage_id), str(text)) for passage_id, text in pairs)  # numpy str_ to plain str
        ids = [passage_id for passage_id, _ in pairs]
        if len(set(ids)) != len(ids):
            raise ValueError(f"passage ids must be unique: {ids}")
        if self.fiscal_year is not None:
            try:  # numpy integers from a DataFrame row become plain ints, which JSON and the nonce hash accept
                if isinstance(self.fiscal_year, bool):
                    raise TypeError
                object.__setattr__(self, "fiscal_year", operator.index(self.fiscal_year))
            except TypeError:
                raise TypeError(f"fiscal_year must be an integer or None, not {self.fiscal_year!r}") from None
        if self.cik is not None:
            object.__setattr__(self, "cik", str(self.cik))
        object.__setattr__(self, "question", str(self.question))
        object.__setattr__(self, "passages", pairs)


@dataclass(frozen=True)
class Generation:
    """A generator's answer, with what is needed to reproduce and audit it.

    `citations` are passage ids (chunk ids), deduplicated, in the order first cited. `route` is the route the reply
    names (answer, clarify, no_answer, deny, review) when the generator's replies carry one; None when they do not,
    and then the exit is read from `abstained`. `reason` says why the generator abstained, or notes a degraded reply
    (empty, cut at max_tokens); None otherwise. `latency_seconds` is the original call's, also when `replayed` from a
    tape; `tape_key` names the tape entry, None without a tape.
    """

    text: str
    citations: list[str] = field(default_factory=list)
    abstained: bool = False
    reason: str | None = None
    route: str | None = None
    model_id: str = ""
    parameters: dict = field(default_factory=dict)
    prompt_version: str | None = None
    latency_seconds: float = 0.0
    replayed: bool = False
    tape_key: str | None = None


class Generator(Protocol):
    """Answers a question from passages (or from its own retrieval), or abstains."""

    @property
    def generator_id(self) -> str: ...

    def generate(self, request: GenerationRequest) -> Generation: ...
