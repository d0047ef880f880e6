"""The comparison report of two runs (`edgar-eval compare`): what differs between their receipts, how their
questions pair, and every shared figure, paired (evaluation.run_comparison)."""

from __future__ import annotations

import math

import pandas as pd

from edgar_eval.evaluation.run_comparison import Pairing, Run
from edgar_eval.report.markdown import md_cell, render_table


def _points(share: float) -> str:
    return "n/a" if math.isnan(share) else f"{100 * share:+.1f}"


def _p_value(p: float) -> str:
    return "n/a" if math.isnan(p) else "< 0.001" if p < 0.001 else f"{p:.3f}"


def _verdict(row) -> str:
    """What the difference is evidence of, in words a reader can act on."""
    if row.first_hits == row.second_hits and row.first_only == 0 and row.second_only == 0:
        return "no question moved"
    measured = row.beyond_noise_band is not None and not pd.isna(row.beyond_noise_band)  # a bool column reads numpy's
    if measured and not row.beyond_noise_band:
        return "inside the noise band"
    excludes_zero = not math.isnan(row.low) and (row.low > 0 or row.high < 0)
    reading = "interval excludes 0" if excludes_zero else "interval includes 0"
    return reading + ("; beyond the noise band" if measured else "; no noise band measured")


def comparison_markdown(
    first: Run,
    second: Run,
    differences: list[tuple[str, str, str]],
    paired: Pairing,
    golden_note: str | None,
    figures: pd.DataFrame,
) -> str:
    stats = first.outcomes.get("statistics", {})
    confidence = float(stats.get("confidence", 0.95))
    a, b = md_cell(first.name), md_cell(second.name)
    lines = [
        f"# Comparison: {a} against {b}",
        "",
        f"First run: `{a}`. Second run: `{b}`. Every difference below is the second run's figure minus the first's, "
        "on the questions both runs set with the same gold.",
        "",
        "## What differs between the receipts",
        "",
    ]
    if differences:
        lines += [render_table(pd.DataFrame(differences, columns=["receipt entry", "first run", "second run"])), ""]
    else:
        lines += ["Nothing: the two receipts are the same.", ""]
    lines += ["## Questions", ""]
    if golden_note:
        lines += [f"The {md_cell(golden_note)}. Compared as allowed (--allow-golden-change).", ""]
    lines += [
        f"{paired.shared} questions in both runs; {paired.only_first} only in {a}, {paired.only_second} only in {b}; "
        f"{paired.gold_changed} shared questions whose gold changed (route, kind, figure or company_year gold pages). "
        "A changed route, kind or figure leaves a question out of every pair; a page hit pairs only where that scope's "
        "gold pages are the same in both runs. False answers are compared per unanswerable kind, never pooled.",
        "",
        "## Figures, paired",
        "",
        f"Interval: the company-cluster bootstrap of the paired difference at {100 * confidence:.0f}% "
        f"({md_cell(stats.get('interval_method', 'percentile'))}, the first run's protocol level and the method its "
        "coverage check chose). McNemar: exact, on the questions only one run got right; it assumes independent "
        "questions, so it is printed beside the interval, not instead of it. Minimum detectable effect: from the "
        "observed discordance at the protocol's level and power; a difference smaller than it was not detectable "
        "here, whichever way it points. Noise band: a difference no larger than the swing either run's index "
        "replicas made is what a live index changes on its own; measured for page hits and for arm A's answer "
        "accuracy (the gated arms' thresholds are fitted on the measured run and are not replicated; arm A's "
        "false-answer band pools the unanswerable kinds, so no per-kind row has one).",
        "",
    ]
    if figures.empty:
        lines += ["No figure was measured by both runs.", ""]
        return "\n".join(lines).rstrip() + "\n"
    table = pd.DataFrame(
        {
            "figure": figures.figure,
            "measure": figures.measure,
            "questions": figures.questions,
            "first run": [f"{100 * h / n:.1f}%" for h, n in zip(figures.first_hits, figures.questions)],
            "second run": [f"{100 * h / n:.1f}%" for h, n in zip(figures.second_hits, figures.questions)],
            "difference, points": list(map(_points, figures.difference)),
            "interval, points": [f"{_points(lo)} to {_points(hi)}" for lo, hi in zip(figures.low, figures.high)],
            "only first / only second": [f"{x} / {y}" for x, y in zip(figures.first_only, figures.second_only)],
            "McNemar p": [_p_value(p) for p in figures.mcnemar_p],
            "detectable, points": [
                "n/a" if math.isnan(m) else f"{100 * m:.1f}" for m in figures.minimum_detectable_effect
            ],
            "reading": [_verdict(row) for row in figures.itertuples(index=False)],
        }
    )
    lines += [render_table(table), ""]
    return "\n".join(lines).rstrip() + "\n"
