"""A table's data version is its content: what the report prints moves it, a float's last bits do not."""

import pandas as pd

from edgar_eval.domain.versioning import content_version


def _table(auroc: float) -> pd.DataFrame:
    return pd.DataFrame({"gate": ["cosine", "relevance"], "auroc": [auroc, 0.9987], "n": [40, 46]})


def test_last_bit_noise_keeps_the_version_and_a_printed_change_moves_it():
    base = 0.70712345678912
    assert content_version(_table(base)) == content_version(_table(base + 3e-13))  # another BLAS kernel
    assert content_version(_table(base)) != content_version(_table(base + 1e-4))  # a figure the report prints
    assert content_version(_table(base)) != content_version(_table(base + 2e-9))


def test_build_stamps_are_not_content():
    table = _table(0.5)
    assert content_version(table) == content_version(table.assign(build_key="code:abc"))
    assert content_version(table) != content_version(table.assign(extra=1))
