"""Which GPU for this job: the current estimate on every GPU of a catalog (article 001).

Each row is ``estimate(inputs)`` with ``inputs.hardware.gpu`` replaced by that GPU's spec and
prices (the catalog's), everything else as the user set it. Rows are ranked by cost per run, the
GPUs that fit first: 'dollars per unit of work, not dollars per hour', and 'the memory constraint
outranks the efficiency ratio' (article 001, 'Picking the SKU'). Pure: no Qt, no files.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from . import calibration as cal
from .catalog import CatalogGpu, EffectiveRow, id_key
from .inputs import EstimateInputs, GpuSpec, PricingTier
from .memory_step import Fit
from .plan import Plan, RowPlan
from .remembered import GpuFits, plan_key
from .results import EstimateResult, MemoryBreakdown, made
from .row_columns import RowColumns, RowFloats
from .row_plans import RowFigures, finish_prices, inputs_on_gpu
from .units import SECONDS_PER_HOUR, TERA

_GPU_FIELDS = frozenset(GpuSpec.model_fields)
# What core.estimate.plan reads of a GPU: everything but its id and prices (finish reads those).
_NOT_FACTS = (
    "id",
    "on_demand_usd_per_hour",
    "spot_usd_per_hour",
    "price_as_of",
    "price_source",
    "pricing_tier",
)
_FACT_FIELDS = tuple(f for f in GpuSpec.model_fields if f not in _NOT_FACTS)


class GpuComparison(BaseModel):
    """One GPU's figures for the current job (units in the names, as in the result JSON)."""

    model_config = ConfigDict(frozen=True)

    gpu_id: str
    gpu_name: str
    origin: str | None  # "built-in" / "user:<catalog>" for catalog rows, None for a bare spec
    provider: str  # the catalog row's provider and region ("" : not stated)
    region: str
    pricing_tier: PricingTier  # how the row is billed (on-demand for a bare spec)
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
    run_usd: float  # one run at the row's tier: spot_usd for a spot row, else on_demand_usd
    held_gpu_hours: float
    compute_gpu_hours: float
    memory_per_gpu_bytes: float
    usable_bytes: float
    bf16_supported: bool
    on_demand_usd_per_hour: float
    spot_usd_per_hour: float | None
    warnings: tuple[str, ...]
    spec: GpuSpec = Field(exclude=True)  # what 'use this GPU' puts into the estimate


@dataclass(frozen=True, slots=True)
class Offer:
    """What a comparison row needs from a catalog row: the spec (validated once, when the catalog
    was read) and the row's origin, provider, region and tier. ``facts`` is what ``plan`` reads
    of the GPU (the spec but its id and prices): offers with equal facts share one plan."""

    spec: GpuSpec
    origin: str | None = None
    provider: str = ""
    region: str = ""
    pricing_tier: PricingTier = "on_demand"
    facts: tuple[Any, ...] = field(init=False, repr=False, compare=False)
    id_key: str = field(init=False, repr=False, compare=False)  # catalog.id_key of the spec's id

    def __post_init__(self) -> None:
        object.__setattr__(self, "facts", tuple(getattr(self.spec, f) for f in _FACT_FIELDS))
        object.__setattr__(self, "id_key", id_key(self.spec.id))


def offer(item: EffectiveRow | CatalogGpu | GpuSpec | Offer) -> Offer:
    """The offer of an effective row, a catalog row or a bare spec."""
    if isinstance(item, Offer):
        return item
    origin = None
    if isinstance(item, EffectiveRow):
        origin, item = item.origin, item.gpu
    if isinstance(item, CatalogGpu):
        return Offer(item.to_spec(), origin, item.provider, item.region, item.pricing_tier)
    return Offer(item, origin)


def inputs_with_gpu(inputs: EstimateInputs, spec: GpuSpec) -> EstimateInputs:
    """The inputs with ``hardware.gpu`` replaced, validated as a file or the CLI would be."""
    return inputs.edited("hardware", gpu=spec.model_dump(include=set(_GPU_FIELDS)))


def comparison_row(
    result: EstimateResult,
    spec: GpuSpec | Offer,
    origin: str | None = None,
    current: bool = False,
) -> GpuComparison:
    """A row from an estimate's result on that GPU (an offer carries origin, provider, tier)."""
    o = spec if isinstance(spec, Offer) else Offer(spec, origin)
    m, t, c = result.memory, result.time, result.cost
    return _row(
        o, current, m, t.num_gpus, t.achieved_flops_per_s, c.usd_per_1e18_flops, t.held_wall_s,
        t.train_wall_s, c.on_demand_usd, c.spot_usd, t.held_gpu_hours, t.compute_gpu_hours,
        result.warnings,
    )  # fmt: skip


def offer_row(p: Plan | RowPlan, o: Offer) -> GpuComparison:
    """``comparison_row(finish(p on o's GPU), o)`` from a plan (or row plan) of any offer with
    ``o``'s facts: the same figures, priced at the offer's prices by ``finish_prices`` (no result
    models). (GpuComparer takes the float-column path, ``row_columns``: the same rows.)"""
    spec = o.spec
    f = finish_prices(p, spec.on_demand_usd_per_hour, spec.spot_usd_per_hour)
    return _priced(o, p.memory, p.time.num_gpus, f)


def _priced(o: Offer, m: Fit | MemoryBreakdown, num_gpus: int, f: RowFigures) -> GpuComparison:
    """The row of offer ``o`` from its plan's memory and GPU count and its figures."""
    rt, od = f.run, o.spec.on_demand_usd_per_hour
    return _row(
        o, False, m, num_gpus, rt.achieved_flops_per_s,
        cal.usd_per_1e18_flops(od, rt.achieved_flops_per_s), rt.held_wall_s, rt.train_wall_s,
        rt.on_demand_usd, f.spot_usd, rt.held_gpu_hours, rt.compute_gpu_s / SECONDS_PER_HOUR,
        f.warnings,
    )  # fmt: skip


def _row(
    o: Offer, current: bool, m: MemoryBreakdown | Fit, num_gpus: int, achieved: float,
    usd_per_1e18: float, held_wall_s: float, train_wall_s: float, on_demand_usd: float,
    spot_usd: float | None, held_gpu_hours: float, compute_gpu_hours: float,
    warnings: tuple[str, ...],
) -> GpuComparison:  # fmt: skip
    spec = o.spec
    run_usd = spot_usd if o.pricing_tier == "spot" and spot_usd is not None else on_demand_usd
    # build(GpuComparison, ...) without its keyword call (a 5,000-row catalog makes 5,000)
    return made(
        GpuComparison,
        {
            "gpu_id": spec.id,
            "gpu_name": spec.name,
            "origin": o.origin,
            "provider": o.provider,
            "region": o.region,
            "pricing_tier": o.pricing_tier,
            "current": current,
            "fits": m.fits,
            "gpus_needed": m.gpus_needed,
            "num_gpus": num_gpus,
            "achieved_tflops": achieved / TERA,
            "usd_per_1e18_flops": usd_per_1e18,
            "wall_clock_s": held_wall_s,
            "train_wall_s": train_wall_s,
            "on_demand_usd": on_demand_usd,
            "spot_usd": spot_usd,
            "run_usd": run_usd,
            "held_gpu_hours": held_gpu_hours,
            "compute_gpu_hours": compute_gpu_hours,
            "memory_per_gpu_bytes": m.total_bytes,
            "usable_bytes": m.usable_bytes,
            "bf16_supported": spec.bf16_supported,
            "on_demand_usd_per_hour": spec.on_demand_usd_per_hour,
            "spot_usd_per_hour": spec.spot_usd_per_hour,
            "warnings": warnings,
            "spec": spec,
        },
    )


def compare_gpus(
    inputs: EstimateInputs, rows_or_specs: Iterable[EffectiveRow | CatalogGpu | GpuSpec | Offer]
) -> list[GpuComparison]:
    """The estimate on every GPU, in the order given (rank with ``rank_by_cost``).

    Accepts effective-catalog rows, catalog rows, bare specs or offers. Each GPU is priced at its
    own catalog prices; the GPU count follows ``training.auto_gpu_count`` as in the estimate.
    """
    return GpuComparer().rows(inputs, [offer(item) for item in rows_or_specs])


# Among rows that all fit (or all do not), the order of the cost and wall-clock rankings: the
# attributes read in C (a 5,000-row catalog is ranked on every edit).
_COST = attrgetter("run_usd", "wall_clock_s")
_TIME = attrgetter("wall_clock_s", "run_usd")


def _fitting_first(rows: Sequence[GpuComparison], key: Any) -> list[GpuComparison]:
    """``sorted(rows, key=(not fits, *key(r)))``: sorted by ``key``, then those that fit taken
    first (both stable, so the same order)."""
    ordered = sorted(rows, key=key)
    ranked = [r for r in ordered if r.fits]
    if len(ranked) < len(ordered):
        ranked += [r for r in ordered if not r.fits]
    return ranked


def rank_by_cost(rows: Sequence[GpuComparison]) -> list[GpuComparison]:
    """GPUs that fit, cheapest run first; then those that do not fit, likewise.

    A run is costed at the row's tier (``run_usd``): on-demand (or the committed rate), or on
    spot with interruptions for a spot row.

    Ties go to the shorter wall-clock, then to the catalog order (the sort is stable).
    """
    return _fitting_first(rows, _COST)


def rank_by_wall_clock(rows: Sequence[GpuComparison]) -> list[GpuComparison]:
    """GPUs that fit, shortest held wall-clock first (ties: cheaper); then those that do not."""
    return _fitting_first(rows, _TIME)


def cheapest_fitting(rows: Iterable[GpuComparison]) -> GpuComparison | None:
    """The GPU that fits with the cheapest run at its tier (the first of ``rank_by_cost``)."""
    fitting = [r for r in rows if r.fits]
    return min(fitting, key=_COST) if fitting else None


def fastest_fitting(rows: Iterable[GpuComparison]) -> GpuComparison | None:
    """The GPU that fits with the shortest held wall-clock."""
    fitting = [r for r in rows if r.fits]
    return min(fitting, key=_TIME) if fitting else None


def ranking(
    rows: Sequence[GpuComparison], by: str
) -> tuple[list[GpuComparison], GpuComparison | None, GpuComparison | None]:
    """The rows ranked by cost (``by`` "cost") or by wall-clock ("wall_clock"), with the cheapest
    and the fastest GPU that fit: the ranking's first row, when it fits, is its own criterion's
    (the first of the equals in ``rows``' order, as ``min`` finds it).

    The same rows as ``rank_by_cost``/``rank_by_wall_clock``, ``cheapest_fitting`` and
    ``fastest_fitting`` (tests/core/test_compare.py), with each row's fit, cost and wall-clock read
    once, in ``rows``' order, and sorted as floats: the window ranks 5,000 rows on every edit,
    and reading rows in ranked order (each a model of its own) cost more than the sort."""
    fits = [r.fits for r in rows]
    run = [r.run_usd for r in rows]
    wall = [r.wall_clock_s for r in rows]
    total = sum(run) + sum(wall)
    if total != total:  # a NaN (or inf − inf): ranked by the definition, whatever NaN does there
        return _ranking(rows, by)
    first, second = (wall, run) if by == "wall_clock" else (run, wall)
    # A stable sort by the second key, then by the first: the order of (first, second) tuples.
    order = sorted(range(len(rows)), key=second.__getitem__)
    order.sort(key=first.__getitem__)
    ranked = [rows[i] for i in order if fits[i]]
    if len(ranked) < len(rows):
        ranked += [rows[i] for i in order if not fits[i]]
    best = ranked[0] if ranked and ranked[0].fits else None
    if by == "wall_clock":
        return ranked, _least(rows, fits, run, wall), best
    return ranked, best, _least(rows, fits, wall, run)


def _least(
    rows: Sequence[GpuComparison], fits: list[bool], first: list[float], second: list[float]
) -> GpuComparison | None:
    """``min`` of the rows that fit by (first, second): the first of the equals."""
    fitting = [i for i, f in enumerate(fits) if f]
    if not fitting:
        return None
    least = min([first[i] for i in fitting])
    tied = [i for i in fitting if first[i] == least]
    if len(tied) > 1:
        least = min([second[i] for i in tied])
        tied = [i for i in tied if second[i] == least]
    return rows[tied[0]]


def _ranking(
    rows: Sequence[GpuComparison], by: str
) -> tuple[list[GpuComparison], GpuComparison | None, GpuComparison | None]:
    """``ranking`` by its definition."""
    ranked = rank_by_wall_clock(rows) if by == "wall_clock" else rank_by_cost(rows)
    best = ranked[0] if ranked and ranked[0].fits else None
    if by == "wall_clock":
        return ranked, cheapest_fitting(rows), best
    return ranked, best, fastest_fitting(rows)


# --- Many offers, few changes: the comparison of the window's "Which GPU" view ----------------


# A plan costs about 2 row finishes on the float-column path (row_columns; measured on the
# 5,000-GPU distinct catalog of benchmarks/bench_scale.py: a plan ~30 µs, its memory step shared
# by the GPUs of its memory size included, a row's finish ~16 µs, on a loaded 2-core machine).
PLAN_UNITS = 2
_RELEASE = 512  # cached rows and plans of former inputs freed per call


class GpuComparer:
    """``compare_gpus`` for a catalog that changes rarely and inputs that change often.

    Keeps, for the current inputs (their own GPU aside: every row replaces it), one comparison
    per offer and one GPU plan per GPU (``row_columns.RowFloats``: a row plan does not read
    prices), so that:

    - an offer already compared is not estimated again (adopting a GPU changes the inputs'
      GPU only; switching back to a catalog, or editing one row, estimates the new offers only);
    - offers of the same GPU at other prices (providers, regions, tiers) share one plan and
      only the finish runs for each;
    - an edit no plan reads (the MFU, the estimate's own prices, spot, project: what
      ``remembered.plan_key`` leaves out) keeps the plans: only the rows are finished again, at
      the MFU chosen again.

    Plans and rows come from the float-column path (``row_columns.RowColumns``): the rows of the
    row-plan path (``offer_row`` of ``row_plans.row_plan``), with what no GPU changes worked out
    once. ``missing`` lists the offers still to compare, ``compare_some`` compares some of them
    (the window does it in slices between events), ``rows`` gives the rows. ``plans`` and
    ``finishes`` count the work done (tests count it; nothing is timed).
    """

    def __init__(self) -> None:
        self._key: EstimateInputs | None = None
        self._plan_key: tuple[Any, ...] | None = None
        self._inputs: EstimateInputs | None = None
        # By the offer's identity: offers are made once per catalog row (CatalogService), and
        # hashing 5,000 pydantic specs per look would cost more than the lookups save.
        self._rows: dict[int, tuple[Offer, GpuComparison]] = {}
        # By the offer's facts: its plan (an offer's own spec prices it and, without a spot
        # price, names its tier in the warning: offers of one GPU may be billed in other tiers).
        self._plans: dict[tuple[Any, ...], RowFloats] = {}
        # Plans of former inputs that read what the current ones do (MFU, price edits).
        self._earlier: dict[tuple[Any, ...], RowFloats] = {}
        self._fits = GpuFits()  # the memory fits of the plan key's job
        self._columns: RowColumns | None = None  # the plan key's planner, made on first use
        self._trash: list[dict[Any, Any]] = []
        self.plans = 0
        self.finishes = 0

    def _use(self, inputs: EstimateInputs) -> None:
        """Forget the rows when the inputs change other than in their GPU, and the plans when
        they change in what a plan reads."""
        if inputs is self._inputs:
            return
        key = inputs_on_gpu(inputs, _NO_GPU)
        if key != self._key:
            self._key = key
            # Freeing 5,000 rows and plans at once takes tens of ms: it is done a little at a
            # time by the calls that follow (``_release``), not in the edit that changed inputs.
            self._trash.append(self._rows)
            self._rows = {}
            pk = (key.model, key.data, key.training, key.objective, plan_key(key))
            if pk == self._plan_key:
                self._earlier.update(self._plans)
            else:
                self._plan_key = pk
                self._trash.append(self._earlier)
                self._earlier = {}
                self._fits = GpuFits()
                self._columns = None
            if self._plans:
                self._trash.append(self._plans)
                self._plans = {}
        self._inputs = inputs

    def _release(self, items: int = _RELEASE) -> None:
        trash = self._trash
        while trash and items > 0:
            if trash[-1]:
                trash[-1].popitem()
                items -= 1
            else:
                trash.pop()

    def _known(self, o: Offer) -> GpuComparison | None:
        hit = self._rows.get(id(o))
        return hit[1] if hit is not None and hit[0] is o else None

    def missing(self, inputs: EstimateInputs, offers: Iterable[Offer]) -> list[Offer]:
        """The offers not compared yet for these inputs, in the order given."""
        self._use(inputs)
        return [o for o in offers if self._known(o) is None]

    def compare_some(
        self, inputs: EstimateInputs, offers: Sequence[Offer], units: int | None = None
    ) -> int:
        """Compare these offers in order (those already compared are skipped); with ``units``,
        stop once that much work is done (a finish is 1 unit, a plan ``PLAN_UNITS`` more).
        Returns how many of ``offers`` were gone through."""
        self._use(inputs)
        self._release()
        spent = 0
        plans, earlier, rows = self._plans, self._earlier, self._rows
        columns = self._columns
        for i, o in enumerate(offers):
            if units is not None and spent >= units:
                return i
            hit = rows.get(id(o))
            if hit is not None and hit[0] is o:  # compared already (``_known``)
                continue
            spec, facts = o.spec, o.facts
            if columns is None:
                columns = self._columns = RowColumns(inputs_on_gpu(inputs, spec), self._fits)
            p = plans.get(facts)
            if p is None:
                p = earlier.get(facts) if earlier else None
                if p is None:
                    p = columns.plan(inputs, spec)
                    self.plans += 1
                    spent += PLAN_UNITS
                plans[facts] = p
            f = columns.finish(inputs, p, spec, spec.on_demand_usd_per_hour, spec.spot_usd_per_hour)
            rows[id(o)] = (o, _priced(o, p.memory, p.num_gpus, f))
            self.finishes += 1
            spent += 1
        return len(offers)

    def rows(self, inputs: EstimateInputs, offers: Sequence[Offer]) -> list[GpuComparison]:
        """One comparison per offer, in the order given (missing ones are compared now)."""
        self.compare_some(inputs, offers)
        current = id_key(inputs.hardware.gpu.id)
        known = self._rows
        out = [known[id(o)][1] for o in offers]
        for i, o in enumerate(offers):
            if o.id_key == current:  # (the key made once per offer: 5,000 rows an edit)
                out[i] = out[i].model_copy(update={"current": True})
        return out


_NO_GPU = GpuSpec(id="", name="")
