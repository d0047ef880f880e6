"""The headline figures across runs, one chart per figure with its 95% interval as a band, each run's point coloured
by the system it measured (corpus, generator, settings digest): the page Dagster's plots cannot draw, where every
metadata entry is a chart of its own (a figure's bounds on axes of their own) and nothing tells one system's points
from another's. Pure: it renders what `defs/report/trends.py` reads from the run history."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

BOUNDS = ("_low", "_high")  # a rate's Wilson bounds beside it (evaluation.headline_figures.rate_entries)
SYSTEM_KEYS = ("corpus", "generator", "settings")
UNNAMED = "(not named: made before runs were tagged)"
# one colour per system, in the order first seen (enough for a page of a few systems; they repeat past it)
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
WIDTH, HEIGHT, LEFT, TOP, BOTTOM = 640, 220, 48, 16, 28


@dataclass(frozen=True)
class Materialization:
    """One materialisation of an asset with figures: its run, when, its metadata (numbers and the system's names)."""

    run_id: str
    timestamp: float
    metadata: Mapping[str, object]


@dataclass(frozen=True)
class Point:
    figure: str
    run_id: str
    timestamp: float
    system: str
    value: float
    low: float | None
    high: float | None


def system_name(metadata: Mapping[str, object]) -> str:
    """'corpus · generator · settings <digest>', from the entries figure metadata names the system with."""
    corpus, generator, settings = (metadata.get(key) for key in SYSTEM_KEYS)
    if not (corpus or generator or settings):
        return UNNAMED
    return f"{corpus or '?'} · {generator or '?'} · settings {settings or '?'}"


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def trend_points(materializations: Iterable[Materialization]) -> list[Point]:
    """Every rate that has both bounds beside it (`<name>`, `<name>_low`, `<name>_high`), one point per
    materialisation, with the system its metadata names; counts and figures without bounds are left out."""
    points = []
    for made in materializations:
        for name, value in made.metadata.items():
            number = _number(value)
            if number is None or name.endswith(BOUNDS) or name.endswith(("_cluster_low", "_cluster_high")):
                continue
            low, high = (_number(made.metadata.get(name + bound)) for bound in BOUNDS)
            if low is None or high is None:
                continue
            points.append(Point(name, made.run_id, made.timestamp, system_name(made.metadata), number, low, high))
    return sorted(points, key=lambda p: (p.figure, p.timestamp, p.run_id))


def _chart(figure: str, points: list[Point], colours: Mapping[str, str]) -> str:
    """A point per run (left to right in time), its interval drawn as a band around it, coloured by system."""
    plot_w, plot_h = WIDTH - LEFT - 12, HEIGHT - TOP - BOTTOM
    step = plot_w / max(len(points), 1)

    def y(value: float) -> float:
        return TOP + plot_h * (1 - min(max(value, 0.0), 1.0))

    parts = [f'<svg width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{html.escape(figure)}">']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - 12}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>'
            f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" font-size="11" text-anchor="end">{tick:.0%}</text>'
        )
    for index, point in enumerate(points):
        x, colour = LEFT + step * (index + 0.5), colours[point.system]
        low = point.low if point.low is not None else point.value
        high = point.high if point.high is not None else point.value
        title = html.escape(
            f"{point.system}\nrun {point.run_id[:8]}: {point.value:.1%} (95% interval {low:.1%} to {high:.1%})"
        )
        parts.append(
            f"<g><title>{title}</title>"
            f'<rect x="{x - min(step * 0.3, 14):.1f}" y="{y(high):.1f}" width="{min(step * 0.6, 28):.1f}" '
            f'height="{max(y(low) - y(high), 1):.1f}" fill="{colour}" fill-opacity="0.25" stroke="{colour}"/>'
            f'<circle cx="{x:.1f}" cy="{y(point.value):.1f}" r="4" fill="{colour}"/>'
            f'<text x="{x:.1f}" y="{HEIGHT - 10}" font-size="10" text-anchor="middle">{point.run_id[:8]}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def trends_html(points: list[Point], title: str) -> str:
    """The page: a legend naming each system by its colour, then a chart per figure (in name order)."""
    systems = list(dict.fromkeys(point.system for point in sorted(points, key=lambda p: p.timestamp)))
    colours = {system: COLOURS[index % len(COLOURS)] for index, system in enumerate(systems)}
    figures = sorted({point.figure for point in points})
    legend = "".join(
        f'<li><span style="color:{colours[system]}">&#9632;</span> {html.escape(system)}</li>' for system in systems
    )
    body = [
        f"<h1>{html.escape(title)}</h1>",
        "<p>Each headline figure across the runs of this run history, one point per run (left to right in time), "
        "its 95% interval drawn as a band around it, and its colour the system the run measured: the corpus, the "
        "generator under test and the settings digest. Hover a point for its run and values.</p>",
        f"<ul class=legend>{legend or '<li>no run with figures yet</li>'}</ul>",
    ]
    for figure in figures:
        own = [point for point in points if point.figure == figure]
        body.append(f"<h2>{html.escape(figure)}</h2>{_chart(figure, own, colours)}")
    style = (
        "body{font-family:sans-serif;margin:24px}h2{font-size:14px;margin:18px 0 4px}.legend{list-style:none;padding:0}"
    )
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title>"
        f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n"
    )
