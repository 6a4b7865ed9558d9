"""Row plans for "Which GPU" (issue 17: one job on every GPU of a 5,000-row catalog).

``row_plan`` is ``estimate.plan(inputs, alternative=False)`` with only what a comparison row
reads (compare.offer_row); ``RowPlanner`` makes the row plans of one job on many GPUs, what no
GPU changes worked out once; ``finish_prices`` is ``finish`` with only a row's figures. Each
step is the estimate's own (its private step functions, imported here: no second copy of the
arithmetic); tests/core/test_row_plan.py and test_compare.py compare them with the plan's.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from . import alignment, rollout
from .checks import measured_mfu, step_check
from .comm import CommPlan
from .estimate import (
    _auto_checkpointing,
    _bf16_warning,
    _comm,
    _flops,
    _job,
    _mfu_at,
    _mfu_terms,
    _MfuTerms,
    _trainer_time,
)  # fmt: skip
from .finishing import near_limit_warning
from .inputs import EstimateInputs, GpuSpec
from .layout import Rented, rented
from .memory_step import Fit, MemoryInputs, fit_warnings
from .plan import JobFlops, Plan, RowPlan
from .remembered import GpuFits, fit
from .results import copied
from .time_cost import (
    RunTime,
    billed_run_usd,
    run_time,
    spot_factor,
    spot_run_usd,
)


def inputs_on_gpu(inputs: EstimateInputs, spec: GpuSpec) -> EstimateInputs:
    """The inputs with ``hardware.gpu`` replaced by ``spec``, not validated again: ``spec`` is a
    GpuSpec validated when its catalog was read, and no rule of the inputs ties the GPU to another
    section (compare.inputs_with_gpu validates).

    ``model_copy(update=...)`` of the hardware and the inputs, made as ``results.build`` makes
    a model (a "Which GPU" of 5,000 GPUs makes 5,000)."""
    return copied(inputs, "hardware", copied(inputs.hardware, "gpu", spec))


def row_plan(inputs: EstimateInputs, fits: GpuFits | None = None) -> RowPlan:
    """``plan(inputs, alternative=False)``, only what a "Which GPU" row reads of it
    (compare.offer_row; issue 17: 5,000 GPUs per comparison): the memory step's fit instead of
    its breakdown (the same fits, count, total, usable and headroom: memory_step.memory_fit),
    the same time plan and warnings in the same order, no Layout or Plan.
    tests/core/test_row_plan.py compares every row with the plan's. ``fits``: the memory fits
    of this job on other GPUs (``remembered.GpuFits``)."""
    return RowPlanner(inputs, fits)(inputs)


class RowPlanner:
    """``row_plan`` of one job on many GPUs ("Which GPU": 5,000 of them; issue 17): what no GPU
    changes — the job, the memory inputs but the GPU's memory, and per checkpointing setting
    the FLOPs, the MFU default's job terms and the overlap — worked out once; the communication
    once per GPU count and link, the memory step once per GPU memory, node size and renting unit,
    the evaluation plan once per GPU count, engine degree and bandwidth (each key is all that
    step reads of a GPU). Each GPU then runs what reads it, in ``row_plan``'s
    order, with the same functions.

    ``planner(inputs)`` is ``row_plan(inputs, fits)`` for inputs equal to the planner's in
    everything but their GPU and what ``remembered.plan_key`` leaves out (the MFU, prices):
    compare.GpuComparer makes one per plan key. tests/core/test_row_plan.py runs one planner
    over many GPUs against a planner per GPU."""

    def __init__(self, inputs: EstimateInputs, fits: GpuFits | None = None) -> None:
        self._job = job = _job(inputs)
        self._fit = fit if fits is None else fits.fit
        self._mi = MemoryInputs.of(inputs, job.sections)
        self._terms: dict[bool, tuple[JobFlops, _MfuTerms]] = {}
        self._comms: dict[tuple[object, ...], CommPlan] = {}
        self._memory: dict[tuple[float, int, int], _RowMemory] = {}
        # rollout.generation_plans: without rollouts, the evaluation plan of (GPUs, the
        # engine's tensor-parallel degree, the GPU's bandwidth): all it reads of a GPU
        self._no_rollouts = job.shape is None or not alignment.is_rl(inputs.objective)
        self._evaluations: dict[tuple[int, int, float], rollout.GenerationPlan] = {}

    def __call__(self, inputs: EstimateInputs) -> RowPlan:
        job, hw, gpu = self._job, inputs.hardware, inputs.hardware.gpu
        warnings = list(job.token_warnings)
        node = hw.gpus_per_node or gpu.gpus_per_node
        # All the memory step reads of a GPU: its memory, node size and renting unit.
        memory_key = (gpu.memory_gib, node, gpu.rent_unit_gpus)
        memory = self._memory.get(memory_key)
        if memory is None:
            memory = self._memory[memory_key] = self._memory_step(inputs, node)
        ckpt, f, rent, n, told = memory
        warnings += told
        jf, terms = self._job_terms(inputs, ckpt)
        mfu = _mfu_at(inputs, ckpt, terms)
        overlap = terms.overlap
        key = (
            n, node, gpu.interconnect, gpu.interconnect_gb_s, gpu.network, gpu.network_gbit_s,
            overlap,
        )  # fmt: skip
        comm = self._comms.get(key)
        if comm is None:
            comm = self._comms[key] = _comm(inputs, job, n, node, overlap)
        evaluation = None
        if self._no_rollouts:  # rollout.generation_plans: the evaluation plan only
            ev_key = (n, rollout.eval_tp(inputs, job.counts, n), gpu.memory_bandwidth_gb_s)
            evaluation = self._evaluations.get(ev_key)
            if evaluation is None:
                evaluation = rollout.eval_plan(inputs, job.counts, n)
                self._evaluations[ev_key] = evaluation
        gpus = (n, rent, node)
        _, time = _trainer_time(
            inputs, job, jf.flops, gpus, mfu, overlap, warnings, comm, evaluation
        )  # fmt: skip
        _bf16_warning(inputs, warnings)
        nodes = math.ceil((rent.gpus + time.extra_gpus) / node)
        return RowPlan(inputs, job.tokens, jf.flops, f, time, nodes, tuple(warnings))

    def _job_terms(self, inputs: EstimateInputs, ckpt: bool) -> tuple[JobFlops, _MfuTerms]:
        """The job's FLOPs and MFU default's job terms at this checkpointing setting, once."""
        known = self._terms.get(ckpt)
        if known is None:
            jf = _flops(inputs, self._job, ckpt)
            known = self._terms[ckpt] = (jf, _mfu_terms(inputs, self._job, jf.flops))
        return known

    def _memory_step(self, inputs: EstimateInputs, node: int) -> _RowMemory:
        fit_of, job = self._fit, self._job
        tr, hw, gpu = inputs.training, inputs.hardware, inputs.hardware.gpu
        counts, adapters = job.counts, job.adapters
        mi = self._mi.with_gpu_memory(gpu.memory_gib)  # MemoryInputs.of(inputs, job.sections)
        if tr.checkpointing == "auto":
            ckpt, _, f, _, _ = _auto_checkpointing(inputs, job, mi, node, fit_of)
        else:
            ckpt, f = tr.checkpointing == "full", fit_of(mi, counts, adapters, None)
        told: list[str] = []
        fit_warnings(f.fits, f.gpus_needed, f.num_gpus, told)  # as the plan's memory step
        # as _layout: it trains on every rented GPU, memory on those
        rent = rented(f.num_gpus, node, gpu.rent_unit_gpus, hw.rent_whole_units)
        n = rent.gpus if tr.auto_gpu_count else f.num_gpus
        if n != f.num_gpus:
            f = fit_of(mi, counts, adapters, ckpt, n)
        return _RowMemory(ckpt, f, rent, n, tuple(told))


class _RowMemory(NamedTuple):
    """``RowPlanner``'s memory step on one GPU: checkpointing chosen, the fit on the GPUs that
    train, the GPUs rented and trained on, the step's warning."""

    checkpointing: bool
    fit: Fit
    rent: Rented
    num_gpus: int
    warnings: tuple[str, ...]


def _near_limit_warning(p: Plan | RowPlan, warnings: list[str]) -> None:
    told = near_limit_warning(p)
    if told is not None:
        warnings.append(told)


class RowFigures(NamedTuple):
    """What a 'Which GPU' row shows of ``finish(p)`` at one set of prices (core/compare.py)."""

    run: RunTime
    spot_usd: float | None  # one run on spot, interruptions included; None without a spot price
    warnings: tuple[str, ...]


def finish_prices(p: Plan | RowPlan, od: float, spot: float | None) -> RowFigures:
    """``finish`` of a plan of this GPU at these prices, only the figures a comparison row shows:
    the same run time, spot cost and warnings in the same order (tests/core/test_compare.py
    compares them with ``finish``), without the breakdowns and result models (issue 17: a
    5,000-row catalog is 5,000 of these per edit; GpuComparer takes the float-column path,
    ``row_columns``, which gives the same figures)."""
    inputs = p.inputs
    warnings = list(p.warnings)
    rt = run_time(p.time, p.time.mfu.mfu, od)
    spot_usd = None
    if spot is not None:  # as price_run: held GPU-hours × F × spot price
        spot_usd = spot_run_usd(rt.held_gpu_hours, spot_factor(inputs, p.nodes), spot)
    billed_run_usd(inputs, rt.on_demand_usd, spot_usd, warnings)
    _near_limit_warning(p, warnings)
    step_check(inputs, p.tokens, p.flops, p.time.num_gpus, p.time.peak, warnings)
    measured_mfu(inputs, p.flops, p.time.peak, warnings)
    return RowFigures(rt, spot_usd, tuple(warnings))
