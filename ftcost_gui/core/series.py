"""Everything the plots draw, computed by the core: one ``Outcome`` per input set.

An ``Outcome`` is the estimate and every series a view plots from it: the memory per GPU by method
(each method on the same GPUs) and the cost per run against MFU with the current point. Views
draw the series they are given and compare them by value to skip a redraw; they never estimate.
``Outcomes`` computes each input set once: a full estimate (one ``plan``) per input set, and the
memory of another method once per ``MemoryInputs`` (an MFU, price or token edit reuses the bars).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .architecture import ParamCounts
from .document import EstimateDocument
from .estimate import finish, plan
from .inputs import EstimateInputs
from .memory import RECIPES
from .memory_step import MemoryInputs, memory_per_gpu
from .params import NO_ADAPTERS, lora_adapters
from .plan import Plan
from .ranges import cost_band
from .results import MEMORY_PART_LABELS, Band, EstimateResult, MemoryBreakdown
from .sweep import sweep_columns
from .units import GIB
from .variants import compared_methods, training_same_gpus

# The cost curve's MFU values: 10 % … 60 % in steps of 1 %, around the well-tuned band.
SWEEP_MFUS: tuple[float, ...] = tuple(round(0.10 + 0.01 * i, 2) for i in range(51))
WELL_TUNED_MFU_PCT = (35.0, 55.0)  # article 000: a well-tuned run reaches 35–55 % MFU


@dataclass(frozen=True, slots=True)
class MemoryBars:
    """Stacked memory bars, one per method (or scenario); parts in MEMORY_PART_LABELS order."""

    keys: tuple[str, ...]  # methods, or scenario names
    active: int  # the bar of the current method / the selected scenario
    parts_gib: tuple[tuple[float, ...], ...]  # [part][bar]
    usable_gib: tuple[float, ...]  # per bar
    capacity_gib: tuple[float, ...]
    gpus_needed: tuple[int | None, ...]  # fewest GPUs that fit; None: no count does
    num_gpus: tuple[int, ...]  # the GPUs each bar is drawn for
    fits: tuple[bool, ...]
    # (low, high) GiB of each bar's range (core/ranges.py); None where the bar has none
    ranges_gib: tuple[tuple[float, float] | None, ...] = ()

    @property
    def totals_gib(self) -> tuple[float, ...]:
        return tuple(sum(col) for col in zip(*self.parts_gib, strict=True))

    def part(self, key: str) -> tuple[float, ...]:
        return self.parts_gib[PART_INDEX[key]]


PART_INDEX = {key: i for i, key in enumerate(MEMORY_PART_LABELS)}


def memory_bars(
    keys: Sequence[str], memories: Sequence[MemoryBreakdown], num_gpus: Sequence[int], active: int,
    ranges: Sequence[Band | None] = (),
) -> MemoryBars:  # fmt: skip
    parts = [dict(m.parts()) for m in memories]
    return MemoryBars(
        keys=tuple(keys),
        active=active,
        parts_gib=tuple(tuple(p[key] / GIB for p in parts) for key in MEMORY_PART_LABELS),
        usable_gib=tuple(m.usable_bytes / GIB for m in memories),
        capacity_gib=tuple(m.capacity_bytes / GIB for m in memories),
        gpus_needed=tuple(m.gpus_needed for m in memories),
        num_gpus=tuple(num_gpus),
        fits=tuple(m.fits for m in memories),
        ranges_gib=tuple(None if b is None else (b.low / GIB, b.high / GIB) for b in ranges),
    )


@dataclass(frozen=True, slots=True)
class CostPoint:
    mfu_pct: float
    on_demand_usd: float
    spot_usd: float | None
    low_usd: float | None = None  # the cost range (core/ranges.py): its low and high ends
    high_usd: float | None = None


@dataclass(frozen=True, slots=True)
class CostCurve:
    """Cost per run over SWEEP_MFUS; the spot line only when every point has a spot price."""

    mfu_pct: tuple[float, ...]
    on_demand_usd: tuple[float, ...]
    spot_usd: tuple[float, ...] | None
    # At each MFU, the cost with the cheapest offer and communication as modelled, and with the
    # dearest offer and no communication hidden (core/ranges.py): the band around the line.
    low_usd: tuple[float, ...] = ()
    high_usd: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class Outcome:
    """One input set's estimate and everything plotted from it."""

    inputs: EstimateInputs
    result: EstimateResult
    memory_by_method: MemoryBars
    cost_curve: CostCurve
    cost_now: CostPoint  # the inputs' MFU on the curve


# The curves' x: the same for every plan (one tuple, not 51 floats a curve)
_SWEEP_MFU_PCT: tuple[float, ...] = tuple(mfu * 100 for mfu in SWEEP_MFUS)


def cost_curve(p: Plan, *, band: bool = True) -> CostCurve:
    """``band``: with the range around the line (the one-scenario plot draws it; the
    all-scenario plot does not). The sweep's columns as they are, no point object each (issue
    17: ~1/6 of a report's estimate at 200 scenarios)."""
    s = sweep_columns(p, SWEEP_MFUS)
    low, high = cost_band(p, SWEEP_MFUS) if band else ((), ())
    return CostCurve(
        mfu_pct=_SWEEP_MFU_PCT,
        on_demand_usd=tuple(s.on_demand_usd),
        spot_usd=None if s.spot_usd is None else tuple(s.spot_usd),
        low_usd=low,
        high_usd=high,
    )


def method_memory(mi: MemoryInputs, counts: ParamCounts) -> MemoryBreakdown:
    """The memory step alone (no time or cost): all the memory bars need of another method."""
    full = RECIPES[mi.training.method].full
    adapters = NO_ADAPTERS if full else lora_adapters(mi.model, counts, mi.training)
    return memory_per_gpu(mi, counts, adapters, []).breakdown


class Outcomes:
    """Outcome per input set, each computed once; ``keep`` forgets what no scenario uses.

    Looked up by the inputs object first (an edit leaves every other scenario's inputs the same
    object, and hashing a whole input set costs microseconds a thousand scenarios add up), then
    by value (a file or an undo step brings equal inputs back as new objects).
    """

    def __init__(self) -> None:
        self._outcomes: dict[EstimateInputs, Outcome] = {}
        self._by_id: dict[int, tuple[EstimateInputs, Outcome]] = {}
        self._memory: dict[MemoryInputs, MemoryBreakdown] = {}
        self._uses: dict[EstimateInputs, tuple[MemoryInputs, ...]] = {}
        self._users: dict[MemoryInputs, int] = {}  # input sets whose outcome uses that memory

    def get(self, inputs: EstimateInputs) -> Outcome:
        seen = self._by_id.get(id(inputs))
        if seen is not None and seen[0] is inputs:
            return seen[1]
        found = self._outcomes.get(inputs)
        if found is None:
            found = self._outcomes[inputs] = self._compute(inputs)
        self._by_id[id(inputs)] = (inputs, found)
        return found

    def keep(self, inputs: Sequence[EstimateInputs]) -> None:
        """Forget every input set but these, and the other methods' memory only they used."""
        by_id: dict[int, tuple[EstimateInputs, Outcome]] = {}
        for x in inputs:
            seen = self._by_id.get(id(x))
            if seen is None or seen[0] is not x:
                found = self._outcomes.get(x)
                if found is None:
                    continue
                seen = (x, found)
            by_id[id(x)] = seen
        self._by_id = by_id
        if len(self._outcomes) == len({id(o) for _, o in by_id.values()}):
            return  # every cached outcome is still used (the usual edit: one in, one out)
        kept = {id(o) for _, o in by_id.values()}
        for key in [k for k, o in self._outcomes.items() if id(o) not in kept]:
            del self._outcomes[key]
            for mi in self._uses.pop(key, ()):  # the other methods' memory it alone used
                self._users[mi] -= 1
                if not self._users[mi]:
                    del self._users[mi], self._memory[mi]

    def _compute(self, inputs: EstimateInputs) -> Outcome:
        p = plan(inputs)
        result = finish(p)
        n = result.time.num_gpus
        current = inputs.training.method
        base = MemoryInputs.of(inputs)
        methods = compared_methods(current)
        memories, uses = [], []
        for method in methods:
            if method == current:
                memories.append(result.memory)
                continue
            training = training_same_gpus(inputs.training, method, n, result.layout.checkpointing)
            mi = MemoryInputs(
                base.model, training, base.seq_len, base.gpu_memory_gib,
                base.usable_memory_fraction, base.framework_overhead_gib, base.objective,
            )  # fmt: skip
            memory = self._memory.get(mi)
            if memory is None:
                memory = self._memory[mi] = method_memory(mi, p.counts)
            memories.append(memory)
            uses.append(mi)
        self._uses[inputs] = tuple(uses)
        for mi in uses:
            self._users[mi] = self._users.get(mi, 0) + 1
        active = methods.index(current)
        bands = [result.ranges.memory_bytes if i == active else None for i in range(len(methods))]
        bars = memory_bars(methods, memories, [n] * len(methods), active, bands)
        return _outcome(inputs, p, result, bars)


def _outcome(
    inputs: EstimateInputs, p: Plan, result: EstimateResult, bars: MemoryBars, band: bool = True
) -> Outcome:
    return Outcome(
        inputs=inputs,
        result=result,
        memory_by_method=bars,
        cost_curve=cost_curve(p, band=band),
        cost_now=CostPoint(
            result.time.mfu * 100,
            result.cost.on_demand_usd,
            result.cost.spot_usd,
            result.ranges.on_demand_usd.low,
            result.ranges.on_demand_usd.high,
        ),
    )


def own_outcome(inputs: EstimateInputs, *, band: bool = True) -> Outcome:
    """An ``Outcome`` whose memory bars are its own method's only (one plan, no other method's
    memory): all that ``scenario_series`` reads of it, and the estimate itself. A report of
    many scenarios takes its results and its plots' series from these (issue 17). ``band``:
    its cost curve with the range around it, which only the one-scenario plot draws (two more
    sweeps of the plan: ~1/5 of the outcome's work)."""
    p = plan(inputs)
    result = finish(p)
    bars = memory_bars(
        (inputs.training.method,), [result.memory], [result.time.num_gpus], 0,
        [result.ranges.memory_bytes],
    )  # fmt: skip
    return _outcome(inputs, p, result, bars, band)


@dataclass(frozen=True, slots=True)
class ScenarioSeries:
    """The 'all scenarios' plots: one memory bar and one cost curve per scenario."""

    names: tuple[str, ...]
    active: int
    memory: MemoryBars  # keys: the scenario names; each bar on its own GPUs
    curves: tuple[CostCurve, ...]
    now: tuple[CostPoint, ...]


def scenario_series(
    names: Sequence[str], outcomes: Sequence[Outcome], active: int
) -> ScenarioSeries:
    """One bar per scenario: each outcome's own bar of its by-method bars (no estimate, no
    memory part read again), so a thousand scenarios cost a thousand small tuples."""
    bars = [o.memory_by_method for o in outcomes]
    own = [b.active for b in bars]
    columns = [tuple(col[a] for col in b.parts_gib) for b, a in zip(bars, own, strict=True)]
    n = len(bars)
    parts = tuple(zip(*columns, strict=True)) if n else tuple(() for _ in MEMORY_PART_LABELS)
    return ScenarioSeries(
        names=tuple(names),
        active=active,
        memory=MemoryBars(
            keys=tuple(names),
            active=active,
            parts_gib=parts,
            usable_gib=tuple(b.usable_gib[a] for b, a in zip(bars, own, strict=True)),
            capacity_gib=tuple(b.capacity_gib[a] for b, a in zip(bars, own, strict=True)),
            gpus_needed=tuple(b.gpus_needed[a] for b, a in zip(bars, own, strict=True)),
            num_gpus=tuple(o.result.time.num_gpus for o in outcomes),
            fits=tuple(b.fits[a] for b, a in zip(bars, own, strict=True)),
            ranges_gib=tuple(b.ranges_gib[a] for b, a in zip(bars, own, strict=True)),
        ),
        curves=tuple(o.cost_curve for o in outcomes),
        now=tuple(o.cost_now for o in outcomes),
    )


def document_series(document: EstimateDocument, outcomes: Outcomes) -> ScenarioSeries:
    """Every scenario of a document (the report's and the CLI's way in)."""
    return scenario_series(
        [s.name for s in document.scenarios],
        [outcomes.get(s.inputs) for s in document.scenarios],
        document.active,
    )
