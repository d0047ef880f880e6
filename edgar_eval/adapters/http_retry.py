"""Bounded retries and request spacing for every HTTP client of the project (EDGAR, the model and RAG endpoints,
the reranker, the embeddings service): how many attempts, how long between them, when a server's Retry-After wins,
and how request starts are spaced to a rate. Kept small and tested here rather than taken from tenacity or stamina:
a server's Retry-After (seconds or an HTTP date) overrides the backoff up to a cap, the sleeps and the clock are
injected so tests run in no time, and the loops that use them (`edgar_client`, `json_endpoint`) decide per status
what is retried and what is raised at once."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Callable


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries for 429, 5xx and transport failures; Retry-After wins over backoff, up to a cap."""

    attempts: int = 5
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    max_retry_after_s: float = 60.0

    def backoff(self, attempt: int) -> float:
        return min(self.backoff_s * 2 ** (attempt - 1), self.max_backoff_s)


class RateLimiter:
    """Spaces request starts evenly, so bursts never exceed the rate in any window."""

    def __init__(
        self,
        per_second: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not 0 < per_second:
            raise ValueError(f"requests per second must be positive, not {per_second}")
        self.interval = 1.0 / per_second
        self._clock = clock
        self._sleep = sleep
        self._next_start: float | None = None
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            now = self._clock()
            if self._next_start is not None and now < self._next_start:
                self._sleep(self._next_start - now)
                now = max(self._clock(), self._next_start)
            self._next_start = now + self.interval


def retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
