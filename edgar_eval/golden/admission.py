"""The ten admission gates, in order: the model proposes, code decides, a person decides only absence.

Every candidate gets one verdict row per gate: pass, fail, not_run (a gate that needs verified quotes when a
quote failed verification; the near-duplicate gate when an earlier gate failed) or not_applicable (absence
review for a question that is not D8). A candidate is accepted when no gate fails and none was left unrun; its
failing gate is the first in order. Text-only gates run even after a failure, so agreement with hand-written
verdicts can be measured per gate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from edgar_eval.corpus.company_names import aliases_by_company, companies_named
from edgar_eval.golden import claims
from edgar_eval.golden.absence import ABSENT, Passage, ReviewDecision, absence_passages
from edgar_eval.golden.candidates import Candidate
from edgar_eval.golden.patterns import FilingFacts, PlacedQuote, conformance
from edgar_eval.golden.quotes import QuoteIndex

GATES = (
    "quote_verification",
    "pattern_conformance",
    "answer_support",
    "idle_evidence",
    "source_naming",
    "plain_english",
    "period",
    "direction",
    "near_duplicate",
    "absence_review",
)
PASS, FAIL, NOT_RUN, NOT_APPLICABLE = "pass", "fail", "not_run", "not_applicable"
NEEDS_VERIFIED_QUOTES = ("pattern_conformance", "answer_support", "idle_evidence")
NEAR_DUPLICATE_JACCARD = 0.8
MIN_NEW_CONTENT_WORDS = 2  # a quote bringing fewer new content words than this adds nothing but a repeat

_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
_NUMBER = re.compile(r"\d[\d,.]*")
_STOP = frozenset(
    "a an and are as at be been by did do does for from had has have how in into is it its of on or our that the their "
    "them these this those to was were what when which while who with we us per than then also other such any "
    "all".split()
)


@dataclass(frozen=True)
class GateCorpus:
    """What the gates read: the quote index over every filing's text, the filings' facts, review decisions."""

    quotes: QuoteIndex
    texts: Mapping[str, str]
    filings: dict[str, FilingFacts]
    labels: dict[str, str]  # a document label (relative path, file name or filing id) -> filing id
    company_names: dict[str, tuple[str, ...]]  # cik -> the names a question may use
    reviews: dict[str, ReviewDecision] = field(default_factory=dict)
    review_file: str = ""

    def companies_named(self, question: str) -> list[str]:
        """The ciks whose names the question uses (by the one resolver, corpus.company_names), in cik order."""
        return companies_named(question, self.company_names)

    def resolve_label(self, label: str) -> str | None:
        text = label.strip()
        return self.labels.get(text) or self.labels.get(text.rsplit("/", 1)[-1])


def document_labels(filings: Sequence[tuple[str, str]]) -> dict[str, str]:
    """(filing id, relative path) pairs -> every label a proposer may use for that filing."""
    labels: dict[str, str] = {}
    names: dict[str, list[str]] = {}
    for filing_id, path in filings:
        labels[filing_id] = labels[path] = filing_id
        names.setdefault(path.rsplit("/", 1)[-1], []).append(filing_id)
    for name, ids in names.items():
        if len(ids) == 1:  # a bare file name is a label only where it is unambiguous
            labels.setdefault(name, ids[0])
    return labels


@dataclass(frozen=True)
class GateRow:
    candidate_id: str
    gate: str
    status: str
    reason: str


@dataclass
class GateRun:
    rows: list[GateRow]
    placed: dict[str, list[PlacedQuote]]
    passages: dict[str, list[Passage]]

    def verdict(self, candidate_id: str) -> tuple[bool, str | None]:
        for row in self.rows:
            if row.candidate_id == candidate_id and row.status in (FAIL, NOT_RUN):
                return False, row.gate
        return True, None


def content_words(text: str) -> set[str]:
    """Lower-case word stems (five letters) that carry meaning; numbers are figures, not words."""
    return {w.lower()[:5] for w in _WORD.findall(text) if len(w) > 2 and w.lower() not in _STOP}


def _verify(candidate: Candidate, corpus: GateCorpus) -> tuple[list[PlacedQuote], list[str]]:
    placed, problems = [], []
    for position, evidence in enumerate(candidate.evidence, start=1):
        match = corpus.quotes.find(evidence.quote, prefer=corpus.resolve_label(evidence.document))
        if not match.found or match.location is None:
            problems.append(f"quote {position}: {match.reason}")
            continue
        where = match.location
        cut = (
            None
            if where.is_table_row
            else list_cut_short(evidence.quote, corpus.texts.get(where.filing_id, ""), where.end)
        )
        if cut:
            problems.append(f"quote {position}: stops inside a list its sentence goes on with ({cut!r})")
            continue
        placed.append(PlacedQuote(where.filing_id, where.start, where.end, where.is_table_row, evidence.quote))
    return placed, problems


# what may stand between a quote's last word and the rest of its sentence without ending it: marks of a name
_NAME_MARKS = re.compile(r"^(?:\s|®|™|©|℠|\(R\)|\(TM\))*")
_LIST_GOES_ON = re.compile(r"^,?\s*(?:and|or)\s+[A-Za-z]")


def list_cut_short(quote: str, text: str, end: int) -> str | None:
    """Where a prose quote that itself lists ("advertising, the App Store") stops before its sentence's last item, the
    filing's words that go on with the list ("and cloud services"), else None: an answer built on the quote names a
    part of the list as the whole of it (an independent audit's defect, issue 60). A name's marks (® ™) after the
    quote do not end it; a sentence that goes on with anything but "and"/"or" (", partially offset by") is another
    clause, not the list."""
    if "," not in quote:
        return None
    rest = text[end : end + 200]
    rest = rest[_NAME_MARKS.match(rest).end() :]  # type: ignore[union-attr]
    if not _LIST_GOES_ON.match(rest):
        return None
    return re.split(r"(?<=[.;:])\s", rest, maxsplit=1)[0][:80].strip(", ")


def idle_evidence(candidate: Candidate, placed: Sequence[PlacedQuote]) -> str | None:
    """None, or which quote or document is idle: every answer figure is written in the other evidence (direct
    quotation only: arithmetic finds coincidences everywhere, so a figure one step away counts its two operands'
    quotes as needed, never a search for other operands) and it brings fewer than two content words that the
    other evidence does not bring. Quotes are dropped one at a time from the last, so of two copies one stays."""
    quotes = [q.text for q in placed]
    figures_printed_by: list[set[int]] = []  # each: the quotes any one of which prints a figure the answer needs
    for support in claims.support_details(candidate.gold_answer, quotes):
        if support.quotes:
            figures_printed_by.append(set(support.quotes))
        else:  # a figure one step away needs the quotes of both its operands
            figures_printed_by += [{q} for q in support.step_quotes]
    words = [content_words(q) for q in quotes]

    def idle(members: set[int], kept: set[int]) -> bool:
        others = kept - members
        if not others or any(not (ids & others) for ids in figures_printed_by):
            return False
        brought = set().union(*(words[i] for i in members)) - set().union(*(words[i] for i in others))
        return len(brought) < MIN_NEW_CONTENT_WORDS

    kept = set(range(len(quotes)))
    documents = sorted({q.filing_id for q in placed})
    if len(documents) > 1:
        for document in documents:
            members = {i for i, q in enumerate(placed) if q.filing_id == document}
            if idle(members, kept):
                return (
                    f"document {document} is idle: its quotes print no answer figure the others lack and bring fewer "
                    "than "
                    f"{MIN_NEW_CONTENT_WORDS} new content words"
                )
    for i in reversed(range(len(quotes))):
        if idle({i}, kept):
            return (
                f"quote {i + 1} is idle: every answer figure is printed in the other quotes and it brings fewer "
                f"than {MIN_NEW_CONTENT_WORDS} new content words"
            )
    return None


def question_frame(question: str, names: Sequence[str]) -> str:
    """The question with its names and numbers taken out: two questions with one frame ask the same thing twice."""
    text = question
    for name in sorted(names, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(name)}(?:['\u2019]s)?", "@", text, flags=re.I)
    text = _NUMBER.sub("#", text)
    tokens: list[str] = []
    for position, word in enumerate(re.findall(r"[@#]|[A-Za-z][A-Za-z'\-]*", text)):
        # A capitalised word past the first is a proper noun (a segment, a product): a slot, like a name.
        token = "@" if position and word[0].isupper() and word.lower() not in _STOP else word.lower()
        if token in ("@", "#") and tokens and tokens[-1] == token:
            continue  # "Data Center" and "Cloud Platform" are one slot each
        tokens.append(token)
    return " ".join(tokens)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def _company_of(candidate: Candidate, placed: Sequence[PlacedQuote], corpus: GateCorpus) -> str | None:
    ciks = {corpus.filings[q.filing_id].cik for q in placed}
    if len(ciks) == 1:
        return ciks.pop()
    named = corpus.companies_named(candidate.question)
    return named[0] if len(named) == 1 else None


def _names_company(candidate: Candidate, placed: Sequence[PlacedQuote], corpus: GateCorpus) -> bool:
    ciks = {corpus.filings[q.filing_id].cik for q in placed} or set(corpus.company_names)
    return bool(ciks & set(corpus.companies_named(candidate.question)))


def _absence(candidate: Candidate, placed: Sequence[PlacedQuote], corpus: GateCorpus) -> tuple[GateRow, list[Passage]]:
    cik = _company_of(candidate, placed, corpus)
    scope = {f: corpus.texts[f] for f, facts in corpus.filings.items() if cik is None or facts.cik == cik}
    names = (
        corpus.company_names.get(cik, ()) if cik else tuple(n for names in corpus.company_names.values() for n in names)
    )
    passages = absence_passages(candidate.question, scope, names)
    decision = corpus.reviews.get(candidate.candidate_id)
    shown = f"{len(passages)} passage(s) with the question's words next to a figure printed for review"
    if decision is None:
        return GateRow(
            candidate.candidate_id,
            "absence_review",
            FAIL,
            f"awaiting a review decision in {corpus.review_file or 'the review file'}; {shown}",
        ), passages
    if decision.question_sha256 != candidate.question_sha256:
        return GateRow(
            candidate.candidate_id,
            "absence_review",
            FAIL,
            "the review decision was made for another wording of the question; review it again",
        ), passages
    status = PASS if decision.decision == ABSENT else FAIL
    return GateRow(
        candidate.candidate_id,
        "absence_review",
        status,
        f"reviewed by {decision.reviewer}: {decision.decision} ({decision.reason}); {shown}",
    ), passages


def run_gates(candidates: Sequence[Candidate], corpus: GateCorpus) -> GateRun:
    """Every gate for every candidate, in order; the near-duplicate gate keeps the first of a pair (input order)."""
    rows: list[GateRow] = []
    placed_by: dict[str, list[PlacedQuote]] = {}
    passages_by: dict[str, list[Passage]] = {}
    survivors: list[tuple[Candidate, str, set[str]]] = []
    for candidate in candidates:
        cid = candidate.candidate_id
        placed, problems = _verify(candidate, corpus)
        placed_by[cid] = placed
        verdicts: dict[str, tuple[str, str]] = {}
        verdicts["quote_verification"] = (
            (FAIL, "; ".join(problems))
            if problems
            else (PASS, f"{len(placed)} quote(s) found in {len({q.filing_id for q in placed})} filing(s)")
        )
        if problems:
            for gate in NEEDS_VERIFIED_QUOTES:
                verdicts[gate] = (NOT_RUN, "a quote failed verification")
        else:
            problem = conformance(
                candidate.pattern, candidate.answer_type, placed, candidate.requires_documents, corpus.filings
            )
            verdicts["pattern_conformance"] = (
                (FAIL, problem) if problem else (PASS, f"{candidate.pattern} contract met")
            )
            support = claims.answer_support(candidate.gold_answer, [q.text for q in placed], candidate.answer_type)
            verdicts["answer_support"] = (PASS if support.passed else FAIL, support.reason)
            idle = idle_evidence(candidate, placed)
            verdicts["idle_evidence"] = (FAIL, idle) if idle else (PASS, "every quote and document brings something")
        for gate, verdict in (
            ("source_naming", claims.source_naming(candidate.question)),
            ("plain_english", claims.plain_english(candidate.question, candidate.gold_answer)),
            ("period", claims.period_named(candidate.question, candidate.pattern)),
            ("direction", claims.direction(candidate.question, candidate.gold_answer)),
        ):
            verdicts[gate] = (PASS if verdict.passed else FAIL, verdict.reason)
        if verdicts["period"][0] == PASS and not _names_company(candidate, placed, corpus):
            # The company is the other material identifier: without it the right route is to ask which one.
            verdicts["period"] = (FAIL, "the question names no company of the corpus (the route would be clarify)")
        if candidate.pattern == "D8":
            review, passages_by[cid] = _absence(candidate, placed, corpus)
            verdicts["absence_review"] = (review.status, review.reason)
        else:
            verdicts["absence_review"] = (NOT_APPLICABLE, "not an absence question")
        if any(status != PASS for gate, (status, _) in verdicts.items() if gate in GATES[:8]):
            verdicts["near_duplicate"] = (NOT_RUN, "an earlier gate failed")
        else:
            cik = _company_of(candidate, placed, corpus)
            names = corpus.company_names.get(cik, ()) if cik else ()
            frame, words = question_frame(candidate.question, names), content_words(candidate.question)
            duplicate = next(
                (
                    (other, "shares its question frame with")
                    if frame == other_frame
                    else (other, f"is a near-duplicate (word overlap {_jaccard(words, other_words):.2f}) of")
                    for other, other_frame, other_words in survivors
                    if frame == other_frame or _jaccard(words, other_words) >= NEAR_DUPLICATE_JACCARD
                ),
                None,
            )
            if duplicate:
                other, how = duplicate
                verdicts["near_duplicate"] = (FAIL, f"{how} {other.candidate_id}")
            else:
                verdicts["near_duplicate"] = (PASS, "no earlier question shares its frame or most of its words")
                survivors.append((candidate, frame, words))
        rows += [GateRow(cid, gate, *verdicts[gate]) for gate in GATES]
    return GateRun(rows, placed_by, passages_by)


def build_gate_corpus(
    filings, texts, sections, reviews: dict[str, ReviewDecision] | None = None, review_file: str = ""
) -> GateCorpus:
    """The gates' view of the corpus from the filings, filing_text and sections tables."""
    notes = sections.groupby("filing_id").notes_start.first().to_dict() if len(sections) else {}
    facts: dict[str, FilingFacts] = {}
    for row in filings.itertuples():
        start = notes.get(row.filing_id)
        facts[row.filing_id] = FilingFacts(
            row.filing_id,
            str(row.cik),
            str(row.form),
            str(row.filed or row.period_end),
            None if start is None or start != start else int(start),
        )  # NaN: no notes
    text_of = dict(zip(texts.filing_id, texts.text))
    order = sorted(text_of)
    return GateCorpus(
        QuoteIndex(text_of, order),
        text_of,
        facts,
        document_labels(list(zip(filings.filing_id, filings.path))),
        aliases_by_company(filings),
        reviews or {},
        review_file,
    )


def review_queue_markdown(candidates: list[Candidate], run: GateRun, review_file: str) -> str:
    """The absence review queue for a person: each D8 question with the passages to read. Filing text is quoted,
    so the queue goes under data/ (never committed), fenced as code so no markup in it renders."""
    lines = [
        f"# Absence review queue\n\nRecord each decision in `{review_file}` (one JSON object per line: candidate_id, "
        "question_sha256, decision absent|answered_in_corpus, reason, reviewer).\n"
    ]
    for candidate in candidates:
        if candidate.pattern != "D8":
            continue
        status = next(r for r in run.rows if r.candidate_id == candidate.candidate_id and r.gate == "absence_review")
        lines.append(
            f"## {candidate.candidate_id}\n\nquestion_sha256 `{candidate.question_sha256}`; gate: {status.status} "
            f"({status.reason})\n"
        )
        lines.append("```text\n" + candidate.question.replace("```", "'''") + "\n```\n")
        for passage in run.passages.get(candidate.candidate_id, []):
            kind = "table row" if passage.is_table_row else "sentence"
            lines.append(
                f"- {passage.filing_id} @{passage.start} ({kind}; words {', '.join(passage.words)}):\n\n"
                f"```text\n{passage.text.replace('```', chr(39) * 3)}\n```\n"
            )
    return "\n".join(lines)
