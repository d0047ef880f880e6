"""The answering experiment's pre-registered protocol, read from its file before the numbers exist: the hypotheses
(which arm against which baseline, on which metric, in which direction, with which recall-cost margin), the split the
confirmatory rows read, and v3's design (testability split, minimum companies, the simulations' assumptions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import pandas as pd

from edgar_eval.evaluation.abstention import ARMS
from edgar_eval.stats.paired import minimum_detectable_effect

METRICS = {
    # metric: (questions it is measured on, the per-question 0/1 column)
    "false_answer_rate": ("unanswerable", "false_answer"),
    "answer_accuracy": ("answerable", "correct"),
}


@dataclass(frozen=True)
class Hypothesis:
    id: str
    statement: str
    metric: str
    arm: str
    baseline: str
    direction: str  # "lower" or "higher": the sign of arm minus baseline the hypothesis predicts
    recall_cost_margin: float | None = (
        None  # v2: the most recall the arm may cost against its baseline (non-inferiority)
    )
    kind: str = ""  # v3: the one unanswerable kind whose false-answer rate is the endpoint ("": pooled, v1 and v2)


@dataclass(frozen=True)
class Design:
    """v3: what decides whether a comparison can be decided at all, and the assumptions its simulations draw from."""

    testability_split: str  # a comparison with no discordant pair here is not testable with this generator
    min_companies: int  # fewer companies holding the endpoint's questions: undecided
    family_alpha: float  # stated: the hypotheses' alphas summed
    accuracy_discordance: float  # assumed share of answerable questions on which the arms differ
    concentration: float  # how unequal companies are (Beta concentration; lower: more unequal)
    replicates: int  # simulated splits per interval method and null boundary
    resamples: int  # bootstrap resamples per simulated interval
    power_replicates: int  # simulated splits per true difference for the power curve

    @classmethod
    def from_mapping(cls, data: dict, design: dict) -> "Design":
        testability = str(data["testability_split"])
        if testability == str(data.get("split")):
            raise ValueError("testability is read from another split than the one the decision reads")
        made = cls(
            testability,
            int(data["min_companies"]),
            float(data.get("family_alpha", float("nan"))),
            float(design.get("assumed_accuracy_discordance", 0.1)),
            float(design.get("company_concentration", 4.0)),
            int(design.get("simulation_replicates", 1000)),
            int(design.get("simulation_resamples", 2000)),
            int(design.get("power_replicates", 300)),
        )
        if made.min_companies < 2 or made.replicates < 1 or made.resamples < 1 or made.power_replicates < 1:
            raise ValueError("min_companies must be at least 2 and the simulation sizes positive")
        return made


@dataclass(frozen=True)
class Protocol:
    """A pre-registered protocol. v1: two-sided alpha, confirmed when the interval excludes zero on the predicted side
    and McNemar rejects. v2 (any hypothesis with a recall-cost margin): one-sided alpha for each of two conditions,
    the false-answer rate falls and the recall cost stays inside the margin, both read from the company-cluster
    bootstrap on the protocol's split; McNemar is printed, exploratory, as it assumes independent questions."""

    version: str
    alpha: float  # v1: two-sided, for the paired intervals (1 - alpha) and McNemar; v2: one-sided per condition
    power: float
    hypotheses: tuple[Hypothesis, ...]
    split: str = "all"  # the questions the confirmatory rows read: "eval" or "all"
    assumed_discordance: float | None = None  # v2: for the minimum detectable effect at design time
    design: "Design | None" = None  # v3: testability split, minimum companies and the simulations' assumptions

    @property
    def by_kind(self) -> bool:
        """v3: every false-answer rate is one unanswerable kind's; no row pools kinds."""
        return self.design is not None

    @property
    def one_sided(self) -> bool:
        return any(h.recall_cost_margin is not None for h in self.hypotheses)

    @property
    def confidence(self) -> float:
        """The two-sided level of the printed intervals: a one-sided bound at alpha is one end of a 1 - 2 alpha
        interval."""
        return 1 - 2 * self.alpha if self.one_sided else 1 - self.alpha

    @classmethod
    def from_mapping(cls, data: dict) -> "Protocol":
        hypotheses = []
        for entry in data.get("hypotheses", []):
            margin = entry.get("recall_cost_margin")
            hypothesis = Hypothesis(
                entry["id"],
                entry["statement"],
                entry["metric"],
                entry["arm"],
                entry["baseline"],
                entry["direction"],
                None if margin is None else float(margin),
                str(entry.get("kind", "")),
            )
            if hypothesis.metric not in METRICS or hypothesis.direction not in ("lower", "higher"):
                raise ValueError(
                    f"hypothesis {hypothesis.id}: unknown metric {hypothesis.metric!r} or direction "
                    f"{hypothesis.direction!r}"
                )
            if hypothesis.arm not in ARMS or hypothesis.baseline not in ARMS:
                raise ValueError(f"hypothesis {hypothesis.id}: arms must be among {', '.join(ARMS)}")
            if margin is not None and not 0 <= float(margin) < 1:
                raise ValueError(f"hypothesis {hypothesis.id}: recall_cost_margin must lie in [0, 1), got {margin}")
            hypotheses.append(hypothesis)
        split = str(data.get("split", "all"))
        if split not in ("all", "eval"):
            raise ValueError(f"protocol split must be 'all' or 'eval', got {split!r}")
        design = data.get("design", {})
        discordance = design.get("assumed_discordance")
        by_kind = any(h.kind for h in hypotheses)
        if by_kind:
            if not all(h.kind and h.recall_cost_margin is not None for h in hypotheses):
                raise ValueError("a per-kind protocol names a kind and a margin for every hypothesis")
            if split != "eval" or "min_companies" not in data or "testability_split" not in data:
                raise ValueError("a per-kind protocol reads the eval split, with min_companies and testability_split")
            if len({(h.arm, h.baseline, h.metric, h.kind) for h in hypotheses}) < len(hypotheses):
                raise ValueError("two hypotheses name the same comparison: one comparison is pre-registered once")
        return cls(
            str(data["version"]),
            float(data["alpha"]),
            float(data.get("power", 0.8)),
            tuple(hypotheses),
            split,
            None if discordance is None else float(discordance),
            Design.from_mapping(data, design) if by_kind else None,
        )

    def questions(self, outcomes: pd.DataFrame) -> pd.DataFrame:
        """The outcomes the confirmatory rows read."""
        return outcomes if self.split == "all" else cast(pd.DataFrame, outcomes[outcomes.split == self.split])

    def design_mde(self, planned_n: int) -> float:
        """The minimum detectable effect at design time: the planned number of questions (the frozen golden set's
        split, fixed before any answer exists) and the discordance the protocol assumes, at its alpha and power."""
        if self.assumed_discordance is None or planned_n < 1:
            return float("nan")
        return minimum_detectable_effect(
            planned_n,
            self.assumed_discordance,
            alpha=2 * self.alpha if self.one_sided else self.alpha,
            power=self.power,
        )
