"""Progress while a model service works: the chat and external RAG generators (adapters/chat_generator.py) and the
OpenAI-compatible embedder (`follow_embedder`) each say, while they wait on their service, how far they are.

A line goes out every `every` units done or every `interval_s` seconds, whichever comes first, never closer together
than `least_gap_s` (a replay from a tape answers a question in a millisecond: it prints nothing), each with the units
done, the calls that failed, the seconds each took, and, where the total is known, about how long is left. A single
call that takes longer than `interval_s` gets a line of its own every `interval_s` seconds (a watch thread), the
first of them naming the setting that bounds the wait (EDGAR_EVAL_GENERATOR_TIMEOUT and _ATTEMPTS for the
generators) and when the call is given up; the first line of a step names it whatever its kind.

The lines go to Dagster's logger (`dagster.get_dagster_logger`): inside a step they are events of the run, which
`edgar-eval run` reads back and prints (defs/runner.py StepFollower), under every executor; outside one, Python's
logging. Counts start again with each step (a generator is cached per process and serves several steps).
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

# What begins each line, so that the CLI tells progress from a step's other log lines.
MARKER = "progress: "
# The settings that bound a generator's wait (read in defs/settings.py, where their names live too).
GENERATOR_TIMEOUT_SETTING = "EDGAR_EVAL_GENERATOR_TIMEOUT"
GENERATOR_ATTEMPTS_SETTING = "EDGAR_EVAL_GENERATOR_ATTEMPTS"
EVERY = 10  # units done between two lines (when they come slower than `interval_s`, the time decides)
INTERVAL_S = 30.0
LEAST_GAP_S = 5.0
# "12 questions done, 1 failed, 3.2 s each": what a line says of the work so far, read back by the CLI to estimate
# what is left where only it knows the total (`counts_in`)
_COUNTS = re.compile(
    r"(?P<done>\d+) (?P<unit>[a-z]+) done(?: of \d+)?, (?P<failed>\d+) failed, (?P<each>[\d.]+) s each"
)

Log = Callable[[str], None]


def dagster_log(message: str) -> None:
    """Log `message` at INFO through Dagster's logger: captured as an event of the step that runs."""
    import dagster as dg

    dg.get_dagster_logger("progress").info(message)


def duration(seconds: float) -> str:
    """'45 s', '3 min', '1 h 05 min': how long, to the precision a wait needs."""
    if seconds < 90:
        return f"{max(0, round(seconds))} s"
    if seconds < 3600:
        return f"{round(seconds / 60)} min"
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{hours} h {minutes:02d} min"


@dataclass(frozen=True)
class Limits:
    """How long one call may wait and how often it is tried, and what sets them (None: nothing a user can set)."""

    timeout_s: float
    attempts: int
    backoff_s: tuple[float, ...] = ()  # the sleeps between attempts
    timeout_setting: str | None = None
    attempts_setting: str | None = None

    def given_up_after(self) -> float:
        """At most this long before a service that never answers is given up (each attempt its whole timeout)."""
        return self.timeout_s * self.attempts + sum(self.backoff_s[: self.attempts - 1])

    def said(self) -> str:
        timeout = f"{self.timeout_s:g} s" + (f" ({self.timeout_setting})" if self.timeout_setting else "")
        attempts = f"{self.attempts} times" + (f" ({self.attempts_setting})" if self.attempts_setting else "")
        fixed = "" if self.timeout_setting or self.attempts_setting else ", neither a setting"
        return (
            f"a call may wait {timeout} and is tried up to {attempts}{fixed}: a service that does not answer is "
            f"given up after about {duration(self.given_up_after())}"
        )


def generator_limits(timeout: Any, retry: Any) -> Limits:
    """The limits of a generator's calls: its httpx timeout (the read timeout bounds a wait for the answer) and its
    retry policy, each named by the setting that sets it."""
    seconds = getattr(timeout, "read", timeout)
    return Limits(
        float(seconds if seconds is not None else 0.0),
        retry.attempts,
        tuple(retry.backoff(attempt) for attempt in range(1, retry.attempts)),
        GENERATOR_TIMEOUT_SETTING,
        GENERATOR_ATTEMPTS_SETTING,
    )


def _current_step() -> object:
    """Which step runs now (its run and op), or None outside one: the counts start again with each step."""
    try:
        import dagster as dg

        context = dg.OpExecutionContext.get()
    except Exception:  # noqa: BLE001 - outside a step (a test, a script), or Dagster absent: one long step
        return None
    return (context.run_id, str(context.op_handle))


class ServiceProgress:
    """The progress of one service's calls in a step (`call`), said as lines through `log`."""

    def __init__(
        self,
        service: str,
        unit: str,
        limits: Limits,
        *,
        every: int = EVERY,
        interval_s: float = INTERVAL_S,
        least_gap_s: float = LEAST_GAP_S,
        log: Log | None = None,
        clock: Callable[[], float] = time.monotonic,
        step: Callable[[], object] = _current_step,
    ) -> None:
        self.service, self.unit, self.limits = service, unit, limits
        self.every, self.interval_s, self.least_gap_s = every, interval_s, least_gap_s
        self.log, self._clock, self._step = log or dagster_log, clock, step
        self._lock = threading.Lock()
        self._watch: threading.Thread | None = None
        self._watch_pid: int | None = None
        self._stop = threading.Event()
        self._reset(object())

    def _reset(self, step: object) -> None:
        self._in_step = step
        self.done = self.failed = 0
        self.total: int | None = None  # the units this step's work holds, where known (`expect`)
        self._started: float | None = None  # the step's first call
        self._last_line: float | None = None
        self._since_line = 0  # units done since the last line
        self._waiting_since: float | None = None  # the call under way
        self._waiting_units = 0
        self._named_limits = self._named_in_wait = False

    def expect(self, total: int) -> None:
        """The step's work holds `total` units from here on (an embedder's texts): lines then say what is left."""
        with self._lock:
            self._enter_step()
            self.total = self.done + self.failed + total

    @contextlib.contextmanager
    def call(self, units: int = 1) -> Iterator[None]:
        """One call for `units` units of work: counted done when it returns, failed when it raises."""
        with self._lock:
            self._enter_step()
            now = self._clock()
            if self._started is None:
                self._started = now
            self._waiting_since, self._waiting_units = now, units
        self._watching()
        ok = False
        try:
            yield
            ok = True
        finally:
            with self._lock:
                self._waiting_since = None
                if ok:
                    self.done += units
                else:
                    self.failed += units
                self._since_line += units
                line = self._line_due(self._clock())
            if line:
                self._say(line)

    def _enter_step(self) -> None:
        step = self._step()
        if step != self._in_step:
            self._reset(step)

    def _line_due(self, now: float) -> str | None:
        """The progress line, when one is due (under the lock)."""
        since = now - (self._last_line if self._last_line is not None else self._started or now)
        if since < self.least_gap_s or (self._since_line < self.every and since < self.interval_s):
            return None
        self._last_line, self._since_line = now, 0
        return self._said(self._progress(now))

    def _progress(self, now: float) -> str:
        finished = self.done + self.failed
        each = (now - (self._started or now)) / finished if finished else 0.0
        line = f"{self.service}: {self.done} {self.unit} done"
        if self.total is not None:
            line += f" of {self.total}"
        line += f", {self.failed} failed, {each:.1f} s each"
        if self.total is not None and finished:
            line += f", about {duration(max(0, self.total - finished) * each)} left"
        return line

    def _said(self, line: str, wait: bool = False) -> str:
        """The line, with the limits on a call the first time in a step, and on the step's first wait."""
        if not self._named_limits or (wait and not self._named_in_wait):
            self._named_limits, self._named_in_wait = True, self._named_in_wait or wait
            line += f" ({self.limits.said()})"
        return MARKER + line

    def _say(self, line: str) -> None:
        try:
            self.log(line)
        except Exception:  # noqa: BLE001 - a progress line is never worth a call
            pass

    def _waited(self, now: float) -> str | None:
        """The line for a call under way longer than `interval_s` since it began or since the last line."""
        if self._waiting_since is None:
            return None
        waited = now - self._waiting_since
        last = self._last_line if self._last_line is not None else self._waiting_since
        if waited < self.interval_s or now - last < self.interval_s:
            return None
        self._last_line = now
        first = self.done + self.failed + 1
        which = f"{self.unit} {first}-{first + self._waiting_units - 1}" if self._waiting_units > 1 else None
        which = which or f"{self.unit.removesuffix('s')} {first}"
        return self._said(
            f"{self.service}: still waiting after {duration(waited)} on {which}, with {self.done} done and "
            f"{self.failed} failed",
            wait=True,
        )

    def _watching(self) -> None:
        """Start the watch thread in this process (a process forked from one that had it has none)."""
        if self._watch is not None and self._watch_pid == os.getpid() and self._watch.is_alive():
            return
        self._watch_pid = os.getpid()
        self._watch = threading.Thread(target=self._watch_loop, name=f"progress-{self.unit}", daemon=True)
        self._watch.start()

    def _watch_loop(self) -> None:
        while not self._stop.wait(min(1.0, self.interval_s / 4)):
            with self._lock:
                line = self._waited(self._clock())
            if line:
                self._say(line)

    def close(self) -> None:
        self._stop.set()


_SHARED: dict[tuple[str, str], ServiceProgress] = {}
_SHARED_LOCK = threading.Lock()


def shared_progress(service: str, unit: str, limits: Limits) -> ServiceProgress:
    """This process's one `ServiceProgress` of a service: two generators of one model (the answers, and the
    determinism sample's second asking, taped apart) count their questions together, in one series of lines."""
    with _SHARED_LOCK:
        return _SHARED.setdefault((service, unit), ServiceProgress(service, unit, limits))


def counts_in(message: str) -> tuple[int, int, float] | None:
    """The units done, the calls failed and the seconds each took, as a progress line says them; None for a line that
    says none (a wait)."""
    found = _COUNTS.search(message)
    return (int(found["done"]), int(found["failed"]), float(found["each"])) if found else None


# The embedder's class is left as written: it is part of the code version of every stored corpus's embeddings, and
# how a call's progress is said is not part of what the asset computes. Its instance is followed instead, where the
# embedder resource is set up for a step (defs/settings.py EmbedderResource.setup_for_execution).
def follow_embedder(embedder: Any, **options: Any) -> ServiceProgress | None:
    """Say the progress of an OpenAI-compatible embedder's requests (`ServiceProgress`): each `embed` call's texts are
    the work expected, each batch a call. Once per instance; anything but that embedder is left alone (None)."""
    from edgar_eval.adapters.openai_embeddings import DEFAULT_TIMEOUT, OpenAICompatibleEmbedder

    if not isinstance(embedder, OpenAICompatibleEmbedder):
        return None
    already = embedder.__dict__.get("_progress")
    if isinstance(already, ServiceProgress):
        return already
    # the embedder's own retry policy and read timeout (neither a setting): what bounds a request's wait
    endpoint = embedder._endpoint
    timeout = endpoint._http.timeout.read
    retry = endpoint.retry
    limits = Limits(
        float(timeout if timeout is not None else DEFAULT_TIMEOUT.read or 0.0),
        retry.attempts,
        tuple(retry.backoff(a) for a in range(1, retry.attempts)),
    )
    progress = ServiceProgress(
        f"embeddings {embedder.model!r} at {embedder._public_endpoint()}", "texts", limits, **options
    )
    embed, embed_batch = embedder.embed, embedder._embed_batch

    def followed_embed(texts):
        if not isinstance(texts, str):
            progress.expect(len(texts))
        return embed(texts)

    def followed_batch(batch, offset):
        with progress.call(len(batch)):
            return embed_batch(batch, offset)

    # instance attributes, over the class's methods of those names: this instance only
    vars(embedder).update(embed=followed_embed, _embed_batch=followed_batch, _progress=progress)
    return progress
