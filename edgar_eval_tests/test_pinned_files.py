"""A pinned file (a frozen golden or pattern set) is written once: of two writers of one name exactly one wins, with
complete bytes, and the other is told; the same bytes again are no change."""

from __future__ import annotations

import threading

import pytest

from edgar_eval.adapters.files import PinnedElsewhere, create_file


def test_a_pin_is_created_once_and_never_replaced(tmp_path):
    target = tmp_path / "golden" / "v1.jsonl"
    assert create_file(target, b"first\n") is True
    assert create_file(target, b"first\n") is False  # the same freeze again: nothing to do
    with pytest.raises(PinnedElsewhere, match="pinned with other content"):
        create_file(target, b"second\n")
    assert target.read_bytes() == b"first\n"
    assert [p.name for p in target.parent.iterdir()] == ["v1.jsonl"]  # no temporary file left behind


def test_of_many_concurrent_writers_one_wins_whole(tmp_path):
    target = tmp_path / "v2.jsonl"
    contents = [f"writer {i}\n".encode() * 50_000 for i in range(8)]
    outcomes: list[object] = [None] * len(contents)
    barrier = threading.Barrier(len(contents))

    def write(i: int) -> None:
        barrier.wait()
        try:
            outcomes[i] = create_file(target, contents[i])
        except PinnedElsewhere as exc:
            outcomes[i] = exc

    threads = [threading.Thread(target=write, args=(i,)) for i in range(len(contents))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [i for i, outcome in enumerate(outcomes) if outcome is True]
    assert len(winners) == 1
    assert all(isinstance(outcome, PinnedElsewhere) for i, outcome in enumerate(outcomes) if i not in winners)
    assert target.read_bytes() == contents[winners[0]]
