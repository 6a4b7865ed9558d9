"""The which-GPU ranking as text: each row's cells and the picks (cheapest, fastest).

Worded once for ``ftcost compare`` and the window's which-GPU view. The picks are ``Inline``
parts (``blocks``): a GPU name is a ``Name``, escaped by each renderer (``inline_text`` for the
terminal, ``inline_html`` for the window).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.catalog import TIER_LABELS
from ..core.compare import GpuComparison, cheapest_fitting, fastest_fitting
from ..core.units import SECONDS_PER_HOUR, fmt_hours
from ..io.names import plain
from .blocks import Inline, Name
from .text import fmt_cost


@dataclass(frozen=True, slots=True)
class CompareCells:
    """One row's figures as text, units in the column headers."""

    rank: str  # among the GPUs that fit; '-' for one that does not
    gpu: str  # name, '(FP16)' without BF16
    fits: str
    gpus: str  # '2', or '1 (needs 3)' when the memory floor forces more
    achieved_tflops: str
    usd_per_1e18_flops: str
    wall_clock: str
    on_demand_usd: str
    run_usd: str  # at the row's tier: its ranking
    tier: str  # 'on-demand', '1-year committed', 'spot'
    spot_usd: str
    held_gpu_hours: str
    origin: str


def compare_cells(ranked: Sequence[GpuComparison]) -> list[CompareCells]:
    """The cells of each row, ranks counted among the GPUs that fit (in ``ranked``'s order)."""
    out = []
    rank = 0
    for r in ranked:
        if r.fits:
            rank += 1
        needed = "-" if r.gpus_needed is None else str(r.gpus_needed)
        out.append(
            CompareCells(
                rank=str(rank) if r.fits else "-",
                gpu=plain(r.gpu_name) + ("" if r.bf16_supported else " (FP16)"),
                fits="yes" if r.fits else "no",
                gpus=str(r.num_gpus) if r.fits else f"{r.num_gpus} (needs {needed})",
                achieved_tflops=f"{r.achieved_tflops:,.1f}",
                usd_per_1e18_flops=fmt_cost(r.usd_per_1e18_flops),
                wall_clock=fmt_hours(r.wall_clock_s / SECONDS_PER_HOUR),
                on_demand_usd=fmt_cost(r.on_demand_usd),
                run_usd=fmt_cost(r.run_usd),
                tier=_tier(r),
                spot_usd=fmt_cost(r.spot_usd),
                held_gpu_hours=f"{r.held_gpu_hours:,.2f}",
                origin=plain(r.origin or "-"),
            )
        )
    return out


def _wall(r: GpuComparison) -> str:
    return fmt_hours(r.wall_clock_s / SECONDS_PER_HOUR)


def _tier(r: GpuComparison) -> str:
    """'on-demand', 'spot', '1-year committed': how the row's run cost is billed."""
    return TIER_LABELS[r.pricing_tier].lower()


def pick_notes(ranked: Sequence[GpuComparison]) -> list[Inline]:
    """'Cheapest that fits: …', 'Fastest that fits: …', "This estimate's GPU: …"."""
    notes: list[Inline] = []
    cheapest = cheapest_fitting(ranked)
    if cheapest is None:
        notes.append(("No GPU of the catalog fits at these settings.",))
    else:
        notes.append(
            (
                f"Cheapest that fits: {cheapest.num_gpus} × ",
                Name(cheapest.gpu_name),
                f", {fmt_cost(cheapest.run_usd)} per run {_tier(cheapest)}, "
                f"{_wall(cheapest)} wall-clock.",
            )
        )
    fastest = fastest_fitting(ranked)
    if fastest is not None:
        notes.append(
            (
                f"Fastest that fits: {fastest.num_gpus} × ",
                Name(fastest.gpu_name),
                f", {_wall(fastest)} wall-clock, {fmt_cost(fastest.run_usd)} per run "
                f"{_tier(fastest)}.",
            )
        )
    current = next((r for r in ranked if r.current), None)
    if current is not None:
        notes.append(("This estimate's GPU: ", Name(current.gpu_name), "."))
    return notes
