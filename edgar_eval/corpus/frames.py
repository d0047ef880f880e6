"""Typed iteration over DataFrames: rows as `itertuples` yields them and groups as `groupby` yields them, typed so
that a row's columns read as attributes and a group's key unpacks (pandas types them as a plain tuple, a Hashable)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from pandas.api.typing import DataFrameGroupBy


def iter_rows(frame: pd.DataFrame, *, index: bool = True) -> Iterable[Any]:
    """`frame.itertuples(index=index)`, each row typed `Any`."""
    return frame.itertuples(index=index)


def iter_groups(grouped: DataFrameGroupBy) -> Iterator[tuple[Any, pd.DataFrame]]:
    """`iter(grouped)`: (key, group) pairs, the key typed `Any` (a tuple of values when grouped by a list)."""
    return iter(grouped)
