"""Protocol v2: a hypothesis can fail. A gate that declines everything lowers the false-answer rate and still is not
confirmed; a gate that declines only what it should is; nothing confirmatory reads the dev split."""

import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from edgar_eval.evaluation.abstention import ARMS
from edgar_eval.evaluation.paired_comparisons import arm_comparisons
from edgar_eval.evaluation.protocol import Protocol
from edgar_eval.evaluation.run_profile import determinism

PROTOCOL_DIR = Path(__file__).resolve().parents[1] / "protocol"


def _protocol(name="answering-v2") -> Protocol:
    return Protocol.from_mapping(tomllib.loads((PROTOCOL_DIR / f"{name}.toml").read_text()))


def _outcomes(decline, companies=24, per_company=12, seed=0, split_of=lambda c: "eval"):
    """Arm A answers every question (right on 70% of answerable ones); arm E keeps A's answer unless `decline`
    (question index, answerable) says so; every other arm is A."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(companies):
        for i in range(per_company):
            answerable = i % 2 == 0
            right = answerable and rng.random() < 0.7
            for arm in ARMS:
                declined = arm == "E" and decline(i, answerable)
                answered = not declined
                rows.append(
                    {
                        "question_id": f"q{c:02d}-{i:02d}",
                        "cik": f"{c:010d}",
                        "split": split_of(c),
                        "arm": arm,
                        "expected_route": "answer" if answerable else "no_answer",
                        "answered": answered,
                        "correct": (answered and right) if answerable else not answered,
                        "false_answer": (not answerable) and answered,
                    }
                )
    return pd.DataFrame(rows)


def _decision(table, hypothesis):
    return table[table.hypothesis == hypothesis].decision.iloc[0]


def test_a_gate_that_declines_everything_fails_a_v2_hypothesis_and_passed_v1():
    everything = _outcomes(lambda i, answerable: True)
    v2 = arm_comparisons(everything, _protocol(), resamples=2_000)
    assert _decision(v2, "H2") == "not confirmed: the recall cost may exceed 5 points"
    far = v2[(v2.hypothesis == "H2")].iloc[0]
    assert far.difference == pytest.approx(-1.0) and far.high < 0  # the false-answer rate did fall, to zero
    v1 = arm_comparisons(everything, _protocol("answering-v1"), resamples=2_000)
    assert _decision(v1, "H2") == "confirmed"  # what v1 concluded from the same data


def test_a_gate_that_declines_only_unanswerable_questions_is_confirmed():
    discerning = _outcomes(lambda i, answerable: not answerable)
    assert _decision(arm_comparisons(discerning, _protocol(), resamples=2_000), "H2") == "confirmed"
    costly = _outcomes(lambda i, answerable: not answerable or i % 4 == 0)  # also half the answerable ones
    assert _decision(arm_comparisons(costly, _protocol(), resamples=2_000), "H2").startswith(
        "not confirmed: the recall cost"
    )
    useless = _outcomes(lambda i, answerable: False)
    assert (
        _decision(arm_comparisons(useless, _protocol(), resamples=2_000), "H2")
        == "not confirmed: the false-answer rate is not shown to fall"
    )


def test_the_confirmatory_rows_read_the_eval_split_only():
    # dev companies carry a gate that declines everything, eval companies a perfect one: only eval may decide
    outcomes = _outcomes(lambda i, answerable: not answerable, split_of=lambda c: "eval" if c % 2 else "dev")
    dev = outcomes.split == "dev"
    outcomes.loc[dev & (outcomes.arm == "E"), ["answered", "false_answer"]] = False
    outcomes.loc[dev & (outcomes.arm == "E") & (outcomes.expected_route == "answer"), "correct"] = False
    table = arm_comparisons(outcomes, _protocol(), resamples=2_000)
    assert set(table.split) == {"eval"} and table.companies.max() == 12
    assert _decision(table, "H2") == "confirmed"
    assert table.questions.max() == 12 * 6


def test_the_minimum_detectable_effect_is_fixed_at_design_time():
    protocol = _protocol()
    first = arm_comparisons(_outcomes(lambda i, answerable: True), protocol, resamples=500)
    second = arm_comparisons(_outcomes(lambda i, answerable: False), protocol, resamples=500)
    # two runs with opposite outcomes on the same design: the same MDE, from n and the assumed discordance
    assert first.minimum_detectable_effect.equals(second.minimum_detectable_effect)
    assert (first.mde_basis == "design").all()
    assert first.minimum_detectable_effect.iloc[0] == pytest.approx(protocol.design_mde(int(first.questions.iloc[0])))


def test_a_protocol_with_a_bad_margin_or_split_is_refused():
    data = tomllib.loads((PROTOCOL_DIR / "answering-v2.toml").read_text())
    data["hypotheses"][0]["recall_cost_margin"] = 1.5
    with pytest.raises(ValueError, match="recall_cost_margin"):
        Protocol.from_mapping(data)
    data = tomllib.loads((PROTOCOL_DIR / "answering-v2.toml").read_text())
    data["split"] = "test"
    with pytest.raises(ValueError, match="split"):
        Protocol.from_mapping(data)


def test_determinism_is_not_applicable_to_a_deterministic_generator():
    generations = pd.DataFrame(
        {"generator_id": ["table-reader/1"] * 3, "same_text_again": [None] * 3, "deterministic": [True] * 3}
    )
    row = determinism(generations).iloc[0]
    assert not row.applicable and row.prompts == 0
    model = pd.DataFrame(
        {"generator_id": ["m"] * 4, "same_text_again": [True, False, None, True], "deterministic": [False] * 4}
    )
    row = determinism(model).iloc[0]
    assert row.applicable and (row.prompts, row.same_text) == (3, 2)
