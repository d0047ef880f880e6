"""A table's data version is its content: what the report prints moves it, a float's last bits do not."""

import pandas as pd

from edgar_eval.domain.versioning import content_version


def _table(auroc: float) -> pd.DataFrame:
    return pd.DataFrame({"gate": ["cosine", "relevance"], "auroc": [auroc, 0.9987], "n": [40, 46]})


def test_last_bit_noise_keeps_the_version_and_a_printed_change_moves_it():
    base = 0.70712345678912
    assert content_version(_table(base)) == content_version(_table(base + 3e-13))  # another BLAS kernel
    assert content_version(_table(base)) != content_version(_table(base + 1e-4))  # a figure the report prints
    assert content_version(_table(base)) == content_version(_table(base + 1e-9))  # an AVX-512 CPU instead of AVX2
    assert content_version(_table(base)) != content_version(_table(base + 2e-6))
    dollars = pd.DataFrame({"value": [391_035_000_000.0]})
    assert content_version(dollars) != content_version(dollars + 1.0)  # decimals, not significant digits


def test_build_stamps_are_not_content():
    table = _table(0.5)
    assert content_version(table) == content_version(table.assign(build_key="code:abc"))
    assert content_version(table) != content_version(table.assign(extra=1))


def test_how_long_a_call_took_is_not_content_but_what_it_returned_is():
    hits = pd.DataFrame({"question_id": ["q1", "q2"], "chunk_ids": [["c1"], ["c7"]]})
    one_run = hits.assign(embed_seconds=0.011, search_seconds=[0.002, 0.004])
    next_run = hits.assign(embed_seconds=0.019, search_seconds=[0.003, 0.001])
    assert content_version(one_run) == content_version(next_run)
    assert content_version(one_run) != content_version(one_run.assign(chunk_ids=[["c1"], ["c8"]]))
