"""Protocols before v3 stay in protocol/ as history and are refused by a run; a bad margin or split is refused too;
and the determinism measurement does not apply to a deterministic generator."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import pytest

from edgar_eval.evaluation.protocol import Protocol
from edgar_eval.evaluation.run_profile import determinism

PROTOCOL_DIR = Path(__file__).resolve().parents[1] / "protocol"


@pytest.mark.parametrize("name", ["answering-v1", "answering-v2"])
def test_protocols_before_v3_are_kept_as_history_and_refused_by_a_run(name):
    assert (PROTOCOL_DIR / f"{name}.toml").is_file()
    with pytest.raises(ValueError, match="history"):
        Protocol.from_mapping(tomllib.loads((PROTOCOL_DIR / f"{name}.toml").read_text()))


@pytest.mark.parametrize("name", ["answering-v3", "answering-v4"])
def test_a_protocol_with_a_bad_margin_or_split_is_refused(name):
    data = tomllib.loads((PROTOCOL_DIR / f"{name}.toml").read_text())
    data["hypotheses"][0]["recall_cost_margin"] = 1.5
    with pytest.raises(ValueError, match="recall_cost_margin"):
        Protocol.from_mapping(data)
    data = tomllib.loads((PROTOCOL_DIR / f"{name}.toml").read_text())
    data["split"] = "all"
    with pytest.raises(ValueError, match="eval split"):
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
