"""Protocol v3's confirmatory machinery: which comparisons can be decided at all, how the interval method is chosen
for each, its type-I error at the decision's null boundaries and its power, all simulated at the split's own
companies and question counts (`edgar_eval.stats.decision_simulation`), and the decision rule itself.

The order of the rule is the protocol's: a comparison whose testability split shows no discordant pair on its
endpoint is not testable with this generator (nothing the eval split holds could move it); one read on fewer
companies than the protocol's minimum is undecided; one whose every interval method lets the decision through more
often than alpha at a null boundary is undecided; only then do the interval's ends decide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from edgar_eval.domain.routes import NO_ANSWER
from edgar_eval.evaluation.abstention import ARMS
from edgar_eval.evaluation.protocol import METRICS
from edgar_eval.stats.decision_simulation import minimum_detectable, simulate_power, simulate_tail_misses
from edgar_eval.stats.intervals import INTERVAL_METHODS, ONE_WAY_METHODS, paired_interval

if TYPE_CHECKING:
    from edgar_eval.evaluation.protocol import Design, Hypothesis, Protocol

# The end of the interval each decision reads: the false-answer rate falls when the upper end is below zero; the
# recall cost stays inside the margin when the accuracy difference's lower end is above minus the margin.
DECISION_TAIL = {"false_answer_rate": "high", "answer_accuracy": "low"}
POWER_STEP = 0.025  # the simulated true differences for the power curve: one step apart, up to the discordance

SIMULATION_COLUMNS = [
    "hypothesis",
    "boundary",
    "metric",
    "kind",
    "companies",
    "questions",
    "truth",
    "discordance",
    "method",
    "confidence",
    "replicates",
    "below_low",
    "above_high",
    "undefined",
    "decision_tail",
    "type_one",
    "type_one_low",
    "type_one_high",
    "alpha",
    "holds",
    "mean_width",
    "chosen",
]
POWER_COLUMNS = [
    "hypothesis",
    "kind",
    "method",
    "companies",
    "questions",
    "truth",
    "replicates",
    "power",
    "design_effect",
    "minimum_detectable",
]


def endpoint_mask(frame: pd.DataFrame, metric: str, kind: str) -> pd.Series:
    """The questions an endpoint reads: answerable ones for accuracy; for the false-answer rate one unanswerable kind,
    or all unanswerable questions where `kind` is empty (v1 and v2 pool them)."""
    if metric == "answer_accuracy":
        return cast(pd.Series, frame.expected_route == "answer")
    return cast(pd.Series, (frame.kind == kind) if kind else (frame.expected_route == NO_ANSWER))


def testable_pairs(outcomes: pd.DataFrame, protocol: "Protocol", hypothesis: "Hypothesis") -> int:
    """The discordant pairs a hypothesis's endpoint shows on the protocol's testability split: none means this
    generator never gives the arms a question to disagree on, and nothing the eval split holds could decide it."""
    design = cast("Design", protocol.design)
    split = outcomes[outcomes.split == design.testability_split]
    by_arm = {arm: group.set_index("question_id").sort_index() for arm, group in split.groupby("arm")}
    if hypothesis.arm not in by_arm or hypothesis.baseline not in by_arm:
        return 0
    a, b, _ = paired(by_arm[hypothesis.arm], by_arm[hypothesis.baseline], hypothesis.metric, hypothesis.kind)
    return int(np.sum(a != b))


def paired(
    first: pd.DataFrame, second: pd.DataFrame, metric: str, kind: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One endpoint's per-question outcomes under two arms (indexed by question), in one order, and their companies."""
    questions = first.index[endpoint_mask(first, metric, kind).to_numpy(bool)]
    column = METRICS[metric][1]
    return (
        first.loc[questions, column].to_numpy(bool),
        second.loc[questions, column].to_numpy(bool),
        first.loc[questions, "cik"].to_numpy(),
    )


def company_sizes(outcomes: pd.DataFrame, metric: str, kind: str) -> list[int]:
    """Questions per company of one endpoint, from arm A's rows (every arm holds the same questions)."""
    rows = cast(pd.DataFrame, outcomes[outcomes.arm == "A"])
    return rows[endpoint_mask(rows, metric, kind)].groupby("cik").size().sort_index().tolist()


def removes_only(hypothesis: "Hypothesis") -> bool:
    """Is the hypothesis's arm its baseline with more gates (D or E against A)? Then it can only withhold answers the
    baseline gave: on either metric no question goes its way that did not go the baseline's."""
    arm, baseline = set(ARMS[hypothesis.arm]), set(ARMS[hypothesis.baseline])
    return baseline < arm


def _boundaries(hypothesis: "Hypothesis", protocol: "Protocol") -> list[tuple[str, str, str, float, float]]:
    """(boundary, metric, kind, truth, discordance) of each condition's null boundary. A gated arm against the arm it
    gates meets the false-answer null only where it withholds nothing (discordance 0), and the accuracy boundary only
    by withholding `margin` of the right answers (discordance = margin, every pair one way)."""
    design = protocol.design
    assert design is not None and protocol.assumed_discordance is not None
    margin = cast(float, hypothesis.recall_cost_margin)
    nested = removes_only(hypothesis)
    return [
        (
            "false-answer rate difference 0",
            "false_answer_rate",
            hypothesis.kind,
            0.0,
            0.0 if nested else protocol.assumed_discordance,
        ),
        (
            f"accuracy difference -{100 * margin:g} points",
            "answer_accuracy",
            "",
            -margin,
            margin if nested else max(design.accuracy_discordance, margin),
        ),
    ]


def decision_simulation(
    outcomes: pd.DataFrame, protocol: "Protocol", seed: int, registered: bool = True
) -> pd.DataFrame:
    """Per confirmatory hypothesis, null boundary and interval method: the misses in each tail of the protocol's
    two-sided interval over simulated splits of the split's company sizes whose truth sits on that boundary; the
    decision tail's miss rate is the rule's type-I error there. The chosen method is the narrowest whose decision
    tail misses no more often than alpha at both boundaries (the simulated rate itself, not its interval: a method
    that merely is not shown liberal may still be, and an unsound decision costs more than an undecided one); where
    none holds, the one that strays least, marked as not holding. A split of fewer than two companies gets no rows, and
    so does a hypothesis this generator leaves untestable, and every one where the run is not the system and corpus the
    protocol registers (`registered` False): nothing is decided there, so nothing is simulated."""
    design = protocol.design
    if design is None or not registered or protocol.rules:  # v5's exact rules were calibrated at registration
        return no_simulation()
    read = protocol.questions(outcomes)
    cache: dict[tuple, list] = {}
    rows = []
    for hypothesis in protocol.hypotheses:
        if testable_pairs(outcomes, protocol, hypothesis) == 0:
            continue  # not testable with this generator: nothing to simulate, the decision says so
        block = []
        # a one-way interval only where the mask rules out differences of the other sign
        methods = INTERVAL_METHODS + ONE_WAY_METHODS if removes_only(hypothesis) else INTERVAL_METHODS
        for boundary, metric, kind, truth, discordance in _boundaries(hypothesis, protocol):
            sizes = company_sizes(read, metric, kind)
            if len(sizes) < 2:
                block = []
                break
            results = []
            for level in _levels(protocol):
                tried = methods if level == protocol.confidence else tuple(m for m in methods if m in CALIBRATED)
                key = (tuple(sizes), truth, discordance, tried, level)
                if key not in cache:
                    cache[key] = simulate_tail_misses(
                        sizes,
                        truth,
                        discordance,
                        level,
                        design.concentration,
                        design.replicates,
                        design.resamples,
                        seed,
                        tried,
                    )
                results.extend((level, misses) for misses in cache[key])
            tail = DECISION_TAIL[metric]
            for level, misses in results:
                low, high = misses.share_interval(tail)
                block.append(
                    {
                        "hypothesis": hypothesis.id,
                        "boundary": boundary,
                        "metric": metric,
                        "kind": kind,
                        "companies": len(sizes),
                        "questions": int(sum(sizes)),
                        "truth": truth,
                        "discordance": discordance,
                        "method": misses.method,
                        "confidence": level,
                        "replicates": misses.replicates,
                        "below_low": misses.below_low,
                        "above_high": misses.above_high,
                        "undefined": misses.undefined,
                        "decision_tail": tail,
                        "type_one": misses.share(tail),
                        "type_one_low": low,
                        "type_one_high": high,
                        "alpha": protocol.alpha,
                        "holds": misses.share(tail) <= protocol.alpha,
                        "mean_width": misses.mean_width,
                        "chosen": False,
                    }
                )
        if not block:
            continue
        frame = pd.DataFrame(block)
        by_method = frame.groupby(["method", "confidence"], sort=False).agg(
            holds=("holds", "all"), worst=("type_one", "max"), width=("mean_width", "max")
        )
        holding = cast(pd.DataFrame, by_method[by_method.holds])
        pick = holding.width.idxmin() if len(holding) else by_method.worst.idxmin()  # a tie: the one listed first
        frame["chosen"] = [(m, c) == pick for m, c in zip(frame.method, frame.confidence)]
        rows.extend(frame.to_dict("records"))
    return _simulation_frame(rows)


# Closed-form methods, cheap enough to simulate at several levels: their level is calibrated to the protocol's
# simulation, the widest one step at a time (the decision tail at alpha, alpha / 2, ... alpha / 32) until the
# decision tail misses no more often than alpha. Where companies are as unequal as the protocol assumes, a nominal
# 0.5% tail of an approximate interval can miss several times as often (the simulation shows it); a calibrated level
# is the standard remedy (a prepivoted or double-bootstrap interval), computed here on the protocol's own model.
CALIBRATED = ("cluster_t", "korn_graubard")
CALIBRATION_STEPS = (1, 2, 4, 8, 16, 32)


def _levels(protocol: "Protocol") -> list[float]:
    """The two-sided levels simulated: the protocol's, then the calibrated ones (decision tail alpha / step)."""
    return [1 - 2 * protocol.alpha / step for step in CALIBRATION_STEPS]


def no_simulation() -> pd.DataFrame:
    """The decision simulation of a protocol that has none (v1, v2) or of a split too small for one."""
    return _simulation_frame([])


def _simulation_frame(rows: list[dict]) -> pd.DataFrame:
    """The simulation's rows, its flags boolean even when there are none (an empty frame still filters)."""
    return pd.DataFrame(rows, columns=SIMULATION_COLUMNS).astype({"holds": bool, "chosen": bool})


def chosen_method(simulation: pd.DataFrame, hypothesis: str) -> tuple[str | None, bool]:
    """The interval method the simulation chose for a hypothesis, and whether it holds alpha at every boundary;
    (None, False) when there was no simulation (fewer than two companies)."""
    rows = simulation[(simulation.hypothesis == hypothesis) & simulation.chosen]
    if not len(rows):
        return None, False
    return str(rows.method.iloc[0]), bool(rows.holds.all())


def chosen_level(simulation: pd.DataFrame, hypothesis: str, default: float) -> float:
    """The two-sided level of the chosen method's interval (calibrated, or the protocol's); `default` when none."""
    rows = simulation[(simulation.hypothesis == hypothesis) & simulation.chosen]
    return float(rows.confidence.iloc[0]) if len(rows) else default


def design_power(outcomes: pd.DataFrame, protocol: "Protocol", simulation: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Per confirmatory hypothesis, the power of "the false-answer rate falls" at true differences one step apart up
    to the assumed discordance, simulated at the split's companies and question counts with the chosen method; the
    smallest difference reaching the protocol's power is the minimum detectable effect, the design effect of
    clustering included (printed beside it)."""
    design = protocol.design
    if design is None or protocol.assumed_discordance is None or protocol.rules:
        return no_power()
    read = protocol.questions(outcomes)
    discordance = protocol.assumed_discordance
    truths = [-round(POWER_STEP * i, 6) for i in range(1, int(discordance / POWER_STEP + 1e-9) + 1)]
    rows = []
    cache: dict[tuple, list] = {}
    for hypothesis in protocol.hypotheses:
        method, _ = chosen_method(simulation, hypothesis.id)
        level = chosen_level(simulation, hypothesis.id, protocol.confidence)
        sizes = company_sizes(read, "false_answer_rate", hypothesis.kind)
        if method is None or len(sizes) < 2:
            continue
        nested = removes_only(hypothesis)
        key = (tuple(sizes), method, nested, level)
        if key not in cache:
            cache[key] = simulate_power(
                sizes,
                truths,
                discordance,
                level,
                method,
                design.concentration,
                design.power_replicates,
                design.resamples,
                seed,
                removes_only=nested,
            )
        powers = cache[key]
        detected = minimum_detectable(powers, protocol.power)
        for power in powers:
            rows.append(
                {
                    "hypothesis": hypothesis.id,
                    "kind": hypothesis.kind,
                    "method": method,
                    "companies": len(sizes),
                    "questions": int(sum(sizes)),
                    "truth": power.truth,
                    "replicates": power.replicates,
                    "power": power.share,
                    "design_effect": power.design_effect,
                    "minimum_detectable": detected is not None and power.truth == detected.truth,
                }
            )
    return _power_frame(rows)


def no_power() -> pd.DataFrame:
    """The power curve of a protocol that has none (v1, v2) or of a split too small for one."""
    return _power_frame([])


def _power_frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=POWER_COLUMNS).astype({"minimum_detectable": bool})


def simulated_mde(power: pd.DataFrame, hypothesis: str) -> tuple[float, float]:
    """The minimum detectable effect (as a positive difference) and the design effect there; NaN, NaN when no simulated
    difference up to the assumed discordance reaches the wanted power."""
    rows = power[(power.hypothesis == hypothesis) & power.minimum_detectable]
    if not len(rows):
        return float("nan"), float("nan")
    return abs(float(rows.truth.iloc[0])), float(rows.design_effect.iloc[0])


def decide(
    hypothesis: "Hypothesis",
    protocol: "Protocol",
    far: dict,
    accuracy: dict,
    testable_pairs: int,
    method_holds: bool,
) -> str:
    """The v3 decision for one hypothesis from its false-answer and accuracy rows (eval split), the discordant pairs
    its endpoint shows on the testability split, and whether its interval method holds alpha in simulation."""
    design = protocol.design
    assert design is not None
    margin = cast(float, hypothesis.recall_cost_margin)
    if testable_pairs == 0:
        return f"not testable with this generator: no discordant pair on the {design.testability_split} split"
    companies = int(min(far["companies"], accuracy["companies"]))
    if companies < design.min_companies:
        counted = f"{companies} {'company' if companies == 1 else 'companies'}"
        return f"undecided: {counted} (the protocol decides on {design.min_companies} or more)"
    if not method_holds:
        return (
            f"undecided: no interval method holds alpha {protocol.alpha:g} at a null boundary in simulation at "
            f"{companies} companies"
        )
    if any(np.isnan(v) for v in (far["low"], far["high"], accuracy["low"], accuracy["high"])):
        return "undecided (no interval)"
    falls = far["high"] < 0 if hypothesis.direction == "lower" else far["low"] > 0
    inside = accuracy["low"] > -margin
    if falls and inside:
        return "confirmed"
    if (far["low"] > 0) if hypothesis.direction == "lower" else (far["high"] < 0):
        return "refuted: the false-answer rate moves the other way"
    if accuracy["high"] < -margin:
        return f"refuted: the recall cost exceeds {100 * margin:.0f} points"
    if falls:
        return f"not confirmed: the recall cost may exceed {100 * margin:.0f} points"
    if inside:
        return "not confirmed: the false-answer rate is not shown to fall"
    return "not confirmed: neither condition holds"


def _fewest(changeable: np.ndarray, flips: bool, holds, first: np.ndarray) -> int | None:
    """The fewest of the `changeable` questions (in question order) whose arm outcome, set to `flips`, makes `holds`
    false; None when even all of them do not."""
    positions = np.flatnonzero(changeable)

    def changed(k: int) -> bool:
        trial = first.copy()
        trial[positions[:k]] = flips
        return not holds(trial)

    if not len(positions) or not changed(len(positions)):
        return None
    low, high = 0, len(positions)  # changed(high) holds; changed(low) does not
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if changed(middle) else (middle, high)
    return high


def reversal(
    hypothesis: "Hypothesis",
    protocol: "Protocol",
    false_answers: tuple[np.ndarray, np.ndarray, np.ndarray],
    right_answers: tuple[np.ndarray, np.ndarray, np.ndarray],
    method: str,
    seed: int,
    confidence: float,
) -> str:
    """What data would have reversed a decided hypothesis, in questions: for each condition, the fewest questions of
    the eval split (taken in question order) whose arm outcome, changed the way that hurts the decision, turns the
    condition around. `false_answers` and `right_answers` are (arm, baseline, companies) per question of the endpoint
    and of the answerable questions."""
    margin = cast(float, hypothesis.recall_cost_margin)
    far_arm, far_base, far_clusters = false_answers
    acc_arm, acc_base, acc_clusters = right_answers

    def interval(arm: np.ndarray, base: np.ndarray, clusters: np.ndarray):
        return paired_interval(
            arm.astype(float), base.astype(float), clusters, confidence, method, resamples=2_000, seed=seed
        )

    def falls(arm: np.ndarray) -> bool:
        bound = interval(arm, far_base, far_clusters)
        return bool(bound.high < 0) if hypothesis.direction == "lower" else bool(bound.low > 0)

    def inside(arm: np.ndarray) -> bool:
        return bool(interval(arm, acc_base, acc_clusters).low > -margin)

    far_now, inside_now = falls(far_arm), inside(acc_arm)
    if far_now and inside_now:
        given = _fewest(~far_arm & far_base, True, falls, far_arm)
        withheld = _fewest(acc_arm & acc_base, False, inside, acc_arm)
        return (
            "not confirmed had the arm "
            + ("given back every false answer it withheld" if given is None else f"given {given} of the false answers")
            + " it withheld, or "
            + ("withheld every right answer" if withheld is None else f"withheld {withheld} more right answers")
        )
    parts = []
    if not far_now:
        more = _fewest(far_arm & far_base, False, lambda arm: not falls(arm), far_arm)
        parts.append(
            "the rate not shown to fall even had the arm withheld every false answer it gave"
            if more is None
            else f"the rate shown to fall had the arm withheld {more} more false answers"
        )
    if not inside_now:
        kept = _fewest(~acc_arm & acc_base, True, lambda arm: not inside(arm), acc_arm)
        parts.append(
            "the recall cost not shown inside the margin even had the arm withheld no right answer: at these "
            "companies and questions no data could confirm it"
            if kept is None
            else f"the recall cost inside the margin had the arm kept {kept} of the right answers it withheld"
        )
    return "; ".join(parts)
