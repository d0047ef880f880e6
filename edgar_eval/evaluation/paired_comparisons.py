"""Paired arm comparisons under the protocol: every arm against arm A and every pair the protocol names, the paired
difference with its interval, exact McNemar, the minimum detectable effect, and the decision each hypothesis gets
(the rule is evaluation.confirmatory's). A confirmatory row's interval method is the one its decision simulation chose;
an exploratory row's is the company bootstrap-t (EXPLORATORY_METHOD), which nothing decides on.

Which comparisons are confirmatory is decided by the protocol file, read before the numbers exist; every
other comparison is printed as exploratory. The decision rule is the protocol's, applied here in code.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from edgar_eval.domain.routes import NO_ANSWER
from edgar_eval.evaluation import confirmatory, exact_decisions
from edgar_eval.evaluation.abstention import ARMS
from edgar_eval.evaluation.protocol import Protocol
from edgar_eval.stats.intervals import paired_interval
from edgar_eval.stats.paired import mcnemar_exact, minimum_detectable_effect

# The exploratory rows' interval: the company bootstrap-t, which held its coverage best of the bootstrap methods at the
# shared corpus's companies; nothing is decided on these rows, so no simulation chooses it.
EXPLORATORY_METHOD = "studentized"


def arm_comparisons(
    outcomes: pd.DataFrame,
    protocol: Protocol,
    seed: int = 0,
    resamples: int = 10_000,
    method: str = "",
    simulation: pd.DataFrame | None = None,
    power: pd.DataFrame | None = None,
    registered: bool = True,
    pin_differences: list[str] | None = None,
) -> pd.DataFrame:
    """Every arm against arm A, and every pair the protocol names, over the protocol's split: on accuracy and on the
    false-answer rate (one row per unanswerable kind, none pooled), the paired difference with its interval at the
    protocol's level, exact McNemar on the discordant pairs, and the minimum detectable effect (confirmatory rows:
    simulated power at the split's clusters; exploratory rows: from the observed discordance). Exploratory rows use
    `method` (default EXPLORATORY_METHOD); confirmatory rows, the accuracy row of their comparison included, the method
    the decision simulation chose for their hypothesis. `registered` False: the run is not the system and corpus the
    protocol registers (v4), and its hypotheses' rows are exploratory. A v5 protocol (exact rules) decides each
    hypothesis by evaluation.exact_decisions; where the run's content differs from a pin (`pin_differences`) its rows
    are exploratory and still say the decision their data give."""
    pairs = [(arm, "A") for arm in ARMS if arm != "A"]
    pairs += [(h.arm, h.baseline) for h in protocol.hypotheses if (h.arm, h.baseline) not in pairs]
    read = protocol.questions(outcomes)
    # every kind the split holds, and every kind a hypothesis names even where the split holds none of it
    unanswerable_kinds = sorted(
        set(read[read.expected_route == NO_ANSWER].kind) | {h.kind for h in protocol.hypotheses}
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
            # a hypothesis's recall-cost row is read with the method its simulation chose at both boundaries
            deciding = hypothesis or next(
                (
                    h
                    for h in protocol.hypotheses
                    if (h.arm, h.baseline) == (arm, baseline)
                    and metric == "answer_accuracy"
                    and h.recall_cost_margin is not None
                ),
                None,
            )
            chosen, _ = confirmatory.chosen_method(simulation, deciding.id) if deciding else (None, False)
            row_method = chosen or method or EXPLORATORY_METHOD
            level = (
                confirmatory.chosen_level(simulation, deciding.id, protocol.confidence)
                if deciding
                else protocol.confidence
            )
            a, b, clusters = confirmatory.paired(by_arm[arm], by_arm[baseline], metric, kind)
            interval = paired_interval(
                a.astype(float),
                b.astype(float),
                clusters,
                level,
                row_method,
                resamples=resamples,
                seed=seed,
            )
            test = mcnemar_exact(a, b)
            design_effect = float("nan")
            if hypothesis and not protocol.rules:  # v3 and v4 simulate it; v5 calibrated once, when written
                mde, design_effect = confirmatory.simulated_mde(power, hypothesis.id)
                basis = "simulated"
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
                "confidence": level,
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
                "reversal": "",
                "effect": "",
                "recall_cost": "",
                "sensitivity": "",
                "pins": "",
            }
    if protocol.rules == "exact":
        _decide_exactly(rows, protocol, read, seed, pin_differences or [])
        return pd.DataFrame(list(rows.values()))
    for hypothesis in protocol.hypotheses:
        row = rows[(hypothesis.arm, hypothesis.baseline, hypothesis.metric, hypothesis.kind)]
        if not registered:  # another system or corpus than the protocol was written for: nothing is decided here
            row["status"] = "exploratory"
            row["decision"] = f"not decided here: {protocol.version} registers {protocol.registered_system}"
            continue
        accuracy = rows[(hypothesis.arm, hypothesis.baseline, "answer_accuracy", "")]
        row["recall_cost_margin"] = hypothesis.recall_cost_margin
        row["testable_pairs"] = confirmatory.testable_pairs(outcomes, protocol, hypothesis)
        chosen, holds = confirmatory.chosen_method(simulation, hypothesis.id)
        row["decision"] = confirmatory.decide(hypothesis, protocol, row, accuracy, row["testable_pairs"], holds)
        if chosen and row["decision"].startswith(("confirmed", "refuted", "not confirmed")):
            arm, baseline = by_arm[hypothesis.arm], by_arm[hypothesis.baseline]
            row["reversal"] = confirmatory.reversal(
                hypothesis,
                protocol,
                confirmatory.paired(arm, baseline, hypothesis.metric, hypothesis.kind),
                confirmatory.paired(arm, baseline, "answer_accuracy", ""),
                chosen,
                seed,
                row["confidence"],
            )
    return pd.DataFrame(list(rows.values()))


def _decide_exactly(rows: dict, protocol: Protocol, read: pd.DataFrame, seed: int, differences: list[str]) -> None:
    """Fill each hypothesis's row with its v5 decision: confirmatory where every pin matches, else exploratory with
    the pins that differ, the decision its data give printed all the same."""
    for decided in exact_decisions.decide_sequence(protocol, read, seed):
        hypothesis = next(h for h in protocol.hypotheses if h.id == decided.hypothesis)
        row = rows[(hypothesis.arm, hypothesis.baseline, hypothesis.metric, hypothesis.kind)]
        row.update(
            status="exploratory" if differences else "confirmatory",
            recall_cost_margin=hypothesis.recall_cost_margin,
            decision=decided.decision,
            reversal=decided.reversal,
            effect=decided.effect,
            recall_cost=decided.recall,
            sensitivity=decided.sensitivity,
            pins="; ".join(differences) if differences else "every pin matches",
        )
