"""Which GPU for this job: the current estimate on every GPU of a catalog (article 001).

Each row is ``estimate(inputs)`` with ``inputs.hardware.gpu`` replaced by that GPU's spec and
prices (the catalog's), everything else as the user set it. Rows are ranked by cost per run, the
GPUs that fit first: 'dollars per unit of work, not dollars per hour', and 'the memory constraint
outranks the efficiency ratio' (article 001, 'Picking the SKU'). Pure: no Qt, no files.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .catalog import CatalogGpu, EffectiveRow, id_key
from .estimate import estimate
from .inputs import EstimateInputs, GpuSpec
from .results import EstimateResult
from .units import TERA

_GPU_FIELDS = frozenset(GpuSpec.model_fields)


class GpuComparison(BaseModel):
    """One GPU's figures for the current job (units in the names, as in the result JSON)."""

    model_config = ConfigDict(frozen=True)

    gpu_id: str
    gpu_name: str
    origin: str | None  # "built-in" / "user:<catalog>" for catalog rows, None for a bare spec
    current: bool  # the estimate's own GPU (same id)
    fits: bool  # at the current settings: the fewest GPUs that fit, or the user's fixed count
    gpus_needed: int | None  # the count the memory floor forces; None if no count fits
    num_gpus: int  # the GPUs the row is priced for
    achieved_tflops: float  # per GPU: peak × MFU ÷ (QLoRA, communication, offload slowdowns)
    usd_per_1e18_flops: float  # on-demand price ÷ achieved FLOP/s, per 1e18 FLOPs
    wall_clock_s: float  # held wall-clock (start-up, checkpoints, evaluation included)
    train_wall_s: float
    on_demand_usd: float  # one run
    spot_usd: float | None  # one run on spot, interruptions included; None without a spot price
    held_gpu_hours: float
    compute_gpu_hours: float
    memory_per_gpu_bytes: float
    usable_bytes: float
    bf16_supported: bool
    on_demand_usd_per_hour: float
    spot_usd_per_hour: float | None
    warnings: tuple[str, ...]
    spec: GpuSpec = Field(exclude=True)  # what 'use this GPU' puts into the estimate


def _spec_and_origin(item: EffectiveRow | GpuSpec) -> tuple[GpuSpec, str | None]:
    if isinstance(item, EffectiveRow):
        return item.gpu.to_spec(), item.origin
    if isinstance(item, CatalogGpu):
        return item.to_spec(), None
    return item, None


def inputs_with_gpu(inputs: EstimateInputs, spec: GpuSpec) -> EstimateInputs:
    """The inputs with ``hardware.gpu`` replaced, validated as a file or the CLI would be."""
    return inputs.edited("hardware", gpu=spec.model_dump(include=_GPU_FIELDS))


def comparison_row(
    result: EstimateResult, spec: GpuSpec, origin: str | None = None, current: bool = False
) -> GpuComparison:
    """A row from an estimate's result on that GPU."""
    m, t, c = result.memory, result.time, result.cost
    return GpuComparison.model_construct(
        gpu_id=spec.id,
        gpu_name=spec.name,
        origin=origin,
        current=current,
        fits=m.fits,
        gpus_needed=m.gpus_needed,
        num_gpus=t.num_gpus,
        achieved_tflops=t.achieved_flops_per_s / TERA,
        usd_per_1e18_flops=c.usd_per_1e18_flops,
        wall_clock_s=t.held_wall_s,
        train_wall_s=t.train_wall_s,
        on_demand_usd=c.on_demand_usd,
        spot_usd=c.spot_usd,
        held_gpu_hours=t.held_gpu_hours,
        compute_gpu_hours=t.compute_gpu_hours,
        memory_per_gpu_bytes=m.total_bytes,
        usable_bytes=m.usable_bytes,
        bf16_supported=spec.bf16_supported,
        on_demand_usd_per_hour=c.on_demand_usd_per_hour,
        spot_usd_per_hour=c.spot_usd_per_hour,
        warnings=result.warnings,
        spec=spec,
    )


def compare_gpus(
    inputs: EstimateInputs, rows_or_specs: Iterable[EffectiveRow | GpuSpec]
) -> list[GpuComparison]:
    """The estimate on every GPU, in the order given (rank with ``rank_by_cost``).

    Accepts effective-catalog rows, catalog rows or bare specs. Each GPU is priced at its own
    catalog prices; the GPU count follows ``training.auto_gpu_count`` as in the estimate.
    """
    current = id_key(inputs.hardware.gpu.id)
    out: list[GpuComparison] = []
    for item in rows_or_specs:
        spec, origin = _spec_and_origin(item)
        result = estimate(inputs_with_gpu(inputs, spec))
        out.append(comparison_row(result, spec, origin, id_key(spec.id) == current))
    return out


def _cost_key(r: GpuComparison) -> tuple[Any, ...]:
    return (not r.fits, r.on_demand_usd, r.wall_clock_s)


def _time_key(r: GpuComparison) -> tuple[Any, ...]:
    return (not r.fits, r.wall_clock_s, r.on_demand_usd)


def rank_by_cost(rows: Sequence[GpuComparison]) -> list[GpuComparison]:
    """GPUs that fit, cheapest run (on-demand) first; then those that do not fit, likewise.

    Ties go to the shorter wall-clock, then to the catalog order (the sort is stable).
    """
    return sorted(rows, key=_cost_key)


def rank_by_wall_clock(rows: Sequence[GpuComparison]) -> list[GpuComparison]:
    """GPUs that fit, shortest held wall-clock first (ties: cheaper); then those that do not."""
    return sorted(rows, key=_time_key)


def cheapest_fitting(rows: Iterable[GpuComparison]) -> GpuComparison | None:
    """The GPU that fits with the cheapest on-demand run (the first of ``rank_by_cost``)."""
    fitting = [r for r in rows if r.fits]
    return min(fitting, key=_cost_key) if fitting else None


def fastest_fitting(rows: Iterable[GpuComparison]) -> GpuComparison | None:
    """The GPU that fits with the shortest held wall-clock."""
    fitting = [r for r in rows if r.fits]
    return min(fitting, key=_time_key) if fitting else None
