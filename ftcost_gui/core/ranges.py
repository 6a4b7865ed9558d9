"""Ranges: low, expected and high of the figures a decision rests on, and what each band is.

The expected figure is the estimate's own. The bands widen it by what the estimate cannot know:

- **Memory per GPU** (the device total). Low: when a micro-batch is padded to its longest row
  and the data is shorter than the max length, no row of the run reaches the max length; the
  peak is at the data's longest sequence (the measured histogram's top edge, or the log-normal's
  (1 − 1/N) quantile for N sequences an epoch). High: the allocator at its measured worst, 0.73
  allocated ÷ reserved (PEFT's MetaMathQA LoRA runs, docs/accuracy.md: 0.73–0.82 measured)
  instead of the allocator efficiency given, when that is higher.
- **Time** (compute GPU-hours, held wall-clock and GPU-hours). Low: the MFU at the top of its
  uncertainty band, MFU × (1 + band), communication overlapping compute as modelled (comm.py's
  windows). High: MFU × (1 − band), and no communication hidden at all (overlap 0: NCCL
  serialised behind compute, the worst a link can do).
- **Cost**: held GPU-hours of each end × the price; the price ranges over the GPU's on-demand
  offers where its catalog row gives a range (``on_demand_low/high_usd_per_hour``). Spot and the
  project follow the run's time band.

low ≤ expected ≤ high holds for every figure over the whole input space
(tests/core/test_ranges.py): each end moves every input of the figure the same way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from . import alignment
from .comm import CommPlan
from .inputs import EstimateInputs, GpuSpec
from .lengths import distribution
from .plan import Plan
from .remembered import memory_step, new_memo
from .results import (
    _SET_DICT,
    _SET_EXTRA,
    _SET_FIELDS,
    _SET_PRIVATE,
    Band,
    _new,
)
from .sweep import run_columns
from .time_cost import TimePlan

# Allocated ÷ reserved memory at the peak, the lowest measured (docs/accuracy.md: PEFT's
# MetaMathQA LoRA r32/r64 runs on an L40S, 5,000 steps, padded batches: 0.73).
WORST_ALLOCATOR_EFFICIENCY = 0.73


_BAND_FIELDS = set(Band.model_fields)


def _band(low: float, expected: float, high: float) -> Band:
    """``made(Band, …)`` inlined: a finish makes eight."""
    m = _new(Band)
    _SET_DICT(m, {"low": low, "expected": expected, "high": high})
    _SET_FIELDS(m, _BAND_FIELDS)
    _SET_EXTRA(m, None)
    _SET_PRIVATE(m, None)
    return m


def longest_row(inputs: EstimateInputs) -> float:
    """The longest row a micro-batch holds over the run: the max length, unless the rows are
    padded to their longest and the data's longest sequence is shorter."""
    d, s = inputs.data, inputs.data.max_seq_len
    if d.mode != "examples" or d.padding != "longest" or alignment.is_rl(inputs.objective):
        return float(s)
    dist = distribution(d.mean_tokens_per_example, d.length_cv, d.length_histogram)
    sequences = d.num_examples * (2 if inputs.objective.objective == "dpo" else 1)
    top = dist.quantile(1.0 - 1.0 / (sequences + 1))
    return float(min(s, max(1, math.ceil(top))))


def _memory_at(p: Plan, seq_len: int) -> float:
    """The device total per GPU on the plan's GPUs with rows of ``seq_len`` tokens (remembered
    with the plan's own memory steps: an edit that leaves memory alone computes none)."""
    step = memory_step(
        p.memory_inputs, p.counts, p.job.adapters, [], p.layout.checkpointing,
        p.layout.step.num_gpus, seq_len,
    )  # fmt: skip
    return step.breakdown.total_bytes


def _price_band(gpu: GpuSpec) -> tuple[float, float, float]:
    """(cheapest, given, dearest) on-demand price: the catalog's range of offers, widened to
    hold the price given."""
    od = gpu.on_demand_usd_per_hour
    lo, hi = gpu.on_demand_low_usd_per_hour, gpu.on_demand_high_usd_per_hour
    return min(od, od if lo is None else lo), od, max(od, od if hi is None else hi)


def exposed_comm(t: TimePlan) -> CommPlan | None:
    """The plan's communication with none of it hidden (the high end); None: no band (a flat
    overhead, no communication or none hidden)."""
    comm = t.comm
    if t.comm_flat is None and comm.seconds_per_step > 0 and comm.overlap > 0:
        return comm._replace(overlap=0.0)
    return None


_COMM = TimePlan._fields.index("comm")


def _exposed(p: Plan, comm: CommPlan | None = None) -> TimePlan:
    """The time plan with no communication hidden (the high end), when there is a band
    (``comm``: its ``exposed_comm``, when known)."""
    t = p.time
    if comm is None:
        comm = exposed_comm(t)
        if comm is None:
            return t
    # t._replace(comm=comm), sooner
    return TimePlan._make((*t[:_COMM], comm, *t[_COMM + 1 :]))


def cost_band(p: Plan, mfus: Sequence[float]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """At each MFU, the cost per run at the cheapest offer with communication as modelled, and at
    the dearest offer with none hidden: the cost curve's band (core/series.py)."""
    od_lo, _, od_hi = _price_band(p.inputs.hardware.gpu)
    exposed = _exposed(p)
    low = tuple(run_columns(p.time, mfus, od_lo)[0])
    high = tuple(run_columns(exposed, mfus, od_hi)[0])
    return low, high


# The memory band of the last few layouts: it reads no MFU and no price (an edit of those
# computes it from the same memory step again).
_MEMORY_BAND_MEMO: list[tuple[tuple[object, ...], tuple[Band, float, bool]]] = new_memo()


def memory_band(p: Plan) -> tuple[Band, float, bool]:
    """(device total per GPU low/expected/high, the allocator efficiency at the high end,
    whether the high end fits the GPU)."""
    step, ckpt, mi, job = key = (p.layout.step, p.layout.checkpointing, p.memory_inputs, p.job)
    for (s, c, m, j), band in _MEMORY_BAND_MEMO:  # by identity (the key keeps them)
        if s is step and c is ckpt and m is mi and j is job:
            return band
    inputs, mem = p.inputs, p.memory
    usable = inputs.hardware.usable_memory_fraction
    # Memory: the rows the data really reaches; the allocator at its measured worst.
    row = p.job.longest_row
    low_mem = _memory_at(p, int(row)) if row < inputs.data.max_seq_len else mem.total_bytes
    low_mem = min(low_mem, mem.total_bytes)
    worst = min(usable, WORST_ALLOCATOR_EFFICIENCY)
    high_mem = (
        mem.peak_allocated_bytes / worst + mem.overhead_bytes
        if worst < usable
        else mem.total_bytes  # already at or below the worst measured: no band
    )
    band = (
        _band(low_mem, mem.total_bytes, max(high_mem, mem.total_bytes)),
        worst,
        high_mem <= mem.capacity_bytes,
    )
    _MEMORY_BAND_MEMO.insert(0, (key, band))
    del _MEMORY_BAND_MEMO[4:]
    return band
