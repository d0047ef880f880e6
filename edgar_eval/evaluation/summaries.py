"""Tables the report prints: per-arm rates and retrieval hit rates, each with a Wilson interval."""

from __future__ import annotations

import pandas as pd

from edgar_eval.evaluation.gates import ARM_NAMES, ARMS
from edgar_eval.stats.proportions import wilson


def _rate_columns(prefix: str, successes: int, trials: int) -> dict:
    p = wilson(successes, trials)
    return {f"{prefix}_n": trials, f"{prefix}_k": successes, prefix: p.rate, f"{prefix}_low": p.low, f"{prefix}_high": p.high}


def arm_statistics(outcomes: pd.DataFrame) -> pd.DataFrame:
    """FAR on unanswerable questions, recall cost and accuracy on answerable ones, per arm."""
    baseline = outcomes[outcomes.arm == "A"].set_index("question_id")
    rows = []
    for arm in ARMS:
        own = outcomes[outcomes.arm == arm].set_index("question_id")
        unanswerable = own[own.expected_route != "answer"]
        answerable = own[own.expected_route == "answer"]
        a_correct = baseline.loc[answerable.index, "correct"]
        lost = int((a_correct & ~answerable.correct).sum())
        rows.append({
            "arm": arm, "gates": ARM_NAMES[arm],
            **_rate_columns("false_answer_rate", int(unanswerable.false_answer.sum()), len(unanswerable)),
            **_rate_columns("recall_cost", lost, len(answerable)),
            **_rate_columns("answer_accuracy", int(answerable.correct.sum()), len(answerable)),
        })
    return pd.DataFrame(rows)


def retrieval_statistics(hits: pd.DataFrame, k: int) -> pd.DataFrame:
    """Document, page and chunk hit rates at k over answerable questions, and MRR of the first gold chunk."""
    scored = hits[hits.expected_route == "answer"]
    rows = []
    for metric, column in (("document hit", "document_hit"), ("page hit", "page_hit"), ("gold chunk hit", "chunk_hit")):
        p = wilson(int(scored[column].sum()), len(scored))
        rows.append({"metric": f"{metric}@{k}", "k": k, "hits": p.successes, "questions": p.trials,
                     "rate": p.rate, "low": p.low, "high": p.high})
    reciprocal = scored.first_gold_rank.map(lambda r: 1.0 / r if r and r > 0 else 0.0)
    rows.append({"metric": f"MRR@{k}", "k": k, "hits": int((scored.first_gold_rank > 0).sum()), "questions": len(scored),
                 "rate": float(reciprocal.mean()) if len(scored) else float("nan"), "low": float("nan"), "high": float("nan")})
    return pd.DataFrame(rows)
