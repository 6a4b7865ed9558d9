"""The estimate: inputs → memory floor, GPUs, FLOPs, time, cost, project budget.

Orchestration only; each step lives in its own module and cites its article there:
params.py (parameters, LoRA adapters) → tokens.py (tokens D, training FLOPs) → memory_step.py
(memory per GPU, GPU count) → time_cost.py (time plan, run time, cost, project) → checks.py
(step check, measured MFU, the articles' simple rules). ``plan`` runs everything that does not
depend on the MFU; ``estimate`` finishes it at the inputs' MFU, ``sweep`` at many.
"""

from __future__ import annotations

import math
from typing import NamedTuple, TypeVar

from pydantic import BaseModel

from . import alignment, rollout
from .comm import CommPlan, comm_plan, default_overlap, link_for
from .finishing import finish, finish_at
from .inputs import EstimateInputs
from .layout import Option, Rented, choose_checkpointing, memory_status, rented, rollout_rented
from .memory import ADAPTER_WEIGHT_BYTES, RECIPES, base_weight_bytes
from .memory_step import Fit, MemoryInputs, MemoryStep
from .params import lora_work, param_summary
from .plan import Job, JobFlops, Layout, Plan, PlanMemo
from .ranges import longest_row
from .remembered import (
    PLAN_MEMO,
    FitOf,
    adapters_of,
    counts_of,
    fit,
    memory_step,
    new_memo,
    plan_key,
    same,
    same_plan_key,
)  # fmt: skip
from .results import EstimateResult, FlopBreakdown
from .rollout import Engines
from .sweep import SweepPoint, sweep
from .throughput import MfuChoice, choose_mfu, default_mfu
from .time_cost import (
    TimePlan,
    plan_time,
    resumable_checkpoint,
    trainable_grad_bytes,
)
from .tokens import count_flops

_JOB_MEMO: list[tuple[tuple[object, ...], Job]] = new_memo()


def _job(inputs: EstimateInputs) -> Job:
    """The job's GPU-free part, remembered for the last few model, data, training and objective
    sections (nothing of it reads the hardware, efficiency, overheads, spot or project)."""
    sections = inputs.__dict__  # the fields, read at once
    m, d, tr, ob = key = (
        sections["model"], sections["data"], sections["training"], sections["objective"]
    )  # fmt: skip
    for (km, kd, ktr, kob), job in _JOB_MEMO:
        if same(km, m) and same(kd, d) and same(ktr, tr) and same(kob, ob):
            return job
    job = _new_job(inputs)
    _JOB_MEMO.insert(0, (key, job))
    del _JOB_MEMO[4:]
    return job


def _new_job(inputs: EstimateInputs) -> Job:
    m, tr = inputs.model, inputs.training
    counts = counts_of(m)
    full = RECIPES[tr.method].full
    adapters = adapters_of(m, counts, tr)
    told: list[str] = []
    tokens = alignment.objective_tokens(inputs, told)
    shape = alignment.rl_shape(inputs) if alignment.is_rl(inputs.objective) else None
    checkpoint = resumable_checkpoint(tr.method, counts, adapters)
    params = param_summary(counts, adapters, full)
    k = _known_section
    sections = (k(0, m), k(1, inputs.data), k(2, tr), k(3, inputs.objective))
    return Job(
        sections, counts, adapters, tokens, tuple(told), shape, checkpoint, params, {},
        longest_row(inputs),
    )  # fmt: skip


_S = TypeVar("_S", bound=BaseModel)


def _known_section(i: int, section: _S) -> _S:
    """An equal section of a remembered job, else ``section``: a new job after an edit of one
    section holds the others' objects, so the memory memos compare them by identity."""
    for _, job in _JOB_MEMO:
        known = job.sections[i]
        if same(known, section):
            return known  # type: ignore[return-value]  # same() compares their types
    return section


def _flops(inputs: EstimateInputs, job: Job, ckpt: bool) -> JobFlops:
    """FLOPs of the run with checkpointing on or off (tokens.py, alignment.py), once per job."""
    known = job.flops.get(ckpt)
    if known is not None:
        return known
    m, tr, counts, adapters, tokens = (
        inputs.model, inputs.training, job.counts, job.adapters, job.tokens
    )  # fmt: skip
    full = RECIPES[tr.method].full
    adapts_tail = not full and "down_proj" in tr.lora_targets  # checkpointing then reruns it
    work = lora_work(adapters, tr.micro_batch * tokens.row_tokens)
    flops = count_flops(m, counts, adapters.active, full, ckpt, tokens, adapts_tail, work)
    # DPO/GRPO/PPO (alignment.py, rollout.py): the policy update's epochs and the extra forwards
    # run on the trainer at its MFU; the rollouts from rollout.generation_plans.
    policy_flops = flops.total_flops * (inputs.objective.policy_epochs if job.shape else 1)
    extra = alignment.extra_flops(inputs, counts, tokens, adapters.active)
    if policy_flops + extra.total != flops.total_flops:
        flops = flops.model_copy(update={"total_flops": policy_flops + extra.total})
    job.flops[ckpt] = known = JobFlops(flops, policy_flops, extra)
    return known


def _option(ckpt: bool, f: Fit, inputs: EstimateInputs, node: int) -> Option:
    gpu, hw = inputs.hardware.gpu, inputs.hardware
    needed = f.gpus_needed if inputs.training.auto_gpu_count else f.num_gpus
    rent = None if needed is None else rented(needed, node, gpu.rent_unit_gpus, hw.rent_whole_units)
    status = memory_status(f.fits, f.headroom_bytes, f.usable_bytes, hw.near_limit_fraction)
    return Option(ckpt, needed, f.fits, rent, status == "near_limit")


def _layout(
    inputs: EstimateInputs, job: Job, ckpt: bool, step: MemoryStep, mi: MemoryInputs, node: int,
    reason: str, warnings: list[str], chosen: Layout | None = None,
) -> Layout:  # fmt: skip
    """GPUs rented and trained on, FLOPs, MFU and communication for one checkpointing choice.

    ``chosen``: the layout this one is the alternative to; what does not depend on checkpointing
    (the generation plans on the same GPUs) is taken from it, and its memory is not recomputed
    on the rounded-up count (only its cost is shown)."""
    tr, hw, gpu = inputs.training, inputs.hardware, inputs.hardware.gpu
    needed = step.num_gpus
    rent = rented(needed, node, gpu.rent_unit_gpus, hw.rent_whole_units)
    n = rent.gpus if tr.auto_gpu_count else needed
    if n != step.num_gpus and chosen is None:  # it trains on every rented GPU: memory on those
        step = memory_step(mi, job.counts, job.adapters, [], ckpt, n)
    jf = _flops(inputs, job, ckpt)
    mfu, overlap = _mfu_overlap(inputs, job, ckpt, jf.flops)
    if chosen is not None and chosen.time.num_gpus == n:
        # the other checkpointing setting on the same GPUs: the same bytes and plans
        engines = chosen.engines
        comm = chosen.time.comm._replace(overlap=overlap)
        time = chosen.time._replace(total_flops=jf.flops.total_flops, comm=comm, mfu=mfu)
    else:
        gpus = (n, rent, node)
        engines, time = _trainer_time(inputs, job, jf.flops, gpus, mfu, overlap, warnings)
    b = step.breakdown
    near = memory_status(b.fits, b.headroom_bytes, b.usable_bytes, hw.near_limit_fraction)
    return Layout(
        ckpt, step, near == "near_limit", b.gpus_needed, rent, jf.flops, time, reason,
        jf.policy_flops, jf.extra, engines,
    )  # fmt: skip


class _MfuTerms(NamedTuple):
    """What the MFU default reads of the job at one checkpointing setting, and the overlap."""

    tokens_mb: float  # tokens per micro-batch
    work_per_token: float
    quantized: float  # Q-LoRA: the quantised weights
    overlap: float


def _mfu_overlap(
    inputs: EstimateInputs, job: Job, ckpt: bool, flops: FlopBreakdown
) -> tuple[MfuChoice, float]:
    """The MFU chosen (throughput.py) and the share of DDP's all-reduce hidden (comm.py)."""
    terms = _mfu_terms(inputs, job, flops)
    return _mfu_at(inputs, ckpt, terms), terms.overlap


def _mfu_terms(inputs: EstimateInputs, job: Job, flops: FlopBreakdown) -> _MfuTerms:
    """``_mfu_overlap``'s GPU-free part: nothing of it reads the GPU ("Which GPU" works it out
    once per checkpointing setting, ``row_plans.RowPlanner``)."""
    m, tr, eff = inputs.model, inputs.training, inputs.efficiency
    counts, tokens = job.counts, job.tokens
    tokens_mb = tr.micro_batch * tokens.row_tokens
    # The trainer's FLOPs per processed token: the policy update, its epochs and the extra
    # forwards (DPO/RL) all run in micro-batches of these rows.
    work_per_token = flops.total_flops / tokens.tokens_processed
    quantized = counts.decoder_linear if tr.method == "qlora" else 0.0
    # The forward is 2·N + 2·L·s·d of the per-token FLOPs; the rest (backward, recompute) is the
    # window DDP's all-reduce can hide in (comm.py).
    forward = 2.0 * counts.matmul_active + 2.0 * m.num_layers * tokens.seq_len * m.q_dim
    backward_share = max(0.0, 1.0 - forward / flops.per_token)
    overlap = eff.comm_overlap
    if overlap is None:
        overlap = default_overlap(tr.sharding, backward_share, tr.grad_accum)
    return _MfuTerms(tokens_mb, work_per_token, quantized, overlap)


def _mfu_at(inputs: EstimateInputs, ckpt: bool, t: _MfuTerms) -> MfuChoice:
    """The MFU chosen on the inputs' GPU: its default (throughput.py), or the user's."""
    gpu, eff = inputs.hardware.gpu, inputs.efficiency
    d = default_mfu(
        inputs.training.method, t.tokens_mb, t.work_per_token, gpu.bf16_tflops,
        gpu.achievable_fraction, t.quantized, gpu.memory_bandwidth_gb_s, ckpt,
    )  # fmt: skip
    return choose_mfu(eff.mfu, eff.stack_efficiency, d)


def _trainer_time(
    inputs: EstimateInputs, job: Job, flops: FlopBreakdown, gpus: tuple[int, Rented, int],
    mfu: MfuChoice, overlap: float, warnings: list[str], comm: CommPlan | None = None,
    evaluation: rollout.GenerationPlan | None = None,
) -> tuple[Engines | None, TimePlan]:  # fmt: skip
    """The generation plans, link, communication and MFU-free time on ``gpus`` = (GPUs that
    train, GPUs rented, node size). ``comm``: ``_comm``'s plan for these, when known;
    ``evaluation``: the evaluation plan of a run without rollouts, when known."""
    tr = inputs.training
    tokens = job.tokens
    n, rent, node = gpus
    tokens_mb = tr.micro_batch * tokens.row_tokens
    if evaluation is None:
        gen = rollout.generation_plans(inputs, job.counts, job.shape, n, warnings)
    else:  # as generation_plans without rollouts
        gen = (evaluation, rollout.NO_GENERATION, None)
    ev, rl_gen, engines = gen
    if comm is None:
        comm = _comm(inputs, job, n, node, overlap)
    time = plan_time(
        inputs, job.counts, flops.total_flops, tokens.tokens_processed, tokens_mb * tr.grad_accum,
        (n, rent.gpus, node), comm, mfu, job.checkpoint,
        (ev, rl_gen, _rollout_billed(n, rent, engines, inputs)),
    )  # fmt: skip
    return engines, time


def _comm(inputs: EstimateInputs, job: Job, n: int, node: int, overlap: float) -> CommPlan:
    """The link and communication of the job on n GPUs, nodes of ``node`` (comm.py): of the GPU
    it reads its interconnect and network only (``row_plans.RowPlanner``'s key)."""
    tr, gpu, eff = inputs.training, inputs.hardware.gpu, inputs.efficiency
    counts, adapters = job.counts, job.adapters
    link = link_for(
        n, node, gpu.interconnect, gpu.interconnect_gb_s, gpu.network, gpu.network_gbit_s
    )
    grads = trainable_grad_bytes(tr.method, counts.total, adapters.total)
    stored = base_weight_bytes(tr.method, counts) + adapters.total * ADAPTER_WEIGHT_BYTES
    return comm_plan(
        tr.sharding, n, link, grads, stored, tr.grad_accum, overlap, eff.comm_overlap is not None
    )  # fmt: skip


def _rollout_billed(n: int, rent: Rented, engines: Engines | None, inputs: EstimateInputs) -> int:
    """Rollout GPUs billed beside the trainer's: whole nodes count them too (core/layout.py)."""
    if engines is None:
        return 0
    hw = inputs.hardware
    return rollout_rented(n, rent, engines.extra_gpus, hw.gpu.rent_unit_gpus, hw.rent_whole_units)


def plan(inputs: EstimateInputs, alternative: bool = True) -> Plan:
    """Parameters, tokens, FLOPs, memory and GPUs, and the MFU-free part of the time.

    ``alternative=False``: without the other checkpointing setting's layout (checkpointing
    "auto"), which only the result's layout summary shows; nothing else of the plan depends on
    it ("Which GPU" rows: compare.offer_row).

    The last few plans are remembered by everything they read (``remembered.plan_key``): an edit
    of the MFU or a price (the window's usual edit) takes the remembered plan with the MFU chosen
    again; the rest of the estimate (``finish``) is computed anew. Plans without the alternative
    (one per GPU of a catalog, kept by compare.GpuComparer) are not."""
    job = _job(inputs)
    if not alternative:
        return _plan(inputs, job, alternative)
    return _at_mfu(_remembered_plan(inputs, job), inputs)


def _remembered_plan(inputs: EstimateInputs, job: Job) -> Plan:
    """The remembered plan of inputs equal to ``inputs`` in everything a plan reads, else a new
    plan of ``inputs``, remembered."""
    key = plan_key(inputs)
    for known, p in PLAN_MEMO:  # the job by identity: the plan holds it
        if p.job is job and same_plan_key(known, key):  # type: ignore[attr-defined]
            return p  # type: ignore[return-value]
    p = _plan(inputs, job, True)
    PLAN_MEMO.insert(0, (key, p))
    del PLAN_MEMO[4:]
    return p


def _at_mfu(p: Plan, inputs: EstimateInputs) -> Plan:
    """The remembered plan ``p`` for ``inputs``, equal to it but in what ``plan_key`` leaves
    out: the MFU chosen at the inputs' efficiency (``choose_mfu`` of each layout's default, as
    ``_layout`` chooses it)."""
    if p.inputs is inputs:
        return p
    lay = _with_mfu(p.layout, inputs)
    alt = None if p.alternative is None else _with_mfu(p.alternative, inputs)
    # p._replace(inputs=inputs, time=lay.time, layout=lay, alternative=alt), sooner
    fields = (inputs, *p[1:_PLAN_TIME], lay.time, *p[_PLAN_TIME + 1 : _PLAN_LAYOUT], lay, alt)
    return _tuple_new(Plan, (*fields, *p[_PLAN_LAYOUT + 2 :]))


# Where the fields ``_at_mfu`` replaces sit (tuples sliced around them and made by
# tuple.__new__, as NamedTuple._make makes them: _replace is slower).
_tuple_new = tuple.__new__
_PLAN_TIME, _PLAN_LAYOUT = Plan._fields.index("time"), Plan._fields.index("layout")
_LAYOUT_TIME, _TIME_MFU = Layout._fields.index("time"), TimePlan._fields.index("mfu")
assert Plan._fields[0] == "inputs" and Plan._fields[_PLAN_LAYOUT + 1] == "alternative"


def _with_mfu(lay: Layout, inputs: EstimateInputs) -> Layout:
    eff = inputs.efficiency
    t = lay.time
    choice = choose_mfu(eff.mfu, eff.stack_efficiency, t.mfu.default)
    if choice == t.mfu:
        return lay
    t = _tuple_new(TimePlan, (*t[:_TIME_MFU], choice, *t[_TIME_MFU + 1 :]))
    return _tuple_new(Layout, (*lay[:_LAYOUT_TIME], t, *lay[_LAYOUT_TIME + 1 :]))


def _plan(inputs: EstimateInputs, job: Job, alternative: bool) -> Plan:
    tr, hw, gpu = inputs.training, inputs.hardware, inputs.hardware.gpu
    counts, adapters = job.counts, job.adapters
    warnings = list(job.token_warnings)
    node = hw.gpus_per_node or gpu.gpus_per_node
    mi = MemoryInputs.of(inputs, job.sections)
    other_layout: Layout | None = None
    if tr.checkpointing == "auto":
        # Memory is cheap arithmetic: the fit of both settings, then the time of each from one
        # plan; the memory breakdown of those shown (the alternative only when it is asked for).
        ckpt, reason, known, other, both = _auto_checkpointing(inputs, job, mi, node)
        step = memory_step(mi, counts, adapters, warnings, ckpt, fitted=known)
        chosen = _layout(inputs, job, ckpt, step, mi, node, reason, warnings)
        if alternative and other.fits:  # a road that cannot be taken has no cost
            if both:
                step = memory_step(mi, counts, adapters, [], not ckpt)
            other_layout = _layout(inputs, job, not ckpt, step, mi, node, "", [], chosen)
    else:
        ckpt = tr.checkpointing == "full"
        step = memory_step(mi, counts, adapters, warnings)
        chosen = _layout(inputs, job, ckpt, step, mi, node, "as set", warnings)
    _bf16_warning(inputs, warnings)
    # The job's nodes: the rented trainer GPUs and any rollout GPUs held beside them (spot's λ
    # counts every node the job needs).
    nodes = math.ceil((chosen.rent.gpus + chosen.time.extra_gpus) / node)
    return Plan(
        inputs, counts, job.params, job.tokens, chosen.flops, chosen.step.breakdown,
        job.checkpoint, chosen.time, nodes, tuple(warnings), chosen.policy_flops,
        chosen.extra_flops, job.shape, chosen.engines, chosen, other_layout, job, mi, PlanMemo(),
    )  # fmt: skip


def _auto_checkpointing(
    inputs: EstimateInputs, job: Job, mi: MemoryInputs, node: int, fit: FitOf = fit
) -> tuple[bool, str, Fit, Option, bool]:
    """Checkpointing "auto" (core/layout.py): (on?, why, the chosen setting's fit, the other
    setting's option, whether both settings were weighed — else the other one's memory is not
    known yet)."""
    counts, adapters = job.counts, job.adapters
    off_fit = fit(mi, counts, adapters, False)
    off_option = _option(False, off_fit, inputs, node)
    if off_fit.gpus_needed == 1 and off_option.fits and not off_option.near_limit:
        # One GPU holds it without recomputation, with room: checkpointing cannot rent fewer
        # and would only add FLOPs. Its layout (for the cost it would add) fits the same GPU
        # with more room, which is all its memory figure is shown for.
        return False, "off: the run fits without it on the same GPUs", off_fit, off_option, False
    on_fit = fit(mi, counts, adapters, True)
    on_option = _option(True, on_fit, inputs, node)
    ckpt, reason = choose_checkpointing(off_option, on_option, inputs.training.auto_gpu_count)
    if ckpt:
        return ckpt, reason, on_fit, off_option, True
    return ckpt, reason, off_fit, on_option, True


def _bf16_warning(inputs: EstimateInputs, warnings: list[str]) -> None:
    gpu = inputs.hardware.gpu
    if not gpu.bf16_supported:
        warnings.append(f"{gpu.name} has no BF16: timings use its FP16 rate (FP16 + loss scaling).")


def estimate(inputs: EstimateInputs) -> EstimateResult:
    """Compute every figure of one estimate. Pure; raises nothing for validated inputs.

    ``finish(plan(inputs))``, without making the plan ``_at_mfu`` makes of a remembered one: the
    finish is given the inputs and the MFU chosen of each layout instead."""
    p = _remembered_plan(inputs, _job(inputs))
    if p.inputs is inputs:
        return finish(p)
    eff, alt = inputs.__dict__["efficiency"].__dict__, p.alternative
    mfu, stack = eff["mfu"], eff["stack_efficiency"]
    choice = choose_mfu(mfu, stack, p.time.mfu.default)
    if alt is None:
        return finish_at(p, inputs, choice, None)
    return finish_at(p, inputs, choice, choose_mfu(mfu, stack, alt.time.mfu.default))


def sweep_mfu(inputs: EstimateInputs, mfus: list[float]) -> list[SweepPoint]:
    """Cost per run over MFU values for one set of inputs (one plan, then float operations)."""
    return sweep(plan(inputs), mfus)
