"""Example lengths and padding: how many of the tokens a GPU processes are real tokens.

A data loader that does not pack pads every row of a micro-batch to the longest row in it
(transformers' ``DataCollatorWithPadding``, ``padding="longest"``, the default), or to a fixed
length (``padding="max_length"``); packing concatenates examples into full rows and pads nothing.
Rows longer than the max sequence length are truncated to it. So with b rows per micro-batch:

    useful tokens per row    = E[min(X, s)]
    processed tokens per row = E[min(max(X_1..X_b), s)]   (longest)   |   s   (max_length)

and the useful-token fraction (article 001 'Utilization') is their ratio. At b = 1 the longest row
is the row itself: no padding. For a non-negative X with CDF F, E[min(max of b draws, s)] =
∫_0^s (1 − F(x)^b) dx (the order-statistics identity E[X] = ∫ P(X > x) dx applied to the maximum,
whose CDF is F^b: David & Nagaraja, Order Statistics, 3rd ed. 2003, §3.1 and §4.1).

A length distribution is anything with a ``mean`` and the two expectations above: a log-normal
from the mean and the spread (std ÷ mean) the user gives, or the histogram measured from the
dataset (core/histogram.py), scaled to the mean; ``distribution(data)`` picks the one the data
section holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Literal, NamedTuple, Protocol

from .histogram import LengthHistogram

Padding = Literal["longest", "max_length", "pack"]

# Simpson points over the integrand in log-length (smooth: 257 points agree with the closed form
# at b = 1 to better than 1e-7 relative; tests/core/test_lengths.py).
_POINTS = 257
_Z_LO = -9.0  # Φ(−9) ≈ 1e-19: below it no example is ever the longest of its micro-batch
_Z_HI = 10.0  # 1 − Φ(10) ≈ 8e-24: above it no maximum ever reaches


class LengthDistribution(Protocol):
    """Example lengths in tokens: what the padding arithmetic needs of them."""

    @property
    def mean(self) -> float: ...

    def expected_capped(self, cap: float) -> float:
        """E[min(X, cap)]."""
        ...

    def expected_capped_max(self, draws: int, cap: float) -> float:
        """E[min(max of ``draws`` independent X, cap)]."""
        ...

    def quantile(self, q: float) -> float:
        """The length below which a share q of the examples fall."""
        ...


_STANDARD_NORMAL = NormalDist()


def _phi(z: float) -> float:
    """Standard normal CDF."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@dataclass(frozen=True, slots=True)
class LogNormalLengths:
    """Log-normal lengths with a given mean and coefficient of variation (std ÷ mean).

    Text lengths are positive and right-skewed; the log-normal is the usual two-parameter model
    for them. σ² = ln(1 + cv²), μ = ln(mean) − σ²/2 give exactly the mean and spread asked for.
    cv = 0 is every example at the mean (the first release's flat padding model).
    """

    mean: float
    cv: float

    @property
    def sigma(self) -> float:
        return math.sqrt(math.log1p(self.cv * self.cv))

    @property
    def mu(self) -> float:
        return math.log(self.mean) - self.sigma**2 / 2.0

    @property
    def point(self) -> bool:
        """Every example at the mean (cv 0, or so small that σ underflows)."""
        return self.sigma == 0.0

    def cdf(self, x: float) -> float:
        if x <= 0:
            return 0.0
        if self.point:
            return 1.0 if x >= self.mean else 0.0
        return _phi((math.log(x) - self.mu) / self.sigma)

    def expected_capped(self, cap: float) -> float:
        """E[min(X, s)] = e^(μ+σ²/2)·Φ((ln s − μ − σ²)/σ) + s·(1 − Φ((ln s − μ)/σ)), the
        log-normal's partial expectation (closed form)."""
        if self.point:
            return min(self.mean, cap)
        mu, sigma = self.mu, self.sigma
        z = (math.log(cap) - mu) / sigma
        return self.mean * _phi(z - sigma) + cap * (1.0 - _phi(z))

    def expected_capped_max(self, draws: int, cap: float) -> float:
        if self.point or draws <= 1:
            return self.expected_capped(cap)
        return _lognormal_capped_max(self.mu, self.sigma, draws, cap)

    def quantile(self, q: float) -> float:
        """e^(μ + σ·Φ⁻¹(q))."""
        if self.point or q <= 0.0:
            return self.mean if self.point else 0.0
        if q >= 1.0:
            return math.inf
        return math.exp(self.mu + self.sigma * _STANDARD_NORMAL.inv_cdf(q))


@lru_cache(maxsize=4096)
def _lognormal_capped_max(mu: float, sigma: float, draws: int, cap: float) -> float:
    """∫_0^s (1 − F(x)^b) dx with x = e^(μ+σz): ∫ (1 − Φ(z)^b)·σ·e^(μ+σz) dz up to z_s
    (Simpson's rule).

    Cached: an edit that leaves the data alone, and every point of a sweep, reuse it.
    """
    z_cap = (math.log(cap) - mu) / sigma
    if z_cap <= _Z_LO:  # every example is longer than the cap: every row is full
        return cap
    z_hi = min(z_cap, _Z_HI)
    h = (z_hi - _Z_LO) / (_POINTS - 1)
    total = 0.0
    for i in range(_POINTS):
        z = _Z_LO + i * h
        f = (1.0 - _phi(z) ** draws) * math.exp(mu + sigma * z)
        total += f * (1.0 if i in (0, _POINTS - 1) else 4.0 if i % 2 else 2.0)
    # Below z_lo, 1 − Φ(z)^b is 1 to 1e-19: that tail is ∫ σ·e^(μ+σz) dz = e^(μ+σ·z_lo) exactly.
    return min(total * h / 3.0 * sigma + math.exp(mu + sigma * _Z_LO), cap)


@dataclass(frozen=True, slots=True)
class HistogramLengths:
    """Measured lengths (core/histogram.py) scaled so that their mean is ``mean``.

    Within a bin the lengths spread evenly, so the CDF is piecewise linear and both expectations
    are exact sums over the bins: on a bin from a to c where F goes linearly from F₀ to F₁,
    ∫(1 − F) dx = (c − a)(1 − (F₀ + F₁)/2) and ∫F^b dx = (c − a)(F₁^(b+1) − F₀^(b+1)) ÷
    ((b + 1)(F₁ − F₀)).
    """

    histogram: LengthHistogram
    mean: float

    @property
    def scale(self) -> float:
        """Measured lengths × scale = the lengths estimated (mean ÷ the histogram's mean)."""
        return self.mean / self.histogram.mean

    def _bins(self, cap: float) -> list[tuple[float, float, float, float]]:
        """(a, c, F(a), F(c)) of each bin piece below ``cap``, scaled."""
        h, k = self.histogram, self.scale
        total = sum(h.counts)
        out = []
        below = 0
        for i, count in enumerate(h.counts):
            a, c = h.edges[i] * k, h.edges[i + 1] * k
            if a >= cap:
                break
            f0, f1 = below / total, (below + count) / total
            if c > cap:  # the bin is cut by the cap: F at the cap by linear interpolation
                f1 = f0 + (f1 - f0) * (cap - a) / (c - a)
                c = cap
            out.append((a, c, f0, f1))
            below += count
        return out

    def cdf(self, x: float) -> float:
        for a, c, f0, f1 in self._bins(math.inf):
            if x < c:
                return 0.0 if x < a else f0 + (f1 - f0) * (x - a) / (c - a)
        return 1.0

    def expected_capped(self, cap: float) -> float:
        """∫_0^s (1 − F(x)) dx: below the first edge F = 0."""
        bins = self._bins(cap)
        if not bins:
            return cap  # every example is at least as long as the cap
        start = bins[0][0]
        total = start + sum((c - a) * (1.0 - (f0 + f1) / 2.0) for a, c, f0, f1 in bins)
        return total + max(0.0, cap - bins[-1][1]) * (1.0 - bins[-1][3])

    def expected_capped_max(self, draws: int, cap: float) -> float:
        """∫_0^s (1 − F(x)^b) dx, bin by bin (class docstring)."""
        if draws <= 1:
            return self.expected_capped(cap)
        return _histogram_capped_max(self, draws, cap)

    def quantile(self, q: float) -> float:
        if q <= 0.0:
            return self.histogram.edges[0] * self.scale
        for a, c, f0, f1 in self._bins(math.inf):
            if q <= f1 and f1 > f0:
                return a + (c - a) * (q - f0) / (f1 - f0)
        return self.histogram.longest * self.scale


def _power_integral(width: float, f0: float, f1: float, b: int) -> float:
    """∫ F^b over a piece of ``width`` where F goes linearly from f0 to f1."""
    if f1 - f0 < 1e-9:  # flat (or nearly): the midpoint rule is exact to 1e-9 relative
        return width * ((f0 + f1) / 2.0) ** b
    return width * (f1 ** (b + 1) - f0 ** (b + 1)) / ((b + 1) * (f1 - f0))


@lru_cache(maxsize=1024)
def _histogram_capped_max(dist: HistogramLengths, draws: int, cap: float) -> float:
    bins = dist._bins(cap)
    if not bins:
        return cap
    total = bins[0][0]  # F = 0 below the first edge: 1 − 0^b = 1
    total += sum((c - a) - _power_integral(c - a, f0, f1, draws) for a, c, f0, f1 in bins)
    return total + max(0.0, cap - bins[-1][1]) * (1.0 - bins[-1][3] ** draws)


def distribution(
    mean: float, cv: float, histogram: LengthHistogram | None
) -> LogNormalLengths | HistogramLengths:
    """The data section's length distribution: the measured histogram scaled to the mean when it
    holds one, else the log-normal of the mean and the spread."""
    if histogram is not None:
        return HistogramLengths(histogram, mean)
    return LogNormalLengths(mean, cv)


class RowTokens(NamedTuple):
    """Tokens of one example and of one micro-batch row under a padding rule."""

    useful_per_example: float  # E[min(X, s)]: an example, truncated to the max length
    row_tokens: float  # tokens one row of a micro-batch holds: s, or E[min(max of b, s)]
    fraction: float  # useful ÷ processed tokens (1 when packed)


def padded_rows(dist: LengthDistribution, rows: int, seq_len: int, padding: Padding) -> RowTokens:
    """Useful and processed tokens per row for one padding rule (module docstring).

    Cached for the distributions that are values (both of ours): every edit that leaves the
    data alone reuses it."""
    if isinstance(dist, LogNormalLengths | HistogramLengths):
        return _padded_cached(dist, rows, seq_len, padding)
    return _padded_rows(dist, rows, seq_len, padding)


@lru_cache(maxsize=1024)
def _padded_cached(
    dist: LogNormalLengths | HistogramLengths, rows: int, seq_len: int, padding: Padding
) -> RowTokens:
    return _padded_rows(dist, rows, seq_len, padding)


def _padded_rows(dist: LengthDistribution, rows: int, seq_len: int, padding: Padding) -> RowTokens:
    useful = dist.expected_capped(seq_len)
    if padding == "pack":  # rows are full; every token is an example's
        return RowTokens(useful, float(seq_len), 1.0)
    row = float(seq_len) if padding == "max_length" else dist.expected_capped_max(rows, seq_len)
    return RowTokens(useful, row, useful / row)
