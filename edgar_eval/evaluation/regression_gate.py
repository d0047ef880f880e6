"""The CI regression gate: replay the dev split, judge each case right or wrong under each arm, and compare with a
committed baseline. Unit tests accept changes that make the system worse; this fails on them.

A group is one arm and one route: the answerable questions, or the unanswerable ones (other year, other company,
absent concept together; a kind alone holds too few dev cases, 3 to 12 on the demo, for a net change of 3 to mean
anything). A group fails when its cases that went from right to wrong outnumber those that went from wrong to right
by NET_WORSENING_LIMIT or more.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.golden.templates import ANSWERABLE_KINDS

NET_WORSENING_LIMIT = 3
BASELINE_COLUMNS = ["question_id", "arm", "kind", "correct"]


@dataclass(frozen=True)
class GateResult:
    groups: pd.DataFrame  # arm, group, cases, worsened, improved, net_worsening, failed
    new_cases: int  # judged now, absent from the baseline: reported, not counted
    missing_cases: int  # in the baseline, not judged now: the dev split changed

    @property
    def passed(self) -> bool:
        return not self.groups.failed.any() and self.missing_cases == 0

    def summary(self) -> str:
        failed = cast(pd.DataFrame, self.groups[self.groups.failed])
        if self.missing_cases:
            return (
                f"{self.missing_cases} baseline cases were not judged: the golden set or its split changed; "
                "rebuild the baseline with `edgar-eval baseline` if that was intended"
            )
        if len(failed):
            return "; ".join(
                f"arm {r.arm} {r.group}: {r.worsened} worse, {r.improved} better (net {r.net_worsening})"
                for r in iter_rows(failed)
            )
        return f"no group worsened by {NET_WORSENING_LIMIT} or more cases ({int(self.groups.cases.sum())} judged)"


def dev_cases(outcomes: pd.DataFrame, split: pd.DataFrame) -> pd.DataFrame:
    """The dev split's cases under every arm, in a stable order."""
    dev = set(split[split.split == "dev"].question_id)
    cases = cast(pd.DataFrame, outcomes[outcomes.question_id.isin(dev)][BASELINE_COLUMNS])
    return cases.sort_values(["arm", "question_id"]).reset_index(drop=True)


def baseline_json(cases: pd.DataFrame) -> str:
    """One case a line, in a stable order, so that a changed baseline reads as a short diff in review."""
    records = [
        json.dumps(
            {"question_id": r.question_id, "arm": r.arm, "kind": r.kind, "correct": bool(r.correct)}, sort_keys=True
        )
        for r in iter_rows(cases)
    ]
    return "[\n" + ",\n".join(records) + "\n]\n"


def read_baseline(text: str) -> pd.DataFrame:
    frame = pd.DataFrame(json.loads(text))
    missing = set(BASELINE_COLUMNS) - set(frame.columns)
    if missing:
        raise ValueError(f"baseline is missing {sorted(missing)}")
    return cast(pd.DataFrame, frame[BASELINE_COLUMNS])


def route_group(kinds: pd.Series) -> pd.Series:
    """A case's group: "answerable" for the kinds expected to be answered (one document or two), "unanswerable" for
    every other kind."""
    return kinds.where(kinds.isin(ANSWERABLE_KINDS), "unanswerable")


def compare_to_baseline(current: pd.DataFrame, baseline: pd.DataFrame, limit: int = NET_WORSENING_LIMIT) -> GateResult:
    merged = current.merge(baseline, on=["question_id", "arm"], how="outer", suffixes=("", "_baseline"), indicator=True)
    both = merged[merged._merge == "both"].copy()
    both["kind"] = both.kind.fillna(both.kind_baseline)
    both["group"] = route_group(both.kind)
    both["worsened"] = both.correct_baseline.astype(bool) & ~both.correct.astype(bool)
    both["improved"] = ~both.correct_baseline.astype(bool) & both.correct.astype(bool)
    groups = (
        both.groupby(["arm", "group"], sort=True)
        .agg(cases=("question_id", "size"), worsened=("worsened", "sum"), improved=("improved", "sum"))
        .reset_index()
    )
    groups["net_worsening"] = groups.worsened - groups.improved
    groups["failed"] = groups.net_worsening >= limit
    return GateResult(groups, int((merged._merge == "left_only").sum()), int((merged._merge == "right_only").sum()))
