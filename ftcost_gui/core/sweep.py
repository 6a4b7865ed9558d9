"""Cost per run over many MFU values from one plan (article 000: GPU-hours = FLOPs ÷ (peak ×
MFU); the rest of the run's time is in ``time_cost.run_time``).

``sweep_columns`` is ``time_cost.run_time`` at each MFU, its MFU-free parts taken out of the loop
and the figures kept as columns of floats (issue 17: a million points in about a second, linear
in the points). Columns are arrays of doubles: no object per figure, none the garbage collector
tracks (a tuple per point was, and its collections made a million points cost more than 100 × ten
thousand), and 8 bytes a figure instead of a 24-byte float object in a list. The arithmetic
is ``run_time``'s, operation for operation: every point equals ``run_time``'s figure exactly
(tests/core/test_sweep.py).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import NamedTuple

from . import rollout
from .plan import Plan
from .time_cost import TimePlan, spot_factor
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


_Bandwidth = tuple[int, float, float, float, float, float]


def _generation(
    g: rollout.GenerationPlan, peak: float, gen_mfu: float
) -> tuple[float, _Bandwidth | None]:
    """``rollout.wall_s(g, peak, mfu, gen_mfu)``: (its value, None) where the MFU does not change
    it, else (0.0, (tp, decode_mem_s, decode_flops, decode_steps, prefill_flops, sync_s)) for
    the bandwidth mode's arithmetic at each point."""
    if g.mode == "none":
        return 0.0, None
    if g.mode == "mfu" or g.engines * g.tp == 0:
        return rollout.wall_s(g, peak, 1.0, gen_mfu), None
    return 0.0, (g.tp, g.decode_mem_s, g.decode_flops, g.decode_steps, g.prefill_flops, g.sync_s)


def sweep_columns(p: Plan, mfus: Sequence[float]) -> Sweep:
    """Cost per run at each MFU: ``run_time(p.time, mfu, price)`` and the spot cost as
    ``estimate.finish`` prices it, column by column."""
    gpu = p.inputs.hardware.gpu
    od, spot = gpu.on_demand_usd_per_hour, gpu.spot_usd_per_hour
    on_demand, gpu_hours, walls = run_columns(p.time, mfus, od)
    f = spot_factor(p.inputs, p.nodes)
    # time_cost.spot_run_usd per point, its product written out: a call a point would cost
    # ~60 ms on the 1e6-point sweep (issue 17)
    spot_usd = None if spot is None else array("d", (h * f * spot for h in gpu_hours))
    return Sweep(mfus, on_demand, spot_usd, gpu_hours, walls)


def run_columns(
    t: TimePlan, mfus: Sequence[float], od: float
) -> tuple[array[float], array[float], array[float]]:
    """(on-demand cost, held GPU-hours, held wall-clock) of ``run_time(t, mfu, od)`` at each
    MFU, exactly."""
    n, flops, peak, qlora = t.num_gpus, t.total_flops, t.peak, t.qlora_flat
    comm_flat, steps = t.comm_flat, t.steps
    comm_s_step, overlap = t.comm.seconds_per_step, t.comm.overlap
    offload, interval, write_s = t.offload_slowdown, t.ckpt_interval_s, t.ckpt_write_s
    fixed, billed = t.fixed_wall_s, t.rented_gpus + t.extra_gpus
    shape = t.mfu.default.shape if t.mfu.source == "default" else None
    eval_s, eval_bw = _generation(t.eval_gen, peak, t.gen_mfu)
    rl_s, rl_bw = _generation(t.rl_gen, peak, t.gen_mfu)
    on_demand, gpu_hours, walls = array("d"), array("d"), array("d")
    add_usd, add_hours, add_wall = on_demand.append, gpu_hours.append, walls.append
    hour = SECONDS_PER_HOUR
    # min(x, 1.0) is ``1.0 if 1.0 < x else x`` and max(a, x) ``x if x > a else a``, operand for
    # operand (NaN included): written out, without a built-in call a point.
    for mfu in mfus:
        busy_wall_s = flops / (peak * mfu) * qlora / n
        if comm_flat is not None:
            comm_s = comm_flat * busy_wall_s
        else:  # time_cost.exposed_s per optimizer step
            exposed = comm_s_step - overlap * (busy_wall_s / steps)
            comm_s = steps * (exposed if exposed > 0.0 else 0.0)
        train_wall_s = (busy_wall_s + comm_s) * offload
        held = fixed + train_wall_s + int(train_wall_s // interval) * write_s
        if eval_bw is None and rl_bw is None:
            held = held + eval_s + rl_s  # x + 0.0 is x: no generation, the same figure
        else:  # rollout.wall_s in bandwidth mode at time_cost.generation_compute_mfu
            if shape is None:
                gen = mfu
            else:
                gen = mfu / shape
                gen = 1.0 if 1.0 < gen else gen
            e, r = eval_s, rl_s
            if eval_bw is not None:
                tp, mem_s, dflops, dsteps, prefill, sync = eval_bw
                rate = peak * gen * tp
                x = dflops / rate
                e = dsteps * (x if x > mem_s else mem_s) + prefill / rate + sync
            if rl_bw is not None:
                tp, mem_s, dflops, dsteps, prefill, sync = rl_bw
                rate = peak * gen * tp
                x = dflops / rate
                r = dsteps * (x if x > mem_s else mem_s) + prefill / rate + sync
            held = held + e + r
        held_gpu_h = billed * held / hour
        add_usd(held_gpu_h * od)
        add_hours(held_gpu_h)
        add_wall(held)
    return on_demand, gpu_hours, walls


def sweep(p: Plan, mfus: Sequence[float]) -> list[SweepPoint]:
    """Cost per run over MFU values, one point each (a plot's few dozen points)."""
    s = sweep_columns(p, mfus)
    spot = s.spot_usd if s.spot_usd is not None else [None] * len(s.mfu)
    return [
        SweepPoint(*point)
        for point in zip(s.mfu, s.on_demand_usd, spot, s.held_gpu_hours, s.wall_s, strict=True)
    ]
