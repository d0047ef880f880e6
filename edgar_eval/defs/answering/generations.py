"""What the system under test answers: the generator's generations over the answerer's passages, the offline readers'
accuracy, and the answers' noise over index replicas."""

import json
import random
from collections.abc import Set
from typing import cast

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.answering.answerer import (
    ANSWERED,
    MEASURED_READERS,
    answer_question,
    exit_route,
)
from edgar_eval.answering.conflicts import passages_disagree
from edgar_eval.answering.extractive import Passage
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.defs.common import checked_index, figure_metadata, question_vectors, table_head, table_output
from edgar_eval.defs.executors import MODEL_ENDPOINT_POOL
from edgar_eval.defs.retrieval.noise import IndexReplicas, sample_words, sampled_questions
from edgar_eval.defs.retrieval.runs import shard_slices
from edgar_eval.defs.settings import MODEL_GENERATORS, EmbedderResource, EvalSettings, GeneratorResource
from edgar_eval.defs.shards import answerer_shard_rows, materialize_shards, passage_slices, shard_asset
from edgar_eval.defs.source_files import TAPE_FILES
from edgar_eval.domain.generation import Generation, GenerationRequest
from edgar_eval.domain.routes import ANSWER
from edgar_eval.evaluation.abstention import judge_exits
from edgar_eval.evaluation.headline_figures import reader_figures
from edgar_eval.evaluation.judge import judge_case
from edgar_eval.evaluation.readers import reader_outcomes, summarise_readers
from edgar_eval.evaluation.shards import ORDER_COLUMN, question_order, shard_questions, shard_scopes
from edgar_eval.retrieval.scope import COMPANY_YEAR


@shard_asset(
    "The noise band of the answering figures: arm A (no gate) repeated over the noise band's index replicas "
    "(retrieval_noise's: companies left out, rows in another order), every question of the noise sample "
    "(retrieval_noise's) of the companies still in it searched by the answerer's retriever at its K in the answerer's "
    "scope, answered by the generator and judged as arm A is; per replica and question, answered, figure correct, "
    "correct and false answer. answering_noise_band pairs them with the measurement. Measured for a deterministic "
    "offline generator only: a model's replicas would be new calls no tape holds, so for one the table is empty and "
    "the report says not measured.",
    deps=(TAPE_FILES.key,),
    pool=MODEL_ENDPOINT_POOL,
)
def answering_noise(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    generator: GeneratorResource,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
    question_embeddings: pd.DataFrame,
) -> dg.MaterializeResult:
    checked_index(settings, embedder, search_index)
    model = generator.adapter(settings)
    deterministic = bool(getattr(model, "deterministic", False))
    sample = sampled_questions(settings, golden_questions)
    retriever = settings.answer_search()
    replicas = IndexReplicas(settings, search_index)
    slices = shard_slices(sample, search_index, (COMPANY_YEAR,), question_embeddings=question_embeddings)

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        questions = shard_questions(sample, shard, only)
        runs = []
        # none measured (a model generator, no question, the corpus shard): the table keeps its columns, with no row
        if deterministic and len(questions) and shard_scopes(shard, (COMPANY_YEAR,)):
            vectors = dict(zip(questions.question_id, question_vectors(question_embeddings, questions.question_id)))
            for replica in replicas:
                search = replica.searches(settings.rrf_k, (retriever,))[retriever]
                chunk_ids, texts = replica.rows.chunk_id.to_numpy(), replica.rows.set_index("chunk_id").text
                for case in iter_rows(cast(pd.DataFrame, questions[~questions.cik.isin(replica.left_out)])):
                    hits = search(
                        vectors[case.question_id], case.question, list(case.permitted_filing_ids), settings.top_k
                    )
                    _, _, row = generation_row(model, case, [str(c) for c in chunk_ids[[h.row for h in hits]]], texts)
                    answered = bool(row["answered"])
                    runs.append(
                        {
                            "replica": replica.number,
                            "question_id": case.question_id,
                            "expected_route": case.expected_route,
                            "answered": answered,
                            "figure_correct": answered and figure_correct(row["answer_text"], case),
                        }
                    )
        frame = pd.DataFrame(runs, columns=["replica", "question_id", "expected_route", "answered", "figure_correct"])
        frame["correct"], frame["false_answer"] = judge_exits(  # as arm A judges: no gate keeps any back
            frame.expected_route.to_numpy() == ANSWER,
            frame.answered.to_numpy(bool),
            frame.figure_correct.to_numpy(bool),
        )
        return frame.assign(**{ORDER_COLUMN: question_order(golden_questions, frame.question_id)})

    def figures(rows: pd.DataFrame) -> dict:
        return {
            "generator": model.generator_id,
            "measured": deterministic,
            "replicas": settings.noise_replicas if deterministic else 0,
            "questions_sampled": sample_words(sample, golden_questions),
            "answers": len(rows),
        }

    shared = {**replicas.stamp(), "generator": json.dumps(generator.model_dump(mode="json"), sort_keys=True)}
    return materialize_shards(context, settings, "answering_noise", work, slices, shared, figures)


def figure_correct(answer_text: str, case) -> bool:
    """Whether an answer states the golden question's figures (`case`: its gold_value, gold_answer, label, fiscal_year,
    gold_figures and gold_direction), by the judge every arm is scored with."""
    return judge_case(answer_text, case).correct


def generation_row(
    model, case, chunk_ids: list[str], texts: pd.Series
) -> tuple[GenerationRequest, Generation | None, dict]:
    """One question put to the generator over the passages read, the citation check, and the route it exits by.
    `case`: a golden question's fields (question, cik, fiscal_year, role, scope_filing_ids, permitted_filing_ids)."""
    request = GenerationRequest(
        case.question,
        tuple((c, str(texts[c])) for c in chunk_ids),
        cik=case.cik,
        fiscal_year=int(case.fiscal_year),
        role=case.role,
    )
    denied = (
        f"role {case.role!r} may read no filing of the scope"
        if len(case.scope_filing_ids) and not len(case.permitted_filing_ids)
        else None
    )
    checked = answer_question(request, model, in_scope=len(case.scope_filing_ids) > 0, denied=denied)
    disagreement = passages_disagree(case.question, [Passage(c, t) for c, t in request.passages])
    generation = checked.generation
    return (
        request,
        generation,
        {
            "generator_id": model.generator_id,
            "model_id": generation.model_id if generation else "",
            "parameters": json.dumps(generation.parameters if generation else {}, sort_keys=True),
            "prompt_version": generation.prompt_version if generation else None,
            "outcome": checked.outcome,
            "answered": checked.outcome == ANSWERED,
            "detail": checked.detail,
            **dict(zip(("route", "route_reason", "route_from"), exit_route(checked, disagreement))),
            "answer_text": generation.text if generation else "",
            "figure": checked.figure,
            "cited_chunk_ids": list(generation.citations) if generation else [],
            "generate_seconds": generation.latency_seconds if generation else 0.0,
            "replayed": bool(generation.replayed) if generation else False,
            "tape_key": generation.tape_key if generation else None,
        },
    )


DETERMINISM_SAMPLE = 40  # questions asked twice to measure whether the same prompt gives the same text


@shard_asset(
    "One generation per question from the configured generator (the table reader by default; the extractive reader, "
    "an OpenAI-compatible chat model or an external RAG service through a record/replay tape), then the citation "
    "check: answered, model_declined, no_valid_citation or unsupported_claim, with the stated figure and latency, and "
    "the route it exits by (review where the passages read disagree on the asked figure). A seeded sample is "
    "generated twice to measure determinism (not for a deterministic generator, which would only be compared with "
    "itself). A shard is generated again whenever its generator calls a live model.",
    deps=(TAPE_FILES.key,),
    pool=MODEL_ENDPOINT_POOL,
)
def generations(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    generator: GeneratorResource,
    answerer_retrievals: pd.DataFrame,
    golden_questions: pd.DataFrame,
    search_index: pd.DataFrame,
) -> dg.MaterializeResult:
    golden = golden_questions.set_index("question_id")
    texts = search_index.set_index("chunk_id").text
    model, repeat_model = generator.adapter(settings), generator.adapter(settings, repeat=True)
    # The order and the determinism sample come from the golden set (one retrieval per question, every shard's), not
    # from this run's answerer_retrievals, which a run of fewer shards holds fewer of.
    asked = pd.Series(sorted(golden_questions.question_id))
    retrieved = answerer_retrievals.sort_values("question_id")
    deterministic = bool(getattr(model, "deterministic", False))
    repeat = (
        set()
        if deterministic
        else set(random.Random(settings.golden_seed).sample(list(asked), min(DETERMINISM_SAMPLE, len(asked))))
    )
    # a live model's answers are its answers now: no shard of an earlier run stands in for them
    live = context.run.run_id if generator.kind in MODEL_GENERATORS and settings.tape_mode != "replay" else ""
    corpus_wide = {
        "generator": json.dumps(generator.model_dump(mode="json"), sort_keys=True),
        "live": live,
    }

    def shard_rows(shard: str, only: Set[str] | None = None) -> pd.DataFrame:
        return answerer_shard_rows(golden_questions, retrieved, shard, only)

    def slices(shard: str) -> dict[str, pd.DataFrame]:
        own = shard_rows(shard)
        return {
            **passage_slices(golden, own, texts),
            "repeated": pd.DataFrame({"question_id": sorted(repeat & set(own.question_id))}),
        }

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        rows = []
        own = shard_rows(shard, only)
        for retrieval in iter_rows(own):
            case = golden.loc[retrieval.question_id]
            request, generation, row = generation_row(model, case, list(retrieval.chunk_ids), texts)
            same_again = None
            if generation is not None and retrieval.question_id in repeat:
                same_again = repeat_model.generate(request).text == generation.text
            rows.append(
                {
                    "question_id": retrieval.question_id,
                    **row,
                    "same_text_again": same_again,
                    "deterministic": deterministic,
                }
            )
        frame = pd.DataFrame(rows)
        if not len(frame):
            return frame
        return frame.assign(**{ORDER_COLUMN: frame.question_id.astype(str)})  # in question id order, as `asked`

    def figures(frame: pd.DataFrame) -> dict:
        if not len(frame):
            return {"generator": model.generator_id}
        latency = frame.generate_seconds.to_numpy()
        return {
            "generator": model.generator_id,
            "answered_share": float(frame.answered.mean()),
            "outcomes": dg.MetadataValue.json(frame.outcome.value_counts().sort_index().to_dict()),
            "replayed": int(frame.replayed.sum()),
            "generate_p50_ms": float(np.percentile(latency, 50) * 1000),
            "generate_p95_ms": float(np.percentile(latency, 95) * 1000),
            "head": table_head(frame, ["question_id", "outcome", "answer_text"]),
        }

    return materialize_shards(context, settings, "generations", work, slices, corpus_wide, figures)


@shard_asset(
    "The offline readers (extractive-baseline, table-reader, the eager reader that errs as language models do, and the "
    "composing reader that answers two-figure questions from two table reads) on the passages the answerer read, for "
    "every answerable question: per reader and question, the citation-checked outcome, whether it states the gold "
    "(judged as under arm A), whether the gold chunk was among the passages, and the answer.",
)
def reader_answers(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    answerer_retrievals: pd.DataFrame,
    golden_questions: pd.DataFrame,
    search_index: pd.DataFrame,
) -> dg.MaterializeResult:
    golden = golden_questions.set_index("question_id")
    answerable = cast(pd.DataFrame, golden_questions[golden_questions.expected_route == ANSWER])
    retrieved = answerer_retrievals.sort_values("question_id")
    texts = search_index.set_index("chunk_id").text
    place = {reader.generator_id: number for number, reader in enumerate(MEASURED_READERS)}

    def slices(shard: str) -> dict[str, pd.DataFrame]:
        return passage_slices(golden, answerer_shard_rows(answerable, retrieved, shard), texts)

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        own = answerer_shard_rows(answerable, retrieved, shard, only)
        frame = reader_outcomes(golden.loc[own.question_id], own.set_index("question_id"), texts, MEASURED_READERS)
        if not len(frame):
            return frame  # with its columns: a run with no answerable question still has the table its readers read
        # reader by reader, each in question id order, as reader_outcomes writes the whole set
        order = [f"{place[reader]:03d}|{question}" for reader, question in zip(frame.reader, frame.question_id)]
        return frame.assign(**{ORDER_COLUMN: order})

    def figures(rows: pd.DataFrame) -> dict:
        return {"readers": ", ".join(place), "answers": len(rows)}

    return materialize_shards(context, settings, "reader_answers", work, slices, {}, figures)


@dg.asset(
    group_name="runs",
    description="The offline readers' accuracy (reader_answers): right (Wilson 95%), wrong, declined, per document "
    "count and per two-document kind, beside the share whose gold chunk was retrieved at the answerer's K (the "
    "readers' ceiling).",
)
def reader_accuracy(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    reader_answers: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    frame = summarise_readers(reader_answers)
    return table_output(
        frame,
        {
            "retriever": settings.answer_retriever,
            "k": settings.top_k,
            "right_share": dg.MetadataValue.json(
                {
                    f"{r} ({k or d})": v
                    for r, d, k, v in zip(frame.reader, frame.documents, frame.kind, frame.right_share.round(4))
                }
            ),
            **figure_metadata(reader_figures(frame)),
            "head": table_head(
                frame,
                ["reader", "documents", "kind", "questions", "gold_chunk_retrieved", "right", "wrong", "declined"],
                rows=len(frame),
            ),
        },
    )


ASSETS = [answering_noise, generations, reader_answers, reader_accuracy]
