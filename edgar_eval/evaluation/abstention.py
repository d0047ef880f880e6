"""Abstention gate scores with thresholds fitted on the dev split (cross-fitted by company within it), and the six arms
as masks over one generation."""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.answering.relevance import FEATURES, RelevanceModel

ADMIT_SHARE = 0.90
ARMS = {
    "A": (),
    "B": ("cosine",),
    "C": ("relevance",),
    "D": ("period",),
    "E": ("period", "relevance"),
    "F": ("period", "cosine"),
}
ARM_NAMES = {
    "A": "no gate",
    "B": "cosine",
    "C": "relevance model",
    "D": "period guard",
    "E": "period guard + relevance",
    "F": "period guard + cosine",
}


def company_folds(ciks: pd.Series) -> pd.Series:
    """Two folds by company: companies in CIK order alternate between fold 0 and fold 1."""
    order = {cik: i % 2 for i, cik in enumerate(sorted(ciks.unique()))}
    return ciks.map(order)


def admitting_threshold(scores: np.ndarray) -> float:
    """The highest threshold that still admits ADMIT_SHARE of these (answerable) scores."""
    if len(scores) == 0:
        return float("-inf")
    excluded = int(np.floor(len(scores) * (1 - ADMIT_SHARE) + 1e-9))
    return float(np.sort(scores)[excluded])


SCORE_DECIMALS = 9


def _stable(scores: np.ndarray) -> np.ndarray:
    """The solver's probabilities to 9 decimals: their last digits follow the BLAS kernel of the machine, and a
    report figure (the Brier score) must not change with the processor it was computed on."""
    return np.round(scores, SCORE_DECIMALS)


def _fit(train: pd.DataFrame, test: pd.DataFrame, out: pd.DataFrame) -> None:
    """Score `test` rows of `out` with a relevance model trained on `train`, and set both thresholds from `train`."""
    model = RelevanceModel().fit(train[list(FEATURES)].to_numpy(float), train.answerable.to_numpy(int))
    out.loc[test.index, "relevance_score"] = _stable(model.score(test[list(FEATURES)].to_numpy(float)))
    train_scores = _stable(model.score(train[list(FEATURES)].to_numpy(float)))
    answerable = train.answerable.to_numpy(bool)
    out.loc[test.index, "relevance_threshold"] = admitting_threshold(train_scores[answerable])
    out.loc[test.index, "cosine_threshold"] = admitting_threshold(train.top_score.to_numpy(float)[answerable])


def cross_fit(frame: pd.DataFrame) -> pd.DataFrame:
    """Per question: relevance score and both thresholds, never fitted on the question's own company.

    `frame` has question_id, cik, answerable (bool), the FEATURES columns and top_score, and optionally split
    ("dev" / "eval"). With a split, the dev split fits: eval questions are scored by a model and thresholds fitted on
    every dev question, so nothing the confirmatory statistics read was fitted on eval; dev questions are scored
    two-fold by company within dev (the CI gate reads them). Without a split (or without dev companies), the
    questions are scored two-fold by company over all of them. A fold with no company on the other side is fitted
    on itself: with one company there is nothing to cross-fit against.
    """
    out = frame.copy()
    if "split" not in out:
        out["split"] = "eval"
    out["fold"] = -1
    out["relevance_score"] = np.nan
    out["cosine_threshold"] = np.nan
    out["relevance_threshold"] = np.nan
    dev = cast(pd.DataFrame, out[out.split == "dev"])
    folded = dev if len(dev) else out
    out.loc[folded.index, "fold"] = company_folds(folded.cik)
    for fold in (0, 1):
        test = cast(pd.DataFrame, out[(out.fold == fold)])
        if test.empty:
            continue
        train = cast(pd.DataFrame, out[(out.fold == 1 - fold)])
        _fit(test if train.empty else train, test, out)
    if len(dev):
        _fit(dev, cast(pd.DataFrame, out[out.split != "dev"]), out)
    out["cosine_pass"] = out.top_score >= out.cosine_threshold
    out["relevance_pass"] = out.relevance_score >= out.relevance_threshold
    return out


def judge_exits(
    answerable: np.ndarray, answered: np.ndarray, figure_right: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Whether each question's exit is correct, and whether it is a false answer: an answerable question is correct
    when answered with the gold figure; an unanswerable one when not answered, and answering it is a false answer."""
    return np.where(answerable, answered & figure_right, ~answered), ~answerable & answered


def mask_arms(gates: pd.DataFrame, generations: pd.DataFrame) -> pd.DataFrame:
    """One row per question per arm: whether the shared generation is kept, why not, and whether that is right.

    `generations` carries the answerer's outcome (answered, or why it was withheld) and its latency: an arm
    whose gates decline a question before generation spends no generator time on it.
    """
    merged = gates.merge(generations, on="question_id", validate="one_to_one")
    rows = []
    for arm, arm_gates in ARMS.items():
        kept = np.ones(len(merged), dtype=bool)
        reason = np.array([""] * len(merged), dtype=object)
        for gate in arm_gates:
            passed = merged[f"{gate}_pass"].to_numpy(bool)
            newly = kept & ~passed
            reason[newly] = "out_of_period" if gate == "period" else "gate_rejected"
            kept &= passed
        answered = kept & merged.answered.to_numpy(bool)
        reason[kept] = merged.outcome.to_numpy(object)[kept]
        answerable = merged.expected_route.to_numpy() == "answer"
        correct, false_answer = judge_exits(answerable, answered, merged.figure_correct.to_numpy(bool))
        rows.append(
            pd.DataFrame(
                {
                    "question_id": merged.question_id,
                    "cik": merged.cik,
                    "split": merged.split if "split" in merged else "eval",
                    "kind": merged.kind,
                    "arm": arm,
                    "expected_route": merged.expected_route,
                    "answered": answered,
                    "outcome": reason,
                    "correct": correct,
                    "false_answer": false_answer,
                    "generate_seconds": np.where(kept, merged.generate_seconds.to_numpy(float), 0.0),
                }
            )
        )
    return pd.concat(rows, ignore_index=True).sort_values(["arm", "question_id"]).reset_index(drop=True)
