"""The scale measurement's arithmetic (edgar_eval.report.scale) on runs built here with known growth, and the
committed measurement against docs/deployment.md."""

import json
from pathlib import Path

import pytest

from edgar_eval.report import scale
from edgar_eval.report.nightly_cost import Measured

REPO = Path(__file__).resolve().parents[1]
REAL = Measured(
    corpus="real",
    machine="test",
    filings=10,
    megabytes=20.0,
    corpus_step_seconds={"chunk_embeddings": 100.0},  # 5 s a megabyte
    run_overhead_seconds=0.0,
    evaluation_seconds=50.0,
)


def _runs(exponent: float, sizes=(31, 101, 301), two_workers_wall: float | None = None) -> list[scale.ScaleRun]:
    runs = [
        scale.ScaleRun(
            size=n,
            filings=n,
            workers=1,
            wall_seconds=3.0 * n,
            stage_seconds={"corpus: chunks": 1.0 * n, "evaluation: report": 0.2 * n**exponent},
            warm_seconds=2.0,
            one_changed_seconds=0.2 * n**exponent + 1.0,
        )
        for n in sizes
    ]
    if two_workers_wall is not None:
        largest = max(sizes)
        runs.append(
            scale.ScaleRun(largest, largest, 2, two_workers_wall, {"corpus: chunks": 1.1 * largest}, None, None)
        )
    return runs


def test_a_power_of_the_filings_is_recovered():
    fit = scale.power_fit([(30, 3.0 * 30**1.5), (100, 3.0 * 100**1.5), (300, 3.0 * 300**1.5)])
    assert fit == pytest.approx((3.0, 1.5))
    assert scale.power_fit([(30, 1.0)]) is None, "one size: nothing to fit"
    fitted = scale.fits(_runs(1.0), 1)
    assert fitted["evaluation: report"][1] == pytest.approx(1.0) and fitted["wall"][0] == pytest.approx(3.0)
    assert fitted[scale.EVALUATION] == pytest.approx((0.2, 1.0)) and fitted[scale.CORPUS] == pytest.approx((1.0, 1.0))
    assert scale.fits(_runs(1.0), 2) == {}, "no run on two workers"


def test_the_night_scales_real_megabytes_and_the_evaluation_by_its_fitted_exponent():
    night = scale.night(_runs(2.0, two_workers_wall=301 * 2.0), REAL, filings=1_000)
    assert night is not None
    assert night.corpus_worker_seconds == pytest.approx(10_000.0), "1,000 filings of 2 MB at 5 s a megabyte"
    assert night.evaluation_exponent == pytest.approx(2.0)
    assert night.evaluation_seconds == pytest.approx(50.0 * 100**2), "the real 50 s for 10 filings, grown as n^2"
    assert night.incremental_seconds == pytest.approx(100.0 + 500_000.0), "1% of the corpus work, all the evaluation"
    assert night.full_workers is None, "an evaluation over an hour: no number of workers"
    assert night.speedup == pytest.approx(1.5)
    linear = scale.night(_runs(1.0), REAL, filings=1_000)
    assert linear is not None and linear.evaluation_seconds == pytest.approx(5_000.0)
    assert linear.full_workers is None and linear.speedup is None
    flat = scale.night(_runs(0.5), REAL, filings=1_000)
    assert flat is not None and flat.fitted_exponent == pytest.approx(0.5)
    assert flat.evaluation_exponent == 1.0 and flat.evaluation_seconds == pytest.approx(5_000.0), "never below linear"
    quick_real = Measured(**{**REAL.__dict__, "evaluation_seconds": 5.0})
    quick = scale.night(_runs(1.0), quick_real, filings=1_000)
    assert quick is not None and quick.full_workers == 4, "10,000 s of corpus work in the 3,100 s the evaluation leaves"
    assert scale.night(_runs(1.0, sizes=(31,)), REAL) is None, "one size on one worker: no night"


def test_each_target_reads_met_or_names_the_gap():
    cheap = Measured(  # 0.5 s a megabyte, and an evaluation of 0.05 s for 10 filings
        **{**REAL.__dict__, "corpus_step_seconds": {"chunk_embeddings": 10.0}, "evaluation_seconds": 0.05}
    )
    lines = "\n".join(scale.scale_lines(_runs(0.2, two_workers_wall=301 * 2.0), cheap))
    assert "fitted 0.20 on the synthetic runs" in lines and "grows as filings ^ 1.00" in lines
    assert "| incremental night, 1% changed, one worker: under 15 min |" in lines
    incremental = next(line for line in lines.splitlines() if line.startswith("| incremental night"))
    assert incremental.endswith("| met |"), incremental
    slow = "\n".join(scale.scale_lines(_runs(2.0), REAL))
    gap = next(line for line in slow.splitlines() if line.startswith("| incremental night"))
    assert "not met (" in gap and "against 15.0 min" in gap
    assert "| full re-run under an hour | no number of workers" in slow
    warm = next(line for line in slow.splitlines() if line.startswith("| warm re-run"))
    assert warm.endswith("| met |"), "2 s, under 5"


def test_the_incremental_night_names_the_corpus_work_no_evaluation_design_removes():
    """1% of 10,000 filings of 2 MB at 5 s a megabyte is 1,000 s of corpus work: over 15 minutes on one worker
    whatever the evaluation does; two workers at the ideal split, and what the measured speedup of two leaves. At 0.5 s
    a megabyte it is 100 s, within the target."""
    real = Measured(**{**REAL.__dict__, "corpus_step_seconds": {"chunk_embeddings": 75.0, "chunks": 25.0}})
    floor = scale.scale_lines(_runs(1.0, two_workers_wall=301 * 2.0), real)[-1]
    assert "1% of it, 16.7 min of one worker (embedding is 75% of the corpus steps' time on the real corpus)" in floor
    assert floor.endswith(
        "above the 15.0 min target by itself. One worker cannot meet it with this corpus pipeline; split ideally, 2 "
        "workers would; two workers measured 1.50 times as fast as one, which leaves 11.1 min."
    ), floor
    unmeasured = scale.scale_lines(_runs(1.0), real)[-1]
    assert unmeasured.endswith("split ideally, 2 workers would."), unmeasured
    cheap = Measured(**{**REAL.__dict__, "corpus_step_seconds": {"chunk_embeddings": 10.0}})
    within = scale.scale_lines(_runs(1.0), cheap)[-1]
    assert (
        "1% of it, 100.0 s of one worker (embedding is 100% of the corpus steps' time on the real corpus), within "
        "the 15.0 min target" in within
    ), within


def test_the_committed_measurement_is_what_the_deployment_page_prints():
    measured = REPO / "reports" / "scale.json"
    if not measured.is_file():
        pytest.fail("no reports/scale.json: run bench/scale.py --out reports/scale.json, then edgar-eval readme")
    runs = [scale.ScaleRun.from_json(m) for m in json.loads(measured.read_text())]
    real = Measured.from_json(json.loads((REPO / "reports" / "nightly_cost.json").read_text()))
    page = (REPO / "docs" / "deployment.md").read_text()
    block = page[page.index(scale.START) : page.index(scale.END) + len(scale.END)]
    assert block == scale.readme_block(runs, real), "rerun: edgar-eval readme"
