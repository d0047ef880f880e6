"""The answering experiment's pre-registered protocol, read from its file before the numbers exist: the hypotheses
(which arm against which baseline, on which metric, in which direction, with which recall-cost margin), the split the
confirmatory rows read, and v3's design (testability split, minimum companies, the simulations' assumptions).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pandas as pd

from edgar_eval.evaluation.abstention import ARMS

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
    recall_cost_margin: float | None = None  # the most recall the arm may cost against its baseline (non-inferiority)
    kind: str = ""  # the one unanswerable kind whose false-answer rate is the endpoint
    # v5: how the effect is tested ("withheld_share": a gated arm against the arm it gates, above `minimum_effect`;
    # "sign_flip": two gates against each other at zero) and the smallest share of the baseline's false answers the
    # arm must withhold
    rule: str = ""
    minimum_effect: float | None = None


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
        testability = str(data.get("testability_split", ""))  # v5 has none: its rules decide wherever they apply
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
    """A pre-registered protocol (v3 and later; v1 and v2 stay in protocol/ as history and are refused). Each hypothesis
    names one unanswerable kind and a recall-cost margin: confirmed only when, at one-sided alpha each, its
    false-answer rate falls and its recall cost stays inside the margin, both read from the interval method its
    decision simulation chose; v4 adds the generator and corpus the hypotheses are decided for."""

    version: str
    alpha: float  # one-sided, per hypothesis and condition: one end of a (1 - 2 alpha) two-sided interval
    power: float
    hypotheses: tuple[Hypothesis, ...]
    split: str  # the questions the confirmatory rows read: "eval"
    assumed_discordance: float  # for the false-answer boundary's simulation and the power curve
    design: "Design"  # testability split, minimum companies and the simulations' assumptions
    generator: str = ""  # v4: the system under test whose arms the hypotheses decide ("" in v3: any)
    corpus: str = ""  # v4: the corpus they are decided on ("" in v3: any)
    rules: str = ""  # v5: "exact" (evaluation.exact_decisions); "" for v3 and v4's simulated interval choice
    sequence: tuple[str, ...] = ()  # v5: the fixed order the hypotheses are tested in, each at family_alpha
    pins: tuple[tuple[str, str], ...] = ()  # v5: what the run must be, by content (see PIN_NAMES)
    amendments: tuple[tuple[str, str], ...] = ()  # v5: (date, what and why) appended after the first outcome
    calibration: tuple[tuple[str, str], ...] = ()  # v5: the registration's simulation (file, sha256, replicates)

    @property
    def family_alpha(self) -> float:
        return self.design.family_alpha

    def in_sequence(self) -> list[Hypothesis]:
        """The hypotheses in the order they are tested: the fixed sequence (v5), else as listed."""
        by_id = {h.id: h for h in self.hypotheses}
        return [by_id[i] for i in self.sequence] if self.sequence else list(self.hypotheses)

    def pin_differences(self, run: dict[str, str], home: Path | None = None) -> list[str]:
        """The pins (v5) whose registered value the run's differs from, each as "name (registered X, this run Y)"; every
        pin the protocol names is compared, a missing one in the run counting as different. With the project `home`,
        the calibration file the protocol names is checked against its registered sha256 too."""
        differences = [
            f"{name} (registered {value}, this run {run.get(name) or 'none'})"
            for name, value in self.pins
            if run.get(name) != value
        ]
        calibration = dict(self.calibration)
        if home is not None and calibration.get("file"):
            path = home / calibration["file"]
            found = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "none"
            if found != calibration.get("sha256"):
                differences.append(f"calibration file (registered {calibration.get('sha256')}, this run {found})")
        return differences

    def registers(self, generator: str, corpus: str) -> bool:
        """Does the protocol decide for this generator on this corpus? Elsewhere its hypotheses are exploratory: a
        pre-registration names the system and the data it was written for (v4)."""
        return (not self.generator or self.generator == generator) and (not self.corpus or self.corpus == corpus)

    @property
    def registered_system(self) -> str:
        return f"{self.generator or 'any generator'} on {self.corpus or 'any corpus'}"

    @property
    def confidence(self) -> float:
        """The two-sided level of the printed intervals: a one-sided bound at alpha is one end of a 1 - 2 alpha
        interval."""
        return 1 - 2 * self.alpha

    @classmethod
    def from_mapping(cls, data: dict) -> "Protocol":
        hypotheses = []
        exact = data.get("rules") == "exact"
        for entry in data.get("hypotheses", []):
            margin = entry.get("recall_cost_margin")
            effect = entry.get("minimum_effect")
            hypothesis = Hypothesis(
                entry["id"],
                entry["statement"],
                entry["metric"],
                entry["arm"],
                entry["baseline"],
                entry["direction"],
                None if margin is None else float(margin),
                str(entry.get("kind", "")),
                str(entry.get("rule", "")),
                None if effect is None else float(effect),
            )
            if exact:
                _check_exact(hypothesis)
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
        version = str(data["version"])
        design = data.get("design", {})
        if not hypotheses or not all(h.kind and h.recall_cost_margin is not None for h in hypotheses):
            raise ValueError(
                f"{version}: every hypothesis names an unanswerable kind and a recall-cost margin (protocols before "
                "v3 pooled the kinds and are kept in protocol/ as history only; a run reads v3 or later)"
            )
        split = str(data.get("split", ""))
        if split != "eval" or "min_companies" not in data or ("testability_split" not in data and not exact):
            raise ValueError(f"{version}: a protocol reads the eval split, with min_companies and testability_split")
        if "assumed_discordance" not in design and not exact:
            raise ValueError(f"{version}: [design] states the assumed_discordance its simulations draw")
        if len({(h.arm, h.baseline, h.metric, h.kind) for h in hypotheses}) < len(hypotheses):
            raise ValueError("two hypotheses name the same comparison: one comparison is pre-registered once")
        return cls(
            version,
            float(data["alpha"]),
            float(data.get("power", 0.8)),
            tuple(hypotheses),
            split,
            float(design.get("assumed_discordance", float("nan"))),
            Design.from_mapping(data, design),
            str(data.get("generator", "")),
            str(data.get("corpus", "")),
            "exact" if exact else "",
            _sequence(data, hypotheses) if exact else (),
            tuple((str(k), str(v)) for k, v in data.get("pins", {}).items()),
            tuple((str(a["date"]), str(a["why"])) for a in data.get("amendments", [])),
            tuple((str(k), str(v)) for k, v in data.get("calibration", {}).items()),
        )

    def questions(self, outcomes: pd.DataFrame) -> pd.DataFrame:
        """The outcomes the confirmatory rows read."""
        return outcomes if self.split == "all" else cast(pd.DataFrame, outcomes[outcomes.split == self.split])


# What a v5 protocol pins by content: the corpus by its manifest's sha256, the golden rules, the system under test and
# the gates by the code versions of the assets that build them, the frozen gates file by its sha256, and the settings
# that move a figure by their digest. A run whose value differs prints its rows as exploratory, naming the pin.
PIN_NAMES = (
    "corpus_manifest_sha256",
    "generator",
    "embedder",
    "golden_code",
    "generator_code",
    "gates_code",
    "decision_code",
    "gates_file_sha256",
    "settings_sha256",
    "reviews_and_policies_sha256",
)


def _check_exact(hypothesis: Hypothesis) -> None:
    """A v5 hypothesis names its rule, and a withheld share its minimum effect."""
    if hypothesis.rule == "withheld_share":
        effect = hypothesis.minimum_effect
        if effect is None or not 0 < effect < 1:
            raise ValueError(f"hypothesis {hypothesis.id}: a withheld_share rule names a minimum_effect in (0, 1)")
        if not set(ARMS[hypothesis.baseline]) < set(ARMS[hypothesis.arm]):
            raise ValueError(f"hypothesis {hypothesis.id}: a withheld share needs an arm that gates its baseline")
    elif hypothesis.rule != "sign_flip":
        raise ValueError(f"hypothesis {hypothesis.id}: rule is withheld_share or sign_flip, got {hypothesis.rule!r}")


def _sequence(data: dict, hypotheses: list[Hypothesis]) -> tuple[str, ...]:
    """The fixed sequence: every hypothesis once."""
    sequence = tuple(str(i) for i in data.get("sequence", []))
    if sorted(sequence) != sorted(h.id for h in hypotheses):
        raise ValueError(f"sequence {list(sequence)} must name every hypothesis once")
    pins = data.get("pins", {})
    unknown = sorted(set(pins) - set(PIN_NAMES))
    if unknown:
        raise ValueError(f"unknown pins {unknown}; a protocol pins {', '.join(PIN_NAMES)}")
    missing = [name for name in PIN_NAMES if name not in pins]
    if missing:  # a pin left out would let any run's content through as the registered one
        raise ValueError(f"a protocol with exact rules pins every one of {', '.join(PIN_NAMES)}; missing {missing}")
    return sequence
