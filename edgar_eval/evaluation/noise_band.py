"""The noise band: how far a retrieval figure moves when only what a live index changes does.

A live index is never the one measured: other companies' filings come and go (BM25's statistics and the corpus scope's
distractors move with them) and rows are stored in another order (ties are broken another way). Each replica leaves a
few companies' filings out of the index (seeded; this corpus has no spare filings to add, so the band is measured by
removal only) and stores the rest in a seeded order, then searches every answerable question of the companies still in
it exactly as the measurement does (of a seeded sample of the questions once there are more than the setting
noise_questions, so the band's cost stops growing with them). Its figure is compared with the measurement's on the same
questions, so the band holds the index's effect alone, not the change of question set: a difference between two runs
inside the band is not evidence that either is better.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence
from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_groups
from edgar_eval.evaluation.question_sample import seeded_sample
from edgar_eval.retrieval.scope import CORPUS

# A replica changes which other companies are indexed and the order rows are stored in. Within one company's filings
# (the company and company_year scopes) a dense ranking reads only the query and each chunk's vector, so leaving other
# companies out cannot change it; only an exact tie, broken by row order, could. BM25 reads the whole index (document
# frequencies, mean length), and hybrid fuses BM25, so both can move in every scope; every retriever can in the corpus
# scope, whose distractors are the other companies.
RETRIEVERS_READING_THE_WHOLE_INDEX = frozenset({"bm25", "hybrid"})
WHOLE_INDEX_SCOPES = frozenset({CORPUS})


def band_can_move(scope: str, retriever: str) -> bool:
    """Whether a replica of the index can change this scope's ranking by this retriever beyond breaking exact ties."""
    return scope in WHOLE_INDEX_SCOPES or retriever in RETRIEVERS_READING_THE_WHOLE_INDEX


BAND_COLUMNS = ["search_scope", "retriever", "k", "replicas", "questions", "band_low", "band_high"]


def _swing(deltas: pd.Series, name: str) -> dict[str, float]:
    """The lowest and highest difference any replica made, in points, as `<name>_low` and `<name>_high`: 0 when none
    moved that way, so the band always holds the measurement itself."""
    return {f"{name}_low": min(float(deltas.min()), 0.0), f"{name}_high": max(float(deltas.max()), 0.0)}


def noise_sample(questions: pd.DataFrame, size: int, seed: int) -> pd.DataFrame:
    """The golden questions the noise band measures: all of them while there are at most `size`, else a seeded sample
    of `size` (question_sample.seeded_sample). The band is a difference on the same questions, so a sample estimates it
    as the whole set would, and its cost (every replica searches every question again) stops growing with the
    questions: at 10,000 filings the whole set would be some 200,000. A question added or dropped leaves the rest of
    the sample, so the band moves with the index, not with a reshuffled sample."""
    return seeded_sample(questions, size, seed)


def left_out_companies(companies: Iterable[str], seed: int, companies_left_out: int) -> list[str]:
    """The companies a replica leaves out of the index (seeded; at most a quarter of the companies, and at least one
    while two or more are indexed, so most questions are still measured). It reads the companies alone, so a filing
    changed leaves every replica's choice as it was."""
    indexed = sorted(set(companies))
    most = max(len(indexed) // 4, 1) if len(indexed) > 1 else 0
    return sorted(random.Random(seed).sample(indexed, min(companies_left_out, most)))


def perturbed_index(index_rows: pd.DataFrame, seed: int, left_out: Sequence[str]) -> pd.DataFrame:
    """The index without the companies `left_out` (left_out_companies draws them), its rows in a seeded order. The
    order sorts each chunk by a seeded hash of its id, so any company's rows keep one order among themselves whatever
    the other companies hold: a filing changed moves the replica's rankings of its own company's questions only, and a
    replica's questions can be measured again one by one (defs/shards.py)."""
    kept = cast(pd.DataFrame, index_rows[~index_rows.cik.astype(str).isin(list(left_out))])
    keys = [hashlib.blake2b(f"{seed}\x1f{chunk}".encode(), digest_size=8).digest() for chunk in kept.chunk_id]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return kept.iloc[order].reset_index(drop=True)


def replica_deltas(replica_runs: pd.DataFrame, measured_runs: pd.DataFrame) -> pd.DataFrame:
    """Per replica, scope, retriever and depth: page hits in the replica and in the measurement over the same
    questions (those the replica searched), and the difference in points."""
    keys = ["question_id", "search_scope", "retriever", "k"]
    if replica_runs.empty:  # no replica measured anything (none, no question, a model generator)
        return pd.DataFrame(columns=RETRIEVAL_DELTA_COLUMNS)
    measured = cast(pd.DataFrame, measured_runs[keys + ["page_hit"]]).rename(columns={"page_hit": "measured_hit"})
    paired = replica_runs.merge(measured, on=keys, how="inner", validate="many_to_one")
    rows = []
    groups = paired.groupby(["replica", "search_scope", "retriever", "k"], sort=True)
    for (replica, scope, retriever, depth), group in iter_groups(groups):
        n = len(group)
        replica_hits, measured_hits = int(group.page_hit.sum()), int(group.measured_hit.sum())
        rows.append(
            {
                "replica": int(replica),
                "search_scope": scope,
                "retriever": retriever,
                "k": int(depth),
                "questions": n,
                "replica_page_hits": replica_hits,
                "measured_page_hits": measured_hits,
                "delta_points": 100.0 * (replica_hits - measured_hits) / n if n else 0.0,
            }
        )
    return pd.DataFrame(rows, columns=RETRIEVAL_DELTA_COLUMNS)


RETRIEVAL_DELTA_COLUMNS = [
    "replica",
    "search_scope",
    "retriever",
    "k",
    "questions",
    "replica_page_hits",
    "measured_page_hits",
    "delta_points",
]


def retrieval_deltas(replica_runs: pd.DataFrame, measured_runs: pd.DataFrame) -> pd.DataFrame:
    """replica_deltas of the replicas' runs (retrieval_noise: with each replica's left_out companies) against the
    measurement's runs that found something (retriever_rankings without an error), each replica's row naming the
    companies it left out."""
    if replica_runs.empty:  # no replica measured anything (none, no question, a model generator)
        return pd.DataFrame(columns=[*RETRIEVAL_DELTA_COLUMNS, "left_out"])
    measured = cast(pd.DataFrame, measured_runs[measured_runs.error.isna()])
    deltas = replica_deltas(replica_runs, measured)
    if len(deltas):
        left_out = replica_runs.drop_duplicates("replica").set_index("replica").left_out
        deltas["left_out"] = deltas.replica.map(lambda replica: list(left_out[replica]))
    return deltas


def noise_band(deltas: pd.DataFrame) -> pd.DataFrame:
    """Per scope, retriever and depth: the lowest and highest difference any replica made, in points (0 when none
    moved), over how many replicas and (the fewest) questions."""
    rows = []
    if deltas.empty:
        return pd.DataFrame(rows, columns=BAND_COLUMNS)
    for (scope, retriever, depth), group in iter_groups(deltas.groupby(["search_scope", "retriever", "k"], sort=True)):
        rows.append(
            {
                "search_scope": scope,
                "retriever": retriever,
                "k": int(depth),
                "replicas": int(group.replica.nunique()),
                "questions": int(group.questions.min()),
                **_swing(group.delta_points, "band"),
            }
        )
    return pd.DataFrame(rows, columns=BAND_COLUMNS)


def beyond_band(change_points: float, bands: Iterable[tuple[float, float]]) -> bool:
    """Whether a difference between two figures is larger than the noise of either: beyond the widest swing any
    replica made of the figures it compares."""
    widest = max((max(abs(low), abs(high)) for low, high in bands), default=0.0)
    return abs(change_points) > widest


# The answering figures the band covers: arm A's (no gate), whose outcome is the generator's own on what it read, so a
# replica can recompute it; the gated arms' thresholds are fitted on the measured run and are not replicated.
ANSWER_FIGURES = {
    # figure: (the questions it is measured on, the per-question 0/1 column)
    "answer_accuracy": ("answer", "correct"),
    "false_answer_rate": ("no_answer", "false_answer"),
}
ANSWER_BAND_COLUMNS = ["figure", "arm", "replicas", "questions", "band_low", "band_high"]


def answer_deltas(replica_runs: pd.DataFrame, measured_arm: pd.DataFrame) -> pd.DataFrame:
    """Per replica and answering figure: the rate in the replica (`replica_runs`: replica, question_id,
    expected_route, correct, false_answer) and in the measurement (`measured_arm`: the measured arm's outcomes) over
    the same questions, and the difference in points. An expected route other than answer counts as unanswerable."""
    if replica_runs.empty:  # no replica measured anything (none, no question, a model generator)
        return pd.DataFrame(columns=ANSWER_DELTA_COLUMNS)
    measured = cast(pd.DataFrame, measured_arm[["question_id", "correct", "false_answer"]]).rename(
        columns={"correct": "measured_correct", "false_answer": "measured_false_answer"}
    )
    paired = replica_runs.merge(measured, on="question_id", how="inner", validate="many_to_one")
    rows = []
    for (replica,), group in iter_groups(paired.groupby(["replica"], sort=True)):
        answerable = group.expected_route == "answer"
        for figure, (route, column) in ANSWER_FIGURES.items():
            chosen = cast(pd.DataFrame, group[answerable if route == "answer" else ~answerable])
            n = len(chosen)
            replica_hits = int(chosen[column].to_numpy(bool).sum())
            measured_hits = int(chosen[f"measured_{column}"].to_numpy(bool).sum())
            rows.append(
                {
                    "replica": int(replica),
                    "figure": figure,
                    "questions": n,
                    "replica_hits": replica_hits,
                    "measured_hits": measured_hits,
                    "delta_points": 100.0 * (replica_hits - measured_hits) / n if n else 0.0,
                }
            )
    return pd.DataFrame(rows, columns=ANSWER_DELTA_COLUMNS)


ANSWER_DELTA_COLUMNS = ["replica", "figure", "questions", "replica_hits", "measured_hits", "delta_points"]


def answer_band(deltas: pd.DataFrame, arm: str = "A") -> pd.DataFrame:
    """Per answering figure: the lowest and highest difference any replica made, in points (0 when none moved)."""
    rows = []
    for figure, group in iter_groups(deltas.groupby("figure", sort=False)) if len(deltas) else []:
        rows.append(
            {
                "figure": figure,
                "arm": arm,
                "replicas": int(group.replica.nunique()),
                "questions": int(group.questions.min()),
                **_swing(group.delta_points, "band"),
            }
        )
    return pd.DataFrame(rows, columns=ANSWER_BAND_COLUMNS)


RERANK_KEYS = ["search_scope", "candidates", "kept"]
RERANK_BAND_COLUMNS = [*RERANK_KEYS, "replicas", "questions", "before_low", "before_high", "after_low", "after_high"]


def rerank_deltas(replica_rows: pd.DataFrame, measured_rows: pd.DataFrame) -> pd.DataFrame:
    """Per replica, scope and cut: page hits among the kept passages before the reranker (the retriever's first ones)
    and after it, in the replica and in the measurement over the same questions, and each difference in points.
    `replica_rows`: reranked_retrievals' rows of each replica (with a replica column); `measured_rows`: the measured
    reranked_retrievals."""
    keys = ["question_id", *RERANK_KEYS]
    if replica_rows.empty:  # no replica measured anything
        return pd.DataFrame(columns=RERANK_DELTA_COLUMNS)
    measured = cast(pd.DataFrame, measured_rows[[*keys, "page_hit_before", "page_hit_after"]]).rename(
        columns={"page_hit_before": "measured_before", "page_hit_after": "measured_after"}
    )
    paired = replica_rows.merge(measured, on=keys, how="inner", validate="many_to_one")
    rows = []
    for (replica, scope, candidates, kept), group in iter_groups(paired.groupby(["replica", *RERANK_KEYS], sort=True)):
        n = len(group)
        row = {"replica": int(replica), "search_scope": scope, "candidates": int(candidates), "kept": int(kept)}
        for when in ("before", "after"):
            replica_hits = int(group[f"page_hit_{when}"].to_numpy(bool).sum())
            measured_hits = int(group[f"measured_{when}"].to_numpy(bool).sum())
            row[f"delta_{when}_points"] = 100.0 * (replica_hits - measured_hits) / n if n else 0.0
        rows.append({**row, "questions": n})
    return pd.DataFrame(rows, columns=RERANK_DELTA_COLUMNS)


RERANK_DELTA_COLUMNS = ["replica", *RERANK_KEYS, "delta_before_points", "delta_after_points", "questions"]


def rerank_band(deltas: pd.DataFrame) -> pd.DataFrame:
    """Per scope and cut: the widest swing any replica made of the page hit before the reranker and after it."""
    rows = []
    if deltas.empty:
        return pd.DataFrame(rows, columns=RERANK_BAND_COLUMNS)
    for (scope, candidates, kept), group in iter_groups(deltas.groupby(RERANK_KEYS, sort=True)):
        rows.append(
            {
                "search_scope": scope,
                "candidates": int(candidates),
                "kept": int(kept),
                "replicas": int(group.replica.nunique()),
                "questions": int(group.questions.min()),
                **_swing(group.delta_before_points, "before"),
                **_swing(group.delta_after_points, "after"),
            }
        )
    return pd.DataFrame(rows, columns=RERANK_BAND_COLUMNS)
