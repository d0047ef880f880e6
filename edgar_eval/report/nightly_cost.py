"""What a nightly cold run over many filings costs, on paper, from one measured cold run: each corpus step's seconds
per megabyte of filing and the evaluation run's wall time, scaled (bench/nightly_cost.py measures them and writes
reports/nightly_cost.json; `edgar-eval readme` prints this estimate in docs/deployment.md, and a test fails on
drift)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

START = "<!-- nightly-cost:start (edgar-eval readme writes this block from reports/nightly_cost.json) -->"
END = "<!-- nightly-cost:end -->"
PAGE = "docs/deployment.md"  # the page, relative to the project home, whose block `edgar-eval readme` rewrites


@dataclass(frozen=True)
class Measured:
    """One cold run over a corpus, as the run history recorded it."""

    corpus: str
    machine: str
    filings: int
    megabytes: float
    corpus_step_seconds: dict[str, float]  # summed over the filing runs
    run_overhead_seconds: float  # the filing runs' wall time beyond their steps, summed
    evaluation_seconds: float  # the evaluation run's wall time

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measured:
        return cls(**data)


@dataclass(frozen=True)
class Estimate:
    filings: int
    megabytes_per_filing: float
    corpus_worker_hours: float
    evaluation_hours: float
    workers: int | None  # workers like the measured machine that bring the night under the deadline; None: none do
    workers_once_partitioned: int  # the same, were the evaluation spread over workers as the corpus is


def workers_within_hour(corpus_seconds: float, evaluation_seconds: float) -> int | None:
    """Workers that fit the corpus work into the hour the one-run evaluation leaves; None when it leaves none."""
    left = 3600.0 - evaluation_seconds
    return math.ceil(corpus_seconds / left) if left > 0 else None


def estimate(measured: Measured, filings: int = 10_000, megabytes_per_filing: float | None = None) -> Estimate:
    """Corpus work divides among workers (each filing is a run of its own); the evaluation is one unpartitioned run,
    so it grows with the number of filings on one worker (its per-question search does not: scoped to one company)."""
    mb = megabytes_per_filing if megabytes_per_filing is not None else measured.megabytes / measured.filings
    corpus_seconds = (
        sum(measured.corpus_step_seconds.values()) * filings * mb / measured.megabytes
        + measured.run_overhead_seconds * filings / measured.filings
    )
    evaluation_seconds = measured.evaluation_seconds * filings / measured.filings
    return Estimate(
        filings=filings,
        megabytes_per_filing=mb,
        corpus_worker_hours=corpus_seconds / 3600,
        evaluation_hours=evaluation_seconds / 3600,
        workers=workers_within_hour(corpus_seconds, evaluation_seconds),
        workers_once_partitioned=math.ceil((corpus_seconds + evaluation_seconds) / 3600.0),
    )


def estimate_lines(measured: Measured, night: Estimate) -> list[str]:
    """The measurement and the estimate, as docs/deployment.md and the bench print them."""
    lines = [
        f"Measured: a cold `edgar-eval run` over the {measured.corpus} corpus ({measured.filings} filings, "
        f"{measured.megabytes:.1f} MB) on {measured.machine}.",
        "",
        "| corpus step | measured s | s per MB |",
        "|---|---|---|",
    ]
    for step, seconds in sorted(measured.corpus_step_seconds.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"| {step} | {seconds:.1f} | {seconds / measured.megabytes:.2f} |")
    overhead = measured.run_overhead_seconds
    lines += [
        f"| (run overhead) | {overhead:.1f} | {overhead / measured.filings:.2f} s a filing |",
        f"| evaluation run (wall) | {measured.evaluation_seconds:.1f} | one run for all {measured.filings} filings |",
        "",
        f"A nightly cold run over {night.filings:,} filings of {night.megabytes_per_filing:.2f} MB: corpus "
        f"{night.corpus_worker_hours:.1f} worker-hours (parse, chunk, embed), divided among workers; evaluation "
        f"{night.evaluation_hours:.1f} hours on one worker, every step grown alike (the corpus search scope grows "
        "faster: the night on paper below holds it as measured on its own).",
    ]
    if night.workers is None:
        lines.append(
            "No number of workers brings it under an hour: the evaluation alone takes at least "
            f"{night.evaluation_hours:.1f} h until it is partitioned (by company) to spread over workers. Spread as "
            f"the corpus is, the whole night would need at least {night.workers_once_partitioned} workers like the "
            "measured machine (its worker-hours in one hour; not yet possible)."
        )
    else:
        lines.append(f"Under an hour with {night.workers} workers like the measured machine.")
    return lines


def readme_block(measured: Measured) -> str:
    return "\n".join([START, "", *estimate_lines(measured, estimate(measured)), "", END])
