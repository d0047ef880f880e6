"""The reference answerer after retrieval: one generation, then the citation check, then an outcome.

The gates (period guard, cosine, relevance model) are not applied here: the six arms are masks over
this one generation per question (edgar_eval.evaluation.abstention), so every difference between arms is
the gate's. What happens here is the same for every arm: the generator answers or declines, and an
answer whose citations do not hold is withheld with the brief's reason.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import cast

from edgar_eval.answering.citations import answer_figures, check_citations
from edgar_eval.answering.composing_reader import READER_ID as COMPOSING_READER_ID
from edgar_eval.answering.composing_reader import TUNED_ON as COMPOSING_READER_TUNED_ON
from edgar_eval.answering.composing_reader import read_two_figures
from edgar_eval.answering.extractive import READER_ID, Passage, ReaderAnswer, read
from edgar_eval.answering.extractive import TUNED_ON as EXTRACTIVE_TUNED_ON
from edgar_eval.answering.table_reader import EAGER_READER_ID, read_tables
from edgar_eval.answering.table_reader import READER_ID as TABLE_READER_ID
from edgar_eval.answering.table_reader import TUNED_ON as TABLE_READER_TUNED_ON
from edgar_eval.domain.generation import Generation, GenerationRequest, Generator
from edgar_eval.domain.routes import ANSWER, DENY, NO_ANSWER, REVIEW

ANSWERED = "answered"
OUT_OF_SCOPE = "out_of_scope"
OUT_OF_PERIOD = "out_of_period"
GATE_REJECTED = "gate_rejected"
MODEL_DECLINED = "model_declined"
DENIED = "denied"  # the asking role may read no filing of the scope: nothing retrieved, nothing generated
OUTCOMES = (
    ANSWERED,
    DENIED,
    OUT_OF_SCOPE,
    OUT_OF_PERIOD,
    GATE_REJECTED,
    MODEL_DECLINED,
    "no_valid_citation",
    "unsupported_claim",
)


# The eager reader is the table reader's rules with its fallbacks: tuned where they were.
READERS_TUNED_ON = {
    READER_ID: EXTRACTIVE_TUNED_ON,
    TABLE_READER_ID: TABLE_READER_TUNED_ON,
    EAGER_READER_ID: TABLE_READER_TUNED_ON,
    COMPOSING_READER_ID: COMPOSING_READER_TUNED_ON,
}


def tuned_on(generator_id: str) -> tuple[str, ...]:
    """The corpora a rule-based reader was tuned on (none for a model server's generator): on them it is in-sample."""
    return READERS_TUNED_ON.get(generator_id, ())


def passage_label(position: int) -> str:
    """What a generator calls the passage at `position` (0-based): P1, P2, ... never the chunk id."""
    return f"P{position + 1}"


class ExtractiveGenerator:
    """The offline extractive baseline behind the generator port: deterministic, model-free, never replayed."""

    generator_id = READER_ID
    deterministic = True  # the same passages give the same text: a determinism measurement would compare it with itself

    @staticmethod
    def _read(question: str, passages: list[Passage]) -> ReaderAnswer:
        return read(question, passages)

    def generate(self, request: GenerationRequest) -> Generation:
        started = time.perf_counter()
        labelled = [Passage(passage_label(i), text) for i, (_, text) in enumerate(request.passages)]
        answer = self._read(request.question, labelled)
        by_label = {passage_label(i): passage_id for i, (passage_id, _) in enumerate(request.passages)}
        return Generation(
            text=answer.text,
            citations=[by_label[c] for c in answer.cited_chunk_ids],
            abstained=not answer.answered,
            reason=answer.decline_reason,
            model_id=self.generator_id,
            parameters={},
            prompt_version=None,
            latency_seconds=round(time.perf_counter() - started, 6),
        )


class TableReaderGenerator(ExtractiveGenerator):
    """The table-aware reader (answering/table_reader.py) behind the same port: offline and deterministic."""

    generator_id = TABLE_READER_ID

    @staticmethod
    def _read(question: str, passages: list[Passage]) -> ReaderAnswer:
        return read_tables(question, passages)


class EagerReaderGenerator(ExtractiveGenerator):
    """The eager reader (answering/table_reader.py, EAGER_READER_ID): a system under test that errs as language models
    do on filings, answering from the nearest row and column where the table reader declines; offline, deterministic."""

    generator_id = EAGER_READER_ID

    @staticmethod
    def _read(question: str, passages: list[Passage]) -> ReaderAnswer:
        return read_tables(question, passages, eager=True)


class ComposingReaderGenerator(ExtractiveGenerator):
    """The composing reader (answering/composing_reader.py): a question that asks two figures (a part of a year, a
    change, a comparison of two companies, a restatement) composed from two table reads; any other read as the table
    reader reads it. Offline and deterministic."""

    generator_id = COMPOSING_READER_ID

    @staticmethod
    def _read(question: str, passages: list[Passage]) -> ReaderAnswer:
        return read_two_figures(question, passages)


# The readers the arms' wrong-answer categories and the Readers table both read (defs/answering/arms.py,
# generations.py): their figures feed the report's reader sections and its headline reader figures.
OFFLINE_READERS = (ExtractiveGenerator(), TableReaderGenerator(), EagerReaderGenerator())
# The Readers table's: the offline readers and the composing reader, which reads a one-figure question as the table
# reader does (so it adds nothing to the wrong-answer categories) and is measured for its two-figure questions.
MEASURED_READERS = (*OFFLINE_READERS, ComposingReaderGenerator())


@dataclass(frozen=True)
class CheckedAnswer:
    """A generation with the outcome the citation check gives it, and the figure it states (for judging)."""

    generation: Generation | None
    outcome: str
    figure: float | None
    detail: str


def answer_question(
    request: GenerationRequest, generator: Generator, in_scope: bool = True, denied: str | None = None
) -> CheckedAnswer:
    """`in_scope` False: the request names no filing the corpus holds, so nothing is generated; `denied`: why the asking
    role may read no filing of the scope, so nothing is generated either."""
    if denied:
        return CheckedAnswer(None, DENIED, None, denied)
    if not in_scope:
        return CheckedAnswer(None, OUT_OF_SCOPE, None, "no filing of the company in the corpus")
    return check_generation(request, generator.generate(request))


def check_generation(request: GenerationRequest, generation: Generation) -> CheckedAnswer:
    if generation.abstained:
        return CheckedAnswer(generation, MODEL_DECLINED, None, generation.reason or "")
    passages = {passage_label(i): text for i, (_, text) in enumerate(request.passages)}
    verdict = check_citations(generation.text, passages)
    figures = answer_figures(generation.text)
    figure = figures[0].value if figures else None
    if not verdict.ok:
        return CheckedAnswer(generation, cast(str, verdict.reason), figure, verdict.why)  # not ok: a reason
    return CheckedAnswer(generation, ANSWERED, figure, "")


ROUTE_FROM_POLICY = "access policy"
ROUTE_FROM_PASSAGES = "passages read"  # they disagree on the asked figure: review (answering.conflicts)
ROUTE_FROM_REPLY = "reply route field"
ROUTE_FROM_FLAG = "abstained flag"  # and the citation check: an answer whose citations fail exits by no_answer


def exit_route(checked: CheckedAnswer, disagreement: str | None = None) -> tuple[str, str, str]:
    """The route a checked answer exits by, why, and what it was read from.

    Passages that disagree on the asked figure (`disagreement`, from answering.conflicts) send the question to review
    whatever the generator said: which value holds is for a person to say. A reply that names its route is taken at
    its word, except that an answer the citation check withholds exits by no_answer; a reply without a route field
    (every chat reply, and a service that sends none) answers or not by its abstained flag and the citation check."""
    if checked.outcome == DENIED:
        return DENY, checked.detail, ROUTE_FROM_POLICY
    if disagreement:
        return REVIEW, disagreement, ROUTE_FROM_PASSAGES
    generation = checked.generation
    withheld = f"{checked.outcome}: {checked.detail}" if checked.detail else checked.outcome
    if generation is not None and generation.route is not None:
        if generation.route == ANSWER and checked.outcome != ANSWERED:
            return NO_ANSWER, f"the reply answered, but {withheld}", ROUTE_FROM_REPLY
        return generation.route, generation.reason or f"the reply's route is {generation.route}", ROUTE_FROM_REPLY
    if checked.outcome == ANSWERED:
        return ANSWER, "answered with citations that hold", ROUTE_FROM_FLAG
    return NO_ANSWER, withheld, ROUTE_FROM_FLAG
