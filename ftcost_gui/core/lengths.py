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

A length distribution is anything with a ``mean`` and a ``cdf``: today a log-normal from the
mean and the spread (std ÷ mean) the user gives; a histogram read from the dataset (issue 14)
is another such object, and everything below works on it unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple, Protocol

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


class RowTokens(NamedTuple):
    """Tokens of one example and of one micro-batch row under a padding rule."""

    useful_per_example: float  # E[min(X, s)]: an example, truncated to the max length
    row_tokens: float  # tokens one row of a micro-batch holds: s, or E[min(max of b, s)]
    fraction: float  # useful ÷ processed tokens (1 when packed)


def padded_rows(dist: LengthDistribution, rows: int, seq_len: int, padding: Padding) -> RowTokens:
    """Useful and processed tokens per row for one padding rule (module docstring).

    Cached for the distributions that are values (the log-normal): every edit that leaves the
    data alone reuses it."""
    if isinstance(dist, LogNormalLengths):
        return _padded_lognormal(dist, rows, seq_len, padding)
    return _padded_rows(dist, rows, seq_len, padding)


@lru_cache(maxsize=1024)
def _padded_lognormal(
    dist: LogNormalLengths, rows: int, seq_len: int, padding: Padding
) -> RowTokens:
    return _padded_rows(dist, rows, seq_len, padding)


def _padded_rows(dist: LengthDistribution, rows: int, seq_len: int, padding: Padding) -> RowTokens:
    useful = dist.expected_capped(seq_len)
    if padding == "pack":  # rows are full; every token is an example's
        return RowTokens(useful, float(seq_len), 1.0)
    row = float(seq_len) if padding == "max_length" else dist.expected_capped_max(rows, seq_len)
    return RowTokens(useful, row, useful / row)
