"""Tables the report prints: per-arm rates and retrieval hit rates, each with a Wilson interval."""

from __future__ import annotations

from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_groups
from edgar_eval.domain.routes import NO_ANSWER
from edgar_eval.evaluation.abstention import ARM_NAMES, ARMS
from edgar_eval.stats.bootstrap import cluster_bootstrap_ratio
from edgar_eval.stats.proportions import wilson


def _rate_columns(prefix: str, successes: int, trials: int) -> dict:
    p = wilson(successes, trials)
    return {
        f"{prefix}_n": trials,
        f"{prefix}_k": successes,
        prefix: p.rate,
        f"{prefix}_low": p.low,
        f"{prefix}_high": p.high,
    }


def _cluster_columns(prefix: str, hits, clusters, seed: int, resamples: int, method: str = "percentile") -> dict:
    """The company-cluster bootstrap interval beside the Wilson one: questions of one company are not independent."""
    interval = cluster_bootstrap_ratio(
        hits.astype(float), [1.0] * len(hits), clusters, confidence=0.95, resamples=resamples, seed=seed, method=method
    )
    return {f"{prefix}_cluster_low": interval.low, f"{prefix}_cluster_high": interval.high}


def arm_statistics(
    outcomes: pd.DataFrame, seed: int = 0, resamples: int = 10_000, method: str = "percentile"
) -> pd.DataFrame:
    """Per arm: FAR on unanswerable questions, recall cost and accuracy on answerable ones, each with a Wilson and a
    company-cluster bootstrap 95% interval (`method`: percentile, bca or studentized). No wall-clock figure here: this
    table must rebuild byte for byte."""
    baseline = outcomes[outcomes.arm == "A"].set_index("question_id")
    rows = []
    for arm in ARMS:
        own = outcomes[outcomes.arm == arm].set_index("question_id")
        unanswerable = own[own.expected_route == NO_ANSWER]
        answerable = own[own.expected_route == "answer"]
        lost = baseline.loc[answerable.index, "correct"].to_numpy(bool) & ~answerable.correct.to_numpy(bool)
        rows.append(
            {
                "arm": arm,
                "gates": ARM_NAMES[arm],
                **_rate_columns("false_answer_rate", int(unanswerable.false_answer.sum()), len(unanswerable)),
                **_cluster_columns(
                    "false_answer_rate",
                    unanswerable.false_answer.to_numpy(bool),
                    unanswerable.cik.to_numpy(),
                    seed,
                    resamples,
                    method,
                ),
                **_rate_columns("recall_cost", int(lost.sum()), len(answerable)),
                **_cluster_columns("recall_cost", lost, answerable.cik.to_numpy(), seed, resamples, method),
                **_rate_columns("answer_accuracy", int(answerable.correct.sum()), len(answerable)),
            }
        )
    return pd.DataFrame(rows)


def retrieval_statistics(runs: pd.DataFrame) -> pd.DataFrame:
    """Per retriever and depth, over answerable questions whose search ran: document and page hit rates with
    Wilson intervals, recall@K, precision@K, MRR and nDCG@10 of the gold chunks; searches that errored apart."""
    rows = []
    answerable = cast(pd.DataFrame, runs[runs.expected_route == "answer"])
    for (retriever, depth), run in iter_groups(answerable.groupby(["retriever", "k"], sort=True)):
        scored = cast(pd.DataFrame, run[run.error.isna()])
        document, page = (
            wilson(int(scored.document_hit.sum()), len(scored)),
            wilson(int(scored.page_hit.sum()), len(scored)),
        )
        rows.append(
            {
                "retriever": retriever,
                "k": int(depth),
                "questions": len(scored),
                "errors": int(run.error.notna().sum()),
                "document_hits": document.successes,
                "document_hit_rate": document.rate,
                "document_low": document.low,
                "document_high": document.high,
                "page_hits": page.successes,
                "page_hit_rate": page.rate,
                "page_low": page.low,
                "page_high": page.high,
                **{
                    name: float(cast(pd.Series, scored[name]).mean()) if len(scored) else float("nan")
                    for name in ("recall", "precision", "rr", "ndcg10")
                },
            }
        )
    return pd.DataFrame(rows)


SLICES = {"form": "source_form", "statement": "statement_type", "company": "company"}


def retrieval_slices(runs: pd.DataFrame) -> pd.DataFrame:
    """Page hit rate with its Wilson interval and the median rank of the first gold chunk, per slice
    (form, statement type, company) x retriever x depth, over answerable questions whose search ran."""
    scored = cast(pd.DataFrame, runs[(runs.expected_route == "answer") & runs.error.isna()])
    rows = []
    for slice_name, column in SLICES.items():
        for (value, retriever, depth), group in iter_groups(scored.groupby([column, "retriever", "k"], sort=True)):
            page = wilson(int(group.page_hit.sum()), len(group))
            found = group.first_gold_rank[group.first_gold_rank > 0]
            rows.append(
                {
                    "slice": slice_name,
                    "value": value,
                    "retriever": retriever,
                    "k": int(depth),
                    "questions": len(group),
                    "page_hits": page.successes,
                    "page_hit_rate": page.rate,
                    "page_low": page.low,
                    "page_high": page.high,
                    "median_gold_rank": float(found.median()) if len(found) else float("nan"),
                }
            )
    return pd.DataFrame(rows)
