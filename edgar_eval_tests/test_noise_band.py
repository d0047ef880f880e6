"""The noise band on tables built here: which filings a replica leaves out, how its figures are paired with the
measurement's, and when a difference is beyond the band."""

import pandas as pd
import pytest

from edgar_eval.evaluation.noise_band import beyond_band, noise_band, perturbed_index, replica_deltas


def _index() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "chunk_id": [f"c{i}" for i in range(12)],
            "cik": ["A", "A", "B", "B", "C", "C", "D", "D", "E", "E", "F", "F"],
            "filing_id": [f"f{i // 2}" for i in range(12)],
        }
    )


def test_a_replica_leaves_seeded_companies_out_and_stores_the_rest_in_a_seeded_order():
    rows, left_out = perturbed_index(_index(), seed=3, companies_left_out=2)
    assert len(left_out) == 1 and not set(rows.cik) & set(left_out), "at most a quarter of six companies"
    assert sorted(rows.chunk_id) == sorted(_index()[~_index().cik.isin(left_out)].chunk_id)
    twelve = pd.concat([_index(), _index().assign(cik=lambda t: t.cik + "2")])
    assert len(perturbed_index(twelve, 3, 2)[1]) == 2
    again, same = perturbed_index(_index(), seed=3, companies_left_out=2)
    assert same == left_out and again.chunk_id.tolist() == rows.chunk_id.tolist(), "seeded: the same replica again"
    orders = {tuple(perturbed_index(_index(), seed, 1)[0].chunk_id) for seed in range(5)}
    assert len(orders) > 1, "another seed, another index"
    rows, left_out = perturbed_index(_index().head(2), seed=3, companies_left_out=2)
    assert left_out == [] and len(rows) == 2, "the only company stays"


def _runs(hits: dict[str, bool], **fields) -> list[dict]:
    base = {"search_scope": "corpus", "retriever": "bm25", "k": 30}
    return [{**base, **fields, "question_id": q, "page_hit": hit} for q, hit in hits.items()]


def test_a_replica_is_compared_with_the_measurement_on_the_questions_it_searched():
    measured = pd.DataFrame(_runs({"q1": True, "q2": True, "q3": False, "q4": True}))
    replicas = pd.DataFrame(
        _runs({"q1": True, "q2": False, "q3": False}, replica=0)  # q4's company was left out of replica 0
        + _runs({"q1": True, "q2": True, "q3": True, "q4": True}, replica=1)
    )
    deltas = replica_deltas(replicas, measured).set_index("replica")
    assert deltas.loc[0, "questions"] == 3 and deltas.loc[0, "measured_page_hits"] == 2
    assert deltas.loc[0, "delta_points"] == pytest.approx(-100 / 3)
    assert deltas.loc[1, "delta_points"] == pytest.approx(25.0)
    band = noise_band(deltas.reset_index()).iloc[0]
    assert (band.replicas, band.questions) == (2, 3)
    assert band.band_low == pytest.approx(-100 / 3) and band.band_high == pytest.approx(25.0)


def test_a_band_no_replica_moved_is_zero_wide_and_empty_deltas_make_no_band():
    measured = pd.DataFrame(_runs({"q1": True, "q2": False}))
    deltas = replica_deltas(pd.DataFrame(_runs({"q1": True, "q2": False}, replica=0)), measured)
    band = noise_band(deltas).iloc[0]
    assert (band.band_low, band.band_high) == (0.0, 0.0)
    assert noise_band(pd.DataFrame()).empty


def test_a_difference_counts_only_beyond_the_widest_swing_of_the_figures_it_compares():
    assert beyond_band(3.0, [(-1.0, 2.0), (-0.5, 0.5)])
    assert not beyond_band(-2.0, [(-1.0, 2.0), (-0.5, 0.5)]), "inside: a replica moved a figure by 2 points"
    assert beyond_band(0.1, []), "no band measured: any difference stands"
