"""The evaluation's shards: which shard each golden question is measured in, and the order that puts the shards' rows
back into the one table an unsharded run writes.

A shard is a group of companies (`SHARDS` of them, fixed): a question belongs to the shard of the company it asks
about (its `cik`), by a hash of that CIK, so a company's questions stay together whatever else the corpus holds and a
company added to the corpus moves no other company's questions. A question whose scope also searches another
company's filings (the two-document kinds) is measured in its own company's shard: every shard reads the corpus-wide
search index, so it can search any filing.

Each sharded table carries `ORDER_COLUMN`: the row's place in the corpus-wide table, so that the shards read back
together give the rows, in order, that one run over every question writes (the statistics then come out the same)."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from edgar_eval.retrieval.scope import SEARCH_SCOPES

SHARDS = 16
SHARD_KEYS: tuple[str, ...] = tuple(f"{shard:02d}" for shard in range(SHARDS))
ORDER_COLUMN = "corpus_order"


def shard_of(cik: str) -> str:
    """The shard of a company's questions: a stable hash of its CIK (leading zeros ignored), not Python's hash(),
    which changes with every process."""
    digest = hashlib.sha256(str(cik).lstrip("0").encode()).digest()
    return SHARD_KEYS[int.from_bytes(digest[:8], "big") % SHARDS]


def shard_questions(golden: pd.DataFrame, shard: str) -> pd.DataFrame:
    """The golden questions of one shard, in the golden set's order."""
    if shard not in SHARD_KEYS:
        raise ValueError(f"{shard!r} is not a shard (there are {SHARDS}: {SHARD_KEYS[0]} to {SHARD_KEYS[-1]})")
    mask = golden.cik.astype(str).map(shard_of) == shard
    return golden.loc[mask.to_numpy()]


def question_order(order: pd.Series, question_ids: pd.Series) -> np.ndarray:
    """Each row's place in the corpus-wide table of a step that goes question by question in `order` (the golden
    set's question ids, or every question id sorted)."""
    position = pd.Series(range(len(order)), index=order.to_numpy())
    return position.loc[question_ids.to_numpy()].to_numpy().astype("int64")


def case_order(
    golden: pd.DataFrame, question_ids: pd.Series, search_scopes: pd.Series, cut: int | np.ndarray = 0
) -> np.ndarray:
    """Each row's place in the corpus-wide table of a step that goes cut by cut (`cut`: each row's cut's position
    in the settings, 0 for a step without cuts), scope by scope in SEARCH_SCOPES order, and question by question in
    the golden set's order; rows of one question in one scope keep the order the step wrote them in (the sort is
    stable)."""
    scope = pd.Series(range(len(SEARCH_SCOPES)), index=list(SEARCH_SCOPES))
    questions = len(golden)
    return (
        np.asarray(cut, dtype="int64") * len(SEARCH_SCOPES) * questions
        + scope.loc[search_scopes.to_numpy()].to_numpy() * questions
        + question_order(golden.question_id, question_ids)
    ).astype("int64")


def in_corpus_order(shards: pd.DataFrame) -> pd.DataFrame:
    """The shards' rows, read together, as one table in corpus-wide order (`ORDER_COLUMN`, which is dropped)."""
    if ORDER_COLUMN not in shards.columns:  # no shard has a row: there is nothing to order
        return shards.reset_index(drop=True)
    ordered = shards.sort_values(ORDER_COLUMN, kind="stable")
    return ordered.drop(columns=[ORDER_COLUMN]).reset_index(drop=True)
