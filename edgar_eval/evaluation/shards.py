"""The evaluation's shards: which shard each golden question is measured in, and the order that puts the shards' rows
back into the one table an unsharded run writes.

A company shard is a group of companies (`COMPANY_SHARDS` of them, fixed): a question belongs to the shard of the
company it asks about (its `cik`), by a hash of that CIK, so a company's questions stay together whatever else the
corpus holds and a company added to the corpus moves no other company's questions. A company shard measures its
questions in the scopes of a company (company_year, company), over the filings of the companies they search (a
two-document question's other company among them: its filings are an input of the shard), and nothing else: BM25 in
those scopes reads those companies' chunks alone (retrieval/searches.py), so a shard's inputs change only when its
companies' filings, its questions, its code or a setting do. The corpus scope, which searches every filing by
definition, is a shard of its own (`CORPUS_SHARD`), measured on its seeded sample whenever any filing changes.

Each sharded table carries `ORDER_COLUMN`: the row's place in the corpus-wide table, as a key made from the row's
own cut, scope and question (the golden set's order is its questions' (cik, kind, question_id), GOLDEN_ORDER), so
that the shards read back together give the rows, in order, that one run over every question writes (the statistics
then come out the same), and a shard's keys do not move when another shard's questions do."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence, Set

import numpy as np
import pandas as pd

from edgar_eval.retrieval.scope import CORPUS, SEARCH_SCOPES

COMPANY_SHARDS: tuple[str, ...] = tuple(f"{shard:02d}" for shard in range(16))
CORPUS_SHARD = "corpus"
SHARD_KEYS: tuple[str, ...] = (*COMPANY_SHARDS, CORPUS_SHARD)
ORDER_COLUMN = "corpus_order"
# The golden builder's order of its questions (golden/templates.py sorts by these columns); checked, never assumed.
GOLDEN_ORDER = ("cik", "kind", "question_id")
_SEPARATOR = "\x01"  # below every character of a key's parts, so the joined keys sort as their parts do


def shard_of(cik: str) -> str:
    """The company shard of a company's questions: a stable hash of its CIK (leading zeros ignored), not Python's
    hash(), which changes with every process."""
    digest = hashlib.sha256(str(cik).lstrip("0").encode()).digest()
    return COMPANY_SHARDS[int.from_bytes(digest[:8], "big") % len(COMPANY_SHARDS)]


def _checked(shard: str) -> str:
    if shard not in SHARD_KEYS:
        raise ValueError(
            f"{shard!r} is not a shard ({len(COMPANY_SHARDS)} company shards, {COMPANY_SHARDS[0]} to "
            f"{COMPANY_SHARDS[-1]}, and {CORPUS_SHARD!r})"
        )
    return shard


def shard_questions(golden: pd.DataFrame, shard: str, only: Set[str] | None = None) -> pd.DataFrame:
    """The golden questions a shard measures, in the golden set's order: a company shard's companies' questions; the
    corpus shard draws from every question (its scope's sample is drawn from all of them). `only`: of these question
    ids alone (a shard made again for the questions whose inputs changed)."""
    if _checked(shard) == CORPUS_SHARD:
        mask = np.ones(len(golden), dtype=bool)
    else:
        mask = (golden.cik.astype(str).map(shard_of) == shard).to_numpy()
    if only is not None:
        mask = mask & golden.question_id.astype(str).isin(sorted(only)).to_numpy()
    return golden if mask.all() else golden.loc[mask]


def shard_scopes(shard: str, scopes: Sequence[str]) -> tuple[str, ...]:
    """The search scopes of `scopes` a shard measures, in SEARCH_SCOPES order: the corpus shard the corpus scope, a
    company shard every other."""
    in_corpus = _checked(shard) == CORPUS_SHARD
    return tuple(scope for scope in SEARCH_SCOPES if scope in scopes and (scope == CORPUS) == in_corpus)


def _key_parts(*parts: object) -> str:
    return _SEPARATOR.join(map(str, parts))


def question_order(golden: pd.DataFrame, question_ids: pd.Series) -> np.ndarray:
    """Each row's place in the corpus-wide table of a step that goes question by question in the golden set's order:
    its question's key, made from the question's own row (GOLDEN_ORDER's columns). The keys sort as the golden set's
    rows do, which is checked (a golden set in another order raises ValueError)."""
    keys = pd.Series(
        [_key_parts(*row) for row in zip(*(golden[column].astype(str) for column in GOLDEN_ORDER))],
        index=golden.question_id.to_numpy(),
        dtype=object,
    )
    if not keys.is_monotonic_increasing or not keys.is_unique:
        raise ValueError(f"the golden questions are not in the golden set's order ({', '.join(GOLDEN_ORDER)})")
    return keys.loc[question_ids.to_numpy()].to_numpy()


def case_order(
    golden: pd.DataFrame, question_ids: pd.Series, search_scopes: pd.Series, cut: int | np.ndarray = 0
) -> np.ndarray:
    """Each row's place in the corpus-wide table of a step that goes cut by cut (`cut`: each row's cut's position
    in the settings, 0 for a step without cuts), scope by scope in SEARCH_SCOPES order, and question by question in
    the golden set's order; rows of one question in one scope keep the order the step wrote them in (the sort is
    stable, and a question's rows of one scope are in one shard)."""
    scope = pd.Series(range(len(SEARCH_SCOPES)), index=list(SEARCH_SCOPES)).loc[search_scopes.to_numpy()].to_numpy()
    cuts = np.broadcast_to(np.asarray(cut, dtype="int64"), len(question_ids))
    questions = question_order(golden, question_ids)
    return np.asarray([_key_parts(f"{c:06d}", s, q) for c, s, q in zip(cuts, scope, questions)], dtype=object)


def in_corpus_order(shards: pd.DataFrame) -> pd.DataFrame:
    """The shards' rows, read together, as one table in corpus-wide order (`ORDER_COLUMN`, which is dropped)."""
    if ORDER_COLUMN not in shards.columns:  # no shard has a row: there is nothing to order
        return shards.reset_index(drop=True)
    ordered = shards.sort_values(ORDER_COLUMN, kind="stable")
    return ordered.drop(columns=[ORDER_COLUMN]).reset_index(drop=True)
