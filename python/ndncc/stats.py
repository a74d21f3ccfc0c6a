"""Confidence intervals over repetitions (seeds and runs) of one sweep point.

The interval is the two-sided Student-t interval of the mean: with ``n`` values of mean ``m``
and sample standard deviation ``s`` (``n - 1`` in the denominator), the 95 % interval is
``m ± h`` with the *half-width* ``h = t(0.975, n - 1) · s / √n``. ``--until-ci METRIC=WIDTH``
compares ``h`` (absolute, in the metric's unit) or ``h / |m|`` (``WIDTH`` written with ``%``)
with ``WIDTH``. No SciPy: the t quantile is found by bisection on the t distribution's CDF,
written with the regularized incomplete beta function (Numerical Recipes' continued fraction).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["ci_half_width", "mean_ci", "t_cdf", "t_quantile"]

LEVEL = 0.95


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betai(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
    ln += b * math.log1p(-x)
    front = math.exp(ln)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with `df` degrees of freedom."""
    tail = 0.5 * _betai(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The `p` quantile of Student's t with `df` degrees of freedom (0 < p < 1)."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError("t_quantile needs 0 < p < 1 and df > 0")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def _finite(values: Iterable[float]) -> list[float]:
    out = []
    for v in values:
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f):
            out.append(f)
    return out


def mean_ci(values: Iterable[float], level: float = LEVEL) -> tuple[int, float, float]:
    """(n, mean, half-width) of the Student-t interval; NaN for what `n` cannot give (no value:
    mean and half-width NaN; one value: half-width NaN). Non-finite values are left out."""
    xs = _finite(values)
    n = len(xs)
    if n == 0:
        return 0, math.nan, math.nan
    m = math.fsum(xs) / n
    if n == 1:
        return 1, m, math.nan
    s = math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (n - 1))
    h = t_quantile(0.5 + level / 2.0, n - 1) * s / math.sqrt(n)
    return n, m, h


def ci_half_width(values: Iterable[float], level: float = LEVEL) -> float:
    """The half-width of the Student-t interval of the mean (NaN with fewer than two values)."""
    return mean_ci(values, level)[2]
