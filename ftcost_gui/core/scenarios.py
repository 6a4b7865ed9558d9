"""Scenarios side by side: the figures a spend approver compares, best value and baseline deltas."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .document import EstimateDocument
from .estimate import estimate
from .results import EstimateResult
from .units import GIB, SECONDS_PER_HOUR


@dataclass(frozen=True, slots=True)
class Metric:
    key: str
    label: str
    unit: str
    get: Callable[[EstimateResult], float | None]
    lower_is_better: bool = True


METRICS: tuple[Metric, ...] = (
    Metric(
        "memory_gib", "Memory per GPU (device total)", "GiB", lambda r: r.memory.total_bytes / GIB
    ),
    Metric("gpus", "GPUs", "", lambda r: float(r.time.num_gpus)),
    Metric("compute_gpu_hours", "Compute", "GPU-h", lambda r: r.time.compute_gpu_hours),
    Metric("held_gpu_hours", "GPU-hours held", "GPU-h", lambda r: r.time.held_gpu_hours),
    Metric("wall_clock_h", "Wall-clock", "h", lambda r: r.time.held_wall_s / SECONDS_PER_HOUR),
    Metric("on_demand_usd", "Cost per run, on-demand", "USD", lambda r: r.cost.on_demand_usd),
    Metric("spot_usd", "Cost per run, spot", "USD", lambda r: r.cost.spot_usd),
    Metric("project_usd", "Project total", "USD", lambda r: r.project.total_usd),
)


@dataclass(frozen=True, slots=True)
class ComparisonRow:
    metric: Metric
    values: tuple[float | None, ...]  # one per scenario
    best: tuple[int, ...]  # indices of the best value(s)
    deltas: tuple[float | None, ...]  # value − baseline
    ratios: tuple[float | None, ...]  # value ÷ baseline


def compare_scenarios(
    results: list[EstimateResult], baseline: int = 0, fits: list[bool] | None = None
) -> list[ComparisonRow]:
    """One row per metric; 'best' ignores scenarios that do not fit in memory."""
    rows = []
    eligible = fits or [r.memory.fits for r in results]
    everyone = not any(eligible)  # none fits: the best of all
    for metric in METRICS:
        # list comprehensions, not generators (an edit compares every scenario: issue 17)
        values = tuple([metric.get(r) for r in results])
        candidates = [
            (v, i) for i, v in enumerate(values) if v is not None and (eligible[i] or everyone)
        ]
        best: tuple[int, ...] = ()
        if candidates:
            figures = [v for v, _ in candidates]
            target = min(figures) if metric.lower_is_better else max(figures)
            tolerance = 1e-9 * max(1.0, abs(target))
            best = tuple([i for v, i in candidates if abs(v - target) <= tolerance])
        base = values[baseline] if 0 <= baseline < len(values) else None
        deltas: tuple[float | None, ...]
        ratios: tuple[float | None, ...]
        if base is None:
            deltas = ratios = (None,) * len(values)
        else:
            deltas = tuple([None if v is None else v - base for v in values])
            ratios = tuple([None if v is None or not base else v / base for v in values])
        rows.append(ComparisonRow(metric, values, best, deltas, ratios))
    return rows


def estimate_all(document: EstimateDocument) -> list[EstimateResult]:
    return [estimate(s.inputs) for s in document.scenarios]
