"""Paired arm comparisons under the protocol: every arm against arm A and every pair the protocol names, the paired
difference with a company-bootstrap interval, exact McNemar, the minimum detectable effect, and the decision each
hypothesis gets (v1 and v2 here, v3 in evaluation.confirmatory); and the interval methods' simulated coverage at the
split's companies, from which the comparisons take their method.

Which comparisons are confirmatory is decided by the protocol file, read before the numbers exist; every
other comparison is printed as exploratory. The decision rule is the protocol's, applied here in code.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.domain.routes import NO_ANSWER
from edgar_eval.evaluation import confirmatory
from edgar_eval.evaluation.abstention import ARMS
from edgar_eval.evaluation.protocol import METRICS, Design, Hypothesis, Protocol
from edgar_eval.stats.bootstrap import cluster_bootstrap_paired_difference
from edgar_eval.stats.coverage import best_method, simulate_coverage
from edgar_eval.stats.paired import mcnemar_exact, minimum_detectable_effect


def arm_comparisons(
    outcomes: pd.DataFrame,
    protocol: Protocol,
    seed: int = 0,
    resamples: int = 10_000,
    method: str = "percentile",
    simulation: pd.DataFrame | None = None,
    power: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Every arm against arm A, and every pair the protocol names, over the protocol's split: on accuracy and on the
    false-answer rate (v3: one row per unanswerable kind, none pooled), the paired difference with a company-bootstrap
    interval at the protocol's level, exact McNemar on the discordant pairs, and the minimum detectable effect (v1:
    from the observed discordance; v2: at design time; v3: simulated power at the split's clusters). Exploratory rows
    use `method`; v3's confirmatory rows the method the decision simulation chose for their hypothesis."""
    pairs = [(arm, "A") for arm in ARMS if arm != "A"]
    pairs += [(h.arm, h.baseline) for h in protocol.hypotheses if (h.arm, h.baseline) not in pairs]
    read = protocol.questions(outcomes)
    # every kind the split holds, and every kind a hypothesis names even where the split holds none of it
    unanswerable_kinds = (
        sorted(set(read[read.expected_route == NO_ANSWER].kind) | {h.kind for h in protocol.hypotheses})
        if protocol.by_kind
        else [""]
    )
    endpoints = [("false_answer_rate", kind) for kind in unanswerable_kinds] + [("answer_accuracy", "")]
    by_arm = {arm: group.set_index("question_id").sort_index() for arm, group in read.groupby("arm")}
    simulation = confirmatory.no_simulation() if simulation is None else simulation
    power = confirmatory.no_power() if power is None else power
    rows = {}
    for arm, baseline in pairs:
        for metric, kind in endpoints:
            hypothesis = next(
                (
                    h
                    for h in protocol.hypotheses
                    if (h.arm, h.baseline) == (arm, baseline) and metric == h.metric and kind == h.kind
                ),
                None,
            )
            chosen, _ = confirmatory.chosen_method(simulation, hypothesis.id) if hypothesis else (None, False)
            row_method = chosen or method
            a, b, clusters = _paired(by_arm[arm], by_arm[baseline], metric, kind)
            interval = cluster_bootstrap_paired_difference(
                a.astype(float),
                b.astype(float),
                clusters,
                confidence=protocol.confidence,
                resamples=resamples,
                seed=seed,
                method=row_method,
            )
            test = mcnemar_exact(a, b)
            design_effect = float("nan")
            if protocol.by_kind and hypothesis:
                mde, design_effect = confirmatory.simulated_mde(power, hypothesis.id)
                basis = "simulated"
            elif protocol.one_sided:
                mde, basis = protocol.design_mde(len(a)), "design"
            else:
                mde = (
                    minimum_detectable_effect(len(a), test.discordance, alpha=protocol.alpha, power=protocol.power)
                    if len(a)
                    else float("nan")
                )
                basis = "observed"
            rows[(arm, baseline, metric, kind)] = {
                "arm": arm,
                "baseline": baseline,
                "metric": metric,
                "kind": kind,
                "split": protocol.split,
                "questions": len(a),
                "companies": interval.clusters,
                "interval_method": row_method,
                "difference": interval.estimate,
                "low": interval.low,
                "high": interval.high,
                "confidence": protocol.confidence,
                "discordant_arm_only": test.b,
                "discordant_baseline_only": test.c,
                "mcnemar_p": test.p_value,
                "minimum_detectable_effect": mde,
                "design_effect": design_effect,
                "mde_basis": basis,
                "status": "confirmatory" if hypothesis else "exploratory",
                "hypothesis": hypothesis.id if hypothesis else "",
                "recall_cost_margin": np.nan,
                "testable_pairs": -1,
                "decision": "",
            }
    for hypothesis in protocol.hypotheses:
        row = rows[(hypothesis.arm, hypothesis.baseline, hypothesis.metric, hypothesis.kind)]
        if hypothesis.recall_cost_margin is None:
            row["decision"] = _decide(hypothesis, row["low"], row["high"], row["mcnemar_p"], protocol.alpha)
            continue
        accuracy = rows[(hypothesis.arm, hypothesis.baseline, "answer_accuracy", "")]
        row["recall_cost_margin"] = hypothesis.recall_cost_margin
        if protocol.design is None:
            row["decision"] = decide_non_inferior(hypothesis, row["high"], row["low"], accuracy["low"])
            continue
        row["testable_pairs"] = testable_pairs(outcomes, protocol, hypothesis)
        _, holds = confirmatory.chosen_method(simulation, hypothesis.id)
        row["decision"] = confirmatory.decide(hypothesis, protocol, row, accuracy, row["testable_pairs"], holds)
    return pd.DataFrame(list(rows.values()))


def testable_pairs(outcomes: pd.DataFrame, protocol: Protocol, hypothesis: Hypothesis) -> int:
    """The discordant pairs a hypothesis's endpoint shows on the protocol's testability split (v3): none means this
    generator never gives the arms a question to disagree on, and nothing the eval split holds could decide it."""
    design = cast(Design, protocol.design)
    split = outcomes[outcomes.split == design.testability_split]
    by_arm = {arm: group.set_index("question_id").sort_index() for arm, group in split.groupby("arm")}
    if hypothesis.arm not in by_arm or hypothesis.baseline not in by_arm:
        return 0
    a, b, _ = _paired(by_arm[hypothesis.arm], by_arm[hypothesis.baseline], hypothesis.metric, hypothesis.kind)
    return int(np.sum(a != b))


def _paired(
    first: pd.DataFrame, second: pd.DataFrame, metric: str, kind: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One endpoint's per-question outcomes under two arms (indexed by question), in one order, and their companies."""
    questions = first.index[confirmatory.endpoint_mask(first, metric, kind).to_numpy(bool)]
    column = METRICS[metric][1]
    return (
        first.loc[questions, column].to_numpy(bool),
        second.loc[questions, column].to_numpy(bool),
        first.loc[questions, "cik"].to_numpy(),
    )


def _decide(hypothesis: Hypothesis, low: float, high: float, p_value: float, alpha: float) -> str:
    """v1: confirmed only when the whole interval lies on the predicted side of zero and McNemar rejects at alpha."""
    if np.isnan(low) or np.isnan(p_value):
        return "undecided (no data)"
    on_side = high < 0 if hypothesis.direction == "lower" else low > 0
    return "confirmed" if on_side and p_value < alpha else "not confirmed"


def decide_non_inferior(hypothesis: Hypothesis, far_high: float, far_low: float, accuracy_low: float) -> str:
    """v2: confirmed only when (1) the false-answer rate falls: the one-sided bound of arm minus baseline lies on the
    predicted side of zero, and (2) the recall cost stays inside the margin: the arm's accuracy on answerable
    questions is at most `margin` below the baseline's, at the one-sided bound (its accuracy difference's lower end
    above -margin). An arm that declines everything meets (1) and fails (2)."""
    if any(np.isnan(v) for v in (far_high, far_low, accuracy_low)):
        return "undecided (no interval: too few companies)"
    falls = far_high < 0 if hypothesis.direction == "lower" else far_low > 0
    margin = cast(float, hypothesis.recall_cost_margin)  # v2: called for hypotheses with a margin
    inside = accuracy_low > -margin
    if falls and inside:
        return "confirmed"
    if falls:
        return f"not confirmed: the recall cost may exceed {100 * margin:.0f} points"
    if inside:
        return "not confirmed: the false-answer rate is not shown to fall"
    return "not confirmed: neither condition holds"


def interval_coverage(
    company_sizes: list[int], confidence: float, replicates: int, resamples: int, seed: int
) -> pd.DataFrame:
    """Each bootstrap interval method's simulated coverage at these company sizes, and which one the comparisons use."""
    columns = [
        "method",
        "companies",
        "nominal",
        "covered",
        "replicates",
        "coverage",
        "coverage_low",
        "coverage_high",
        "mean_width",
        "chosen",
    ]
    if len(company_sizes) < 2:
        return pd.DataFrame(columns=columns)  # one company: no between-company spread to resample, no interval at all
    results = simulate_coverage(company_sizes, confidence, replicates, resamples, seed)
    chosen = best_method(results, confidence)
    return pd.DataFrame(
        [
            {
                "method": r.method,
                "companies": len(company_sizes),
                "nominal": confidence,
                "covered": r.covered,
                "replicates": r.replicates,
                "coverage": r.share,
                "coverage_low": r.low,
                "coverage_high": r.high,
                "mean_width": r.mean_width,
                "chosen": r.method == chosen,
            }
            for r in results
        ],
        columns=columns,
    )
