"""Protocol v4: it registers one system on one corpus and decides nothing elsewhere; its decisions come out either way
on constructed data; every decision says what would have reversed it; and an untestable hypothesis costs no
simulation."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import pytest

from edgar_eval.evaluation import confirmatory
from edgar_eval.evaluation.abstention import ARMS
from edgar_eval.evaluation.paired_comparisons import arm_comparisons
from edgar_eval.evaluation.protocol import Protocol

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("answerable", "absent_concept", "other_year")
COMPANIES, PER_KIND = 12, 10  # twelve companies: the sign flip is exact (4,096 patterns) and the test fast


def _protocol(**design) -> Protocol:
    data = tomllib.loads((ROOT / "protocol" / "answering-v4.toml").read_text())
    changed = {**data["design"], "simulation_replicates": 200, "simulation_resamples": 200, "power_replicates": 30}
    return Protocol.from_mapping({**data, "design": {**changed, **design}})


def _outcomes(answers) -> pd.DataFrame:
    """`answers(arm, kind, company, i)`: does the arm answer? An answered unanswerable question is a false answer,
    an answered answerable one is right."""
    rows = []
    for company in range(COMPANIES):
        for split in ("dev", "eval"):
            for kind in KINDS:
                for i in range(PER_KIND):
                    for arm in ARMS:
                        answered, answerable = bool(answers(arm, kind, company, i)), kind == "answerable"
                        rows.append(
                            {
                                "question_id": f"{split}-{company:02d}-{kind}-{i:02d}",
                                "cik": f"{company:010d}",
                                "split": split,
                                "kind": kind,
                                "arm": arm,
                                "expected_route": "answer" if answerable else "no_answer",
                                "answered": answered,
                                "correct": answered == answerable,
                                "false_answer": answered and not answerable,
                                "generate_seconds": 0.0,
                            }
                        )
    return pd.DataFrame(rows)


def _decide(outcomes: pd.DataFrame, protocol: Protocol, registered: bool = True) -> pd.DataFrame:
    simulation = confirmatory.decision_simulation(outcomes, protocol, seed=3, registered=registered)
    power = confirmatory.design_power(outcomes, protocol, simulation, seed=3)
    table = arm_comparisons(
        outcomes, protocol, seed=3, resamples=500, simulation=simulation, power=power, registered=registered
    )
    decided = table.loc[table["hypothesis"] != ""]
    return decided.drop_duplicates(subset=["hypothesis"]).set_index("hypothesis")


def _relevance_declines_absent(arm: str, kind: str, company: int, i: int) -> bool:
    """An eager reader answers everything; the relevance-model arms (C, E) withhold its absent-concept answers."""
    return not (kind == "absent_concept" and arm in ("C", "E"))


def test_v4_registers_the_eager_reader_on_edgar_wide_and_no_comparison_decided_by_construction():
    protocol = _protocol()
    assert (protocol.generator, protocol.corpus) == ("eager-reader", "edgar-wide")
    assert protocol.registers("eager-reader", "edgar-wide") and not protocol.registers("table-reader", "edgar-wide")
    assert not protocol.registers("eager-reader", "edgar")
    # the other-year twins against the period guard are decided by construction for this reader: not registered
    assert {h.kind for h in protocol.hypotheses} == {"absent_concept"}
    assert [h.id for h in protocol.hypotheses if confirmatory.removes_only(h)] == ["H2"]


def test_another_system_or_corpus_decides_nothing_and_simulates_nothing():
    outcomes = _outcomes(_relevance_declines_absent)
    protocol = _protocol(company_concentration=50.0)
    assert confirmatory.decision_simulation(outcomes, protocol, seed=3, registered=False).empty
    decided = _decide(outcomes, protocol, registered=False)
    assert set(decided.status) == {"exploratory"}
    assert all(
        d.startswith("not decided here: answering-v4 registers eager-reader on edgar-wide") for d in decided.decision
    )


def test_a_gate_that_works_is_confirmed_and_one_that_costs_recall_is_not_and_each_says_what_would_reverse_it():
    protocol = _protocol(company_concentration=50.0)
    confirmed = _decide(_outcomes(_relevance_declines_absent), protocol)
    assert confirmed.loc["H2", "decision"] == "confirmed", confirmed.loc["H2"].to_dict()
    assert confirmed.loc["H2", "reversal"].startswith("not confirmed had the arm given")
    assert confirmed.loc["H2", "interval_method"] in (
        "korn_graubard",
        "cluster_t",
        "studentized",
        "percentile",
        "bca",
        "sign_flip",
    )

    def costly(arm: str, kind: str, company: int, i: int) -> bool:
        # the relevance arms also withhold three in ten right answers: a recall cost of 30 points
        if arm in ("C", "E") and kind == "answerable":
            return i >= 3
        return _relevance_declines_absent(arm, kind, company, i)

    refuted = _decide(_outcomes(costly), protocol)
    assert refuted.loc["H2", "decision"].startswith(("refuted: the recall cost", "not confirmed: the recall cost"))
    assert "recall cost inside the margin had the arm kept" in refuted.loc["H2", "reversal"]


def test_a_hypothesis_this_generator_leaves_untestable_costs_no_simulation():
    def never_differs(arm: str, kind: str, company: int, i: int) -> bool:
        return kind == "answerable"  # declines every unanswerable question under every arm

    outcomes = _outcomes(never_differs)
    protocol = _protocol()
    assert confirmatory.decision_simulation(outcomes, protocol, seed=3).empty
    decided = _decide(outcomes, protocol)
    assert all(d.startswith("not testable with this generator") for d in decided.decision)


@pytest.mark.parametrize("name", ["answering-v3", "answering-v4"])
def test_every_registered_comparison_names_a_kind_and_a_margin(name):
    protocol = Protocol.from_mapping(tomllib.loads((ROOT / "protocol" / f"{name}.toml").read_text()))
    assert all(h.kind and h.recall_cost_margin == 0.05 for h in protocol.hypotheses)
