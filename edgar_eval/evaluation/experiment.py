"""The answering experiment's statistics beyond per-arm rates: paired arm comparisons under a pre-registered
protocol, abstention gate quality (AUROC, paired AUROC differences, AURC), per-stage latency and determinism.

Which comparisons are confirmatory is decided by the protocol file, read before the numbers exist; every
other comparison is printed as exploratory. The decision rule is the protocol's, applied here in code.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.answering.answerer import passage_label
from edgar_eval.answering.citations import check_citations
from edgar_eval.answering.mutations import MUTANT_KINDS, figure_mutations
from edgar_eval.domain.routes import NO_ANSWER
from edgar_eval.evaluation import confirmatory
from edgar_eval.evaluation.abstention import ARMS
from edgar_eval.evaluation.judge import judge_case
from edgar_eval.stats.bootstrap import cluster_bootstrap_paired_difference
from edgar_eval.stats.coverage import best_method, simulate_coverage
from edgar_eval.stats.paired import mcnemar_exact, minimum_detectable_effect
from edgar_eval.stats.proportions import wilson
from edgar_eval.stats.risk_coverage import risk_coverage
from edgar_eval.stats.roc import auroc, auroc_difference

METRICS = {
    # metric: (questions it is measured on, the per-question 0/1 column)
    "false_answer_rate": ("unanswerable", "false_answer"),
    "answer_accuracy": ("answerable", "correct"),
}
GATE_SCORES = {"cosine": "top_score", "relevance": "relevance_score", "period": "period_pass"}


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
                "auroc": area.estimate,
                "auroc_low": area.low,
                "auroc_high": area.high,
                "positives": area.positives,
                "negatives": area.negatives,
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
                    "auroc": area.estimate,
                    "auroc_low": area.low,
                    "auroc_high": area.high,
                    "positives": area.positives,
                    "negatives": area.negatives,
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


def stage_latency(stages: dict[str, np.ndarray]) -> pd.DataFrame:
    """P50 and P95 per stage in milliseconds; a stage that never ran (e.g. every question gated out) has none."""
    rows = []
    for stage, seconds in stages.items():
        seconds = np.asarray(seconds, dtype=float)
        has = len(seconds) > 0
        rows.append(
            {
                "stage": stage,
                "calls": len(seconds),
                "p50_ms": float(np.percentile(seconds, 50) * 1000) if has else float("nan"),
                "p95_ms": float(np.percentile(seconds, 95) * 1000) if has else float("nan"),
            }
        )
    return pd.DataFrame(rows)


def arm_costs(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Generator seconds per question per arm: a question the arm's gates decline before generation costs none."""
    costs = outcomes.groupby("arm", sort=True).agg(
        questions=("question_id", "size"),
        generated=("generate_seconds", lambda s: int((s > 0).sum())),
        generator_seconds_per_question=("generate_seconds", "mean"),
    )
    return costs.reset_index()


def determinism(generations: pd.DataFrame) -> pd.DataFrame:
    """The share of prompts that gave the same text when sent twice (from a tape: as the two recorded calls compared);
    not applicable to a deterministic generator, which the measurement would only compare with itself."""
    generator = str(generations.generator_id.iloc[0]) if len(generations) else ""
    if "deterministic" in generations and len(generations) and generations.deterministic.all():
        return pd.DataFrame(
            [
                {
                    "generator": generator,
                    "applicable": False,
                    "prompts": 0,
                    "same_text": 0,
                    "share": float("nan"),
                    "low": float("nan"),
                    "high": float("nan"),
                }
            ]
        )
    measured = generations.same_text_again.dropna().astype(bool)
    share = wilson(int(measured.sum()), len(measured))
    return pd.DataFrame(
        [
            {
                "generator": generator,
                "applicable": True,
                "prompts": len(measured),
                "same_text": share.successes,
                "share": share.rate,
                "low": share.low,
                "high": share.high,
            }
        ]
    )


@dataclass(frozen=True)
class MutatedAnswer:
    """A right answer to mutate: its text, the cited passages' texts in prompt order, and its golden case."""

    question_id: str
    text: str
    passages: list[str]
    gold_value: float
    gold_answer: str
    label: str
    fiscal_year: int
    gold_figures: str = "[]"  # a two-document case's figures (golden.two_documents), judged by judge_case
    gold_direction: str = ""


MUTATION_COLUMNS = ["question_id", "kind", "mutant", "withheld", "reason", "judged_wrong"]


def citation_mutations(answers: list[MutatedAnswer]) -> pd.DataFrame:
    """The citation check's and the judge's power: each right answer with one figure changed in one of five ways
    (`edgar_eval.answering.mutations`), checked again against the passages it was generated from (withheld?) and
    judged again against its golden case (wrong?). A mutant whose new value the passage also prints is rightly
    backed (a wrong-column mutant always is): catching it is the judge's work."""
    rows = []
    for answer in answers:
        labelled = {passage_label(i): passage for i, passage in enumerate(answer.passages)}
        for kind, mutant in figure_mutations(answer.text, answer.passages):
            verdict = check_citations(mutant, labelled)
            judged = judge_case(mutant, answer)
            rows.append(
                {
                    "question_id": answer.question_id,
                    "kind": kind,
                    "mutant": mutant,
                    "withheld": not verdict.ok,
                    "reason": verdict.reason,
                    "judged_wrong": not judged.correct,
                }
            )
    return pd.DataFrame(rows, columns=MUTATION_COLUMNS)


def mutation_summary(mutations: pd.DataFrame) -> pd.DataFrame:
    """Per mutant kind (in the order of MUTANT_KINDS): mutants, the share the citation check withholds and the
    share the judge marks wrong, each with a Wilson 95% interval."""
    rows = []
    for kind in MUTANT_KINDS:
        of_kind = mutations[mutations.kind == kind]
        withheld = wilson(int(of_kind.withheld.sum()), len(of_kind))
        wrong = wilson(int(of_kind.judged_wrong.sum()), len(of_kind))
        rows.append(
            {
                "kind": kind,
                "mutants": len(of_kind),
                "answers": int(of_kind.question_id.nunique()),
                "withheld": withheld.successes,
                "withheld_share": withheld.rate,
                "withheld_low": withheld.low,
                "withheld_high": withheld.high,
                "judged_wrong": wrong.successes,
                "wrong_share": wrong.rate,
                "wrong_low": wrong.low,
                "wrong_high": wrong.high,
            }
        )
    return pd.DataFrame(rows)
