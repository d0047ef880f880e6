"""Inline SVG charts for the HTML report, written by hand so the bytes are deterministic.

No plotting library: their SVG output embeds dates and random ids, and a chart of
lines, rectangles and text is short to write.  Every coordinate is printed with two
fixed decimals (``-0.00`` folded to ``0.00``), so the same data give the same bytes
on every platform.  Every text node is XML-escaped: labels come from data.

Geometry.  A chart is ``WIDTH`` x ``HEIGHT`` user units; data are drawn inside a
plot box (``RISK_COVERAGE_BOX``, ``INTERVAL_BARS_BOX``).  A value maps to pixels
linearly with ``scale``; SVG's y grows downward, so the value axis runs from the
box's bottom (0) to its top (the axis top from ``nice_ceiling``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from html import escape
from typing import NamedTuple

WIDTH = 720
HEIGHT = 400


class PlotBox(NamedTuple):
    left: float
    top: float
    right: float
    bottom: float


RISK_COVERAGE_BOX = PlotBox(72.0, 48.0, 520.0, 330.0)  # the legend sits right of it
INTERVAL_BARS_BOX = PlotBox(72.0, 48.0, 696.0, 330.0)

# Okabe & Ito's colour-blind-safe palette; past its end the dash pattern changes too.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
DASHES = ("", "6 3", "2 3", "8 3 2 3")
MIN_AXIS_TOP = 0.05  # an all-zero chart still gets a readable 0-5% axis
LEGEND_CHARS = 22

_XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def scale(value: float, lo: float, hi: float, pixel_lo: float, pixel_hi: float) -> float:
    """Map ``value`` in ``[lo, hi]`` linearly onto ``[pixel_lo, pixel_hi]``."""
    return pixel_lo + (value - lo) / (hi - lo) * (pixel_hi - pixel_lo)


def nice_ceiling(value: float) -> tuple[float, float]:
    """The axis top (a multiple of a 1-2-5 step, at most 5 steps) at or above ``value``, and that step."""
    value = max(value, MIN_AXIS_TOP)
    exponent = math.floor(math.log10(value / 5))
    while True:
        for mantissa in (1, 2, 5):
            step = mantissa * 10.0**exponent
            steps = math.ceil(value / step - 1e-9)
            if steps <= 5:
                return round(steps * step, 12), step
        exponent += 1


def svg_text(value: object) -> str:
    """A text node or attribute value: characters XML 1.0 forbids replaced, then escaped."""
    return escape(_XML_INVALID.sub("\ufffd", str(value)), quote=True)


def _num(value: float) -> str:
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def _percent(value: float, decimals: int) -> str:
    text = f"{100 * value:.{decimals}f}%"
    return text[1:] if text.startswith("-") and float(text[1:-1]) == 0 else text


def _tick_decimals(step: float) -> int:
    return next((d for d in range(6) if abs(round(100 * step, d) - 100 * step) < 1e-9), 6)


def _shorten(label: str, limit: int) -> str:
    return label if len(label) <= limit else label[: max(limit - 1, 1)] + "\u2026"


def _floats(values: Iterable[float | None]) -> list[float]:
    return [math.nan if v is None else float(v) for v in values]


def _open(title: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" font-family="sans-serif" font-size="12">',
        f"<title>{svg_text(title)}</title>",
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<text x="{_num(WIDTH / 2)}" y="24.00" text-anchor="middle" font-size="14" '
        f'font-weight="bold">{svg_text(title)}</text>',
    ]


def _value_axis(box: PlotBox, top: float, step: float, label: str) -> list[str]:
    """Horizontal grid lines with percentage ticks on the left, the rotated axis label, the box outline."""
    decimals = _tick_decimals(step)
    parts = ['<g class="y-axis">']
    for i in range(round(top / step) + 1):
        value = i * step
        y = _num(scale(value, 0.0, top, box.bottom, box.top))
        parts.append(f'<line x1="{_num(box.left)}" y1="{y}" x2="{_num(box.right)}" y2="{y}" stroke="#dddddd"/>')
        parts.append(f'<line x1="{_num(box.left - 5)}" y1="{y}" x2="{_num(box.left)}" y2="{y}" stroke="#333333"/>')
        parts.append(
            f'<text x="{_num(box.left - 8)}" y="{y}" dy="4.00" text-anchor="end">{_percent(value, decimals)}</text>'
        )
    middle = _num((box.top + box.bottom) / 2)
    parts.append(
        f'<text x="18.00" y="{middle}" text-anchor="middle" transform="rotate(-90 18.00 '
        f'{middle})">{svg_text(label)}</text>'
    )
    parts.append(
        f'<rect x="{_num(box.left)}" y="{_num(box.top)}" width="{_num(box.right - box.left)}" '
        f'height="{_num(box.bottom - box.top)}" fill="none" stroke="#333333"/>'
    )
    parts.append("</g>")
    return parts


def _notes(lines: list[str]) -> list[str]:
    return [
        f'<text class="note" x="{_num(12)}" y="{_num(HEIGHT - 12 - 16 * (len(lines) - 1 - i))}" font-style="italic">'
        f"{svg_text(line)}</text>"
        for i, line in enumerate(lines)
    ]


def risk_coverage_svg(curves: dict[str, tuple[Sequence[float], Sequence[float]]], title: str) -> str:
    """One polyline per gate score: coverage (x, 0 to 1) against risk (y, 0 to the rounded-up largest risk).

    ``curves`` maps a legend label to ``(coverage, risk)``, e.g. the ``coverage`` and
    ``risk`` arrays of ``edgar_eval.stats.risk_coverage``; curves are drawn and listed in
    the mapping's order.  Points with a NaN coordinate are left out; a coverage outside
    [0, 1], a negative risk or arrays of unequal length raise ``ValueError``.
    """
    box = RISK_COVERAGE_BOX
    cleaned: list[tuple[str, list[tuple[float, float]]]] = []
    for name, (coverage, risk) in curves.items():
        xs, ys = _floats(coverage), _floats(risk)
        if len(xs) != len(ys):
            raise ValueError(f"curve {name!r}: {len(xs)} coverages but {len(ys)} risks")
        points = [(x, y) for x, y in zip(xs, ys) if math.isfinite(x) and math.isfinite(y)]
        if any(not 0.0 <= x <= 1.0 for x, _ in points):
            raise ValueError(f"curve {name!r}: coverage outside [0, 1]")
        if any(y < 0.0 for _, y in points):
            raise ValueError(f"curve {name!r}: negative risk")
        cleaned.append((str(name), points))
    top, step = nice_ceiling(max((y for _, points in cleaned for _, y in points), default=0.0))

    parts = _open(title)
    parts += _value_axis(box, top, step, "risk (share of answered that are wrong)")
    parts.append('<g class="x-axis">')
    for i in range(6):
        value = i / 5
        x = _num(scale(value, 0.0, 1.0, box.left, box.right))
        parts.append(f'<line x1="{x}" y1="{_num(box.bottom)}" x2="{x}" y2="{_num(box.bottom + 5)}" stroke="#333333"/>')
        parts.append(f'<text x="{x}" y="{_num(box.bottom + 18)}" text-anchor="middle">{_percent(value, 0)}</text>')
    parts.append(
        f'<text x="{_num((box.left + box.right) / 2)}" y="{_num(box.bottom + 38)}" text-anchor="middle">'
        "coverage (share of questions answered)</text>"
    )
    parts.append("</g>")

    parts.append('<g class="curves" fill="none" stroke-width="2" stroke-linejoin="round" stroke-linecap="round">')
    empty = []
    for i, (name, points) in enumerate(cleaned):
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[(i // len(PALETTE)) % len(DASHES)]
        pixels: list[str] = []
        for x, y in points:
            pixel = f"{_num(scale(x, 0.0, 1.0, box.left, box.right))},{_num(scale(y, 0.0, top, box.bottom, box.top))}"
            if not pixels or pixels[-1] != pixel:  # identical consecutive pixels add bytes, not ink
                pixels.append(pixel)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        if len(pixels) == 1:
            cx, cy = pixels[0].split(",")
            parts.append(f'<circle class="curve" cx="{cx}" cy="{cy}" r="3.00" fill="{colour}" stroke="none"/>')
        elif pixels:
            parts.append(f'<polyline class="curve" points="{" ".join(pixels)}" stroke="{colour}"{dash_attr}/>')
        else:
            empty.append(name)
    parts.append("</g>")

    parts.append('<g class="legend">')
    for i, (name, _) in enumerate(cleaned):
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[(i // len(PALETTE)) % len(DASHES)]
        y = box.top + 8 + 20 * i
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<line x1="{_num(box.right + 16)}" y1="{_num(y)}" x2="{_num(box.right + 40)}" y2="{_num(y)}" '
            f'stroke="{colour}" stroke-width="2"{dash_attr}/>'
        )
        parts.append(
            f'<text x="{_num(box.right + 46)}" y="{_num(y)}" dy="4.00"><title>{svg_text(name)}</title>'
            f"{svg_text(_shorten(name, LEGEND_CHARS))}</text>"
        )
    parts.append("</g>")
    notes = []
    if not cleaned:
        notes.append("No curves to draw.")
    if empty:
        notes.append("No points to draw for " + ", ".join(empty) + ".")
    parts += _notes(notes)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def interval_bars_svg(
    labels: list[str],
    estimates: Sequence[float],
    lows: Sequence[float],
    highs: Sequence[float],
    title: str,
    axis_label: str,
) -> str:
    """A bar per label at its estimate with a whisker from its low to its high bound, on a percentage axis.

    Values are proportions (0.169 reads 16.9%).  A NaN estimate omits the bar and is
    named in a note under the chart; a NaN bound omits the whisker, also noted.
    Unequal lengths, negative values or a low above its high raise ``ValueError``.
    """
    box = INTERVAL_BARS_BOX
    est, low, high = _floats(estimates), _floats(lows), _floats(highs)
    names = [str(label) for label in labels]
    if not len(names) == len(est) == len(low) == len(high):
        raise ValueError(
            f"need one estimate, low and high per label, got {len(names)}, {len(est)}, {len(low)}, {len(high)}"
        )
    finite = [v for v in est + low + high if not math.isnan(v)]
    if any(not math.isfinite(v) or v < 0 for v in finite):
        raise ValueError("estimates and bounds must be finite, non-negative proportions (or NaN)")
    if any(lo > hi for lo, hi in zip(low, high)):
        raise ValueError("an interval's low bound lies above its high bound")
    top, step = nice_ceiling(max(finite, default=0.0))

    def y_of(value: float) -> float:
        return scale(value, 0.0, top, box.bottom, box.top)

    parts = _open(title)
    parts += _value_axis(box, top, step, axis_label)
    slot = (box.right - box.left) / max(len(names), 1)
    width = min(0.6 * slot, 64.0)
    label_chars = max(int(slot // 7), 2)
    no_estimate, no_interval = [], []
    parts.append('<g class="bars">')
    for i, name in enumerate(names):
        centre = box.left + slot * (i + 0.5)
        parts.append(f'<g class="arm"><title>{svg_text(name)}</title>')
        parts.append(
            f'<text x="{_num(centre)}" y="{_num(box.bottom + 18)}" '
            f'text-anchor="middle">{svg_text(_shorten(name, label_chars))}</text>'
        )
        if math.isnan(est[i]):
            no_estimate.append(name)
            parts.append(
                f'<text x="{_num(centre)}" y="{_num(box.bottom - 6)}" text-anchor="middle" fill="#666666">n/a</text>'
            )
            parts.append("</g>")
            continue
        y = y_of(est[i])
        parts.append(
            f'<rect class="bar" x="{_num(centre - width / 2)}" y="{_num(y)}" width="{_num(width)}" '
            f'height="{_num(box.bottom - y)}" fill="{PALETTE[0]}" fill-opacity="0.75"/>'
        )
        label_y = y
        if math.isnan(low[i]) or math.isnan(high[i]):
            no_interval.append(name)
        else:
            y_low, y_high, cap = _num(y_of(low[i])), _num(y_of(high[i])), width / 6
            parts.append(
                f'<line class="whisker" x1="{_num(centre)}" y1="{y_low}" x2="{_num(centre)}" y2="{y_high}" '
                f'stroke="#222222" stroke-width="1.50"/>'
            )
            for y_cap in (y_low, y_high):
                parts.append(
                    f'<line class="cap" x1="{_num(centre - cap)}" y1="{y_cap}" x2="{_num(centre + cap)}" y2="{y_cap}" '
                    f'stroke="#222222" stroke-width="1.50"/>'
                )
            label_y = min(y, y_of(high[i]))
        parts.append(
            f'<text class="value" x="{_num(centre)}" y="{_num(label_y - 6)}" '
            f'text-anchor="middle">{_percent(est[i], 1)}</text>'
        )
        parts.append("</g>")
    parts.append("</g>")
    notes = []
    if not names:
        notes.append("No bars to draw.")
    if no_estimate:
        notes.append("n/a: no estimate for " + ", ".join(no_estimate) + ".")
    if no_interval:
        notes.append("No interval for " + ", ".join(no_interval) + ".")
    notes.append("Bars: estimates; whiskers: intervals from low to high.")
    parts += _notes(notes)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
