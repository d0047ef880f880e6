"""Protocol v5 (evaluation.exact_decisions): on constructed arm outcomes at the registered corpus's shape (61
companies) and at edgar-wide's eval shape, the registered rule confirms, fails to confirm and refutes as its data say;
the fixed sequence stops at the first hypothesis not confirmed; every pin that differs makes the rows exploratory."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd
import pytest

from edgar_eval.evaluation.abstention import ARMS
from edgar_eval.evaluation.exact_decisions import decide_hypothesis, decide_sequence
from edgar_eval.evaluation.paired_comparisons import arm_comparisons
from edgar_eval.evaluation.protocol import PIN_NAMES, Hypothesis, Protocol

ROOT = Path(__file__).resolve().parents[1]
V5 = ROOT / "protocol" / "answering-v5.toml"


def protocol_v5() -> Protocol:
    return Protocol.from_mapping(tomllib.loads(V5.read_text()))


def constructed(
    companies: int,
    answerable: int,
    absent: int,
    a_false_share: float,
    e_withholds: float,
    e_costs: float,
    c_minus_b: float,
    seed: int,
) -> pd.DataFrame:
    """Arm outcomes of a generation and six arms: per company `answerable` answerable and `absent` absent-concept
    questions; arm A answers a share `a_false_share` of the absent ones (false answers) and every answerable one right;
    E withholds a share `e_withholds` of A's false answers and `e_costs` of its right answers; C gives `c_minus_b` more
    false answers than B (a share of the absent questions, both ways at random otherwise)."""
    rng = np.random.default_rng(seed)
    rows = []
    for company in range(companies):
        cik = f"{company + 1:010d}"
        for i in range(answerable + absent):
            is_answerable = i < answerable
            question = f"q{company}-{i}"
            a_answers = True if is_answerable else bool(rng.random() < a_false_share)
            e_keeps = a_answers and bool(rng.random() >= (e_costs if is_answerable else e_withholds))
            b_keeps = a_answers and bool(rng.random() < 0.8)
            if is_answerable:
                c_keeps = b_keeps
            else:
                shift = rng.random()
                c_keeps = a_answers and (b_keeps if shift >= abs(c_minus_b) else c_minus_b > 0)
            kept = {"A": a_answers, "B": b_keeps, "C": c_keeps, "D": a_answers, "E": e_keeps, "F": b_keeps}
            for arm in ARMS:
                rows.append(
                    {
                        "question_id": question,
                        "cik": cik,
                        "split": "eval",
                        "kind": "answerable" if is_answerable else "absent_concept",
                        "arm": arm,
                        "expected_route": "answer" if is_answerable else "no_answer",
                        "answered": kept[arm],
                        "correct": kept[arm] if is_answerable else not kept[arm],
                        "false_answer": (not is_answerable) and kept[arm],
                    }
                )
    return pd.DataFrame(rows)


def h2() -> Hypothesis:
    return next(h for h in protocol_v5().hypotheses if h.id == "H2")


@pytest.mark.parametrize(("companies", "answerable", "absent"), [(61, 10, 3), (21, 30, 5)])
def test_the_registered_rule_can_confirm_and_can_fail_to_confirm_at_both_shapes(companies, answerable, absent):
    protocol = protocol_v5()
    hypothesis = h2()
    strong = constructed(companies, answerable, absent, 0.4, 0.45, 0.01, 0.0, 1)
    weak = constructed(companies, answerable, absent, 0.4, 0.08, 0.01, 0.0, 2)
    costly = constructed(companies, answerable, absent, 0.4, 0.45, 0.12, 0.0, 3)
    assert decide_hypothesis(hypothesis, protocol, strong, 0.025, 0).decision == "confirmed"
    assert decide_hypothesis(hypothesis, protocol, weak, 0.025, 0).decision.startswith(("not confirmed", "refuted"))
    refuted = decide_hypothesis(hypothesis, protocol, costly, 0.025, 0)
    assert refuted.decision.startswith("refuted: the recall cost"), refuted


def test_a_confirmed_decision_says_what_would_reverse_it_and_the_sensitivity_line():
    protocol = protocol_v5()
    decided = decide_hypothesis(h2(), protocol, constructed(61, 10, 3, 0.4, 0.45, 0.01, 0.0, 1), 0.025, 0)
    assert decided.decision == "confirmed"
    assert decided.reversal.startswith("not confirmed had E withheld ")
    assert "fewer of A's false answers, or had E withheld " in decided.reversal
    assert decided.reversal.endswith("more right answers")
    assert "companies as clusters" in decided.sensitivity
    assert "exact one-sided" in decided.effect and "recall cost" in decided.recall


def test_a_withheld_share_under_the_minimum_effect_is_refuted():
    protocol = protocol_v5()
    decided = decide_hypothesis(h2(), protocol, constructed(61, 10, 6, 0.6, 0.0, 0.0, 0.0, 4), 0.025, 0)
    assert decided.decision.startswith("refuted: E withholds less than"), decided


def test_fewer_companies_than_the_minimum_is_the_only_undecided():
    protocol = protocol_v5()
    decided = decide_hypothesis(h2(), protocol, constructed(5, 10, 3, 0.4, 0.45, 0.01, 0.0, 1), 0.025, 0)
    assert decided.decision.startswith("undecided: 5 companies (the protocol decides on 8 or more)")


def test_the_sequence_stops_at_the_first_hypothesis_not_confirmed():
    protocol = protocol_v5()
    assert protocol.sequence[0] == "H2"
    weak = constructed(61, 10, 3, 0.4, 0.0, 0.0, -0.3, 5)  # E withholds nothing; C far below B
    decisions = {d.hypothesis: d.decision for d in decide_sequence(protocol, weak, 0)}
    assert not decisions["H2"].startswith("confirmed")
    assert decisions["H3"].startswith("not confirmed: the sequence stops at H2 (its data alone: ")


def test_pins_that_differ_make_the_rows_exploratory_and_are_named():
    protocol = protocol_v5()
    assert {name for name, _ in protocol.pins} == set(PIN_NAMES)
    outcomes = constructed(61, 10, 3, 0.4, 0.45, 0.01, 0.0, 1)
    matching = dict(protocol.pins)
    same = arm_comparisons(outcomes, protocol, resamples=200, pin_differences=protocol.pin_differences(matching))
    assert set(same[same.hypothesis != ""].status) == {"confirmatory"}
    other = {**matching, "corpus_manifest_sha256": "0" * 64}
    differences = protocol.pin_differences(other)
    assert len(differences) == 1 and differences[0].startswith("corpus_manifest_sha256 (registered ")
    moved = arm_comparisons(outcomes, protocol, resamples=200, pin_differences=differences)
    rows = cast(pd.DataFrame, moved[moved.hypothesis != ""])
    assert set(rows.status) == {"exploratory"}
    h2_row = cast(pd.DataFrame, rows[rows.hypothesis == "H2"])
    assert h2_row.decision.iloc[0] == "confirmed"  # what its data give, printed all the same
    assert "corpus_manifest_sha256" in rows.pins.iloc[0]


def test_a_v5_protocol_refuses_a_rule_it_does_not_know_and_a_sequence_that_misses_one():
    data = tomllib.loads(V5.read_text())
    data["hypotheses"][0]["rule"] = "bootstrap"
    with pytest.raises(ValueError, match="rule is withheld_share or sign_flip"):
        Protocol.from_mapping(data)
    data = tomllib.loads(V5.read_text())
    data["sequence"] = ["H2"]
    with pytest.raises(ValueError, match="must name every hypothesis once"):
        Protocol.from_mapping(data)
    data = tomllib.loads(V5.read_text())
    data["pins"]["corpus_name"] = "edgar"
    with pytest.raises(ValueError, match="unknown pins"):
        Protocol.from_mapping(data)


def test_the_calibration_committed_with_v5_holds_alpha_at_every_boundary_over_10000_replicates():
    """v5's calibration (bench/calibrate_protocol.py, run once when v5 was written): the file its pin names, 10,000
    replicates at each boundary, the sealed shape of 61 companies and edgar-wide's eval shape, a heterogeneity grid
    holding the registered concentration, every fixed-strata size at or under alpha, and power for each deciding
    condition at both shapes."""
    import hashlib
    import json

    raw = tomllib.loads(V5.read_text())
    path = ROOT / raw["calibration"]["file"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == raw["calibration"]["sha256"]
    calibration = json.loads(path.read_text())
    assert calibration["replicates"] >= 10_000 and calibration["alpha"] == raw["family_alpha"]
    assert len(calibration["shapes"]["registered/absent_concept"]["answerable"]) == raw["shape"]["companies"] == 61
    assert raw["calibration_design"]["registered_concentration"] in calibration["heterogeneity"]["grid"]
    fixed = [row for row in calibration["sizes"] if row["population"] == "fixed"]
    assert {(r["hypothesis"], r["condition"], r["shape"]) for r in fixed} == {
        (h, c, s) for h in ("H2", "H3") for c in ("effect", "recall cost") for s in ("registered", "fitting-eval")
    }
    for row in fixed:
        assert row["replicates"] >= 10_000 and row["size"] <= raw["family_alpha"], row
    assert calibration["fixed_strata_sizes_hold"]
    deciding = {(r["hypothesis"], r["condition"], r["shape"]) for r in calibration["power"]}
    assert ("H2", "effect", "registered") in deciding and ("H2", "recall cost", "registered") in deciding
