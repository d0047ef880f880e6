"""The six arms over the one generation: the gates' scores, each arm's outcome per question, and the wrong answers by
category."""

import json
import time
from collections.abc import Set
from typing import cast

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.answering.answerer import (
    OFFLINE_READERS,
)
from edgar_eval.answering.period_guard import period_guard, printed_years
from edgar_eval.answering.relevance import FEATURES, relevance_features
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.defs.answering.generations import figure_correct
from edgar_eval.defs.common import table_head, table_output
from edgar_eval.defs.io_manager import columns_of
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.shards import answerer_shard_rows, materialize_shards, passage_slices, shard_asset
from edgar_eval.defs.source_files import GATES_FILES
from edgar_eval.domain.routes import ANSWER, NO_ANSWER
from edgar_eval.evaluation.abstention import ARMS, cross_fit, mask_arms
from edgar_eval.evaluation.frozen_gates import apply_frozen_gates, read_gates
from edgar_eval.evaluation.shards import ORDER_COLUMN
from edgar_eval.evaluation.wrong_answers import RIGHT, SYSTEM_COLUMNS, categories_of, category_table

# What the gates read, and all they read: the question (its text, its company for the folds, and its route, the label
# the relevance model and thresholds are fitted on within dev) and the passages the generator read. Not the tagged
# facts, the filings' company names, or a golden column the twins were built from (fiscal year, kind, concept, scope):
# edgar_eval_tests/test_vocabularies.py fails when one is added.
GATE_INPUTS = {
    "golden_questions": dg.AssetIn(metadata=columns_of("question_id", "question", "cik", "expected_route")),
    "answerer_retrievals": dg.AssetIn(metadata=columns_of("question_id", "chunk_ids", "cosines")),
    "search_index": dg.AssetIn(metadata=columns_of("chunk_id", "text")),
}


@shard_asset(
    "Per question the gates score (expected to be answered or to exit by no_answer): the period guard's verdict (the "
    "years the passages the generator read print as periods: table header years, fiscal years and period ends in "
    "sentences; no filing metadata or tagged fact), the top cosine and the relevance model's features (retrieval "
    "features and the question's capitalised names against the passages; no company-name resolver), and the seconds "
    "they took. abstention_scores fits the thresholds on them.",
    ins=GATE_INPUTS,
)
def gate_features(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    answerer_retrievals: pd.DataFrame,
    golden_questions: pd.DataFrame,
    search_index: pd.DataFrame,
) -> dg.MaterializeResult:
    # The gates read the question and the passages the generator read, nothing the golden builder made its twins
    # from (tagged facts' fiscal years, the company-name resolver): a gate that did would be right by construction.
    # They decide answer against no_answer: a question expected to exit by review or deny is not theirs to score.
    golden = cast(pd.DataFrame, golden_questions[golden_questions.expected_route.isin([ANSWER, NO_ANSWER])])
    by_id = golden.set_index("question_id")
    retrieved = answerer_retrievals.sort_values("question_id")
    texts = search_index.set_index("chunk_id").text

    def slices(shard: str) -> dict[str, pd.DataFrame]:
        return passage_slices(by_id, answerer_shard_rows(golden, retrieved, shard), texts)

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        own = answerer_shard_rows(golden, retrieved, shard, only).set_index("question_id")
        rows = []
        for question in iter_rows(cast(pd.DataFrame, golden[golden.question_id.isin(own.index)])):
            retrieval = own.loc[question.question_id]
            started = time.perf_counter()
            passages = [texts[c] for c in retrieval.chunk_ids]
            guard = period_guard(question.question, printed_years(passages))
            features = relevance_features(question.question, passages, sorted(retrieval.cosines, reverse=True))
            rows.append(
                {
                    "question_id": question.question_id,
                    "cik": question.cik,
                    "answerable": question.expected_route == "answer",
                    "period_pass": guard.passes,
                    "period_reason": guard.reason,
                    **features,
                    "gate_seconds": time.perf_counter() - started,
                }
            )
        frame = pd.DataFrame(rows)
        # by question id: the gates may not read the golden order's columns (its kind); abstention_scores puts the
        # rows back in the golden set's order
        return frame.assign(**{ORDER_COLUMN: frame.question_id.astype(str)}) if rows else frame

    def figures(rows: pd.DataFrame) -> dict:
        return {
            "questions": len(rows),
            "period_pass_rate": float(rows.period_pass.mean()) if len(rows) else float("nan"),
            "features": ", ".join(FEATURES),
        }

    return materialize_shards(context, settings, "gate_features", work, slices, {}, figures)


@dg.asset(
    group_name="runs",
    deps=[GATES_FILES.key],
    description="Per question the gates score (gate_features): the period guard's verdict, the top cosine score and "
    "the relevance model's score, each with its threshold admitting 90% of the fitting questions' answerable ones. "
    "The dev split fits: eval questions are scored by a model and thresholds fitted on the whole dev split, dev "
    "questions two-fold by company within dev. With a frozen gates file (setting gates_file) nothing is fitted here: "
    "its model and thresholds, fitted on another corpus's companies, score every question, and every question is "
    "eval.",
)
def abstention_scores(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    gate_features: pd.DataFrame,
    golden_set: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    # in the golden set's order (golden_set holds the golden questions' rows in their order), the split beside
    splits = cast(pd.DataFrame, golden_set[["question_id", "split"]])
    frame = cast(pd.DataFrame, splits.merge(gate_features, on="question_id", validate="one_to_one"))
    frame = cast(pd.DataFrame, frame[[*gate_features.columns, "split"]])
    frozen = settings.gates_path()
    scored = cross_fit(frame) if frozen is None else apply_frozen_gates(frame.drop(columns="split"), read_gates(frozen))
    brier = float(np.mean((scored.relevance_score - scored.answerable.astype(float)) ** 2))
    return table_output(
        scored,
        {
            "relevance_brier": brier,
            "period_pass_rate": float(scored.period_pass.mean()),
            "cosine_pass_rate": float(scored.cosine_pass.mean()),
            "relevance_pass_rate": float(scored.relevance_pass.mean()),
            "features": ", ".join(FEATURES),
            "fitted": "on this corpus's dev split" if frozen is None else f"frozen: {frozen.name}",
        },
    )


@dg.asset(
    group_name="runs",
    description="The six arms A-F as masks over the one generation per question; each outcome right or wrong against "
    "the golden case, with the question's split (dev or eval).",
)
def arm_outcomes(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    abstention_scores: pd.DataFrame,
    generations: pd.DataFrame,
    golden_questions: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    golden = golden_questions
    judged = generations.merge(
        golden[
            [
                "question_id",
                "expected_route",
                "kind",
                "gold_value",
                "gold_answer",
                "label",
                "fiscal_year",
                "gold_figures",
                "gold_direction",
            ]
        ],
        on="question_id",
    )
    judged["figure_correct"] = [figure_correct(g.answer_text, g) for g in iter_rows(judged)]
    gates = abstention_scores[["question_id", "cik", "split", "period_pass", "cosine_pass", "relevance_pass"]]
    judgements = ["question_id", "answered", "outcome", "figure_correct", "expected_route", "kind", "generate_seconds"]
    outcomes = mask_arms(cast(pd.DataFrame, gates), cast(pd.DataFrame, judged[judgements]))
    return table_output(
        outcomes,
        {
            "questions": int(outcomes.question_id.nunique()),
            "correct_share_by_arm": dg.MetadataValue.json(outcomes.groupby("arm").correct.mean().round(4).to_dict()),
        },
    )


@shard_asset(
    "Why each wrong answer is wrong, for every reader and every arm (evaluation.wrong_answers): per system and "
    "question, its category from provenance: right; superseded value, scale or sign slip, wrong period (another "
    "column of the gold row), wrong filing, wrong company, wrong line (another row beside the gold row), another "
    "figure read, printed nowhere read; declined with or without the gold passage read; withheld by a gate.",
)
def wrong_answers(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    answerer_retrievals: pd.DataFrame,
    golden_questions: pd.DataFrame,
    search_index: pd.DataFrame,
    generations: pd.DataFrame,
    arm_outcomes: pd.DataFrame,
    reader_answers: pd.DataFrame,
) -> dg.MaterializeResult:
    golden = golden_questions.set_index("question_id")
    retrieved = answerer_retrievals.sort_values("question_id")
    read = {q: list(ids) for q, ids in zip(answerer_retrievals.question_id, answerer_retrievals.chunk_ids)}
    gold_read = dict(zip(answerer_retrievals.question_id, answerer_retrievals.chunk_hit.astype(bool)))
    company_of = dict(zip(search_index.filing_id, search_index.cik.astype(str)))
    text_of = dict(zip(search_index.chunk_id, search_index.text))
    offline = sorted(reader.generator_id for reader in OFFLINE_READERS)
    readers = cast(pd.DataFrame, reader_answers[reader_answers.reader.isin(offline)])
    answers = generations.set_index("question_id")
    # every system's rows in one table: the readers' (by id) then the arms' (by name), each in question id order
    systems = [f"reader {reader}" for reader in offline] + [f"arm {arm}" for arm in sorted(ARMS)]
    place = {system: number for number, system in enumerate(systems)}

    def of(table: pd.DataFrame, questions: pd.Series) -> pd.DataFrame:
        return cast(pd.DataFrame, table[table.question_id.isin(questions)])

    def slices(shard: str) -> dict[str, pd.DataFrame]:
        own = answerer_shard_rows(golden_questions, retrieved, shard)
        asked = own.question_id
        return {
            **passage_slices(golden, own, text_of),
            # the company of each filing read: a figure printed in another filing is a wrong filing or a wrong company
            "companies_read": pd.DataFrame(
                {
                    "question_id": asked.to_numpy(),
                    "companies": [json.dumps([company_of.get(f, "") for f in filings]) for filings in own.filing_ids],
                }
            ),
            "reader_answers": of(readers, asked),
            "arm_outcomes": of(arm_outcomes, asked),
            "generations": of(cast(pd.DataFrame, generations[["question_id", "answer_text", "answered"]]), asked),
        }

    def work(shard: str, only: Set[str] | None) -> pd.DataFrame:
        asked = answerer_shard_rows(golden_questions, retrieved, shard, only).question_id
        frames = []
        for reader, own in of(readers, asked).groupby("reader", sort=True):
            frames.append(categories_of(f"reader {reader}", own, golden, read, gold_read, text_of, company_of))
        for arm, own in of(arm_outcomes, asked).groupby("arm", sort=True):
            scored = own.assign(
                right=own.correct.astype(bool),
                answer_text=[str(answers.answer_text.get(q, "")) for q in own.question_id],
                generated=[bool(answers.answered.get(q, False)) for q in own.question_id],
            )
            frames.append(categories_of(f"arm {arm}", scored, golden, read, gold_read, text_of, company_of))
        frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=SYSTEM_COLUMNS)
        if not len(frame):
            return frame  # with its columns: a run with no question still has the table its readers read
        order = [f"{place[system]:03d}|{question}" for system, question in zip(frame.system, frame.question_id)]
        return frame.assign(**{ORDER_COLUMN: order})

    def figures(frame: pd.DataFrame) -> dict:
        if not len(frame):
            return {"systems": 0}
        wrong = cast(pd.DataFrame, frame[~frame.category.isin([RIGHT])])
        return {
            "systems": int(frame.system.nunique()),
            "by_category": dg.MetadataValue.json(
                wrong[wrong.system == "arm A"].category.value_counts().sort_index().to_dict()
            ),
            "head": table_head(category_table(frame), ["system", "kind", "category", "questions"], rows=12),
        }

    return materialize_shards(context, settings, "wrong_answers", work, slices, {}, figures)


ASSETS = [wrong_answers, gate_features, abstention_scores, arm_outcomes]
