"""Steps: time and cost of one run, from the FLOPs, the GPUs, the MFU and the communication.

Article 000: GPU-hours = FLOPs ÷ (peak × MFU); article 001: you pay for GPUs held (start-up,
checkpoint writes, evaluation, idle), not GPUs computing. The MFU comes from throughput.py (the
GPU's achievable matmul fraction × the stack efficiency, unless the user pins it); communication
from comm.py (bytes per step over the link, less what overlaps compute), per optimizer step.
``plan_time`` gathers everything that does not depend on the MFU, so a sweep over MFU
(``run_time``) costs a few float operations a point.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from . import calibration as cal
from . import rollout
from .architecture import ParamCounts
from .comm import Collective, CommPlan, comm_overhead_table
from .gpu_spec import TIER_LABELS
from .inputs import EstimateInputs
from .memory import (
    ADAPTER_GRAD_BYTES,
    ADAPTER_MOMENT_BYTES,
    ADAPTER_WEIGHT_BYTES,
    BF16_BYTES,
    RECIPES,
)
from .params import Adapters
from .results import (
    CollectiveResult,
    build,
)
from .rollout import GenerationPlan
from .throughput import MfuChoice
from .units import GB, SECONDS_PER_HOUR, SECONDS_PER_MINUTE, TERA


def trainable_grad_bytes(method: str, total_params: float, adapter_params: float) -> float:
    """Gradients a data-parallel step reduces: every parameter's (bf16, recipe bytes), or only the
    adapters' (fp32) when the base is frozen (comm.py)."""
    recipe = RECIPES[method]
    if recipe.full:
        return total_params * recipe.gradients
    return adapter_params * ADAPTER_GRAD_BYTES


class Checkpoint(NamedTuple):
    """A resumable checkpoint (article 001: fp32 master + two moments, 12 B/param)."""

    params: float  # parameters whose state is saved
    bytes_per_param: float
    resumable_bytes: float


def resumable_checkpoint(method: str, counts: ParamCounts, adapters: Adapters) -> Checkpoint:
    recipe = RECIPES[method]
    full_bpp = (
        (recipe.master + recipe.moments + (0 if recipe.master else recipe.weights))
        if recipe.full
        else 0.0
    )
    adapter_bpp = ADAPTER_WEIGHT_BYTES + ADAPTER_MOMENT_BYTES
    resumable = counts.total * full_bpp + adapters.total * adapter_bpp
    if recipe.full:
        return Checkpoint(counts.total, full_bpp, resumable)
    return Checkpoint(adapters.total, adapter_bpp, resumable)


class TimePlan(NamedTuple):
    """Everything of a run's time that does not depend on the MFU or the prices."""

    total_flops: float
    num_gpus: int  # GPUs that train
    rented_gpus: int  # GPUs billed (≥ num_gpus: rental units, whole nodes)
    steps: float  # optimizer steps of the run
    comm: CommPlan
    comm_flat: float | None  # a flat overhead (given, or the articles' table); None: from bytes
    qlora_flat: float  # a flat QLoRA slowdown given by the user (1: none)
    offload_slowdown: float  # applied (1 unless the optimizer is offloaded)
    fixed_wall_s: float  # provisioning, download, warm-up, NCCL, idle
    eval_gen: GenerationPlan  # evaluation passes of the run (rollout.py)
    rl_gen: GenerationPlan  # GRPO/PPO rollouts of the run, weight syncs included
    extra_gpus: int  # rollout GPUs held beside the trainer's (vLLM on separate GPUs)
    ckpt_write_s: float
    ckpt_interval_s: float
    peak: float  # FLOP/s per GPU, dense BF16 (FP16 where the GPU has no BF16)
    gen_mfu: float
    download_s: float
    nccl_s: float
    mfu: MfuChoice


def generation_compute_mfu(choice: MfuChoice, mfu: float) -> float:
    """The MFU prefill and compute-bound decoding run at: the training MFU without the training
    stack's per-micro-batch fixed costs (the default's data-shape factor), which generation does
    not pay; a pinned MFU or stack efficiency (the MFU ``choice``) is taken as given."""
    if choice.source != "default":
        return mfu
    return min(mfu / choice.default.shape, 1.0)


def plan_time(
    inputs: EstimateInputs,
    counts: ParamCounts,
    total_flops: float,
    tokens_processed: float,
    tokens_per_step: float,
    layout: tuple[int, int, int],
    comm: CommPlan,
    mfu: MfuChoice,
    checkpoint: Checkpoint,
    generation: tuple[GenerationPlan, GenerationPlan, int] | None = None,
) -> TimePlan:
    """The MFU-free part of the time; ``layout`` is (training GPUs, rented GPUs, node size)."""
    tr, eff, ov = inputs.training, inputs.efficiency, inputs.overheads
    n, rented, node = layout
    comm_flat = eff.comm_overhead
    if comm_flat is None and eff.communication == "table":
        full = RECIPES[tr.method].full
        fabric = inputs.hardware.gpu.interconnect
        comm_flat = comm_overhead_table(n, node, fabric, tr.sharding, full)
    qlora = eff.qlora_slowdown if tr.method == "qlora" and eff.qlora_slowdown is not None else 1.0
    offload = eff.offload_slowdown if tr.cpu_offload_optimizer else 1.0
    download_s = (
        0.0 if ov.weights_cached else counts.total * BF16_BYTES / (ov.download_gb_per_s * GB)
    )
    nccl_s = ov.nccl_init_min * SECONDS_PER_MINUTE if n > 1 else 0.0
    fixed_wall_s = (
        ov.provisioning_min * SECONDS_PER_MINUTE
        + download_s
        + ov.warmup_min * SECONDS_PER_MINUTE
        + nccl_s
        + ov.idle_hours_per_run * SECONDS_PER_HOUR
    )
    if generation is None:
        generation = (rollout.eval_plan(inputs, counts, n), rollout.NO_GENERATION, 0)
    eval_gen, rl_gen, extra_gpus = generation
    return TimePlan(
        total_flops=total_flops,
        num_gpus=n,
        rented_gpus=rented,
        steps=tokens_processed / (tokens_per_step * n),
        comm=comm,
        comm_flat=comm_flat,
        qlora_flat=qlora,
        offload_slowdown=offload,
        fixed_wall_s=fixed_wall_s,
        eval_gen=eval_gen,
        rl_gen=rl_gen,
        extra_gpus=extra_gpus,
        ckpt_write_s=checkpoint.resumable_bytes / (ov.checkpoint_write_gb_per_s * GB),
        ckpt_interval_s=ov.checkpoint_interval_min * SECONDS_PER_MINUTE,
        peak=inputs.hardware.gpu.bf16_tflops * TERA,
        gen_mfu=ov.generation_mfu,
        download_s=download_s,
        nccl_s=nccl_s,
        mfu=mfu,
    )


class RunTime(NamedTuple):
    """Time and cost of one run at one MFU; the part a sweep recomputes."""

    achieved_flops_per_s: float
    busy_wall_s: float  # the GPUs computing: FLOPs ÷ (peak × MFU) ÷ GPUs (× a flat QLoRA factor)
    comm_exposed_s: float  # communication not hidden behind compute, whole run
    compute_gpu_s: float
    train_wall_s: float
    checkpoint_writes_s: float
    writes: int
    eval_s: float
    rl_s: float
    held_wall_s: float
    held_gpu_hours: float
    on_demand_usd: float


def run_time(plan: TimePlan, mfu: float, od_price: float) -> RunTime:
    """The run time of ``plan`` at ``mfu``: ``runner``'s one formula, bound for this call (the
    finish binds it once per plan)."""
    return runner(plan)(mfu, od_price, generation_shape(plan))


# run(mfu, od_price, shape): a time plan's run time (``runner``).
Run = Callable[[float, float, "float | None"], RunTime]
_tuple_new = tuple.__new__


def runner(plan: TimePlan) -> Run:
    """``run_time(plan, mfu, od)`` as ``run(mfu, od, shape)``, the plan's MFU-free operands bound
    once (an MFU edit's finish runs five: finishing.Fixed keeps its plan's). ``shape``: the
    MFU default's shape when the plan's MFU is the default's, else None
    (``generation_compute_mfu``); any plan equal to ``plan`` but in its MFU choice gives the
    same run time. ``bind_run``'s formula with this plan's peak (a partial: called in C)."""
    o, peak = run_operands(plan), plan.peak
    return partial(bind_run(o), peak, fixed_eval_s(o, peak))


class RunOperands(NamedTuple):
    """What ``runner`` binds of a time plan, but its peak (and the evaluation's wall-clock, which
    reads it): the same for every GPU whose time plan differs in peak and MFU only ("Which GPU"
    binds one per such GPUs: core/row_columns.py)."""

    num_gpus: int
    flops: float
    qlora: float
    comm_flat: float | None
    steps: float
    comm_s_step: float
    overlap: float
    offload: float
    interval: float
    write_s: float
    fixed: float
    billed: int
    extra_gpus: int
    ev: GenerationPlan
    ev_bw: bool
    rl: GenerationPlan
    no_rl: bool
    gen_mfu: float


def run_operands(t: TimePlan) -> RunOperands:
    """``runner(t)``'s bound operands but its peak."""
    ev, rl = t.eval_gen, t.rl_gen
    return RunOperands(
        t.num_gpus, t.total_flops, t.qlora_flat, t.comm_flat, t.steps, t.comm.seconds_per_step,
        t.comm.overlap, t.offload_slowdown, t.ckpt_interval_s, t.ckpt_write_s, t.fixed_wall_s,
        t.rented_gpus + t.extra_gpus, t.extra_gpus, ev,
        rollout.reads_mfu(ev), rl, rl is rollout.NO_GENERATION,
        t.gen_mfu,
    )  # fmt: skip


def fixed_eval_s(o: RunOperands, peak: float) -> float:
    """The evaluation's wall-clock where the MFU does not change it (``rollout.wall_s``), else
    0.0: its bandwidth mode is worked out at each run (``bind_run``)."""
    return 0.0 if o.ev_bw else rollout.wall_s(o.ev, peak, 1.0, o.gen_mfu)


# run(peak, ev_s, mfu, od_price, shape): ``bind_run``'s run of a time plan of given operands.
PeakRun = Callable[[float, float, float, float, "float | None"], RunTime]


def bind_run(o: RunOperands) -> PeakRun:
    """The run time and on-demand bill of a time plan with these operands, as
    ``run(peak, ev_s, mfu, od_price, shape)`` (``ev_s``: ``fixed_eval_s`` at that peak; ``shape``
    as ``runner``'s): ``run_time``'s one formula, bound once per operands ("Which GPU" binds one
    for every GPU of the same operands: core/row_columns.py). sweep.py keeps it as columns,
    operation for operation; tests/core/test_sweep.py and test_row_columns.py compare exactly."""
    (
        n, flops, qlora, comm_flat, steps, comm_s_step, overlap, offload, interval, write_s,
        fixed, billed, _, ev, ev_bw, rl, no_rl, gen_mfu,
    ) = o  # fmt: skip
    wall_s = rollout.wall_s
    ev_tp, ev_mem_s, ev_flops, ev_steps, ev_prefill, ev_sync = (
        ev.tp, ev.decode_mem_s, ev.decode_flops, ev.decode_steps, ev.prefill_flops, ev.sync_s
    )  # fmt: skip

    def run(peak: float, ev_s: float, mfu: float, od_price: float, shape: float | None) -> RunTime:
        busy_wall_s = flops / (peak * mfu) * qlora / n
        if comm_flat is not None:
            comm_s = comm_flat * busy_wall_s
        else:  # comm.exposed_s per optimizer step: max(0.0, x) written out (sweep.py)
            exposed = comm_s_step - overlap * (busy_wall_s / steps)
            comm_s = steps * (exposed if exposed > 0.0 else 0.0)
        train_wall_s = (busy_wall_s + comm_s) * offload
        compute_gpu_s = train_wall_s * n
        writes = int(train_wall_s // interval)
        ckpt_s = writes * write_s
        if shape is None:
            gen = mfu
        else:  # min(mfu / shape, 1.0)
            gen = mfu / shape
            gen = 1.0 if 1.0 < gen else gen
        if ev_bw:  # rollout.wall_s: max(a, x) written out (sweep.py)
            rate = peak * gen * ev_tp
            step = ev_flops / rate
            step = step if step > ev_mem_s else ev_mem_s
            eval_s = ev_steps * step + ev_prefill / rate + ev_sync
        else:
            eval_s = ev_s
        rl_s = 0.0 if no_rl else wall_s(rl, peak, gen, gen_mfu)
        held_wall_s = fixed + train_wall_s + ckpt_s + eval_s + rl_s
        held_gpu_h = billed * held_wall_s / SECONDS_PER_HOUR
        return _tuple_new(
            RunTime,
            (
                flops / compute_gpu_s, busy_wall_s, comm_s, compute_gpu_s, train_wall_s, ckpt_s,
                writes, eval_s, rl_s, held_wall_s, held_gpu_h, held_gpu_h * od_price,
            ),
        )  # fmt: skip

    return run


def generation_shape(plan: TimePlan) -> float | None:
    """``runner``'s ``shape`` of this plan's MFU choice."""
    return shape_of(plan.mfu)


def shape_of(choice: MfuChoice) -> float | None:
    """``runner``'s ``shape`` of an MFU choice."""
    return choice.default.shape if choice.source == "default" else None


# The last few collectives' results: frozen, shared by the results of one layout (an MFU or
# price edit moves none of them).
_COLLECTIVES_MEMO: list[tuple[tuple[Collective, ...], tuple[CollectiveResult, ...]]] = []


def _collective_results(collectives: tuple[Collective, ...]) -> tuple[CollectiveResult, ...]:
    for known, results in _COLLECTIVES_MEMO:
        if known == collectives:
            return results
    results = tuple(build(CollectiveResult, **c._asdict()) for c in collectives)
    _COLLECTIVES_MEMO.insert(0, (collectives, results))
    del _COLLECTIVES_MEMO[4:]
    return results


def time_breakdown_fixed(inputs: EstimateInputs, plan: TimePlan, nodes: int) -> dict[str, object]:
    """The values of a ``TimeBreakdown`` of this plan that no MFU or price changes, in field
    order; the finish fills in the rest (None here) from each run. Made once per plan
    (finishing.py)."""
    ov, eff = inputs.overheads, inputs.efficiency
    d, comm = plan.mfu.default, plan.comm
    if eff.comm_overhead is not None:
        communication = "given"
    else:
        communication = eff.communication
    return {
        "num_gpus": plan.num_gpus,
        "nodes": nodes,
        "rented_gpus": plan.rented_gpus,
        "peak_flops_per_s": plan.peak,
        "achieved_flops_per_s": None,
        "effective_mfu": None,
        "mfu": None,
        "mfu_source": None,
        "mfu_default": d.mfu,
        "achievable_fraction": d.achievable,
        "stack_efficiency": None,
        "stack_method": d.stack_method,
        "stack_method_key": d.method,
        "shape_factor": d.shape,
        "tokens_per_microbatch": d.tokens_per_microbatch,
        "matmul_s_per_microbatch": d.matmul_s,
        "fixed_s_per_microbatch": d.fixed_s,
        "dequant_s_per_microbatch": d.dequant_s,
        "steps": plan.steps,
        "communication": communication,
        "comm_overhead": None,
        "comm_exposed_s": None,
        "comm_bytes_per_step": comm.bytes_per_step,
        "comm_s_per_step": comm.seconds_per_step,
        "comm_overlap": comm.overlap,
        "comm_overlap_given": comm.overlap_given,
        "comm_link": comm.link.kind,
        "comm_link_gb_s": comm.link.gb_s,
        "comm_between_nodes": comm.link.between_nodes,
        "comm_collectives": _collective_results(comm.collectives),
        "qlora_slowdown": plan.qlora_flat,
        "offload_slowdown": plan.offload_slowdown,
        "slowdown": None,
        "tokens_per_s_per_gpu": None,
        "compute_gpu_hours": None,
        "train_wall_s": None,
        "provisioning_s": ov.provisioning_min * SECONDS_PER_MINUTE,
        "download_s": plan.download_s,
        "warmup_s": ov.warmup_min * SECONDS_PER_MINUTE,
        "nccl_s": plan.nccl_s,
        "checkpoint_writes_s": None,
        "eval_s": None,
        "rl_generation_s": None,
        "idle_s": ov.idle_hours_per_run * SECONDS_PER_HOUR,
        "held_wall_s": None,
        "held_gpu_hours": None,
    }


def billed_run_usd(
    inputs: EstimateInputs, on_demand_usd: float, spot_usd: float | None, warnings: list[str]
) -> float:
    """One run as the project bills it (``project.billing``): on spot when the GPU has a spot
    price, else on-demand (with a warning when spot was asked for)."""
    if inputs.project.billing != "spot":
        return on_demand_usd
    if spot_usd is not None:
        return spot_usd
    tier = TIER_LABELS.get(inputs.hardware.gpu.pricing_tier, "On-demand")
    warnings.append(
        f"No spot price for this GPU: the project is priced at its {tier.lower()} rate."
    )
    return on_demand_usd


def spot_factor(inputs: EstimateInputs, nodes: int) -> float:
    """Article 001: F = 1 + λ(T/2 + R), λ = nodes × interruptions per node-hour."""
    return cal.spot_overhead_factor(
        nodes * inputs.spot.interruptions_per_node_hour,
        inputs.overheads.checkpoint_interval_min / 60.0,
        inputs.spot.restart_overhead_min / 60.0,
    )


def spot_run_usd(held_gpu_hours: float, factor: float, spot_usd_per_hour: float) -> float:
    """Article 001 'Interruptible capacity': a run on spot bills its held GPU-hours × F × the spot
    price (F from ``spot_factor``). One product, in this order, wherever a spot bill is made."""
    return held_gpu_hours * factor * spot_usd_per_hour
