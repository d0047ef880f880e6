"""Protocol v5's decision rules: exact one-sided tests for the registered corpus's companies as fixed strata, a fixed
sequence of hypotheses, and beside each decision a sensitivity line with companies as clusters.

Each hypothesis has two conditions, both of which must hold (an intersection-union test, each at the sequence's
alpha):

* **The effect.** A gated arm against the arm it gates (E against A) can only withhold the baseline's answers: its
  effect is the share of the baseline's false answers (on the hypothesis's unanswerable kind) it withholds, tested
  against the registered minimum effect by the exact binomial test (`stats.fixed_strata.above_margin_p`): "withholds
  one" is not an effect. Two gates on the same generation (C against B) differ both ways: the false-answer rate
  difference is tested at zero by the one-sided company sign-flip test, decided by its p-value (never by an
  inverted interval).
* **The recall cost.** The right answers of the baseline the arm withholds, over the answerable questions, tested
  below the margin by the exact binomial test (`below_margin_p`). For two gates the count also holds right answers the
  baseline gate withheld and the arm gives back; leaving those out makes the test conservative, never liberal.

A condition is refuted when the opposite one-sided test rejects at the same alpha (the share withheld shown below the
minimum effect, the rate shown to rise, the recall cost shown above the margin). The sequence: the first hypothesis
at the family's alpha; each later one only if every earlier one was confirmed (else "not confirmed: the sequence stops
at ..." with what its data alone give). Every decided hypothesis says the fewest questions that would reverse it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from edgar_eval.evaluation.confirmatory import endpoint_mask
from edgar_eval.stats.few_clusters import company_totals, sign_flip_one_sided_p_value
from edgar_eval.stats.fixed_strata import (
    above_margin_p,
    below_margin_p,
    cluster_ratio_bound,
    fewest_to_cross,
    lower_bound,
    upper_bound,
)

if TYPE_CHECKING:
    from edgar_eval.evaluation.protocol import Hypothesis, Protocol

EFFECT_RULES = ("withheld_share", "sign_flip")


@dataclass(frozen=True)
class Counts:
    """What one hypothesis's two conditions read, from the arm's and the baseline's outcomes on the same questions."""

    baseline_false: int  # the baseline's false answers on the endpoint's kind
    withheld_false: int  # of those, the arm withholds
    kind_questions: int  # the endpoint's questions
    arm_false: int  # the arm's false answers on the endpoint's kind
    answerable: int
    withheld_right: int  # the baseline's right answers the arm does not give
    companies_kind: int
    companies_answerable: int
    far_totals: tuple[np.ndarray, np.ndarray]  # per company: summed arm - baseline false answers, questions
    withheld_false_totals: tuple[np.ndarray, np.ndarray]  # per company: withheld, baseline's false answers
    withheld_right_totals: tuple[np.ndarray, np.ndarray]  # per company: right answers withheld, answerable questions


def count(outcomes: pd.DataFrame, hypothesis: "Hypothesis") -> Counts:
    """The counts of one hypothesis from arm outcomes (one row per question and arm) of the split it reads."""
    by_arm = {arm: group.set_index("question_id").sort_index() for arm, group in outcomes.groupby("arm")}
    arm, baseline = by_arm[hypothesis.arm], by_arm[hypothesis.baseline]
    kind = arm.index[endpoint_mask(arm, "false_answer_rate", hypothesis.kind).to_numpy(bool)]
    answerable = arm.index[endpoint_mask(arm, "answer_accuracy", "").to_numpy(bool)]
    arm_false = arm.loc[kind, "false_answer"].to_numpy(bool)
    base_false = baseline.loc[kind, "false_answer"].to_numpy(bool)
    arm_right = arm.loc[answerable, "correct"].to_numpy(bool)
    base_right = baseline.loc[answerable, "correct"].to_numpy(bool)
    kind_ciks = arm.loc[kind, "cik"].to_numpy()
    answerable_ciks = arm.loc[answerable, "cik"].to_numpy()
    withheld_false = base_false & ~arm_false
    withheld_right = base_right & ~arm_right
    return Counts(
        baseline_false=int(base_false.sum()),
        withheld_false=int(withheld_false.sum()),
        kind_questions=len(kind),
        arm_false=int(arm_false.sum()),
        answerable=len(answerable),
        withheld_right=int(withheld_right.sum()),
        companies_kind=len(set(kind_ciks)),
        companies_answerable=len(set(answerable_ciks)),
        far_totals=company_totals(arm_false.astype(float), base_false.astype(float), kind_ciks),
        withheld_false_totals=_ratio_totals(withheld_false[base_false], kind_ciks[base_false]),
        withheld_right_totals=_ratio_totals(withheld_right, answerable_ciks),
    )


def _ratio_totals(events: np.ndarray, clusters: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per company (label order): the events and the trials."""
    if not len(events):
        return np.zeros(0), np.zeros(0)
    return company_totals(events.astype(float), np.zeros(len(events)), clusters)


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


@dataclass(frozen=True)
class Condition:
    """One condition of a hypothesis: whether the registered test rejects its null (holds), whether the opposite test
    rejects (refuted), its p-values, the sentence that states it with its numbers, and what would reverse it."""

    holds: bool
    refuted: bool
    p_value: float
    statement: str
    reversal: str
    sensitivity: str


def effect_condition(hypothesis: "Hypothesis", counts: Counts, alpha: float, seed: int) -> Condition:
    """The effect: for a gated arm against the arm it gates, the share of the baseline's false answers withheld above
    the minimum effect; for two gates, the false-answer rate lower by the one-sided company sign-flip test."""
    arm, base = hypothesis.arm, hypothesis.baseline
    if hypothesis.rule == "withheld_share":
        m = cast(float, hypothesis.minimum_effect)
        x, n = counts.withheld_false, counts.baseline_false
        if n == 0:
            return Condition(False, False, 1.0, f"{base} gives no false answer to withhold", "", "")
        p = above_margin_p(x, n, m)
        p_low = below_margin_p(x, n, m)
        low, high = lower_bound(x, n, alpha), upper_bound(x, n, alpha)
        holds, refuted = p <= alpha, p_low <= alpha

        def rejects(events: int, trials: int) -> bool:
            return above_margin_p(events, trials, m) <= alpha

        moved = fewest_to_cross(x, n, rejects, -1 if holds else +1)
        statement = (
            f"{arm} withholds {x} of {base}'s {n} false answers ({_pct(x / n)}; exact one-sided bounds "
            f"{_pct(low)} to {_pct(high)}; p = {p:.3g} against a share of at most {_pct(m)})"
        )
        if holds:
            reversal = f"had {arm} withheld {moved} fewer of {base}'s false answers" if moved else ""
        else:
            reversal = (
                f"had {arm} withheld {moved} more of {base}'s {n} false answers"
                if moved
                else f"not even had {arm} withheld all {n} of {base}'s false answers"
            )
        share_low = cluster_ratio_bound(*counts.withheld_false_totals, alpha, "low")
        sensitivity = (
            f"withheld share's lower bound {_pct(share_low)} with companies as clusters "
            f"({len(counts.withheld_false_totals[0])} companies, cluster-robust t)"
        )
        return Condition(holds, refuted, p, statement, reversal, sensitivity)
    num, den = counts.far_totals
    lower_p = sign_flip_one_sided_p_value(num, den, 0.0, "lower", seed)
    higher_p = sign_flip_one_sided_p_value(num, den, 0.0, "higher", seed)
    difference = float(num.sum() / den.sum()) if den.sum() else float("nan")
    holds, refuted = lower_p <= alpha, higher_p <= alpha
    statement = (
        f"{arm} minus {base} false-answer rate {100 * difference:+.1f} points ({counts.arm_false} against "
        f"{counts.arm_false - int(num.sum())} of {counts.kind_questions}; one-sided company sign-flip p = "
        f"{lower_p:.3g} over {len(num)} {'company' if len(num) == 1 else 'companies'})"
    )
    sensitivity = "the sign-flip test already treats companies as clusters"
    return Condition(holds, refuted, lower_p, statement, "", sensitivity)


def recall_condition(hypothesis: "Hypothesis", counts: Counts, alpha: float) -> Condition:
    """The recall cost: the baseline's right answers the arm withholds, over the answerable questions, below the
    margin by the exact binomial test."""
    margin = cast(float, hypothesis.recall_cost_margin)
    x, n = counts.withheld_right, counts.answerable
    if n == 0:
        return Condition(False, False, 1.0, "no answerable question", "", "")
    p = below_margin_p(x, n, margin)
    p_high = above_margin_p(x, n, margin)
    high = upper_bound(x, n, alpha)
    holds, refuted = p <= alpha, p_high <= alpha

    def rejects(events: int, trials: int) -> bool:
        return below_margin_p(events, trials, margin) <= alpha

    moved = fewest_to_cross(x, n, rejects, +1 if holds else -1)
    statement = (
        f"recall cost {x} of {n} answerable ({_pct(x / n)}; exact one-sided upper bound {_pct(high)}; p = {p:.3g} "
        f"against a cost of at least {_pct(margin)})"
    )
    arm = hypothesis.arm
    if holds:
        reversal = f"had {arm} withheld {moved} more right answers" if moved else ""
    else:
        reversal = (
            f"had {arm} withheld {moved} fewer right answers"
            if moved
            else f"not even had {arm} withheld no right answer"
        )
    cost_high = cluster_ratio_bound(*counts.withheld_right_totals, alpha, "high")
    sensitivity = (
        f"recall cost's upper bound {_pct(cost_high)} with companies as clusters "
        f"({len(counts.withheld_right_totals[0])} companies, cluster-robust t)"
    )
    return Condition(holds, refuted, p, statement, reversal, sensitivity)


@dataclass(frozen=True)
class Decision:
    """One hypothesis's decision, the sentence of each condition, what would reverse it and the sensitivity line."""

    hypothesis: str
    decision: str
    effect: str
    recall: str
    reversal: str
    sensitivity: str
    effect_p: float
    recall_p: float


def decide_hypothesis(
    hypothesis: "Hypothesis", protocol: "Protocol", outcomes: pd.DataFrame, alpha: float, seed: int
) -> Decision:
    """The decision of one hypothesis at `alpha` from the outcomes of the split it reads: confirmed, refuted (a
    condition's opposite test rejects) or not confirmed, naming the condition; undecided only on fewer companies than
    the protocol's minimum."""
    counts = count(outcomes, hypothesis)
    effect = effect_condition(hypothesis, counts, alpha, seed)
    recall = recall_condition(hypothesis, counts, alpha)
    companies = min(counts.companies_kind, counts.companies_answerable)
    sensitivity = "; ".join(s for s in (effect.sensitivity, recall.sensitivity) if s)
    minimum = protocol.design.min_companies
    if companies < minimum:
        counted = f"{companies} {'company' if companies == 1 else 'companies'}"
        decision = f"undecided: {counted} (the protocol decides on {minimum} or more)"
        return Decision(hypothesis.id, decision, effect.statement, recall.statement, "", sensitivity, 1.0, 1.0)
    margin = cast(float, hypothesis.recall_cost_margin)
    if effect.holds and recall.holds:
        decision = "confirmed"
        ways = [r for r in (effect.reversal, recall.reversal) if r]
        reversal = "not confirmed " + ", or ".join(ways) if ways else "no change of these counts reverses it"
    elif effect.refuted:
        decision = (
            f"refuted: {hypothesis.arm} withholds less than {_pct(cast(float, hypothesis.minimum_effect))} of the "
            "false answers"
            if hypothesis.rule == "withheld_share"
            else "refuted: the false-answer rate moves the other way"
        )
        reversal = ""
    elif recall.refuted:
        decision, reversal = f"refuted: the recall cost exceeds {_pct(margin)}", ""
    else:
        if not effect.holds and recall.holds:
            decision = "not confirmed: the effect is not shown"
        elif effect.holds:
            decision = f"not confirmed: the recall cost is not shown under {_pct(margin)}"
        else:
            decision = "not confirmed: neither the effect nor the recall cost is shown"
        reversal = "; ".join(
            f"the {name} shown {condition.reversal}"
            for name, condition in (("effect", effect), ("recall cost", recall))
            if not condition.holds and condition.reversal
        )
    return Decision(
        hypothesis.id,
        decision,
        effect.statement,
        recall.statement,
        reversal,
        sensitivity,
        effect.p_value,
        recall.p_value,
    )


def decide_sequence(protocol: "Protocol", outcomes: pd.DataFrame, seed: int) -> list[Decision]:
    """Every hypothesis in the protocol's fixed sequence, each at the family's alpha; a hypothesis after one not
    confirmed is not confirmed by the sequence, with what its own data give."""
    decisions = []
    stopped_at = ""
    for hypothesis in protocol.in_sequence():
        decided = decide_hypothesis(hypothesis, protocol, outcomes, protocol.family_alpha, seed)
        if stopped_at:
            decided = Decision(
                decided.hypothesis,
                f"not confirmed: the sequence stops at {stopped_at} (its data alone: {decided.decision})",
                decided.effect,
                decided.recall,
                "",
                decided.sensitivity,
                decided.effect_p,
                decided.recall_p,
            )
        elif decided.decision != "confirmed":
            stopped_at = hypothesis.id
        decisions.append(decided)
    return decisions
