"""Record and replay of model calls, so a run with a paid or slow model can be repeated offline, bit for bit.

A tape is a directory with one JSON file per call, named by its key: sha256 of the canonical JSON of
{model, parameters, messages}. One file per call makes each write atomic and independent (parallel Dagster
processes cannot lose each other's entries), keeps the tape independent of call order, and lets a committed
tape diff call by call. Files hold no timestamps and are written with sorted keys, so recording the same
calls again, in any order, leaves the same bytes.

Modes: "off" calls through and keeps nothing; "record" calls through and (over)writes the entry; "replay"
answers only from the tape, with the original call's latency, and raises TapeMiss on a miss, never falling
back to the network; "fill" replays what the tape has and records what it lacks (resuming a broken recording).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from edgar_eval.adapters.files import replace_file

TAPE_MODES = ("off", "record", "replay", "fill")
TAPE_FORMAT = 1


class TapeError(RuntimeError):
    kind = "tape"


class TapeMiss(TapeError):
    """Replay asked for a call the tape does not hold: the prompt, model or parameters changed, or it was never
    recorded."""

    kind = "tape_miss"

    def __init__(self, key: str, question: str | None, directory: Path | None) -> None:
        where = f"in {directory}" if directory is not None else "(no tape directory)"
        super().__init__(
            f"no taped reply for key {key} {where} (question {question!r}); a changed prompt, model or "
            f"parameter changes the key. Record it with tape mode 'record' or 'fill'."
        )
        self.key = key
        self.question = question


class TapeCorrupt(TapeError):
    kind = "tape_corrupt"


def canonical_json(value: object) -> bytes:
    """One byte string per JSON value: sorted keys, no whitespace, UTF-8, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def tape_key(model: str, parameters: dict, messages: object) -> str:
    return hashlib.sha256(canonical_json({"model": model, "parameters": parameters, "messages": messages})).hexdigest()


@dataclass(frozen=True)
class TapeResult:
    response: dict
    latency_seconds: float
    replayed: bool
    key: str | None  # None when the tape is off


class Tape:
    """A directory of recorded calls; see the module docstring for the modes."""

    def __init__(self, directory: str | Path | None, mode: str = "off") -> None:
        if mode not in TAPE_MODES:
            raise ValueError(f"unknown tape mode {mode!r}; choose one of {', '.join(TAPE_MODES)}")
        if mode != "off" and directory is None:
            raise ValueError(f"tape mode {mode!r} needs a tape directory")
        self.mode = mode
        self.directory = Path(directory) if directory is not None else None

    @classmethod
    def off(cls) -> Tape:
        return cls(None, "off")

    def __repr__(self) -> str:
        return f"Tape({str(self.directory) if self.directory else None!r}, mode={self.mode!r})"

    def path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / f"{key}.json"

    def keys(self) -> list[str]:
        if self.directory is None or not self.directory.is_dir():
            return []
        return sorted(p.stem for p in self.directory.glob("*.json"))

    def call(
        self,
        model: str,
        parameters: dict,
        messages: object,
        fetch: Callable[[], tuple[dict, float]],
        *,
        question: str | None = None,
    ) -> TapeResult:
        """The response to (model, parameters, messages): from the tape or from `fetch`, which returns the
        response as a JSON object and the call's latency in seconds."""
        if self.mode == "off":
            response, latency = fetch()
            return TapeResult(response, latency, False, None)
        key = tape_key(model, parameters, messages)
        if self.mode in ("replay", "fill"):
            entry = self._load(key)
            if entry is not None:
                return TapeResult(entry["response"], entry["latency_seconds"], True, key)
            if self.mode == "replay":
                raise TapeMiss(key, question, self.directory)
        response, latency = fetch()
        latency = round(float(latency), 6)  # as stored, so a recording run and its replay report the same latency
        self._store(key, model, parameters, messages, question, response, latency)
        return TapeResult(response, latency, False, key)

    def _store(
        self,
        key: str,
        model: str,
        parameters: dict,
        messages: object,
        question: str | None,
        response: dict,
        latency: float,
    ) -> None:
        if not isinstance(response, dict):
            raise TypeError(f"a taped response must be a JSON object, not {type(response).__name__}")
        if not math.isfinite(latency) or latency < 0:
            raise ValueError(f"latency must be a finite, non-negative number of seconds, not {latency}")
        entry = {
            "format": TAPE_FORMAT,
            "key": key,
            "question": question,
            "request": {"model": model, "parameters": parameters, "messages": messages},
            "response": response,
            "latency_seconds": latency,
        }
        data = json.dumps(entry, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
        replace_file(self.path(key), data.encode("utf-8"))

    def _load(self, key: str) -> dict | None:
        path = self.path(key)
        try:
            entry = json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except ValueError as exc:
            raise TapeCorrupt(f"tape entry {path} is not JSON: {exc}") from exc
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("request"), dict)
            or not isinstance(entry.get("response"), dict)
        ):
            raise TapeCorrupt(f"tape entry {path} lacks a 'request' or 'response' object")
        request = entry["request"]
        stored_key = tape_key(request.get("model"), request.get("parameters"), request.get("messages"))
        if stored_key != key or entry.get("key") != key:  # a hand-edited or misnamed entry must not answer
            raise TapeCorrupt(f"tape entry {path} holds a request whose key is {stored_key}, not {key}")
        latency = entry.get("latency_seconds")
        if (
            isinstance(latency, bool)
            or not isinstance(latency, (int, float))
            or not math.isfinite(latency)
            or latency < 0
        ):
            raise TapeCorrupt(f"tape entry {path} has no valid 'latency_seconds'")
        entry["latency_seconds"] = float(latency)
        return entry
