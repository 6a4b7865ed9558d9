"""The estimate's last step: every figure at the plan's MFU and the inputs' prices.

``finish`` runs on every estimate; an MFU or price edit (the window's usual edit) takes the
remembered plan (``estimate.plan``), so the finish is most of what such an edit costs (issue 10:
one estimate ≤ 100 µs). What it reads of a plan that no MFU or price changes is made once per
plan (``Fixed``, kept in ``Plan.memo``, which the plans ``estimate._at_mfu`` makes of a
remembered plan share) and copied into each result: the layout summary but the alternative's run
and the prices, the time breakdown's MFU-free half, the napkin rules but their GPU-hours, SFT and
DPO's alignment zeros (GRPO/PPO's GPUs by placement), the near-limit warning and the ranges'
exposed communication. Every figure is computed as before, operation for operation.
"""

from __future__ import annotations

from typing import NamedTuple

from .checks import measured_mfu, simple_rules, simple_rules_fixed, step_check
from .inputs import EstimateInputs
from .layout import memory_status
from .plan import Plan, RowPlan
from .ranges import _exposed, exposed_comm, memory_band, range_summary
from .results import Band, EstimateResult, LayoutSummary, made
from .rl_summary import alignment_fixed, alignment_summary
from .throughput import MfuChoice
from .time_cost import (
    Run,
    RunTime,
    price_run,
    runner,
    shape_of,
    time_breakdown,
    time_breakdown_fixed,
)
from .units import fmt_gib


class Fixed(NamedTuple):
    """What ``finish`` reads of one plan that no MFU or price changes."""

    layout: dict[str, object]  # LayoutSummary values; the alternative's run and prices: None
    time: dict[str, object]  # time_cost.time_breakdown_fixed
    per_token_flops: float  # the trainer's FLOPs per trained token
    simple: dict[str, object]  # checks.simple_rules_fixed
    alignment: dict[str, object]  # rl_summary.alignment_fixed
    near_limit: str | None  # the near-limit warning, if the memory is near its limit
    # run_time of the plan, of its alternative (checkpointing "auto") and of the ranges' high
    # end (communication none of which is hidden; None: no such band), bound (time_cost.runner)
    run: Run
    run_alt: Run | None
    run_exposed: Run | None
    memory_band: tuple[Band, float, bool]  # ranges.memory_band


def fixed(p: Plan) -> Fixed:
    """``p``'s ``Fixed``, made by the first finish of it (or of a plan sharing its memo)."""
    known = p.memo.get("finish")
    if known is None:
        known = p.memo["finish"] = _fixed(p)
    return known


def _fixed(p: Plan) -> Fixed:
    inputs = p.inputs
    exposed = exposed_comm(p.time)
    # Article 001's usable memory: the reported total × 85% (the allocator-efficiency field).
    article_usable = p.memory.capacity_bytes * inputs.hardware.usable_memory_fraction
    return Fixed(
        _layout_fixed(p),
        time_breakdown_fixed(inputs, p.time, p.nodes),
        trainer_flops_per_token(p),
        simple_rules_fixed(inputs, p.counts, p.tokens, article_usable, p.layout.checkpointing),
        alignment_fixed(p),
        near_limit_warning(p),
        runner(p.time),
        None if p.alternative is None else runner(p.alternative.time),
        None if exposed is None else runner(_exposed(p, exposed)),
        memory_band(p),
    )


def _layout_fixed(p: Plan) -> dict[str, object]:
    inputs, lay, alt = p.inputs, p.layout, p.alternative
    hw, mem = inputs.hardware, p.memory
    status = memory_status(mem.fits, mem.headroom_bytes, mem.usable_bytes, hw.near_limit_fraction)
    return {
        "gpus_needed": lay.gpus_needed,
        "num_gpus": p.time.num_gpus,
        "rented_gpus": lay.rent.gpus,
        "nodes": lay.rent.nodes,
        "node_size": lay.rent.node_size,
        "rent_unit_gpus": hw.gpu.rent_unit_gpus,
        "rounded_up": lay.rent.rounded,
        "rollout_rented_gpus": p.time.extra_gpus,
        "checkpointing_mode": inputs.training.checkpointing,
        "checkpointing": lay.checkpointing,
        "checkpointing_reason": lay.reason,
        "alt_checkpointing": None if alt is None else alt.checkpointing,
        "alt_gpus_needed": None if alt is None else alt.gpus_needed,
        "alt_rented_gpus": None if alt is None else alt.rent.gpus,
        "alt_fits": None if alt is None else alt.step.breakdown.fits,
        "alt_near_limit": None if alt is None else alt.near_limit,
        "alt_on_demand_usd": None,
        "alt_held_wall_s": None,
        "memory_status": status,
        "near_limit_fraction": hw.near_limit_fraction,
        "headroom_fraction": mem.headroom_bytes / mem.usable_bytes,
        "price_origin": None,
        "price_as_of": None,
        "price_source": None,
    }


def _layout_summary(
    inputs: EstimateInputs, fixed: dict[str, object], alt_rt: RunTime | None
) -> LayoutSummary:
    hw = inputs.hardware
    values = fixed.copy()
    if alt_rt is not None:
        values["alt_on_demand_usd"] = alt_rt.on_demand_usd
        values["alt_held_wall_s"] = alt_rt.held_wall_s
    values["price_origin"] = hw.price_origin
    values["price_as_of"] = hw.gpu.price_as_of
    values["price_source"] = hw.gpu.price_source
    return made(LayoutSummary, values)


def finish(p: Plan) -> EstimateResult:
    """The estimate at the MFU the plan chose and the inputs' prices."""
    alt = p.alternative
    return finish_at(p, p.inputs, p.time.mfu, None if alt is None else alt.time.mfu)


def finish_at(
    p: Plan, inputs: EstimateInputs, choice: MfuChoice, alt_choice: MfuChoice | None
) -> EstimateResult:
    """``finish`` of the plan ``p`` would be for ``inputs`` (equal to its inputs in everything a
    plan reads, ``remembered.plan_key``) at these MFU choices of its layout and alternative:
    what ``estimate`` finishes an MFU or price edit with, from the remembered plan."""
    f = fixed(p)
    t = p.time
    warnings = list(p.warnings)
    od = inputs.hardware.gpu.on_demand_usd_per_hour
    mfu, run = choice.mfu, f.run
    rt = run(mfu, od, shape_of(choice))
    prices = price_run(inputs, t, rt, p.checkpoint, p.nodes, warnings, run, choice)
    alt_rt = None
    if f.run_alt is not None and alt_choice is not None:
        alt_rt = f.run_alt(alt_choice.mfu, od, shape_of(alt_choice))
    if f.near_limit is not None:
        warnings.append(f.near_limit)
    peak, n = t.peak, t.num_gpus
    return made(
        EstimateResult,
        {
            "params": p.params,
            "tokens": p.tokens,
            "flops": p.flops,
            "memory": p.memory,
            "layout": _layout_summary(inputs, f.layout, alt_rt),
            "time": time_breakdown(f.time, t, rt, f.per_token_flops, choice),
            "cost": prices.cost,
            "checkpoint": prices.checkpoint,
            "project": prices.project,
            "step_check": step_check(inputs, p.tokens, p.flops, n, peak, warnings),
            "measured_mfu": measured_mfu(inputs, p.flops, peak, warnings),
            "simple": simple_rules(f.simple, peak, mfu),
            "alignment": alignment_summary(p, rt, f.alignment, choice),
            "ranges": range_summary(
                p, inputs, choice, rt, prices, (run, f.run_exposed), f.memory_band
            ),
            "warnings": tuple(warnings),
        },
    )


def near_limit_warning(p: Plan | RowPlan) -> str | None:
    """The warning of a plan whose memory fits only within the near-limit margin."""
    mem, margin = p.memory, p.inputs.hardware.near_limit_fraction
    if memory_status(mem.fits, mem.headroom_bytes, mem.usable_bytes, margin) != "near_limit":
        return None
    return (
        f"Near the memory limit: {fmt_gib(mem.headroom_bytes)} free of "
        f"{fmt_gib(mem.usable_bytes)} usable per GPU "
        f"({mem.headroom_bytes / mem.usable_bytes:.1%}, under the {margin:.0%} margin): "
        "allocator fragmentation or a longer batch can run out of memory."
    )


def trainer_flops_per_token(p: Plan) -> float:
    """FLOPs the trainer spends per trained token: the update's, plus DPO/RL's extra forwards and
    repeated updates (so tokens/s per GPU is trained tokens, not update-only tokens)."""
    if p.inputs.objective.objective == "sft":
        return p.flops.per_token
    return p.flops.total_flops / p.tokens.tokens_processed
