"""Per-question ranking metrics of retrieved chunk ids against the gold chunk ids (binary relevance).

The definitions are trec_eval's (checked against ir_measures in the tests):
- recall@k: gold chunks in the top k / all gold chunks;
- precision@k: gold chunks in the top k / k (k, not the number retrieved, when fewer than k came back);
- reciprocal rank: 1 / rank of the first gold chunk (within the top k when k is given), 0 when none;
- nDCG@k: sum over gold chunks in the top k of 1 / log2(rank + 1), over the same sum for an ideal ranking
  holding min(k, |gold|) gold chunks first.
A question with no gold chunk has no defined recall or nDCG: it is refused, and left out of means by the caller
(as trec_eval leaves out queries without relevant documents). A ranked list naming a chunk twice is refused too.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np

DEFAULT_KS: tuple[int, ...] = (1, 5, 10)
NDCG_K = 10


def _relevance(ranked: Sequence[str], gold: Collection[str], k: int | None) -> tuple[np.ndarray, int]:
    if k is not None and k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    gold_set = set(gold)
    if not gold_set:
        raise ValueError("no gold chunk: the metrics are undefined for this question")
    if len(set(ranked)) != len(ranked):
        raise ValueError("the ranked list names a chunk twice")
    top = ranked if k is None else ranked[:k]
    return np.fromiter((chunk in gold_set for chunk in top), dtype=bool, count=len(top)), len(gold_set)


def recall_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    relevant, n_gold = _relevance(ranked, gold, k)
    return float(np.count_nonzero(relevant) / n_gold)


def precision_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    relevant, _ = _relevance(ranked, gold, k)
    return float(np.count_nonzero(relevant) / k)


def reciprocal_rank(ranked: Sequence[str], gold: Collection[str], k: int | None = None) -> float:
    relevant, _ = _relevance(ranked, gold, k)
    hits = np.flatnonzero(relevant)
    return float(1.0 / (hits[0] + 1)) if hits.size else 0.0


def ndcg_at_k(ranked: Sequence[str], gold: Collection[str], k: int = NDCG_K) -> float:
    relevant, n_gold = _relevance(ranked, gold, k)
    discounts = 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))
    dcg = float(discounts[: relevant.size][relevant].sum())
    ideal = float(discounts[: min(k, n_gold)].sum())
    return dcg / ideal


def question_metrics(ranked: Sequence[str], gold: Collection[str], ks: Sequence[int] = DEFAULT_KS) -> dict[str, float]:
    """recall@k and precision@k for each k in `ks`, "rr" (the question's MRR term, whole list) and "ndcg@10"."""
    metrics: dict[str, float] = {}
    for k in ks:
        metrics[f"recall@{k}"] = recall_at_k(ranked, gold, k)
        metrics[f"precision@{k}"] = precision_at_k(ranked, gold, k)
    metrics["rr"] = reciprocal_rank(ranked, gold)
    metrics[f"ndcg@{NDCG_K}"] = ndcg_at_k(ranked, gold, NDCG_K)
    return metrics


def pooled_mean(per_question: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """The mean of each metric over the questions (each question weighs the same); "rr" becomes MRR."""
    if not per_question:
        raise ValueError("no question to average")
    names = list(per_question[0])
    for record in per_question:
        if set(record) != set(names):
            raise ValueError(f"questions carry different metrics: {sorted(record)} vs {sorted(names)}")
    values = np.array([[record[name] for name in names] for record in per_question], dtype=np.float64)
    return {name: float(mean) for name, mean in zip(names, values.mean(axis=0))}
