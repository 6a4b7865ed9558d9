"""Unit constants and human formatting; the only place that knows GiB = 2**30."""

from __future__ import annotations

import math

GIB = 2**30
"""Bytes in a binary gibibyte (what memory figures shown to users use)."""
GB = 10**9
"""Bytes in a decimal gigabyte (vendors' memory labels, storage, network)."""
TERA = 1e12
SECONDS_PER_HOUR = 3600.0
SECONDS_PER_MINUTE = 60.0


def bytes_to_gib(n_bytes: float) -> float:
    return n_bytes / GIB


def bytes_to_gb(n_bytes: float) -> float:
    return n_bytes / GB


def fmt_gib(n_bytes: float, digits: int = 1) -> str:
    return f"{n_bytes / GIB:,.{digits}f} GiB"


def fmt_gb(n_bytes: float) -> str:
    """Decimal GB/TB, as storage is billed."""
    if n_bytes >= 1e12:
        return f"{n_bytes / 1e12:,.2f} TB"
    if n_bytes >= 1e9:
        return f"{n_bytes / 1e9:,.1f} GB"
    return f"{n_bytes / 1e6:,.0f} MB"


def fmt_flops(x: float) -> str:
    if x <= 0:
        return "0 FLOPs"
    exp = math.floor(math.log10(x))
    return f"{x / 10**exp:.2f}e{exp} FLOPs"


def fmt_usd(x: float) -> str:
    if x >= 100:
        return f"${x:,.0f}"
    if x >= 1:
        return f"${x:,.2f}"
    return f"${x:,.3f}"


def fmt_hours(hours: float) -> str:
    """Wall-clock or GPU-hours: minutes below an hour, days above two days."""
    if hours < 1:
        return f"{hours * 60:,.1f} min"
    if hours < 48:
        return f"{hours:,.2f} h"
    return f"{hours / 24:,.1f} days"


def fmt_pct(x: float, digits: int = 1) -> str:
    return f"{x * 100:.{digits}f}%"
