"""The tape on its own: modes, keys, atomic deterministic files, misses and tampered entries.
(Recording and replaying real HTTP generators is in test_chat_generator.py.)"""

from __future__ import annotations

import json

import pytest

from edgar_eval.adapters.tape import Tape, TapeCorrupt, TapeMiss, tape_key

MODEL = "qwen2.5-7b-instruct"
PARAMETERS = {"temperature": 0, "max_tokens": 256}


def messages(question: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "Answer from the passages."}, {"role": "user", "content": question}]


class Fetcher:
    """Counts calls; answers deterministically from the question, with a fixed latency per question."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, question: str):
        def fetch():
            self.calls += 1
            return {"content": f"answer to {question}", "finish_reason": "stop"}, 0.1 + len(question) / 1000

        return fetch


def record(tape: Tape, fetcher: Fetcher, question: str):
    return tape.call(MODEL, PARAMETERS, messages(question), fetcher(question), question=question)


def snapshot(directory) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_key_is_canonical():
    key = tape_key(MODEL, {"temperature": 0, "max_tokens": 256}, messages("q"))
    assert key == tape_key(
        MODEL, {"max_tokens": 256, "temperature": 0}, [dict(reversed(m.items())) for m in messages("q")]
    )
    assert key != tape_key(MODEL, {"temperature": 0, "max_tokens": 257}, messages("q"))
    assert key != tape_key("other", PARAMETERS, messages("q")) and len(key) == 64


def test_off_calls_through_and_keeps_nothing(tmp_path):
    fetcher = Fetcher()
    result = record(Tape.off(), fetcher, "q1")
    assert result.key is None and not result.replayed and fetcher.calls == 1
    result = record(Tape(tmp_path, "off"), fetcher, "q1")
    assert fetcher.calls == 2 and list(tmp_path.iterdir()) == []


def test_record_then_replay(tmp_path):
    fetcher = Fetcher()
    recorded = record(Tape(tmp_path, "record"), fetcher, "What was revenue?")
    assert not recorded.replayed and recorded.latency_seconds == pytest.approx(0.117)
    assert [p.name for p in tmp_path.iterdir()] == [f"{recorded.key}.json"]
    replayed = record(Tape(tmp_path, "replay"), fetcher, "What was revenue?")
    assert fetcher.calls == 1  # no call through
    assert replayed.replayed and replayed.response == recorded.response and replayed.key == recorded.key
    assert replayed.latency_seconds == recorded.latency_seconds  # the original call's, not the replay's
    entry = json.loads((tmp_path / f"{recorded.key}.json").read_text())
    assert entry["question"] == "What was revenue?" and entry["request"]["model"] == MODEL


def test_recording_twice_does_not_duplicate(tmp_path):
    tape, fetcher = Tape(tmp_path, "record"), Fetcher()
    record(tape, fetcher, "q1")
    before = snapshot(tmp_path)
    record(tape, fetcher, "q1")
    assert fetcher.calls == 2 and snapshot(tmp_path) == before  # "record" calls again, and rewrites one entry
    assert len(tape.keys()) == 1


def test_same_calls_in_another_order_leave_identical_bytes(tmp_path):
    questions = [f"question {i}" for i in range(6)]
    record_a, record_b = tmp_path / "a", tmp_path / "b"
    for directory, order in ((record_a, questions), (record_b, questions[::-1])):
        tape, fetcher = Tape(directory, "record"), Fetcher()
        for question in order:
            record(tape, fetcher, question)
    assert snapshot(record_a) == snapshot(record_b) and len(snapshot(record_a)) == 6
    text = next(iter(snapshot(record_a).values())).decode()
    assert text.endswith("}\n") and text.index('"format"') < text.index('"key"') < text.index('"request"')
    assert not list(record_a.glob(".*"))  # no temporary files left behind


def test_replay_miss_is_loud(tmp_path):
    record(Tape(tmp_path, "record"), Fetcher(), "recorded question")
    fetcher = Fetcher()
    with pytest.raises(TapeMiss, match=r"no taped reply for key [0-9a-f]{64} in .*'a new question'") as caught:
        record(Tape(tmp_path, "replay"), fetcher, "a new question")
    assert caught.value.key == tape_key(MODEL, PARAMETERS, messages("a new question"))
    assert caught.value.question == "a new question" and fetcher.calls == 0
    with pytest.raises(TapeMiss):
        record(Tape(tmp_path / "never-recorded", "replay"), fetcher, "recorded question")


def test_fill_replays_hits_and_records_misses(tmp_path):
    record(Tape(tmp_path, "record"), Fetcher(), "q1")
    tape, fetcher = Tape(tmp_path, "fill"), Fetcher()
    assert record(tape, fetcher, "q1").replayed and fetcher.calls == 0
    assert not record(tape, fetcher, "q2").replayed and fetcher.calls == 1
    assert record(tape, fetcher, "q2").replayed and fetcher.calls == 1 and len(tape.keys()) == 2


def test_tampered_entries_are_refused(tmp_path):
    key = record(Tape(tmp_path, "record"), Fetcher(), "q1").key
    path = tmp_path / f"{key}.json"
    entry = json.loads(path.read_text())
    entry["request"]["messages"][1]["content"] = "q2"
    path.write_text(json.dumps(entry))
    with pytest.raises(TapeCorrupt, match="holds a request whose key"):
        record(Tape(tmp_path, "replay"), Fetcher(), "q1")
    path.write_text('{"key": ')
    with pytest.raises(TapeCorrupt, match="not JSON"):
        record(Tape(tmp_path, "replay"), Fetcher(), "q1")


def test_bad_configuration(tmp_path):
    with pytest.raises(ValueError, match="unknown tape mode 'replayy'"):
        Tape("tapes", "replayy")
    with pytest.raises(ValueError, match="needs a tape directory"):
        Tape(None, "replay")
    with pytest.raises(ValueError, match="latency"):
        Tape(tmp_path, "record").call(MODEL, PARAMETERS, [], lambda: ({}, float("nan")))
    assert list(tmp_path.iterdir()) == []
