"""The ranges (core/ranges.py) in words: each headline's low – high and where the band comes from.

The window's cards show ``headline_ranges`` under each figure (the source in the tooltip), the
report prints ``range_rows`` as a table, and the CLI prints the same rows.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.inputs import EstimateInputs
from ..core.ranges import WORST_ALLOCATOR_EFFICIENCY
from ..core.results import Band, EstimateResult
from ..core.units import GIB, fmt_gib, fmt_hours, fmt_pct, fmt_usd
from .time_texts import price_word

ACCURACY_NOTE = "PEFT's MetaMathQA LoRA runs measured 0.73–0.82, docs/accuracy.md"


def band_text(band: Band, fmt: Callable[[float], str]) -> str:
    """'low–high' (tight: it shares the card's caption line), or the one value when the band is
    a point."""
    lo, hi = fmt(band.low), fmt(band.high)
    return lo if lo == hi else f"{lo}–{hi}"


def memory_source(inputs: EstimateInputs, r: EstimateResult) -> str:
    g, d = r.ranges, inputs.data
    if g.memory_row_tokens < d.max_seq_len:
        lengths = (
            "the measured lengths"
            if d.length_histogram is not None
            else f"the log-normal spread {d.length_cv:g} × mean, longest of "
            f"{d.num_examples:,} examples"
        )
        low = (
            f"low: no row longer than the data's longest sequence, {g.memory_row_tokens:,.0f} "
            f"of {d.max_seq_len:,} tokens ({lengths})"
        )
    elif d.mode == "examples" and d.padding == "longest":
        low = f"low: the data's longest sequence reaches the max length ({d.max_seq_len:,})"
    else:
        low = "low: every row is the max length (packed or padded to it)"
    eff = inputs.hardware.usable_memory_fraction
    if g.memory_efficiency_high < eff:
        high = (
            f"high: allocator efficiency {WORST_ALLOCATOR_EFFICIENCY:.2f} instead of {eff:.2f} "
            f"({ACCURACY_NOTE})"
        )
    else:
        high = f"high: the allocator efficiency given ({eff:.2f}) is already the worst measured"
    fits = "" if g.memory_high_fits else "; at the high end it does NOT fit"
    return f"{low}; {high}{fits}"


def time_source(r: EstimateResult) -> str:
    g = r.ranges
    mfu = (
        f"MFU {fmt_pct(g.mfu.high)} to {fmt_pct(g.mfu.low)} (±{g.mfu_band:.0%}, the MFU "
        "uncertainty)"
    )
    if not g.comm_band:
        return f"{mfu}; communication as estimated"
    return (
        f"{mfu}; communication as modelled ({fmt_hours(g.comm_exposed_s / 3600)} exposed) to "
        f"none of it hidden ({fmt_hours(g.comm_exposed_high_s / 3600)} exposed)"
    )


def price_source(inputs: EstimateInputs, r: EstimateResult) -> str:
    p = r.ranges.price_usd_per_hour
    if p.low == p.high:
        return "your price only (the GPU's catalog row gives no range of offers)"
    return (
        f"{price_word(inputs.hardware.gpu.pricing_tier)} offers {fmt_usd(p.low)} – "
        f"{fmt_usd(p.high)} per GPU-hour "
        f"(the catalog's range for {inputs.hardware.gpu.name})"
    )


def _gpu_hours(x: float) -> str:
    """GPU-hours: one decimal, three significant figures below 10 (a short run is not '0.0')."""
    return f"{x:,.1f}" if x >= 10 else f"{x:.3g}"


def _usd(x: float) -> str:
    return fmt_usd(x)


def headline_ranges(inputs: EstimateInputs, r: EstimateResult) -> dict[str, tuple[str, str]]:
    """(range line, where it comes from) per headline key (present/figures.HEADLINES)."""
    g = r.ranges
    time = time_source(r)
    cost = f"held GPU-hours of each end × price: {time}; price: {price_source(inputs, r)}"
    out = {
        "memory": (
            band_text(g.memory_bytes, lambda b: f"{b / GIB:,.1f}") + " GiB",
            memory_source(inputs, r),
        ),
        "gpu_hours": (
            f"{band_text(g.compute_gpu_hours, _gpu_hours)} GPU-h",
            time,
        ),
        "wall": (f"{band_text(g.held_wall_s, lambda s: fmt_hours(s / 3600))}", time),
        "cost": (f"{band_text(g.on_demand_usd, _usd)}", cost),
        "project": (f"{band_text(g.project_usd, _usd)}", cost),
    }
    return out


def range_rows(inputs: EstimateInputs, r: EstimateResult) -> list[tuple[str, str, str, str, str]]:
    """(figure, low, expected, high, where the band comes from) for the report and the CLI."""
    g = r.ranges
    time = time_source(r)
    price = price_source(inputs, r)

    def row(
        name: str, band: Band, fmt: Callable[[float], str], source: str
    ) -> tuple[str, str, str, str, str]:
        return (name, fmt(band.low), fmt(band.expected), fmt(band.high), source)

    rows = [
        row("Memory per GPU", g.memory_bytes, fmt_gib, memory_source(inputs, r)),
        row("Compute GPU-hours", g.compute_gpu_hours, _gpu_hours, time),
        row("Wall-clock (held)", g.held_wall_s, lambda s: fmt_hours(s / 3600), time),
        row("Price per GPU-hour", g.price_usd_per_hour, _usd, price),
        row(
            f"Cost per run ({price_word(inputs.hardware.gpu.pricing_tier)})",
            g.on_demand_usd,
            _usd,
            "held GPU-hours × price",
        ),
    ]
    if g.spot_usd is not None:
        rows.append(row("Cost per run (spot)", g.spot_usd, _usd, "held GPU-hours × spot × F"))
    rows.append(row("Project total", g.project_usd, _usd, "runs × cost per run + fixed costs"))
    return rows
