"""Paired comparison of two arms on the same questions: exact McNemar and its power.

Two arms answered the same golden questions, so their outcomes are paired and
only the discordant questions (one arm right, the other wrong) carry evidence
about which arm is better.  With a few hundred questions the discordant count is
often small, so the test is the exact conditional binomial test rather than the
chi-square approximation.

A non-significant difference is only informative next to the difference the
design could have detected; ``minimum_detectable_effect`` gives that number, the
"smallest difference distinguishable" printed beside each paired estimate.

Malformed input raises ``ValueError``; well-formed input on which a quantity is
undefined (no pairs, no discordance, a difference no sample of this size could
detect) returns NaN, as everywhere in ``edgar_eval.stats``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

# scipy.stats is imported inside the functions that use it: it takes a second to import, and every process that
# loads the graph (a warm `edgar-eval run`, the UI, each worker) imports this module


@dataclass(frozen=True)
class McNemar:
    """Discordant counts of a paired comparison and the exact two-sided p-value.

    ``b`` counts pairs where the first arm succeeded and the second failed, ``c``
    the reverse, ``n`` all pairs, so ``difference`` is the paired difference of
    success rates, first minus second.
    """

    b: int
    c: int
    n: int
    p_value: float

    @property
    def difference(self) -> float:
        return (self.b - self.c) / self.n if self.n else float("nan")

    @property
    def discordance(self) -> float:
        return (self.b + self.c) / self.n if self.n else float("nan")

    def minimum_detectable_effect(self, alpha: float = 0.05, power: float = 0.80) -> float:
        """The MDE for this design, plugging in the observed discordance rate."""
        return minimum_detectable_effect(self.n, self.discordance, alpha, power) if self.n else float("nan")


def mcnemar_exact(first: ArrayLike, second: ArrayLike) -> McNemar:
    """Exact McNemar test on two paired 0/1 (or boolean) outcome arrays."""
    x = np.asarray(first)
    y = np.asarray(second)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"need two 1-D arrays of one length, got shapes {x.shape} and {y.shape}")
    if not (np.isin(x, (0, 1)).all() and np.isin(y, (0, 1)).all()):
        raise ValueError("outcomes must be 0/1 or boolean")
    x, y = x.astype(bool), y.astype(bool)
    return mcnemar_exact_counts(int(np.sum(x & ~y)), int(np.sum(~x & y)), n=x.size)


def mcnemar_exact_counts(b: int, c: int, n: int | None = None) -> McNemar:
    """Exact McNemar test from the discordant counts alone.

    Under the null of equal marginal rates each discordant pair is equally
    likely to fall either way, so b ~ Binomial(b + c, 1/2) conditionally on
    b + c; the p-value is scipy's exact two-sided binomial test, which for p=1/2
    is twice the smaller tail, capped at 1.  With no discordant pair there is no
    evidence either way and the p-value is 1.  ``n`` (all pairs, concordant
    included) only feeds ``difference`` and the MDE; it defaults to b + c.
    """
    from scipy.stats import binomtest

    b, c = int(b), int(c)
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, got b={b}, c={c}")
    n = b + c if n is None else int(n)
    if n < b + c:
        raise ValueError(f"n={n} pairs cannot hold {b + c} discordant ones")
    p_value = 1.0 if b + c == 0 else float(binomtest(b, b + c, 0.5).pvalue)
    return McNemar(b, c, n, p_value)


def mcnemar_power(difference: float, n: int, discordance: float, alpha: float = 0.05) -> float:
    """Approximate power of the two-sided McNemar test (Connor 1987).

    With psi the discordance rate P(discordant pair), delta the paired
    difference of proportions p10 - p01, and z_q the standard normal quantile,

        power = Phi( (|delta| sqrt(n) - z_{1-alpha/2} sqrt(psi)) / sqrt(psi - delta^2) ),

    which is the normal approximation to the unconditional power behind
    Connor's sample size n = [z_{1-alpha/2} sqrt(psi) + z_{1-beta} sqrt(psi - delta^2)]^2 / delta^2
    (R. J. Connor, "Sample size for testing differences in proportions for the
    paired-sample design", Biometrics 43(1):207-211, 1987).  The rejection
    region on the other side is ignored, as in Connor's derivation.
    """
    from scipy.stats import norm

    _check_design(n, discordance, alpha)
    delta = abs(float(difference))
    if delta > discordance:
        raise ValueError(f"|difference| {delta} cannot exceed the discordance rate {discordance}")
    shift = delta * math.sqrt(n) - norm.ppf(1 - alpha / 2) * math.sqrt(discordance)
    spread = discordance - delta * delta
    if spread <= 0:
        return 1.0 if shift > 0 else 0.0
    return float(norm.cdf(shift / math.sqrt(spread)))


def minimum_detectable_effect(n: int, discordance: float, alpha: float = 0.05, power: float = 0.80) -> float:
    """Smallest paired difference |p10 - p01| detected with ``power`` at two-sided ``alpha``.

    Inverts ``mcnemar_power`` (Connor 1987, see there) in closed form: with
    z_a = z_{1-alpha/2}, z_b = z_{power} and psi the discordance rate, setting
    delta sqrt(n) - z_a sqrt(psi) = z_b sqrt(psi - delta^2) and squaring gives a
    quadratic in delta whose larger root is

        delta = sqrt(psi) [z_a sqrt(n) + z_b sqrt(n + z_b^2 - z_a^2)] / (n + z_b^2).

    For large n this is (z_a + z_b) sqrt(psi / n): the MDE shrinks like
    1/sqrt(n).  The difference can never exceed psi (p10 - p01 <= p10 + p01), so
    when the root does, no difference is detectable at this n and the result is
    NaN; it is NaN too when psi is 0, where the approximation has no variance
    to work with.  Powers of 1/2 or below are rejected: there the power is not
    monotone in delta and "minimum detectable" has no meaning.
    """
    from scipy.stats import norm

    _check_design(n, discordance, alpha)
    if not 0.5 < power < 1:
        raise ValueError(f"power must lie in (0.5, 1), got {power}")
    if discordance == 0:
        return float("nan")
    z_a, z_b = norm.ppf(1 - alpha / 2), norm.ppf(power)
    under_root = n + z_b * z_b - z_a * z_a
    if under_root < 0:
        return float("nan")
    delta = math.sqrt(discordance) * (z_a * math.sqrt(n) + z_b * math.sqrt(under_root)) / (n + z_b * z_b)
    # The squared equation also admits delta with delta sqrt(n) < z_a sqrt(psi) when n is tiny.
    if delta > discordance or delta * math.sqrt(n) < z_a * math.sqrt(discordance):
        return float("nan")
    return float(delta)


def _check_design(n: int, discordance: float, alpha: float) -> None:
    if n < 1:
        raise ValueError(f"need at least one pair, got n={n}")
    if not 0 <= discordance <= 1:
        raise ValueError(f"discordance must lie in [0, 1], got {discordance}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
