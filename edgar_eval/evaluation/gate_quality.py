"""Abstention gate quality: per gate score, AUROC for telling answerable from unanswerable questions (pooled and per
unanswerable kind), the risk-coverage curve and its AURC when arm A's generations are admitted in the score's order,
and paired AUROC differences between the scores.
"""

from __future__ import annotations

from itertools import combinations
from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.stats.risk_coverage import risk_coverage
from edgar_eval.stats.roc import Auroc, auroc, auroc_difference

GATE_SCORES = {"cosine": "top_score", "relevance": "relevance_score", "period": "period_pass"}


def _auroc_columns(area: Auroc) -> dict:
    """An AUROC's columns in a gate-quality row: the estimate, its DeLong interval and the counts it was read on."""
    return {
        "auroc": area.estimate,
        "auroc_low": area.low,
        "auroc_high": area.high,
        "positives": area.positives,
        "negatives": area.negatives,
    }


def abstention_quality(scores: pd.DataFrame, arm_a: pd.DataFrame) -> pd.DataFrame:
    """Per gate score: AUROC for telling answerable from unanswerable questions (DeLong 95%), and the AURC of
    admitting arm A's generations in the score's order (lower is better; `optimal` is the best any order can do)."""
    merged = scores.merge(arm_a[["question_id", "correct"]], on="question_id", validate="one_to_one")
    positives = merged.answerable.to_numpy(bool)
    errors = ~merged.correct.to_numpy(bool)
    rows = []
    for gate, column in GATE_SCORES.items():
        values = merged[column].to_numpy(float)
        area = auroc(values, positives)
        curve = risk_coverage(values, errors)
        brier = (
            float(np.mean((values - positives) ** 2)) if gate == "relevance" else float("nan")
        )  # only it is a probability
        rows.append(
            {
                "gate": gate,
                "score": column,
                **_auroc_columns(area),
                "aurc": curve.aurc,
                "aurc_optimal": curve.optimal,
                "brier": brier,
                "reader_right": int(merged.correct[positives].sum()),
                "reader_answerable": int(positives.sum()),
            }
        )
    return pd.DataFrame(rows)


def abstention_quality_by_kind(scores: pd.DataFrame, kinds: pd.DataFrame) -> pd.DataFrame:
    """Per unanswerable kind and gate score: AUROC (DeLong 95%) of the answerable questions against that kind alone.
    A kind that a surface feature gives away (a year the filings never print, a name the passages never hold) is
    separated by that feature: its AUROC measures how easy the twin is, not how good the gate is."""
    merged = scores.merge(kinds[["question_id", "kind"]], on="question_id", validate="one_to_one")
    rows = []
    for kind in sorted(merged[~merged.answerable.astype(bool)].kind.unique()):  # the unanswerable kinds
        subset = cast(pd.DataFrame, merged[merged.answerable | (merged.kind == kind)])
        positives = subset.answerable.to_numpy(bool)
        for gate, column in GATE_SCORES.items():
            area = auroc(subset[column].to_numpy(float), positives)
            rows.append(
                {
                    "kind": kind,
                    "gate": gate,
                    "score": column,
                    **_auroc_columns(area),
                }
            )
    return pd.DataFrame(
        rows, columns=["kind", "gate", "score", "auroc", "auroc_low", "auroc_high", "positives", "negatives"]
    )


def risk_coverage_curves(scores: pd.DataFrame, arm_a: pd.DataFrame) -> dict[str, tuple[list[float], list[float]]]:
    merged = scores.merge(arm_a[["question_id", "correct"]], on="question_id", validate="one_to_one")
    errors = ~merged.correct.to_numpy(bool)
    curves = {}
    for gate, column in GATE_SCORES.items():
        curve = risk_coverage(merged[column].to_numpy(float), errors)
        curves[gate] = (curve.coverage.tolist(), curve.risk.tolist())
    return curves


def abstention_comparisons(scores: pd.DataFrame) -> pd.DataFrame:
    """Paired AUROC differences between abstention gate scores on the same questions (DeLong 95% interval and
    p-value)."""
    positives = scores.answerable.to_numpy(bool)
    rows = []
    for first, second in combinations(GATE_SCORES, 2):
        diff = auroc_difference(
            scores[GATE_SCORES[first]].to_numpy(float), scores[GATE_SCORES[second]].to_numpy(float), positives
        )
        rows.append(
            {
                "first": first,
                "second": second,
                "difference": diff.difference,
                "low": diff.low,
                "high": diff.high,
                "p_value": diff.p_value,
            }
        )
    return pd.DataFrame(rows)
