"""The float-column path of "Which GPU" (issue 17: one job on 5,000 GPUs that all differ).

A row of this path is the row of the row-plan path, ``offer_row(RowPlanner(...)(inputs on the
GPU), offer)``, figure for figure and warning for warning (``==``, not approximately): the same
functions on the same operands, in the same order. What differs is what is made per GPU. Most of
a row plan does not read the GPU (parameters, tokens, FLOPs, the MFU default's job terms: the
planner's, once per checkpointing setting); the memory step reads its memory, node and renting
unit (the planner's, once per those); the communication its link and count, the evaluation its
count, engine degree and bandwidth (once per those); the rest of the time plan (``plan_time``) is
the same for every GPU of the same chosen checkpointing, rented GPUs, communication and
evaluation but for the peak and the MFU: its run operands are worked out once per those
(``time_cost.RunOperands``, what ``time_cost.runner`` binds of a time plan). Each GPU then reads
its own few numbers: the MFU default (peak, achievable fraction, bandwidth), the peak, BF16; and
each offer runs ``runner``'s one formula (``time_cost.bind_run``, bound once per operands) with
that peak at its prices.

A GPU plan here (``RowFloats``) holds no inputs and no time plan: nothing of 5,000 pydantic copies
and named tuples that the row does not show. tests/core/test_row_columns.py compares every field
of every row with the row-plan path over the whole input space and GPU specs.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from . import rollout
from .checks import measured_mfu, step_check
from .estimate import _bf16_warning, _comm, _MfuTerms, _trainer_time
from .finishing import near_limit_text
from .inputs import EstimateInputs, GpuSpec
from .memory_step import Fit
from .remembered import GpuFits
from .results import FlopBreakdown
from .row_plans import RowFigures, RowPlanner, inputs_on_gpu
from .throughput import MfuDefault, choose_mfu, default_mfu
from .time_cost import (
    PeakRun,
    RunOperands,
    billed_run_usd,
    bind_run,
    fixed_eval_s,
    run_operands,
    shape_of,
    spot_factor,
    spot_run_usd,
)
from .units import TERA


class RowFloats(NamedTuple):
    """One GPU's plan of the columns' job: what its rows' finish reads, no MFU and no price."""

    memory: Fit  # on the GPUs that train
    num_gpus: int
    nodes: int
    default: MfuDefault  # the GPU's MFU default (the MFU is chosen at each finish)
    peak: float  # FLOP/s per GPU
    ev_s: float  # the evaluation's wall-clock where the MFU does not change it
    operands: RunOperands
    run: PeakRun  # time_cost.bind_run of the operands
    flops: FlopBreakdown
    warnings: tuple[str, ...]  # the plan's
    near_limit: str | None  # the near-limit warning, after the billing's


class RowColumns(RowPlanner):
    """The row figures of one job on many GPUs (module docstring). ``plan(inputs, spec)`` is
    the row plan of ``inputs_on_gpu(inputs, spec)`` as ``RowFloats``; ``finish`` prices it.
    Valid as a ``RowPlanner`` is: for inputs equal to the planner's in all but their GPU and what
    ``remembered.plan_key`` leaves out (compare.GpuComparer makes one per plan key)."""

    def __init__(self, inputs: EstimateInputs, fits: GpuFits | None = None) -> None:
        super().__init__(inputs, fits)
        self._tps: dict[tuple[float, int], int] = {}  # rollout.eval_tp by GPU memory and count
        self._operands: dict[tuple[object, ...], tuple[RunOperands, PeakRun]] = {}
        self._spot_of: EstimateInputs | None = None  # the inputs of ``_spot_factors``
        self._spot_factors: dict[int, float] = {}  # time_cost.spot_factor by node count

    def plan(self, inputs: EstimateInputs, spec: GpuSpec) -> RowFloats:
        """``self(inputs_on_gpu(inputs, spec))`` as RowFloats; the inputs on the GPU are made
        only when a step not known yet reads them."""
        job, hw = self._job, inputs.hardware
        on_gpu: EstimateInputs | None = None
        node = hw.gpus_per_node or spec.gpus_per_node
        memory_key = (spec.memory_gib, node, spec.rent_unit_gpus)
        memory = self._memory.get(memory_key)
        if memory is None:
            on_gpu = inputs_on_gpu(inputs, spec)
            memory = self._memory[memory_key] = self._memory_step(on_gpu, node)
        ckpt, f, rent, n, told = memory
        warnings = [*job.token_warnings, *told]
        jf, terms = self._job_terms(inputs, ckpt)
        d = _default_mfu(inputs, ckpt, terms, spec)
        overlap = terms.overlap
        comm_key = (
            n, node, spec.interconnect, spec.interconnect_gb_s, spec.network,
            spec.network_gbit_s, overlap,
        )  # fmt: skip
        comm = self._comms.get(comm_key)
        if comm is None:
            on_gpu = on_gpu or inputs_on_gpu(inputs, spec)
            comm = self._comms[comm_key] = _comm(on_gpu, job, n, node, overlap)
        bound, evaluation = None, None
        if self._no_rollouts:  # as RowPlanner: the evaluation plan only
            tp_key = (spec.memory_gib, n)  # all rollout.eval_tp reads of a GPU
            tp = self._tps.get(tp_key)
            if tp is None:
                on_gpu = on_gpu or inputs_on_gpu(inputs, spec)
                tp = self._tps[tp_key] = rollout.eval_tp(on_gpu, job.counts, n)
            ev_key = (n, tp, spec.memory_bandwidth_gb_s)
            evaluation = self._evaluations.get(ev_key)
            if evaluation is None:
                on_gpu = on_gpu or inputs_on_gpu(inputs, spec)
                evaluation = rollout.eval_plan(on_gpu, job.counts, n)
                self._evaluations[ev_key] = evaluation
            # All the time plan reads of a GPU but its peak and MFU.
            ops_key = (ckpt, rent.gpus, comm_key, ev_key)
            bound = self._operands.get(ops_key)
        if bound is None:
            on_gpu = on_gpu or inputs_on_gpu(inputs, spec)
            mfu = choose_mfu(None, None, d)  # the time plan's MFU: not an operand
            _, t = _trainer_time(
                on_gpu, job, jf.flops, (n, rent, node), mfu, overlap, warnings, comm, evaluation
            )  # fmt: skip
            ops = run_operands(t)
            bound = ops, bind_run(ops)
            if self._no_rollouts:
                self._operands[ops_key] = bound
        ops, run = bound
        if not spec.bf16_supported:
            _bf16_warning(on_gpu or inputs_on_gpu(inputs, spec), warnings)
        nodes = math.ceil((rent.gpus + ops.extra_gpus) / node)
        peak = spec.bf16_tflops * TERA  # plan_time's
        ev_s = fixed_eval_s(ops, peak)  # runner's
        near = near_limit_text(f, hw.near_limit_fraction)
        return RowFloats(f, n, nodes, d, peak, ev_s, ops, run, jf.flops, tuple(warnings), near)

    def finish(
        self, inputs: EstimateInputs, p: RowFloats, spec: GpuSpec, od: float, spot: float | None
    ) -> RowFigures:
        """``finish_prices`` of the row plan ``p`` (of any offer with ``spec``'s facts) on the
        offer ``spec`` at these prices: the MFU chosen at the inputs' efficiency (as ``estimate``
        does for a remembered plan), the run, the spot bill and the warnings in ``finish``'s
        order (without a spot price, the warning names ``spec``'s own tier)."""
        eff = inputs.efficiency
        choice = choose_mfu(eff.mfu, eff.stack_efficiency, p.default)
        rt = p.run(p.peak, p.ev_s, choice.mfu, od, shape_of(choice))
        spot_usd = None
        if spot is not None:  # as price_run: held GPU-hours × F × spot price
            spot_usd = spot_run_usd(rt.held_gpu_hours, self._spot_factor(inputs, p.nodes), spot)
        after: list[str] = []
        if p.near_limit is not None:
            after.append(p.near_limit)
        step_check(inputs, self._job.tokens, p.flops, p.num_gpus, p.peak, after)
        measured_mfu(inputs, p.flops, p.peak, after)
        if spot_usd is None and inputs.project.billing == "spot":
            # billed_run_usd's warning names the tier of the GPU the plan is on
            billed: list[str] = []
            billed_run_usd(inputs_on_gpu(inputs, spec), rt.on_demand_usd, spot_usd, billed)
            return RowFigures(rt, spot_usd, (*p.warnings, *billed, *after))
        warnings = (*p.warnings, *after) if after else p.warnings
        return _tuple_new(RowFigures, (rt, spot_usd, warnings))

    def _spot_factor(self, inputs: EstimateInputs, nodes: int) -> float:
        """``spot_factor(inputs, nodes)``, once per node count for these inputs (the spot and
        overheads sections are not a plan's: an edit of them finishes the rows again)."""
        if inputs is not self._spot_of:
            self._spot_of, self._spot_factors = inputs, {}
        factor = self._spot_factors.get(nodes)
        if factor is None:
            factor = self._spot_factors[nodes] = spot_factor(inputs, nodes)
        return factor


# RowFigures(…) without its Python __new__ (5,000 rows a comparison)
_tuple_new = tuple.__new__


def _default_mfu(inputs: EstimateInputs, ckpt: bool, t: _MfuTerms, spec: GpuSpec) -> MfuDefault:
    """``estimate._mfu_at``'s default on ``spec``."""
    return default_mfu(
        inputs.training.method, t.tokens_mb, t.work_per_token, spec.bf16_tflops,
        spec.achievable_fraction, t.quantized, spec.memory_bandwidth_gb_s, ckpt,
    )  # fmt: skip
