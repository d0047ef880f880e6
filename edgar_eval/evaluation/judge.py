"""Right or wrong against the golden case."""

from __future__ import annotations

import math


def tolerance(gold_decimals: str | None) -> float:
    """Half a unit of the last digit the filing reports (decimals="-6" -> 500,000)."""
    if gold_decimals in (None, "", "INF"):
        return 1e-9
    return 0.5 * 10.0 ** (-int(gold_decimals))


def figure_matches(figure: float | None, gold_value: float | None, gold_decimals: str | None) -> bool:
    if figure is None or gold_value is None or math.isnan(gold_value):
        return False
    return abs(figure - gold_value) <= tolerance(gold_decimals) + 1e-9 * abs(gold_value)


def is_correct(expected_route: str, answered: bool, figure: float | None, gold_value: float | None, gold_decimals: str | None) -> bool:
    if expected_route == "answer":
        return answered and figure_matches(figure, gold_value, gold_decimals)
    return not answered
