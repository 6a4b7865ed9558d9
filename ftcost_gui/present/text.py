"""Numbers as text, beyond units (core/units.py formats GiB, USD, hours and percent).

One formatter per kind, shared by the window, the report and the CLI: counts ('7.62B'), exact
counts ('7,615,616,512'), scientific notation ('6.61e9'), shares of a whole, context lengths.
"""

from __future__ import annotations

import math

from ..core.units import fmt_usd


def sci(x: float, digits: int = 2) -> str:
    """6.61e9-style scientific notation (the articles' worked examples)."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    exp = math.floor(math.log10(abs(x)))
    mant = x / 10**exp
    if round(mant, digits) >= 10:
        mant /= 10
        exp += 1
    return f"{mant:.{digits}f}e{exp}"


def fmt_count(n: float) -> str:
    """Three significant digits with k/M/B/T: 2097152 -> '2.10M', 16777216 -> '16.8M'."""
    a = abs(n)
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if a >= div * 0.9995:
            v = n / div
            if abs(v) >= 999.5 and suffix != "T":
                continue
            digits = 2 if abs(v) < 9.995 else 1 if abs(v) < 99.95 else 0
            return f"{v:.{digits}f}{suffix}"
    return f"{round(n)}"


def fmt_exact(n: float) -> str:
    """7615616512 -> '7,615,616,512'."""
    return f"{round(n):,}"


def fmt_context(tokens: int) -> str:
    """131072 -> '128k ctx', 4096 -> '4k ctx', 1000 -> '1,000 ctx'."""
    if tokens >= 1024 and tokens % 1024 == 0:
        return f"{tokens // 1024}k ctx"
    return f"{tokens:,} ctx"


def fmt_share(part: float, whole: float) -> str:
    """A percentage with two significant decimals below 1 %: '0.25%', '1.6%', '12%'."""
    if whole <= 0:
        return "—"
    pct = 100.0 * part / whole
    if pct < 1:
        return f"{pct:.2f}%"
    if pct < 10:
        return f"{pct:.1f}%"
    return f"{pct:.0f}%"


def fmt_cost(usd: float | None) -> str:
    """A dollar figure that may be missing ('-') or unbounded (an MFU band reaching zero)."""
    if usd is None:
        return "-"
    return fmt_usd(usd) if math.isfinite(usd) else "unbounded"
