"""Cost per run over many MFU values from one plan (article 000: GPU-hours = FLOPs ÷ (peak ×
MFU); the rest of the run's time is in ``time_cost.run_time``).

``sweep_columns`` is ``time_cost.run_time`` at each MFU, its MFU-free parts taken out of the loop
and the figures kept as columns of floats (issue 17: a million points in about a second, linear
in the points). Columns are arrays of doubles: no object per figure, none the garbage collector
tracks (a tuple per point was, and its collections made a million points cost more than 100 × ten
thousand), and 8 bytes a figure instead of a 24-byte float object in a list (the stages
between are lists of floats, which the collector does not track either). The arithmetic
is ``run_time``'s, operation for operation: every point equals ``run_time``'s figure exactly
(tests/core/test_sweep.py).

Speed: each stage is one list comprehension chosen once per plan, not a branch per point (a
comprehension appends without a method call; ``for x in [expr]`` in one is a plain assignment).
An operation whose operand makes it the identity is left out (``x * 1.0`` is ``x``; ``x + 0.0``
is ``x`` but for -0.0, which no held wall-clock is when the fixed part is positive), one whose
operands are all MFU-free is done once (``steps * 0.0`` where no communication is exposed, a
memory-bound decoding step), and integers are made floats once (``x * 2`` is ``x * 2.0``, and
a float-by-float operation is the interpreter's fast path). The default plan's 1e6-point sweep
(benchmarks/bench_core.py): 1.9 → 1.1 µs a point, least CPU; 9,590 → 6,870 instructions (callgrind).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import NamedTuple

from . import rollout
from .plan import Plan
from .time_cost import TimePlan, runner, shape_of, spot_factor
from .units import SECONDS_PER_HOUR


class SweepPoint(NamedTuple):
    mfu: float
    on_demand_usd: float
    spot_usd: float | None
    held_gpu_hours: float
    wall_s: float


class Sweep(NamedTuple):
    """The figures of a sweep as columns, one entry per MFU."""

    mfu: Sequence[float]
    on_demand_usd: array[float]
    spot_usd: array[float] | None  # None: the GPU has no spot price
    held_gpu_hours: array[float]
    wall_s: array[float]


def sweep_columns(p: Plan, mfus: Sequence[float]) -> Sweep:
    """Cost per run at each MFU: ``run_time(p.time, mfu, price)`` and the spot cost as
    ``estimate.finish`` prices it, column by column."""
    gpu = p.inputs.hardware.gpu
    od, spot = gpu.on_demand_usd_per_hour, gpu.spot_usd_per_hour
    on_demand, gpu_hours, walls = _columns(p.time, mfus, od)
    f = spot_factor(p.inputs, p.nodes)
    # time_cost.spot_run_usd per point, its product written out: a call a point would cost
    # ~60 ms on the 1e6-point sweep (issue 17)
    spot_usd = None if spot is None else array("d", [h * f * spot for h in gpu_hours])
    return Sweep(mfus, array("d", on_demand), spot_usd, array("d", gpu_hours), array("d", walls))


def run_columns(
    t: TimePlan, mfus: Sequence[float], od: float
) -> tuple[array[float], array[float], array[float]]:
    """(on-demand cost, held GPU-hours, held wall-clock) of ``run_time(t, mfu, od)`` at each
    MFU, exactly."""
    on_demand, gpu_hours, walls = _columns(t, mfus, od)
    return array("d", on_demand), array("d", gpu_hours), array("d", walls)


def _columns(
    t: TimePlan, mfus: Sequence[float], od: float
) -> tuple[list[float], list[float], list[float]]:
    """``run_columns`` as lists (the spot column is made from the GPU-hours' list)."""
    walls = held_wall_s(t, mfus)
    billed = float(t.rented_gpus + t.extra_gpus)
    gpu_hours = [billed * w / SECONDS_PER_HOUR for w in walls]
    return [h * od for h in gpu_hours], gpu_hours, walls


def held_wall_s(t: TimePlan, mfus: Sequence[float]) -> list[float]:
    """``run_time(t, mfu, _).held_wall_s`` at each MFU; raises where ``run_time`` raises."""
    walls = _plus_generation(t, mfus, _trained_s(t, mfus))
    # run_time's checkpoint writes are int(train // interval) × write: the floor of a float is a
    # whole float, int() the same number, but int() raises on inf and NaN; so does run_time
    # there, and so does this sweep: a NaN or inf reaches every sum it is in.
    if not math.isfinite(sum(walls)):
        run, shape = runner(t), shape_of(t.mfu)
        for mfu in mfus:
            run(mfu, 0.0, shape)
    return walls


def _trained_s(t: TimePlan, mfus: Sequence[float]) -> list[float]:
    """Fixed time + train wall-clock + checkpoint writes (``run_time``'s held wall-clock before
    generation) at each MFU."""
    flops, peak, n = t.total_flops, t.peak, float(t.num_gpus)
    qlora, offload = t.qlora_flat, t.offload_slowdown
    fixed, interval, write_s = t.fixed_wall_s, t.ckpt_interval_s, t.ckpt_write_s
    if t.comm_flat is not None:
        flat = t.comm_flat
        if qlora == offload == 1.0:
            return [
                fixed + train + (train // interval) * write_s
                for mfu in mfus
                for busy in [flops / (peak * mfu) / n]
                for train in [busy + flat * busy]
            ]
        return [
            fixed + train + (train // interval) * write_s
            for mfu in mfus
            for busy in [flops / (peak * mfu) * qlora / n]
            for train in [(busy + flat * busy) * offload]
        ]
    # time_cost.exposed_s per optimizer step: steps × max(0.0, exposed) written out
    steps, per_step, overlap = t.steps, t.comm.seconds_per_step, t.comm.overlap
    hidden = steps * 0.0
    if qlora == offload == overlap == 1.0:
        return [
            fixed + train + (train // interval) * write_s
            for mfu in mfus
            for busy in [flops / (peak * mfu) / n]
            for exposed in [per_step - busy / steps]
            for train in [busy + (steps * exposed if exposed > 0.0 else hidden)]
        ]
    return [
        fixed + train + (train // interval) * write_s
        for mfu in mfus
        for busy in [flops / (peak * mfu) * qlora / n]
        for exposed in [per_step - overlap * (busy / steps)]
        for train in [(busy + (steps * exposed if exposed > 0.0 else hidden)) * offload]
    ]


def _plus_generation(t: TimePlan, mfus: Sequence[float], walls: list[float]) -> list[float]:
    """``walls`` + the evaluation's + the rollouts' wall-clock at each MFU (``rollout.wall_s``
    at ``time_cost.generation_compute_mfu``)."""
    ev, rl = t.eval_gen, t.rl_gen
    ev_s, rl_s = _mfu_free_s(ev, t), _mfu_free_s(rl, t)
    # ``+ rl_s`` left out where it is ``+ 0.0``: a sum is -0.0 only when both terms are, and no
    # held wall-clock is when the fixed part is > 0.
    rl_adds_nothing = rl_s == 0.0 and t.fixed_wall_s > 0.0
    if ev_s is not None and rl_s is not None:
        if rl_adds_nothing and ev_s == 0.0:
            return walls
        return [w + ev_s + rl_s for w in walls]
    shape = shape_of(t.mfu)
    if ev_s is None and rl_adds_nothing:  # evaluation, no RL: the usual fine-tuning run
        peak = t.peak
        tp, mem_s, flops, steps, prefill, sync = _bandwidth(ev)
        memory_bound = steps * mem_s
        if shape is None:
            return [
                w + ((steps * step if step > mem_s else memory_bound) + prefill / rate + sync)
                for w, gen in zip(walls, mfus, strict=True)
                for rate in [peak * gen * tp]
                for step in [flops / rate]
            ]
        return [
            w + ((steps * step if step > mem_s else memory_bound) + prefill / rate + sync)
            for w, mfu in zip(walls, mfus, strict=True)
            for gen in [mfu / shape]
            for rate in [peak * (1.0 if 1.0 < gen else gen) * tp]
            for step in [flops / rate]
        ]
    gens = (
        mfus if shape is None else [1.0 if 1.0 < gen else gen for m in mfus for gen in [m / shape]]
    )
    evs: Iterable[float] = repeat(ev_s) if ev_s is not None else _bandwidth_s(ev, t.peak, gens)
    rls: Iterable[float] = repeat(rl_s) if rl_s is not None else _bandwidth_s(rl, t.peak, gens)
    return [w + e + r for w, e, r in zip(walls, evs, rls, strict=False)]  # repeat() is endless


def _mfu_free_s(g: rollout.GenerationPlan, t: TimePlan) -> float | None:
    """``rollout.wall_s(g, ...)`` where the MFU does not change it, else None (bandwidth mode)."""
    if rollout.reads_mfu(g):
        return None
    return rollout.wall_s(g, t.peak, 1.0, t.gen_mfu)


def _bandwidth(g: rollout.GenerationPlan) -> tuple[float, float, float, float, float, float]:
    """The plan's operands of ``rollout.wall_s`` in bandwidth mode, the engine's GPUs a float."""
    return float(g.tp), g.decode_mem_s, g.decode_flops, g.decode_steps, g.prefill_flops, g.sync_s


def _bandwidth_s(g: rollout.GenerationPlan, peak: float, gens: Sequence[float]) -> list[float]:
    """``rollout.wall_s(g, peak, gen, _)`` in bandwidth mode at each generation MFU: max(a, x)
    written out (``x if x > a else a``, NaN included), a memory-bound step's time once."""
    tp, mem_s, flops, steps, prefill, sync = _bandwidth(g)
    memory_bound = steps * mem_s
    return [
        (steps * step if step > mem_s else memory_bound) + prefill / rate + sync
        for gen in gens
        for rate in [peak * gen * tp]
        for step in [flops / rate]
    ]


def sweep(p: Plan, mfus: Sequence[float]) -> list[SweepPoint]:
    """Cost per run over MFU values, one point each (a plot's few dozen points)."""
    s = sweep_columns(p, mfus)
    spot = s.spot_usd if s.spot_usd is not None else [None] * len(s.mfu)
    return [
        SweepPoint(*point)
        for point in zip(s.mfu, s.on_demand_usd, spot, s.held_gpu_hours, s.wall_s, strict=True)
    ]
