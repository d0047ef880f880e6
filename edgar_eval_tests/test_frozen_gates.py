"""Gates fitted on one corpus, frozen in a file, applied unchanged to a corpus of other companies (every company
eval), and refused in one line on a corpus that shares a company with the fitting one."""

from __future__ import annotations

import csv
import hashlib

import numpy as np
import pandas as pd
import pytest

from edgar_eval.answering.relevance import FEATURES, RelevanceModel
from edgar_eval.evaluation.abstention import cross_fit
from edgar_eval.evaluation.frozen_gates import (
    apply_frozen_gates,
    fit_frozen_gates,
    read_gates,
    shared_companies,
    write_gates,
)


def gate_rows(companies: list[str], per_company: int, seed: int) -> pd.DataFrame:
    """Abstention-score rows of a synthetic corpus: answerable questions retrieve closer, better covered passages."""
    rng = np.random.default_rng(seed)
    rows = []
    for cik in companies:
        for i in range(per_company):
            answerable = bool(i % 3)
            base = 0.6 if answerable else 0.4
            rows.append(
                {
                    "question_id": f"{cik}-{i}",
                    "cik": cik,
                    "answerable": answerable,
                    "top_score": base + rng.normal(0, 0.08),
                    "margin": rng.random() * 0.1,
                    "mean_top3": base - 0.05 + rng.normal(0, 0.08),
                    "token_coverage": (0.8 if answerable else 0.5) + rng.normal(0, 0.1),
                    "year_present": float(rng.random() < (0.95 if answerable else 0.6)),
                    "name_present": float(rng.random() < (0.95 if answerable else 0.7)),
                }
            )
    return pd.DataFrame(rows)


FITTING = [f"{i:010d}" for i in range(1, 11)]
OTHERS = [f"{i:010d}" for i in range(101, 109)]


def test_gates_fitted_on_one_corpus_score_another_unchanged_and_every_company_is_eval(tmp_path):
    fitting = gate_rows(FITTING, 30, 1)
    gates = fit_frozen_gates(fitting, "f" * 64, "fitting")
    sha = write_gates(gates, tmp_path / "gates" / "fitting-v1.json")
    assert sha == hashlib.sha256((tmp_path / "gates" / "fitting-v1.json").read_bytes()).hexdigest()
    again = fit_frozen_gates(fitting, "f" * 64, "fitting")
    assert write_gates(again, tmp_path / "again.json") == sha  # the same fit, the same bytes
    assert gates["fitted_on"]["companies"] == FITTING

    confirming = gate_rows(OTHERS, 25, 2)
    scored = apply_frozen_gates(confirming, read_gates(tmp_path / "gates" / "fitting-v1.json"))
    assert set(scored.split) == {"eval"}
    # the frozen model is the model fitted on the fitting corpus: the same scores as scikit-learn's
    model = RelevanceModel().fit(fitting[list(FEATURES)].to_numpy(float), fitting.answerable.to_numpy(int))
    expected = np.round(model.score(confirming[list(FEATURES)].to_numpy(float)), 9)
    assert np.allclose(scored.relevance_score.to_numpy(), expected, atol=2e-9)
    assert (scored.relevance_threshold == gates["relevance_threshold"]).all()
    assert (scored.cosine_threshold == gates["cosine_threshold"]).all()
    # the gates tell the confirming corpus's answerable questions from the rest better than chance
    passed = scored.relevance_pass.to_numpy(bool)
    assert passed[scored.answerable].mean() > passed[~scored.answerable].mean()
    # the same columns as a fit within the corpus, so the arms read either
    assert set(cross_fit(confirming.assign(split="eval")).columns) == set(scored.columns)


def test_a_corpus_that_shares_a_company_with_the_fitting_one_is_refused(tmp_path):
    gates = fit_frozen_gates(gate_rows(FITTING, 30, 1), "f" * 64, "fitting")
    overlapping = gate_rows([*OTHERS, FITTING[3]], 10, 3)
    assert shared_companies(gates, overlapping.cik.unique()) == [FITTING[3]]
    assert shared_companies(gates, ["1"]) == ["0000000001"]  # CIKs compared zero-padded
    with pytest.raises(ValueError, match=r"fitted on 1 of this corpus's companies \(CIK 0000000004\)"):
        apply_frozen_gates(overlapping, gates)


def test_a_run_naming_frozen_gates_is_refused_before_any_work_when_its_manifest_shares_a_company(tmp_path, monkeypatch):
    from edgar_eval.defs.settings import EvalSettings

    home = tmp_path / "home"
    (home / "protocol").mkdir(parents=True)
    (home / "pyproject.toml").write_text("")
    write_gates(fit_frozen_gates(gate_rows(FITTING, 30, 1), "f" * 64, "fitting"), home / "gates" / "fitting-v1.json")
    monkeypatch.setenv("EDGAR_EVAL_HOME", str(home))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    with (corpus / "manifest.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["ticker", "cik", "company", "form", "filed", "path", "bytes", "sha256"])
        writer.writerow(["abc", FITTING[0], "Abc Inc.", "10-K", "2024-01-01", "abc/10k.htm", "1", "0" * 64])

    def settings(gates_file: str) -> EvalSettings:
        return EvalSettings(
            corpus_dir=str(corpus),
            corpus_name="confirming",
            data_dir=str(tmp_path / "data"),
            reports_dir=str(tmp_path / "reports"),
            gates_file=gates_file,
        )

    with pytest.raises(ValueError, match=r"^gates_file 'fitting-v1' was fitted on fitting, which shares 1 companies"):
        settings("fitting-v1").check_gates()
    with pytest.raises(ValueError, match=r"^unknown gates_file 'nothing-v1'"):
        settings("nothing-v1").check_gates()
    with pytest.raises(ValueError, match="gates_file"):
        settings("../elsewhere")
    settings("").check_gates()  # no frozen gates: fitted on the corpus's dev split, nothing to check
    with (corpus / "manifest.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["ticker", "cik", "company", "form", "filed", "path", "bytes", "sha256"])
        writer.writerow(["xyz", OTHERS[0], "Xyz Inc.", "10-K", "2024-01-01", "xyz/10k.htm", "1", "0" * 64])
    settings("fitting-v1").check_gates()
    (corpus / "manifest.csv").write_text("path,filed,bytes,sha256\nxyz/10k.htm,2024-01-01,1," + "0" * 64 + "\n")
    with pytest.raises(ValueError, match="must name every filing's cik"):
        settings("fitting-v1").check_gates()


def test_a_file_that_is_not_a_gates_file_is_refused_in_one_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match="not a frozen gates file"):
        read_gates(path)
    path.write_text("{")
    with pytest.raises(ValueError, match="cannot be read as JSON"):
        read_gates(path)
