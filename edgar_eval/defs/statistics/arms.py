"""The arms' statistics under the pre-registered protocol: rates per arm and kind, the decision simulation, design
power, the paired comparisons and what each arm costs."""

import hashlib
import tomllib

import dagster as dg
import pandas as pd

from edgar_eval.defs.common import figure_metadata, table_head, table_output
from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource, project_home
from edgar_eval.defs.source_files import GATES_FILES, POLICY_FILES, PROTOCOL_FILES, REVIEW_FILES
from edgar_eval.defs.statistics.pins import PinnedCode, run_pins
from edgar_eval.evaluation import confirmatory, paired_comparisons, run_profile
from edgar_eval.evaluation.headline_figures import (
    arm_figures,
    false_answer_kind_figures,
    primary_endpoint_description,
)
from edgar_eval.evaluation.protocol import Protocol
from edgar_eval.evaluation.summaries import (
    answers_by_kind,
    false_answers_by_kind,
    summarise_arms,
)


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Per arm, on the protocol's split (eval): recall cost and accuracy on answerable questions, each with "
    "a Wilson and a company-cluster bootstrap-t 95% interval. No false-answer rate pooled over the unanswerable kinds "
    "(arm_false_answers_by_kind holds one per kind).",
)
def arm_statistics(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    stats = summarise_arms(
        protocol.questions(arm_outcomes), seed=settings.golden_seed, method=paired_comparisons.EXPLORATORY_METHOD
    ).assign(split=protocol.split)
    return table_output(
        stats,
        {
            "split": protocol.split,
            **figure_metadata(arm_figures(stats)),
            "head": table_head(stats, ["arm", "gates", "recall_cost", "answer_accuracy"], rows=6),
        },
    )


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Per arm and unanswerable kind, on the protocol's split: false answers over the kind's questions "
    "(Wilson 95%) and the companies holding them. Each kind on its own line, never pooled: a pooled rate is mostly "
    "the most numerous, easiest kind.",
)
def arm_false_answers_by_kind(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    table = false_answers_by_kind(protocol.questions(arm_outcomes)).assign(split=protocol.split)
    return table_output(
        table,
        {
            "split": protocol.split,
            "primary_endpoint": primary_endpoint_description(protocol),
            **figure_metadata(false_answer_kind_figures(table, protocol)),
            "head": table_head(table, ["arm", "kind", "false_answer_rate_k", "false_answer_rate_n"], rows=12),
        },
    )


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Per arm and answerable kind (single-figure questions and each two-document kind), on the protocol's "
    "split: right answers over the kind's questions (Wilson 95%) and the companies holding them.",
)
def arm_answers_by_kind(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    table = answers_by_kind(protocol.questions(arm_outcomes)).assign(split=protocol.split)
    head = table_head(table, ["arm", "kind", "correct_rate_k", "correct_rate_n"], rows=12)
    return table_output(table, {"head": head})


def read_protocol(settings: EvalSettings) -> tuple[Protocol, str]:
    """The pre-registered protocol and the sha256 of the file it was read from."""
    path = settings.protocol_path()
    data = path.read_bytes()
    return Protocol.from_mapping(tomllib.loads(data.decode())), hashlib.sha256(data).hexdigest()


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Protocol v3: per confirmatory hypothesis, null boundary (false-answer-rate difference 0; accuracy "
    "difference at minus the margin) and interval method, how often the truth lies beyond each end of the protocol's "
    "interval over simulated splits with the split's own companies and question counts; the decision tail's miss rate "
    "is the rule's type-I error. Chooses each hypothesis's interval method (bootstrap, few-cluster, or for a gated arm "
    "against the arm it gates Korn-Graubard). Reads the questions of arm_outcomes, and of their outcomes only whether "
    "the testability split shows a discordant pair. Empty for v1 and v2 protocols, for untestable hypotheses, and for "
    "a run that is not the generator and corpus the protocol registers (v4).",
)
def decision_simulation(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    generator: GeneratorResource,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    registered = protocol.registers(generator.kind, settings.corpus_name)
    table = confirmatory.decision_simulation(arm_outcomes, protocol, settings.golden_seed, registered)
    chosen = {h.id: confirmatory.chosen_method(table, h.id) for h in protocol.hypotheses}
    return table_output(
        table,
        {
            "protocol": protocol.version,
            "registered_system": protocol.registered_system,
            "chosen": dg.MetadataValue.json(
                {h: f"{m} ({'holds' if ok else 'does not hold'} alpha)" for h, (m, ok) in chosen.items() if m}
            ),
            "head": table_head(table, ["hypothesis", "boundary", "method", "type_one", "holds", "chosen"], rows=9),
        },
    )


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    group_name="statistics",
    description="Protocol v3: per confirmatory hypothesis, the power of its decision at true false-answer-rate "
    "differences up to the assumed discordance, simulated at the split's companies and question counts with the "
    "method the decision simulation chose; the smallest difference reaching the protocol's power is the minimum "
    "detectable effect, with the design effect of clustering beside it. Empty for v1 and v2 protocols.",
)
def design_power(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    arm_outcomes: pd.DataFrame,
    decision_simulation: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, _ = read_protocol(settings)
    table = confirmatory.design_power(arm_outcomes, protocol, decision_simulation, settings.golden_seed)
    detected = table[table.minimum_detectable]
    return table_output(
        table,
        {
            "protocol": protocol.version,
            "minimum_detectable_effect": dg.MetadataValue.json(
                {str(h): round(abs(float(t)), 4) for h, t in zip(detected.hypothesis, detected.truth)}
            ),
            "head": table_head(table, rows=6),
        },
    )


@dg.asset(
    deps=[PROTOCOL_FILES.key, GATES_FILES.key, REVIEW_FILES.key, POLICY_FILES.key],
    group_name="statistics",
    description="Paired differences between arms on the same questions of the protocol's split (every arm against A, "
    "and the protocol's pairs; the false-answer rate per unanswerable kind, none pooled): an interval at the "
    "protocol's level (exploratory rows: company bootstrap-t; confirmatory rows: the method their decision simulation "
    "chose), exact McNemar on the discordant pairs (exploratory: it assumes independent questions), the minimum "
    "detectable effect; confirmatory where the protocol names the comparison and registers the run's generator and "
    "corpus, decided by the protocol's rule. Under v5 a hypothesis is decided by exact one-sided tests for the "
    "corpus's companies as fixed strata (evaluation/exact_decisions.py), confirmatory only where every pin matches "
    "the run (corpus manifest, system under test, code of the golden rules, the generations and the gates, the frozen "
    "gates file, the settings), else exploratory naming the pins that differ.",
)
def arm_comparisons(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    generator: GeneratorResource,
    embedder: EmbedderResource,
    pinned_code: PinnedCode,
    arm_outcomes: pd.DataFrame,
    decision_simulation: pd.DataFrame,
    design_power: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    protocol, protocol_sha = read_protocol(settings)
    pins = run_pins(settings, generator.kind, embedder, pinned_code)
    table = paired_comparisons.arm_comparisons(
        arm_outcomes,
        protocol,
        seed=settings.golden_seed,
        simulation=decision_simulation,
        power=design_power,
        registered=protocol.registers(generator.kind, settings.corpus_name),
        pin_differences=protocol.pin_differences(pins, project_home()),
    )
    confirmatory = table[table.status == "confirmatory"]
    return table_output(
        table.assign(protocol=protocol.version, protocol_sha256=protocol_sha),
        {
            "protocol": protocol.version,
            "protocol_sha256": protocol_sha,
            "decisions": dg.MetadataValue.json(dict(zip(confirmatory.hypothesis, confirmatory.decision))),
            "pins": dg.MetadataValue.json(pins),
            "head": table_head(
                table, ["arm", "baseline", "metric", "difference", "low", "high", "mcnemar_p", "status"], rows=10
            ),
        },
    )


@dg.asset(
    group_name="statistics",
    description="Generator seconds per question per arm (a question gated out before generation costs none); "
    "wall-clock, so the report prints it in timings.md, not in its byte-identical body.",
)
def arm_costs(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    arm_outcomes: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    table = run_profile.arm_costs(arm_outcomes)
    return table_output(table, {"head": table_head(table, rows=6)})


ASSETS = [
    arm_answers_by_kind,
    arm_statistics,
    arm_false_answers_by_kind,
    arm_costs,
    decision_simulation,
    design_power,
    arm_comparisons,
]
