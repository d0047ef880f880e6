"""The CLI's progress lines (defs/runner.py StepFollower) on a constructed run history: each step once, a read that
fails said once and never raised into the run, and a step the cursor passed by found on the last read."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import dagster as dg

from edgar_eval.defs.runner import StepFollower


def _record(step: str, ms: float) -> Any:
    event = SimpleNamespace(step_key=step, event_specific_data=SimpleNamespace(duration_ms=ms))
    return SimpleNamespace(event_log_entry=SimpleNamespace(dagster_event=event))


class _History:
    """STEP_SUCCESS records by storage id; `fail` reads raise first (the database busy or gone); the record at
    `hidden` becomes visible only after the first read, by when the cursor has passed its id."""

    def __init__(self, records: list, fail: int = 0, hidden: int | None = None) -> None:
        self.records, self.fail, self.hidden, self.reads = records, fail, hidden, 0

    def get_records_for_run(self, run_id, cursor=None, of_type=None, limit=100):
        if self.fail:
            self.fail -= 1
            raise RuntimeError("database is locked")
        self.reads += 1
        start = int(cursor or 0)
        ids = [k for k in range(len(self.records)) if k >= start and (k != self.hidden or self.reads > 1)][:limit]
        more = bool(ids) and ids[-1] + 1 < len(self.records) and len(ids) == limit
        return SimpleNamespace(
            records=[self.records[k] for k in ids], cursor=str(ids[-1] + 1 if ids else start), has_more=more
        )


def test_each_step_is_reported_once_and_a_failed_read_is_said_once_without_raising(capsys):
    shown: list[tuple[str, float | None]] = []
    history = _History([_record("golden", 1500.0), _record("report", 250.0)], fail=3)
    follower = StepFollower(cast(dg.DagsterInstance, history), "run-1", lambda step, s: shown.append((step, s)))
    for _ in range(4):
        follower._read()  # what the thread does every half second
    with follower:
        pass
    assert shown == [("golden", 1.5), ("report", 0.25)]
    assert capsys.readouterr().out.count("progress lines paused") == 1


def test_a_step_whose_row_became_visible_late_is_reported_on_the_last_read():
    shown: list[str] = []
    history = _History([_record("golden", 1.0), _record("late", 1.0), _record("report", 1.0)], hidden=1)
    follower = StepFollower(cast(dg.DagsterInstance, history), "run-2", lambda step, s: shown.append(step))
    follower._read()
    assert shown == ["golden", "report"]
    with follower:
        pass
    assert shown == ["golden", "report", "late"]
