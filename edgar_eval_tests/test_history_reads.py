"""The launch decision reads the run history in few queries, whatever its size: each partition's latest materialisation
that this corpus's runs made is found by a walk per asset over every partition at once, records read once are not
read again, and one dict of runs serves every phase of an `edgar-eval run`."""

import dagster as dg
import pytest

from edgar_eval.defs import freshness
from edgar_eval.defs.run_tags import CORPUS_TAG

PARTITIONS = dg.StaticPartitionsDefinition(["a", "b", "c", "d", "e"])


@dg.asset(partitions_def=PARTITIONS)
def table() -> None:
    """A filing partition's table, as far as the run history is concerned."""


@dg.asset
def summary() -> None:
    """An unpartitioned evaluation asset."""


def _made(instance: dg.DagsterInstance, corpus: str, partition: str | None = None) -> str:
    assets = [summary] if partition is None else [table]
    result = dg.materialize(assets, instance=instance, partition_key=partition, tags={CORPUS_TAG: corpus})
    return result.run_id


@pytest.fixture
def history():
    """Partitions a-d made by corpus `ours`; e made by ours, theirs, ours again and theirs (the newer of ours is the
    one to find, not the older); then `theirs` made a twice, b four times, d once; c is ours alone. The unpartitioned
    asset: ours, then theirs three times."""
    with dg.instance_for_test() as instance:
        ours = {partition: _made(instance, "ours", partition) for partition in "abcd"}
        for corpus in ("ours", "theirs", "ours", "theirs"):
            made = _made(instance, corpus, "e")
            if corpus == "ours":
                ours["e"] = made
        for partition, times in (("a", 2), ("b", 4), ("d", 1)):
            for _ in range(times):
                _made(instance, "theirs", partition)
        ours_summary = _made(instance, "ours")
        for _ in range(3):
            _made(instance, "theirs")
        yield instance, ours, ours_summary


class _Counted:
    """The instance, with its materialisation reads counted."""

    def __init__(self, instance: dg.DagsterInstance) -> None:
        self._instance, self.fetches = instance, 0

    def fetch_materializations(self, *args, **kwargs):
        self.fetches += 1
        return self._instance.fetch_materializations(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._instance, name)


@pytest.mark.parametrize("page", [1000, 2])
def test_each_partitions_latest_materialisation_of_this_corpus_is_found_in_one_walk_per_asset(
    history, monkeypatch, page
):
    instance, ours, _ = history
    monkeypatch.setattr(freshness, "_WALK_PAGE", page)
    counted = _Counted(instance)
    latest = freshness._latest_by_partition(counted, [table.key], "abcde")  # type: ignore[arg-type]
    assert counted.fetches == 1  # every partition's latest record at once
    runs: dict[str, dg.DagsterRun] = {}
    found = freshness._this_corpus_by_partition(counted, latest, "ours", runs)  # type: ignore[arg-type]
    assert {partition: by_key[table.key].run_id for partition, by_key in found.items()} == ours  # type: ignore[union-attr]
    # another corpus's latest in a, b, d and e: one walk over the four, not one per partition. It reads, newest first,
    # the materialisations of a, b, d and e older than d's latest: b 4, a 2, then e's 3 (ours found at the second),
    # ours of d, b and a (12 records read): one page, or 6 pages of 2
    walked = counted.fetches - 1
    assert walked == (1 if page == 1000 else 6), walked
    assert set(ours.values()) <= set(runs)  # the runs read on the way are kept for whatever asks next
    # as the corpus `theirs` sees it: its own latest where it made one, none in c
    theirs = freshness._this_corpus_by_partition(instance, latest, "theirs", {})
    assert theirs["c"][table.key] is None
    assert {p: theirs[p][table.key] for p in "abde"} == {p: latest[p][table.key] for p in "abde"}


def test_records_read_once_are_not_fetched_again(history):
    instance, _, _ = history
    counted, known = _Counted(instance), {}
    first = freshness._latest_by_partition(counted, [table.key], "abcde", known)  # type: ignore[arg-type]
    assert counted.fetches == 1 and len(known) == 5
    again = freshness._latest_by_partition(counted, [table.key], "abcde", known)  # type: ignore[arg-type]
    assert counted.fetches == 1 and again == first
    _made(instance, "ours", "c")  # a partition made since: only its new record is read
    after = freshness._latest_by_partition(counted, [table.key], "abcde", known)  # type: ignore[arg-type]
    assert counted.fetches == 2 and after["c"][table.key] != first["c"][table.key]


def test_an_unpartitioned_assets_walk_back_past_another_corpus(history, monkeypatch):
    instance, _, ours_summary = history
    monkeypatch.setattr(freshness, "_WALK_PAGE", 2)
    latest = freshness._latest(instance, [summary.key])
    found = freshness._this_corpus(instance, latest, "ours", {})
    assert found[summary.key] is not None and found[summary.key].run_id == ours_summary  # type: ignore[union-attr]
    assert freshness._this_corpus(instance, latest, "theirs", {}) == latest
