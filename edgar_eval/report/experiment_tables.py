"""The answering experiment's tables in the report: paired comparisons under the protocol, abstention gate quality,
determinism, the run receipt; and the wall-clock figures, which go to a timings file instead.

A latency measured on this run's clock differs on the next run, so printing it in the report would break
the report's byte-for-byte rebuild; it goes to timings.md beside the report, and to the assets' metadata.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Iterable, cast

import pandas as pd

from edgar_eval.domain.versioning import content_version
from edgar_eval.evaluation.abstention import ARMS
from edgar_eval.evaluation.mutation_power import mutation_summary
from edgar_eval.report.inputs import ReportInputs
from edgar_eval.report.markdown import Provenance, ReportTable, _ratio, interval, percent

TIMINGS_NOTE = (
    "Measured on the clock of the run that made each table (a shard of a sharded step kept from an earlier run keeps "
    "that run's times; generation latency is the original call's when replayed from a tape), so these figures differ "
    "between runs and are kept out of the byte-identical report."
)
_METRIC_NAMES = {"false_answer_rate": "false-answer rate", "answer_accuracy": "correct on answerable"}


def _points(value: float) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{100 * value:+.1f} points"


def _p(value: float) -> str:
    return "n/a" if value is None or math.isnan(value) else ("< 0.0001" if value < 1e-4 else f"{value:.4f}")


def _mde(value: float, discordant: int) -> str:
    if discordant == 0:
        return "n/a (no discordant pairs)"
    return "none reachable at this n" if math.isnan(value) else _points(value).lstrip("+")


def _number(value: float, digits: int = 3) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.{digits}f}"


_COMPARISONS_NOTE = (
    "Arm minus baseline on the same questions; the false-answer rate on one unanswerable kind per row, never pooled. "
    "A hypothesis is decided in the protocol's order: not testable with this generator when its endpoint shows no "
    "discordant pair on the testability split (nothing the eval split holds could move it); undecided on fewer "
    "companies than the protocol's minimum, or when no interval method holds alpha at a null boundary in the "
    "simulation below; else confirmed when both one-sided bounds hold (the false-answer rate's upper end below zero, "
    "the accuracy difference's lower end above minus the margin), refuted when the interval excludes the prediction "
    "(the rate rises, or the recall cost surely exceeds the margin), not confirmed otherwise. Each hypothesis's alpha "
    "is its share of the family's (Bonferroni): one end of the printed interval. Exact McNemar is exploratory. The "
    "minimum detectable effect is simulated power at the split's companies and question counts with the hypothesis's "
    "interval method, the design effect of clustering (the simulated variance against independent questions') in it."
)
# Under v5 the paired table decides nothing: the hypotheses are decided by exact tests (the next section).
_EXACT_COMPARISONS_NOTE = (
    "Arm minus baseline on the same questions; the false-answer rate on one unanswerable kind per row, never pooled. "
    "Every row here is exploratory (the company bootstrap-t interval, exact McNemar, the minimum detectable effect "
    "from the observed discordance), the protocol's hypotheses' rows included: they are decided by the protocol's "
    "exact tests, in the section that follows."
)
CLUSTER_WARNING_BELOW = 20
NOT_HERE = "not decided here: "  # the decision of a hypothesis in a run the protocol does not register
# Each gate, and the twin kind whose construction it re-reads: the relevance model's name feature looks for the
# question's capitalised names in the passages (an other-company twin names another company), the period guard for the
# asked year among the printed periods (an other-year twin asks a year the scope does not print).
CONSTRUCTION_READ = {
    "relevance": "other_company",
    "period": "other_year",
}


def cluster_warning(companies: int | None, method: str) -> str:
    if companies is None or companies != companies or companies >= CLUSTER_WARNING_BELOW:
        return ""
    return (
        f" Warning: these intervals resample {int(companies)} companies, fewer than {CLUSTER_WARNING_BELOW}. A cluster "
        f"bootstrap on so few runs short of its nominal coverage: the exploratory rows' {method} interval is an "
        "approximation; a confirmatory decision reads its protocol's own rule (v5: exact tests for the companies as "
        "fixed strata; v3 and v4: the interval method their decision simulation found to hold alpha, if any)."
    )


def split_words(frame: pd.DataFrame) -> str:
    split = str(frame.split.iloc[0]) if "split" in frame and len(frame) else "all"
    return "all questions" if split == "all" else f"{split} split"


@dataclass(frozen=True)
class KindRate:
    """One arm's rate on one question kind as the per-kind tables print it: "3/47 (6.4%; 2.2% to 17.2%)"."""

    k: int
    n: int
    share: float
    low: float
    high: float

    @property
    def count(self) -> str:
        """The count and the share: "3/47 (6.4%)"."""
        return f"{self.k}/{self.n} ({percent(self.share)})"

    @property
    def wilson(self) -> str:
        return interval(self.low, self.high)

    @property
    def cell(self) -> str:
        return f"{self.k}/{self.n} ({percent(self.share)}; {self.wilson})"


def kind_rate(rates: pd.DataFrame, arm: str, kind: str, column: str) -> KindRate | None:
    """The arm's ``column`` (``false_answer_rate``, ``correct_rate``) on the kind, with its count and Wilson interval;
    None when the table has no such row."""
    row = rates[(rates.arm == arm) & (rates.kind == kind)]
    if not len(row):
        return None
    first = row.iloc[0]
    return KindRate(
        int(first[f"{column}_k"]),
        int(first[f"{column}_n"]),
        float(first[column]),
        float(first[f"{column}_low"]),
        float(first[f"{column}_high"]),
    )


def comparison_interval(low: float, high: float, confidence: float, method: str) -> str:
    """A paired comparison's interval as printed: "-33.3 points to -2.2 points (99%, studentized)"."""
    return f"{_points(low)} to {_points(high)} ({100 * confidence:.4g}%, {method})"


def comparison_difference(value: float) -> str:
    return _points(value)


def registered_elsewhere(comparisons: pd.DataFrame) -> str:
    """What the protocol registers ("answering-v4 registers eager-reader on edgar-wide") where the run is another
    generator or corpus, so its hypotheses decide nothing here; "" where they decide."""
    decisions = comparisons.decision if "decision" in comparisons else pd.Series(dtype=str)
    elsewhere = [str(d) for d in decisions if str(d).startswith(NOT_HERE)]
    return elsewhere[0][len(NOT_HERE) :] if elsewhere else ""


def unregistered_note(comparisons: pd.DataFrame) -> str:
    """Where the run is not the generator and corpus the protocol registers: one sentence saying so. Where it is, the
    evidence that the hypotheses came before the data: the order of the commits."""
    elsewhere = registered_elsewhere(comparisons)
    if not elsewhere:
        confirmatory = comparisons[comparisons.status == "confirmatory"] if "status" in comparisons else comparisons
        if not len(confirmatory) or "protocol" not in comparisons:
            return ""
        version = str(comparisons.protocol.iloc[0])
        return (
            f" protocol/{version}.toml was committed before any arm outcome of this generator on this corpus was "
            f"computed: the order of the commits is the evidence (`git log protocol/{version}.toml reports/`), and "
            "the receipt holds the file's sha256."
        )
    return (
        f" This run decides nothing: {elsewhere}, and its hypotheses' rows are printed as exploratory (no decision "
        "simulation runs for them)."
    )


def largest_power(power: pd.DataFrame) -> list[tuple[str, float, float]]:
    """Per hypothesis (in order): the largest simulated difference and the decision's power there."""
    if not len(power):
        return []
    maxima = power.groupby("hypothesis").agg(largest=("truth", "min"), power=("power", "last"))
    return [(str(h), float(t), float(p)) for h, t, p in zip(maxima.index, maxima.largest, maxima.power)]


def power_words(largest: tuple[str, float, float]) -> str:
    """ "H1 33.3% at -30.0 points"."""
    hypothesis, truth, power = largest
    return f"{hypothesis} {percent(power)} at {_points(truth)}"


def metric_name(metric: str, kind: str) -> str:
    name = _METRIC_NAMES.get(metric, metric)
    return f"{name} ({kind})" if kind else name


def _type_one(simulation: pd.DataFrame, hypothesis: str) -> str:
    """The chosen method's simulated type-I error at each null boundary of a hypothesis, against its alpha."""
    rows = simulation[(simulation.hypothesis == hypothesis) & simulation.chosen]
    if not len(rows):
        return "n/a (fewer than two companies)"
    return "; ".join(
        f"{percent(t)} at {b}{'' if ok else ' (above alpha)'}"
        for t, b, ok in zip(rows.type_one, rows.boundary, rows.holds)
    )


def simulated_mde(value: float, design_effect: float, status: str) -> str:
    if status != "confirmatory":
        return ""
    if math.isnan(value):
        return "none up to the assumed discordance"
    return f"{_points(value).lstrip('+')} (design effect {design_effect:.2f})"


def decided_exactly(comparisons: pd.DataFrame) -> bool:
    """Did a v5 protocol decide the hypotheses (their rows carry the exact rules' sentences)?"""
    return "effect" in comparisons and bool((comparisons.effect.astype(str) != "").any())


def exact_decisions_table(comparisons: pd.DataFrame, amendments: tuple[tuple[str, str], ...]) -> ReportTable:
    """Protocol v5's decisions: per hypothesis in the order decided, whether it is confirmatory here (every pin
    matches) or exploratory (naming the pins that differ), the decision its data give, each condition with its
    numbers, what would reverse it, and the sensitivity line with companies as clusters."""
    rows = comparisons[comparisons.effect.astype(str) != ""]
    version = str(comparisons.protocol.iloc[0]) if "protocol" in comparisons and len(comparisons) else "the protocol"
    table = pd.DataFrame(
        {
            "hypothesis": rows.hypothesis,
            "comparison": [f"{a} - {b}" for a, b in zip(rows.arm, rows.baseline)],
            "here": [
                "confirmatory" if s == "confirmatory" else f"exploratory: the run differs from the pins {p}"
                for s, p in zip(rows.status, rows.pins)
            ],
            "decision its data give": rows.decision,
            "effect": rows.effect,
            "recall cost": rows.recall_cost,
            "what would reverse it": [r or "n/a" for r in rows.reversal],
            "with companies as clusters (sensitivity)": rows.sensitivity,
        }
    )
    amended = (
        " Amendments since registration: " + "; ".join(f"{date}: {why}" for date, why in amendments) + "."
        if amendments
        else f" {version} has no amendment."
    )
    return ReportTable(
        f"Confirmatory decisions ({version}: exact tests, fixed sequence)",
        table,
        Provenance("arm_comparisons", content_version(comparisons), f"arm_outcomes, protocol/{version}.toml"),
        note="The claim is about this corpus's companies as fixed strata, with questions independent within them. A "
        "gated arm against the arm it gates must withhold more than the registered share of the baseline's false "
        "answers (exact one-sided binomial test; for fixed strata the binomial at the margin is conservative by "
        "Hoeffding's inequality); two gates against each other are compared at zero by the one-sided company "
        "sign-flip test, read from its p-value; the recall cost (the baseline's right answers the arm withholds) must "
        "stay under the margin by the exact binomial test. Both conditions must hold; the hypotheses are tested in a "
        "fixed sequence, each at the family's alpha, a later one only after every earlier one is confirmed. The last "
        "column reads the same data with companies as clusters, the claim about companies in general, which at these "
        "companies decides nothing and is printed beside the decision, not in its place." + amended,
    )


def decision_simulation_table(simulation: pd.DataFrame, power: pd.DataFrame) -> ReportTable:
    """Per hypothesis, null boundary and interval method: each tail's misses and the decision tail's type-I error."""
    table = pd.DataFrame(
        {
            "hypothesis": simulation.hypothesis,
            "null boundary": simulation.boundary,
            "companies / questions": [f"{c} / {q}" for c, q in zip(simulation.companies, simulation.questions)],
            "interval method and level": [
                f"{m} {100 * level:.4g}%{' (chosen)' if c else ''}"
                for m, level, c in zip(simulation.method, simulation.confidence, simulation.chosen)
            ],
            "truth below the lower end": [f"{k}/{n}" for k, n in zip(simulation.below_low, simulation.replicates)],
            "truth above the upper end": [f"{k}/{n}" for k, n in zip(simulation.above_high, simulation.replicates)],
            "type-I error (decision tail)": [
                f"{percent(t)} ({'upper' if d == 'high' else 'lower'} end)"
                for t, d in zip(simulation.type_one, simulation.decision_tail)
            ],
            "type-I Wilson 95%": [
                interval(lo, hi) for lo, hi in zip(simulation.type_one_low, simulation.type_one_high)
            ],
            "alpha": [percent(a) for a in simulation.alpha],
            "holds": ["yes" if h else "no" for h in simulation.holds],
            "mean width": [_points(v).lstrip("+") for v in simulation.mean_width],
        }
    )
    powers = ""
    if len(power):
        powers = (
            " Power of the decision at the largest simulated difference: "
            + "; ".join(power_words(largest) for largest in largest_power(power))
            + " (asset `design_power`, "
            + content_version(power)
            + ")."
        )
    return ReportTable(
        "Decision rule under simulation at this split's companies (protocol v3)",
        table,
        Provenance(
            "decision_simulation", content_version(simulation), "arm_outcomes (the split's companies and sizes)"
        ),
        note="Simulated splits with the companies and question counts of each hypothesis's endpoints, the truth on the "
        "decision's null boundary and companies as unequal as the protocol assumes (edgar_eval/stats/"
        "decision_simulation.py). A decision reads one end of the interval, so each tail's misses are counted apart; "
        "the decision tail's miss rate is the rule's type-I error there, which must not exceed alpha (the simulated "
        "rate itself, not its Wilson interval's lower end). The closed-form methods are also tried at calibrated "
        "levels (the decision tail at alpha / 2 ... alpha / 32), since at few, unequal companies a nominal tail can "
        "miss several times as often. A gated arm against the arm it gates only withholds answers, so its draws go "
        "one way (at the false-answer boundary none differ) and Korn-Graubard's interval is tried too. The chosen "
        "method and level is the narrowest that holds at both boundaries; where none does, the one that strays "
        "least, and the hypothesis is undecided." + powers,
    )


def false_answers_by_kind_table(inputs: ReportInputs) -> ReportTable | None:
    """Each arm's false-answer rate on each unanswerable kind, and the frozen pattern set's D8 cases apart."""
    rates = inputs.false_answers_by_kind
    if not len(rates):
        return None
    kinds = sorted(set(rates.kind))
    table = pd.DataFrame({"arm": sorted(set(rates.arm))})
    table["gates"] = [str(rates[rates.arm == a].gates.iloc[0]) for a in table.arm]
    for kind in kinds:
        cells = []
        for arm in table.arm:
            rate = kind_rate(rates, arm, kind, "false_answer_rate")
            cells.append("n/a" if rate is None else rate.cell)
        companies = int(rates[rates.kind == kind].companies.max())
        table[f"{kind} ({companies} {'company' if companies == 1 else 'companies'})"] = cells
    table["re-reads the construction of"] = [
        ", ".join(f"{twin} ({gate})" for gate, twin in CONSTRUCTION_READ.items() if gate in ARMS[arm]) or "none"
        for arm in table.arm
    ]
    baseline = inputs.pattern_baseline
    d8 = baseline[baseline.pattern == "D8"] if len(baseline) and "pattern" in baseline else baseline
    apart = (
        f" The frozen pattern set's D8 (absence) cases, reported apart because the arms do not read them: the naive "
        f"baseline answered {int((~d8.abstained.astype(bool)).sum())} of {len(d8)} (Naive baseline table)."
        if len(d8)
        else ""
    )
    return ReportTable(
        f"False-answer rate per unanswerable kind ({split_words(rates)})",
        table,
        Provenance("arm_false_answers_by_kind", content_version(rates), "arm_outcomes"),
        note="False answers over the kind's questions (Wilson 95%); no rate pooled over the kinds. absent_concept is "
        "the protocol's primary endpoint (v3 to v5): its construction is the one no gate re-reads, so what a gate "
        "withholds there says something of the gate. An other_company twin names another company in the source "
        "company's scope, which the relevance model's name feature flags; an other_year twin asks a year the scope "
        "does not print, which the period guard reads (as does the eager reader's fallback): a gate's effect on the "
        "twin kind it re-reads (last column) is a check of construction, not evidence of the gate's quality." + apart,
    )


def answers_by_kind_table(inputs: ReportInputs) -> ReportTable | None:
    """Each arm's right answers on each answerable kind: single-figure questions and the two-document kinds."""
    rates = inputs.answers_by_kind
    if not len(rates) or set(rates.kind) == {"answerable"}:
        return None
    table = pd.DataFrame({"arm": sorted(set(rates.arm))})
    table["gates"] = [str(rates[rates.arm == a].gates.iloc[0]) for a in table.arm]
    for kind in sorted(set(rates.kind)):
        cells = []
        for arm in table.arm:
            rate = kind_rate(rates, arm, kind, "correct_rate")
            cells.append("n/a" if rate is None else rate.cell)
        companies = int(rates[rates.kind == kind].companies.max())
        table[f"{kind} ({companies} {'company' if companies == 1 else 'companies'})"] = cells
    table["re-reads the construction of"] = [
        ", ".join(f"{twin} ({gate})" for gate, twin in CONSTRUCTION_READ.items() if gate in ARMS[arm]) or "none"
        for arm in table.arm
    ]
    return ReportTable(
        f"Right answers per answerable kind ({split_words(rates)})",
        table,
        Provenance("arm_answers_by_kind", content_version(rates), "arm_outcomes"),
        note="Right answers over the kind's questions (Wilson 95%). answerable: one figure of one filing. "
        "granularity, restatement, change_over_time and cross_company need a figure from each of two filings "
        "(golden.two_documents), judged on every figure the gold requires and the direction word.",
    )


def period_guard_note(inputs: ReportInputs) -> str:
    """Why arm D (the period guard) agrees with arm A, or where it does not, with the discordant counts and what the
    guard reads (the passages' printed periods, answering.period_guard): it can change an outcome only where arm A
    answers, and the other-year twins are the questions it exists for."""
    comparisons, golden, generations = inputs.comparisons, inputs.golden, inputs.generations
    rows = cast(pd.DataFrame, comparisons[(comparisons.arm == "D") & (comparisons.baseline == "A")])
    if not len(rows) or not len(golden) or "answered" not in generations:
        return ""
    split = str(rows.split.iloc[0]) if "split" in rows else "all"
    asked = cast(pd.DataFrame, golden[golden.kind == "other_year"])
    if split != "all" and len(inputs.golden_set):
        in_split = inputs.golden_set[inputs.golden_set.split == split].question_id
        asked = cast(pd.DataFrame, asked[asked.question_id.isin(list(in_split))])
    answered = int(generations[generations.question_id.isin(asked.question_id)].answered.sum())
    ordered = rows.assign(kind=rows.kind.fillna("") if "kind" in rows else "").sort_values(by=["metric", "kind"])
    counts = "; ".join(
        f"{metric_name(str(m), str(k))} {int(b)} / {int(c)}"
        for m, k, b, c in zip(
            ordered.metric, ordered.kind, ordered.discordant_arm_only, ordered.discordant_baseline_only
        )
    )
    discordant = int(rows.discordant_arm_only.sum() + rows.discordant_baseline_only.sum())
    head = (
        f" Arm D against arm A, discordant pairs (D only / A only): {counts}. The period guard declines a question "
        "whose year the passages the generator read do not print as a period (a table header, a fiscal year or a "
        "period's end in a sentence; a date counts as the year it prints); it reads no tagged fact and no filing's "
        "fiscal year, which the twins were chosen from. It changes an outcome only where arm A answers: the "
        f"generator answered {answered} of the {len(asked)} other-year twins here (each asks the first fiscal year "
        "after the company's latest report, whose scope prints the neighbouring years' columns)"
    )
    if discordant:
        return head + "."
    return (
        head + " and on answerable questions the guard changed no outcome, so D equals A: this generator "
        "never makes the period mistake the guard exists for. A reader that takes the nearest column does, and D then "
        "differs from A (edgar_eval_tests/test_other_year_twins.py)."
    )


def experiment_tables(inputs: ReportInputs) -> list[ReportTable]:
    comparisons, gates, differences, determinism = (
        inputs.comparisons,
        inputs.gates,
        inputs.gate_differences,
        inputs.determinism,
    )
    protocol = comparisons.protocol.iloc[0] if len(comparisons) else "none"
    kind = comparisons.kind if "kind" in comparisons else pd.Series("", index=comparisons.index)
    ordered = comparisons.assign(first=comparisons.status != "confirmatory", kind=kind.fillna("")).sort_values(
        ["first", "hypothesis", "metric", "kind", "arm", "baseline"]
    )
    exploratory = ordered[ordered.status != "confirmatory"]
    method = str(exploratory.interval_method.iloc[0]) if len(exploratory) else "studentized"
    paired = pd.DataFrame(
        {
            "status": ordered.status,
            "hypothesis": ordered.hypothesis,
            "comparison": ordered.arm + " - " + ordered.baseline,
            "metric": [metric_name(m, k) for m, k in zip(ordered.metric, ordered.kind)],
            "questions": ordered.questions,
            "companies": ordered.companies,
            "difference": [comparison_difference(v) for v in ordered.difference],
            "interval": [
                comparison_interval(lo, hi, c, m)
                for lo, hi, c, m in zip(ordered.low, ordered.high, ordered.confidence, ordered.interval_method)
            ],
            "discordant (arm only / baseline only)": [
                f"{b} / {c}" for b, c in zip(ordered.discordant_arm_only, ordered.discordant_baseline_only)
            ],
            "exact McNemar p (exploratory)": [_p(v) for v in ordered.mcnemar_p],
            "type-I error at the null (simulated)": [
                _type_one(inputs.decision_simulation, h) if st == "confirmatory" else ""
                for h, st in zip(ordered.hypothesis, ordered.status)
            ],
            "minimum detectable effect (confirmatory: simulated; exploratory: observed discordance)": [
                simulated_mde(v, d, st) if st == "confirmatory" else _mde(v, b + c)
                for v, d, st, b, c in zip(
                    ordered.minimum_detectable_effect,
                    ordered.design_effect,
                    ordered.status,
                    ordered.discordant_arm_only,
                    ordered.discordant_baseline_only,
                )
            ],
            "decision": ordered.decision,
            "what would have reversed it (questions, in question order)": (
                ordered.reversal if "reversal" in ordered else pd.Series("", index=ordered.index)
            ).fillna(""),
        }
    )
    gate_table = pd.DataFrame(
        {
            "gate score": gates.gate,
            "AUROC": [_number(v) for v in gates.auroc],
            "AUROC DeLong 95%": [
                f"{_number(lo)} to {_number(hi)}" for lo, hi in zip(gates.auroc_low, gates.auroc_high)
            ],
            "answerable / unanswerable": [f"{p} / {n}" for p, n in zip(gates.positives, gates.negatives)],
            "AURC": [_number(v, 4) for v in gates.aurc],
            "best possible AURC": [_number(v, 4) for v in gates.aurc_optimal],
            "Brier": [_number(v, 4) for v in gates.brier],
        }
    )
    reader = (
        f" Arm A's reader answers {int(gates.reader_right.iloc[0])} of {int(gates.reader_answerable.iloc[0])} "
        "answerable "
        f"questions right ({percent(gates.reader_right.iloc[0] / gates.reader_answerable.iloc[0])}): AURC grades the "
        "gate "
        "and that reader together, since each wrong answer it admits counts as risk, so a gate's AURC moves with the "
        "reader's accuracy and only AUROC describes the gate alone."
        if "reader_right" in gates and len(gates) and gates.reader_answerable.iloc[0]
        else ""
    )
    difference_table = pd.DataFrame(
        {
            "comparison": differences["first"] + " - " + differences["second"],
            "AUROC difference": [_number(v) for v in differences.difference],
            "DeLong 95%": [f"{_number(lo)} to {_number(hi)}" for lo, hi in zip(differences.low, differences.high)],
            "p": [_p(v) for v in differences.p_value],
        }
    )
    by_kind = inputs.gates_by_kind
    kind_table = pd.DataFrame(
        {
            "unanswerable kind": by_kind.get("kind", pd.Series(dtype=str)),
            "gate score": by_kind.get("gate", pd.Series(dtype=str)),
            "AUROC": [_number(v) for v in cast(Iterable[Any], by_kind.get("auroc", []))],
            "AUROC DeLong 95%": [
                f"{_number(lo)} to {_number(hi)}"
                for lo, hi in zip(
                    cast(Iterable[Any], by_kind.get("auroc_low", [])),
                    cast(Iterable[Any], by_kind.get("auroc_high", [])),
                )
            ],
            "answerable / of this kind": [
                f"{p} / {n}"
                for p, n in zip(
                    cast(Iterable[Any], by_kind.get("positives", [])), cast(Iterable[Any], by_kind.get("negatives", []))
                )
            ],
        }
    )
    mutations = inputs.mutations
    summary = mutation_summary(mutations)
    mutation_table = pd.DataFrame(
        {
            "mutant kind": summary.kind,
            "mutants": summary.mutants,
            "right answers": summary.answers,
            "withheld by the citation check": [
                f"{w} ({percent(r)})" if n else "n/a"
                for w, r, n in zip(summary.withheld, summary.withheld_share, summary.mutants)
            ],
            "withheld Wilson 95%": [
                interval(lo, hi) if n else "n/a"
                for lo, hi, n in zip(summary.withheld_low, summary.withheld_high, summary.mutants)
            ],
            "judged wrong": [
                f"{w} ({percent(r)})" if n else "n/a"
                for w, r, n in zip(summary.judged_wrong, summary.wrong_share, summary.mutants)
            ],
            "wrong Wilson 95%": [
                interval(lo, hi) if n else "n/a"
                for lo, hi, n in zip(summary.wrong_low, summary.wrong_high, summary.mutants)
            ],
            "whose to catch": [_MUTANT_CATCHER[k] for k in summary.kind],
        }
    )
    row = determinism.iloc[0]
    applicable = bool(row.get("applicable", True))
    determinism_table = pd.DataFrame(
        [
            {
                "generator": row.get("generator", ""),
                "prompts sent twice": int(row.prompts) if applicable else "not applicable: a deterministic generator",
                "same text": int(row.same_text) if applicable else "n/a",
                "share": percent(row.share) if applicable else "n/a",
                "Wilson 95%": interval(row.low, row.high) if applicable else "n/a",
            }
        ]
    )
    kind_rates = false_answers_by_kind_table(inputs)
    kind_answers = answers_by_kind_table(inputs)
    return [
        *([kind_rates] if kind_rates is not None else []),
        *([kind_answers] if kind_answers is not None else []),
        ReportTable(
            f"Paired arm comparisons (protocol {protocol}, {split_words(comparisons)})",
            paired,
            Provenance(
                "arm_comparisons",
                content_version(comparisons),
                "arm_outcomes, decision_simulation, design_power" + ", protocol/" + str(protocol) + ".toml",
            ),
            note=(
                _EXACT_COMPARISONS_NOTE
                if decided_exactly(comparisons)
                else _COMPARISONS_NOTE + unregistered_note(comparisons)
            )
            + cluster_warning(comparisons.companies.max() if "companies" in comparisons else None, method)
            + period_guard_note(inputs),
        ),
        *([exact_decisions_table(comparisons, inputs.amendments)] if decided_exactly(comparisons) else []),
        *(
            [decision_simulation_table(inputs.decision_simulation, inputs.design_power)]
            if len(inputs.decision_simulation)
            else []
        ),
        ReportTable(
            f"Abstention gate quality ({split_words(gates)})",
            gate_table,
            Provenance("abstention_quality", content_version(gates), "abstention_scores x arm_outcomes (arm A)"),
            note="AUROC: how well each gate score separates answerable from unanswerable questions. AURC: area under "
            "the "
            "risk-coverage curve of arm A's kept answers admitted in the score's order (lower is better). Brier: the "
            "relevance model's probability against the answerable label." + reader,
        ),
        ReportTable(
            f"Abstention gate quality per unanswerable kind ({split_words(by_kind)})",
            kind_table,
            Provenance("abstention_quality_by_kind", content_version(by_kind), "abstention_scores x golden_questions"),
            note="Each gate score's AUROC for telling the answerable questions from one unanswerable kind at a time. A "
            "kind "
            "that a surface feature gives away (a year the passages read print as no period, for the period guard; "
            "a company name the passages never print, for the relevance model's name feature) is separated by that "
            "feature alone: a high AUROC there measures how easy the twin is, not how good the gate is. The kind "
            "no surface feature gives away (absent concept) is the one that tests a gate.",
        ),
        ReportTable(
            f"Abstention gate scores compared ({split_words(differences)})",
            difference_table,
            Provenance("abstention_comparisons", content_version(differences), "abstention_scores"),
            note="Paired AUROC differences on the same questions (DeLong), exploratory: DeLong treats questions as "
            "independent, which they are not (they cluster by company).",
        ),
        ReportTable(
            "Citation check and judge under figure mutations",
            mutation_table,
            Provenance(
                "citation_mutations",
                content_version(mutations),
                "generations, arm_outcomes, answerer_retrievals, search_index, golden_questions",
            ),
            note="Every answer arm A got right, with one figure changed in one of five ways, checked again against its "
            "passages (withheld?) and judged again against its golden case (wrong?). A wrong-column mutant prints "
            "another period's figure from the same table row: the passage prints it, so the citation check rightly "
            "backs it and only the judge can catch it. A one-digit rounding that lies within 2% of the figure is "
            "rightly backed and judged right.",
        ),
        ReportTable(
            "Determinism",
            determinism_table,
            Provenance("determinism", content_version(determinism), "generations"),
            note="A seeded sample of prompts sent to the generator twice; from a tape, the two recorded calls are "
            "compared. "
            "A deterministic generator (the offline readers) is not measured: it would only be compared with itself.",
        ),
    ]


_MUTANT_CATCHER = {
    "last_digit": "both",
    "sign_flipped": "both",
    "scale_word": "both",
    "wrong_column": "the judge",
    "one_significant_digit": "both (unless within 2%)",
}


def timing_tables(inputs: ReportInputs) -> list[ReportTable]:
    latency, costs = inputs.latency, inputs.costs
    stage_table = pd.DataFrame(
        {
            "stage": latency.stage,
            "calls": latency.calls,
            "P50 ms": [_number(v, 2) for v in latency.p50_ms],
            "P95 ms": [_number(v, 2) for v in latency.p95_ms],
        }
    )
    cost_table = pd.DataFrame(
        {
            "arm": costs.arm,
            "questions": costs.questions,
            "generated": costs.generated,
            "generator seconds per question": [_number(v, 4) for v in costs.generator_seconds_per_question],
        }
    )
    return [
        ReportTable(
            "Latency per stage",
            stage_table,
            Provenance(
                "stage_latency", content_version(latency), "answerer_retrievals, abstention_scores, generations"
            ),
        ),
        ReportTable(
            "Generator cost per arm",
            cost_table,
            Provenance("arm_costs", content_version(costs), "arm_outcomes"),
            note="A question an arm's gates decline before generation costs no generator time.",
        ),
    ]


def run_receipt(inputs: ReportInputs) -> dict:
    """What a later run must match to reproduce this one."""
    generations = inputs.generations
    first = generations.iloc[0] if len(generations) else None
    return {
        "generator": {
            "generator_id": str(first.generator_id) if first is not None else "",
            "model_id": str(first.model_id) if first is not None else "",
            "parameters": json.loads(first.parameters) if first is not None else {},
            "prompt_version": first.prompt_version
            if first is not None and isinstance(first.prompt_version, str)
            else None,
            "replayed_generations": int(generations.replayed.sum()),
        },
        "embedder_and_index": json.loads(inputs.index_fingerprint),
        "golden_set": {
            "version": str(inputs.golden_set.version.iloc[0]),
            "sha256": str(inputs.golden_set.content_hash.iloc[0]),
        },
        "protocol": {
            "version": str(inputs.comparisons.protocol.iloc[0]),
            "sha256": str(inputs.comparisons.protocol_sha256.iloc[0]),
        }
        if len(inputs.comparisons)
        else None,
        "corpus": dict(sorted(zip(inputs.filings.filing_id, inputs.filings.sha256))),
        "code_version": inputs.settings.get("code_version", ""),
        "settings": {k: v for k, v in sorted(inputs.settings.items()) if k != "code_version"},
    }


def receipt_table(receipt: dict) -> ReportTable:
    generator, index = receipt["generator"], receipt["embedder_and_index"]
    rows = [
        ("generator", generator["generator_id"]),
        ("model", generator["model_id"] or "n/a"),
        ("model parameters", json.dumps(generator["parameters"], sort_keys=True)),
        ("prompt version", generator["prompt_version"] or "n/a (no prompt)"),
        ("generations replayed from a tape", str(generator["replayed_generations"])),
        ("embedder", index["embedder_id"]),
        ("index fingerprint", json.dumps(index, sort_keys=True)),
        ("golden set", f"{receipt['golden_set']['version']} sha256 {receipt['golden_set']['sha256']}"),
        (
            "protocol",
            f"{receipt['protocol']['version']} sha256 {receipt['protocol']['sha256']}"
            if receipt["protocol"]
            else "n/a",
        ),
        ("corpus", f"{len(receipt['corpus'])} filings (sha256 each in the Corpus table and receipt.json)"),
    ]
    frame = pd.DataFrame(rows, columns=["item", "value"])
    return ReportTable(
        "Run receipt",
        frame,
        Provenance("report", content_version(frame), "every asset above"),
        note="The same, with every filing's sha256 and the code version (package version and source hash, which "
        "changes with any code edit and so is kept out of this page), is written to receipt.json beside this report.",
    )


def _companies(comparisons: pd.DataFrame) -> int | None:
    return int(comparisons.companies.max()) if "companies" in comparisons and len(comparisons) else None


def _method(comparisons: pd.DataFrame) -> str:
    return (
        str(comparisons.interval_method.iloc[0])
        if "interval_method" in comparisons and len(comparisons)
        else "percentile"
    )


def period_guard_idle(comparisons: pd.DataFrame) -> bool:
    """Did the period guard withhold no answer the generator gave on the split (D - A: no discordant pair on any
    endpoint)? Then D equals A, E equals C and F equals B on every question: each adds the guard to an arm it leaves
    unchanged."""
    rows = comparisons[(comparisons.arm == "D") & (comparisons.baseline == "A")] if len(comparisons) else comparisons
    return bool(len(rows)) and not bool((rows.discordant_arm_only + rows.discordant_baseline_only).any())


def arms_table(inputs: ReportInputs) -> ReportTable:
    """Per arm on the evaluation split: false-answer rate and recall cost with their Wilson and company bootstrap
    intervals, and correct on answerable. Arms D, E and F are printed only where they differ from A, C and B."""
    idle = period_guard_idle(inputs.comparisons)
    arms = cast(pd.DataFrame, inputs.arms[~inputs.arms.arm.isin(["D", "E", "F"])]) if idle else inputs.arms
    table = pd.DataFrame(
        {
            "arm": arms.arm,
            "gates": arms.gates,
            "recall cost": [
                f"{percent(v)} ({_ratio(k, n)})"
                for v, k, n in zip(arms.recall_cost, arms.recall_cost_k, arms.recall_cost_n)
            ],
            "recall cost Wilson 95%": [interval(lo, hi) for lo, hi in zip(arms.recall_cost_low, arms.recall_cost_high)],
            f"recall cost company bootstrap 95% ({_method(inputs.comparisons)})": [
                interval(lo, hi) for lo, hi in zip(arms.recall_cost_cluster_low, arms.recall_cost_cluster_high)
            ],
            "correct on answerable": [
                f"{percent(v)} ({_ratio(k, n)})"
                for v, k, n in zip(arms.answer_accuracy, arms.answer_accuracy_k, arms.answer_accuracy_n)
            ],
        }
    )
    return ReportTable(
        f"Arms ({split_words(arms)})",
        table,
        Provenance("arm_statistics", content_version(inputs.arms), "arm_outcomes (abstention_scores x generations)"),
        note="Recall cost: answerable questions arm A answers correctly and the arm declines. No pooled false-answer "
        "rate: pooled over the unanswerable kinds it is mostly the other-company and other-year twins, whose "
        "construction the relevance model's name feature and the period guard re-read; each kind's rate is in "
        "'False-answer rate per unanswerable kind'. "
        "The dev split fits the thresholds and the relevance model (two-fold by company within it) and feeds the "
        "CI gate; these rows read the questions nothing was fitted on."
        + (
            " D, E and F are left out: the period guard withheld no answer the generator gave on this split, so they "
            "equal A, C and B on every question."
            if idle
            else ""
        )
        + cluster_warning(_companies(inputs.comparisons), _method(inputs.comparisons)),
    )
