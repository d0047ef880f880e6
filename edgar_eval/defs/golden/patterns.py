"""Golden group, hard questions: proposals by dispersion pattern, the ten admission gates, the funnel, the frozen set,
and a naive baseline scored on it."""

import json
from pathlib import Path
from typing import cast

import dagster as dg
import pandas as pd

from edgar_eval.adapters.chat_proposer import ChatProposer
from edgar_eval.adapters.files import PinnedElsewhere, create_file, replace_file
from edgar_eval.answering.answerer import ANSWERED, ExtractiveGenerator, answer_question
from edgar_eval.answering.text_tools import asked_years
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.corpus.partitioned import PartitionedTable, current_partitions
from edgar_eval.corpus.revisions import current_only, superseded_by
from edgar_eval.defs.common import checked_index, table_head, table_output
from edgar_eval.defs.executors import MODEL_ENDPOINT_POOL
from edgar_eval.defs.settings import EmbedderResource, EvalSettings
from edgar_eval.defs.source_files import POLICY_FILES, PROPOSAL_FILES, REVIEW_FILES, TAPE_FILES, access_policy
from edgar_eval.domain.generation import GenerationRequest
from edgar_eval.domain.routes import route_from_exchange
from edgar_eval.evaluation.judge import pattern_case_correct
from edgar_eval.golden.absence import ReviewFileError, read_review_file
from edgar_eval.golden.admission import build_gate_corpus, review_queue_markdown, run_gates
from edgar_eval.golden.candidates import PATTERNS, Candidate, read_jsonl
from edgar_eval.golden.case_schema import permitted, scope_filings
from edgar_eval.golden.demo_candidates import SOURCE as DEMO_SOURCE
from edgar_eval.golden.demo_candidates import demo_proposals
from edgar_eval.golden.excerpts import align_excerpts
from edgar_eval.golden.pattern_set import (
    PATTERN_SET_VERSION,
    FreezeRefused,
    agreement,
    candidate_outcomes,
    freeze_patterns,
    funnel,
    select_balanced,
    verdict_frame,
)
from edgar_eval.golden.proposal_table import proposal_candidates, proposal_row, proposals_frame

_CORPUS = ["filings", "filing_text", "sections"]


def _keys(names: list[str]) -> set[dg.AssetKey]:
    return {dg.AssetKey(name) for name in names}


def _corpus_frames(filings: PartitionedTable, *tables: PartitionedTable) -> dict[str, pd.DataFrame]:
    """The rows of the filings current in every table, by table name."""
    keys, _ = current_partitions(filings, tables)
    return {"filings": filings.frame(keys), **{table.asset: table.frame(keys) for table in tables}}


@dg.asset(
    deps=[PROPOSAL_FILES.key, TAPE_FILES.key],
    group_name="golden",
    pool=MODEL_ENDPOINT_POOL,
    description="Golden-question proposals by dispersion pattern, each with its source, prompt version and excerpt "
    "ids: the demo corpus's planted ones (good, and broken in each way a gate exists for), any JSON Lines files named "
    "in the proposals setting (EDGAR_EVAL_PROPOSALS), and, when a proposer model is set "
    "(EDGAR_EVAL_PROPOSER_MODEL/_URL), a chat model's proposals over aligned excerpts through the tape. A proposal "
    "that cannot be read is kept with its reason, so the funnel counts it.",
)
def golden_proposals(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    filings: PartitionedTable,
    filing_text: PartitionedTable,
    sections: PartitionedTable,
) -> dg.Output[pd.DataFrame]:
    rows: list[dict] = []
    examples: list[Candidate] = []
    if settings.is_demo:
        frames = _corpus_frames(filings, filing_text)
        if frames["filings"].empty:
            raise dg.Failure("no filing of the demo corpus has current text: materialise the corpus job first")
        texts = frames["filing_text"].merge(frames["filings"][["filing_id", "path"]], on="filing_id")
        truth = json.loads((Path(settings.corpus_dir) / "ground_truth.json").read_text())
        text = "".join(json.dumps(r) + "\n" for r in demo_proposals(truth, dict(zip(texts.path, texts.text))))
        candidates, problems = read_jsonl(text, DEMO_SOURCE)
        examples += candidates
        rows += [proposal_row(c) for c in candidates] + [proposal_row(p) for p in problems]
    for path in settings.proposals:
        source = f"import:{Path(path).name}"
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise dg.Failure(f"cannot read proposals file {path}: {exc}") from exc
        candidates, problems = read_jsonl(text, source)
        examples += candidates
        rows += [proposal_row(c) for c in candidates] + [proposal_row(p) for p in problems]
    if settings.proposer_model and settings.proposer_url:
        accepted = [e for e in examples if e.expected.get("verdict") == "accept"]
        rows += _model_proposals(settings, _corpus_frames(filings, filing_text, sections), accepted)
    frame = proposals_frame(rows)
    return table_output(
        frame,
        {
            "by_source": dg.MetadataValue.json(frame.source.value_counts().sort_index().to_dict()),
            "unreadable": int((frame.unreadable_reason != "").sum()),
            "head": table_head(frame, ["candidate_id", "pattern", "question"], rows=8),
        },
    )


def _model_proposals(settings: EvalSettings, frames: dict[str, pd.DataFrame], examples: list[Candidate]) -> list[dict]:
    """The chat model's proposals over aligned excerpts, a few bundles per pattern; worked examples are the accepted
    hand-written or planted candidates whose quotes the bundle shows."""
    texts = dict(zip(frames["filing_text"].filing_id, frames["filing_text"].text))
    # proposals are asked of current revisions only, as search serves them: a superseded filing's figures are stale
    current = current_only(frames["filings"], superseded_by(frames["filings"]))
    rows: list[dict] = []
    with ChatProposer(settings.proposer_url, settings.proposer_model, tape=settings.proposer_tape()) as proposer:
        for pattern in PATTERNS:
            for bundle in align_excerpts(current, texts, frames["sections"], pattern)[: settings.proposal_bundles]:
                candidates, problems = proposer.propose(bundle, [e for e in examples if e.pattern == pattern])
                rows += [proposal_row(c) for c in candidates] + [proposal_row(p, pattern) for p in problems]
    return rows


def _reviews(settings: EvalSettings):
    path = settings.absence_review_path()
    if not path.is_file():
        return {}, str(path.relative_to(path.parents[2]))
    try:
        return read_review_file(path.read_text(encoding="utf-8"), str(path)), str(path.relative_to(path.parents[2]))
    except ReviewFileError as exc:
        raise dg.Failure(str(exc)) from exc


@dg.multi_asset(
    deps=[REVIEW_FILES.key],
    outs={
        "admission_verdicts": dg.AssetOut(
            group_name="golden",
            description="The ten admission gates' verdict on every proposal, one row per candidate per gate in order, "
            "each with its reason: pass, fail, not_run (needs verified quotes) or not_applicable.",
        ),
        "pattern_funnel": dg.AssetOut(
            group_name="golden",
            description="Per dispersion pattern: proposed -> quotes verified -> conforming -> supported -> accepted -> "
            "selected.",
        ),
        "admission_agreement": dg.AssetOut(
            group_name="golden",
            description="For proposals that carry a hand-written verdict: agreement per gate, and every disagreement.",
        ),
        "golden_patterns": dg.AssetOut(
            group_name="golden",
            description="The frozen hard-question set: up to N accepted cases per pattern (half single-document, half "
            "two-document when every pattern fills), in the brief's schema under a version and a content hash. "
            "Freezing refuses a set holding a case that fails a gate; a pinned version is never replaced.",
        ),
    },
    internal_asset_deps={
        "admission_verdicts": _keys(["golden_proposals", *_CORPUS]) | {REVIEW_FILES.key},
        "pattern_funnel": _keys(["golden_proposals", *_CORPUS]) | {REVIEW_FILES.key},
        "admission_agreement": _keys(["golden_proposals", *_CORPUS]) | {REVIEW_FILES.key},
        "golden_patterns": _keys(["golden_proposals", "chunks", *_CORPUS]) | {REVIEW_FILES.key},
    },
)
def admission_outcomes(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    golden_proposals: pd.DataFrame,
    filings: PartitionedTable,
    filing_text: PartitionedTable,
    sections: PartitionedTable,
    chunks: PartitionedTable,
):
    store = settings.store()
    proposals = golden_proposals
    try:
        candidates = proposal_candidates(proposals)
    except ValueError as exc:
        raise dg.Failure(str(exc)) from exc
    frames = _corpus_frames(filings, filing_text, sections, chunks)
    reviews, review_file = _reviews(settings)
    corpus = build_gate_corpus(frames["filings"], frames["filing_text"], frames["sections"], reviews, review_file)
    run = run_gates(candidates, corpus)
    verdicts = verdict_frame(candidates, run)
    outcomes = candidate_outcomes(verdicts)
    sheet = store.file("absence_review.md")
    replace_file(sheet, review_queue_markdown(candidates, run, review_file).encode())
    selected = select_balanced(candidates, outcomes, settings.patterns_per_pattern)
    funnel_frame = funnel(outcomes, proposals, {c.candidate_id for c in selected})
    per_gate, differences = agreement(candidates, outcomes)
    yield table_output(
        verdicts,
        {
            "candidates": len(candidates),
            "accepted": int(outcomes.accepted.sum()),
            "review_queue": dg.MetadataValue.path(str(sheet)),
            "rejected_by_gate": dg.MetadataValue.json(outcomes.failing_gate.value_counts().sort_index().to_dict()),
            "head": table_head(
                cast(pd.DataFrame, verdicts[verdicts.status == "fail"]), ["candidate_id", "gate", "reason"], rows=8
            ),
        },
        output_name="admission_verdicts",
    )
    yield table_output(funnel_frame, {"funnel": table_head(funnel_frame, rows=9)}, output_name="pattern_funnel")
    yield table_output(
        per_gate.assign(differences=len(differences)),
        {"agreement": table_head(per_gate, rows=10), "differences": table_head(differences, rows=10)},
        output_name="admission_agreement",
    )
    recorded = frames["filings"]
    texts = frames["filing_text"]
    pages = {r.filing_id: (list(r.page_starts), list(r.printed_pages)) for r in iter_rows(texts)}
    try:
        frozen = freeze_patterns(
            selected, outcomes, run.placed, dict(zip(recorded.filing_id, recorded.sha256)), frames["chunks"], pages
        )
    except FreezeRefused as exc:
        raise dg.Failure(str(exc)) from exc
    version = settings.patterns_version or f"{PATTERN_SET_VERSION}@{frozen.content_hash[:12]}"
    export = store.file("golden", f"{version.replace('/', '-')}.jsonl")
    try:
        create_file(export, frozen.jsonl.encode())  # a freeze is written once: never replaced, by this run or another
    except PinnedElsewhere:
        raise dg.Failure(
            f"pattern set {version!r} is frozen at {export} with other content; name a new patterns_version"
        ) from None
    table = pd.DataFrame(
        [
            {
                "case_id": r["id"],
                "pattern": r["pattern"],
                "question": r["question"],
                "reference_answer": r["reference_answer"],
                "expected_route": route_from_exchange(r["expected_route"]),
                "difficulty": r["difficulty"],
                "question_type": r["question_type"],
                "evidence_filing_ids": sorted({e["filing_id"] for e in r["evidence"]}),
                "evidence_chunk_ids": [e["chunk_ids"] for e in r["evidence"]],
                "version": version,
                "content_hash": frozen.content_hash,
                "per_pattern": settings.patterns_per_pattern,
            }
            for r in frozen.records
        ],
        columns=[
            "case_id",
            "pattern",
            "question",
            "reference_answer",
            "expected_route",
            "difficulty",
            "question_type",
            "evidence_filing_ids",
            "evidence_chunk_ids",
            "version",
            "content_hash",
            "per_pattern",
        ],
    )
    yield table_output(
        table,
        {
            "version": version,
            "content_hash": frozen.content_hash,
            "export": dg.MetadataValue.path(str(export)),
            "by_pattern": dg.MetadataValue.json(table.pattern.value_counts().sort_index().to_dict()),
        },
        output_name="golden_patterns",
    )


@dg.asset(
    deps=[POLICY_FILES.key],
    group_name="runs",
    description="A naive baseline on the frozen hard-question set through the same harness: dense top-k over the "
    "company's filings, the extractive reader, the citation check; per case the share of evidence documents retrieved "
    "(document recall) and of evidence quotes whose chunk was retrieved (quote recall), whether the stated figure "
    "matches a figure of the reference answer (or a refusal where the set expects one), and abstentions.",
)
def pattern_baseline(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    golden_patterns: pd.DataFrame,
    search_index: pd.DataFrame,
    filings: PartitionedTable,
) -> dg.Output[pd.DataFrame]:
    cases, index_rows = golden_patterns, search_index
    index, model = checked_index(settings, embedder, index_rows)
    recorded = filings.frame()
    company_of = dict(zip(recorded.filing_id, recorded.cik))
    policy, known = access_policy(settings), scope_filings(recorded)
    generator = ExtractiveGenerator()
    rows = []
    vectors = model.embed(cases.question.tolist()) if len(cases) else []
    for case, vector in zip(iter_rows(cases), vectors):
        evidence = list(case.evidence_filing_ids)
        cik = company_of.get(evidence[0]) if evidence else None
        scope = sorted(f for f, c in company_of.items() if cik is None or c == cik)
        # the asking role searches only what it may read, as the answerer does
        hits = index.search(vector, permitted(scope, settings.asking_role, policy, known), settings.top_k)
        found = index_rows.iloc[[h.row for h in hits]]
        years = asked_years(case.question)
        request = GenerationRequest(
            case.question, tuple(zip(found.chunk_id, found.text)), cik=cik, fiscal_year=max(years) if years else None
        )
        checked = answer_question(request, generator)
        retrieved = set(found.filing_id)
        rows.append(
            {
                "case_id": case.case_id,
                "pattern": case.pattern,
                "difficulty": case.difficulty,
                "expected_route": case.expected_route,
                "evidence_documents": len(evidence),
                "document_recall": len(retrieved & set(evidence)) / len(evidence) if evidence else float("nan"),
                "quote_recall": (
                    sum(bool(set(ids) & set(found.chunk_id)) for ids in case.evidence_chunk_ids)
                    / len(case.evidence_chunk_ids)
                    if len(case.evidence_chunk_ids)
                    else float("nan")
                ),
                "outcome": checked.outcome,
                "abstained": checked.outcome != ANSWERED,
                "correct": pattern_case_correct(case.expected_route, case.reference_answer, checked),
                "answer_text": checked.generation.text if checked.generation else "",
            }
        )
    frame = pd.DataFrame(
        rows,
        columns=[
            "case_id",
            "pattern",
            "difficulty",
            "expected_route",
            "evidence_documents",
            "document_recall",
            "quote_recall",
            "outcome",
            "abstained",
            "correct",
            "answer_text",
        ],
    )
    return table_output(
        frame,
        {
            "generator": generator.generator_id,
            "cases": len(frame),
            "correct_share": float(frame.correct.mean()) if len(frame) else float("nan"),
            "head": table_head(frame, ["case_id", "pattern", "document_recall", "quote_recall", "outcome", "correct"]),
        },
    )


ASSETS = [golden_proposals, admission_outcomes, pattern_baseline]
