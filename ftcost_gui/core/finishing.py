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

import math
from collections.abc import Callable
from typing import Any, NamedTuple

from . import calibration as cal
from .checks import measured_mfu, simple_rules, simple_rules_fixed, step_check
from .inputs import EstimateInputs, HardwareSpec
from .layout import memory_status
from .memory_step import Fit
from .plan import Plan, RowPlan
from .project_spec import ProjectSpec, SpotSpec
from .ranges import _band, _exposed, _price_band, exposed_comm, memory_band
from .results import (
    Band,
    CheckpointSummary,
    CostBreakdown,
    EstimateResult,
    LayoutSummary,
    MemoryBreakdown,
    ProjectSummary,
    RangeSummary,
    TimeBreakdown,
    made,
)
from .rl_summary import alignment_fixed, alignment_summary
from .throughput import MfuChoice
from .time_cost import (
    Run,
    billed_run_usd,
    runner,
    spot_factor,
    spot_run_usd,
    time_breakdown_fixed,
)
from .units import GB, SECONDS_PER_HOUR, fmt_gib

# finish(plan, inputs, choice, alt_choice): the plan's estimate for ``inputs`` at these MFU
# choices of its layout and alternative (``Fixed.finish``). The plan is given, not bound: the
# plan holds its Fixed (Plan.memo), which would hold the plan in a cycle that only the garbage
# collector frees (plans dropped from the plan memo would pile up until it runs).
Finish = Callable[[Plan, EstimateInputs, MfuChoice, "MfuChoice | None"], EstimateResult]


class Fixed(NamedTuple):
    """What ``finish`` reads of one plan that no MFU or price changes, and the finish bound to
    it (``_finisher``)."""

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
    finish: Finish


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
    parts = (
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
    return Fixed(*parts, _finisher(p, *parts))


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


def finish(p: Plan) -> EstimateResult:
    """The estimate at the MFU the plan chose and the inputs' prices."""
    alt = p.alternative
    return fixed(p).finish(p, p.inputs, p.time.mfu, None if alt is None else alt.time.mfu)


def finish_at(
    p: Plan, inputs: EstimateInputs, choice: MfuChoice, alt_choice: MfuChoice | None
) -> EstimateResult:
    """``finish`` of the plan ``p`` would be for ``inputs`` (equal to its inputs in everything a
    plan reads, ``remembered.plan_key``) at these MFU choices of its layout and alternative:
    what ``estimate`` finishes an MFU or price edit with, from the remembered plan."""
    return fixed(p).finish(p, inputs, choice, alt_choice)


def _finisher(
    p: Plan, layout_fixed: dict[str, object], time_fixed: dict[str, object],
    per_token_flops: float, simple_fixed: dict[str, object], align_fixed: dict[str, object],
    near_limit: str | None, run: Run, run_alt: Run | None, run_exposed: Run | None,
    memory: tuple[Band, float, bool],
) -> Finish:  # fmt: skip
    """The finish of ``p`` with what it reads of the plan bound once: the run, its bill (cost per
    run on-demand and spot, checkpoints, the project budget) and every band of the estimate
    (core/ranges.py says what each end assumes), computed for the inputs and MFU of each call.
    The sections no plan reads (spot, project) are read again when they are other objects."""
    t, params, tokens, flops, mem = p.time, p.params, p.tokens, p.flops, p.memory
    plan_warnings, nodes, peak, n = p.warnings, p.nodes, t.peak, t.num_gpus
    # every rented GPU is billed, and the rollout GPUs held beside them
    billed = t.rented_gpus + t.extra_gpus
    fixed_wall_s, write_s = t.fixed_wall_s, t.ckpt_write_s
    ck_params, ck_bytes_per_param, ck_bytes = p.checkpoint
    idle_s = p.inputs.overheads.idle_hours_per_run * SECONDS_PER_HOUR
    startup_s = fixed_wall_s - idle_s
    memory_bytes, worst, high_fits = memory
    longest_row = p.job.longest_row
    comm_band = run_exposed is not None
    spot_known: list[Any] = [None, 0.0, 0.0]  # spot section, λ, spot factor
    project_known: list[Any] = [None]  # project section, its figures
    hardware_known: list[Any] = [None]  # hardware section, its prices
    checkpoint_known: list[Any] = [None, None, None]  # writes, its summary, storage bytes
    run_known: list[Any] = [None]  # (MFU, its source, its band), what no price changes
    total_flops = t.total_flops
    no_warnings = not plan_warnings and near_limit is None

    def spot_figures(sp: SpotSpec, inputs: EstimateInputs) -> tuple[float, float]:
        if sp is not spot_known[0]:
            # Article 001 'Interruptible capacity': F = 1 + λ(T/2 + R), λ the job's
            # interruption rate.
            spot_known[:] = sp, nodes * sp.interruptions_per_node_hour, spot_factor(inputs, nodes)
        return spot_known[1], spot_known[2]

    def project_figures(pj: ProjectSpec) -> tuple[Any, ...]:
        if pj is not project_known[0]:
            # Project: article 000 'Where the money actually goes'; 001; 004's sample budget.
            storage_bytes = ck_bytes * pj.checkpoints_retained
            storage_usd = storage_bytes / GB * pj.storage_usd_per_gb_month * pj.storage_months
            engineering_usd = (pj.engineering_hours + pj.data_prep_hours) * pj.hourly_rate_usd
            project_known[:] = pj, (
                pj.planned_runs + pj.failed_runs, storage_bytes, storage_usd, engineering_usd,
                storage_usd + engineering_usd, pj.billing,
            )  # fmt: skip
        return project_known[1]

    def hardware_figures(hw: HardwareSpec) -> tuple[Any, ...]:
        if hw is not hardware_known[0]:
            gpu = hw.gpu
            g = gpu.__dict__
            od_lo, od, od_hi = price_band = _price_band(gpu)
            hardware_known[:] = hw, (
                od, g["spot_usd_per_hour"], od_lo, od_hi, _band(*price_band), hw.price_origin,
                g["price_as_of"], g["price_source"],
            )  # fmt: skip
        return hardware_known[1]

    def finish(
        plan: Plan, inputs: EstimateInputs, choice: MfuChoice, alt_choice: MfuChoice | None
    ) -> EstimateResult:
        warnings = [] if no_warnings else list(plan_warnings)
        sections = inputs.__dict__
        e = sections["efficiency"].__dict__
        od, spot_price, od_lo, od_hi, price_band, origin, as_of, source = hardware_figures(
            sections["hardware"]
        )
        mfu, mfu_source, default = choice
        band = e["mfu_band"]
        shape = default.shape if mfu_source == "default" else None  # time_cost.shape_of
        rt = run(mfu, od, shape)
        (
            achieved, busy_wall_s, comm_exposed_s, compute_gpu_s, train_wall_s, writes_s, writes,
            eval_s, rl_s, held_wall_s, held_gpu_h, od_usd,
        ) = rt  # fmt: skip
        lam, f_spot = spot_figures(sections["spot"], inputs)
        ratio: float | None = None
        spot_usd: float | None = None
        take_spot: bool | None = None
        if spot_price is not None:
            spot_usd = spot_run_usd(held_gpu_h, f_spot, spot_price)
            if od > 0:  # the ratio needs an on-demand price to compare with
                ratio = spot_price / od * f_spot
                take_spot = ratio < 1.0
        per_gpu_s_usd = billed * od / SECONDS_PER_HOUR
        # The MFU band: its top stops at the vendor peak, unless the MFU is already past it (a
        # GPU measured above its derived peak: achievable > 1).
        top = min(mfu * (1 + band), 1.0)
        mfu_lo = mfu * (1 - band)
        fast = run(top, od, shape)
        slow = run(mfu_lo, od, shape) if mfu_lo > 0 else None
        low_usd = fast.on_demand_usd
        high_usd = math.inf if slow is None else slow.on_demand_usd
        evaluation_usd = eval_s * per_gpu_s_usd
        cost = made(
            CostBreakdown,
            {
                "on_demand_usd_per_hour": od,
                "spot_usd_per_hour": spot_price,
                "compute_only_usd": compute_gpu_s / SECONDS_PER_HOUR * od,
                "training_usd": train_wall_s * per_gpu_s_usd,
                "startup_usd": startup_s * per_gpu_s_usd,
                "checkpoint_usd": writes_s * per_gpu_s_usd,
                "evaluation_usd": evaluation_usd,
                "rl_generation_usd": rl_s * per_gpu_s_usd,
                "idle_usd": idle_s * per_gpu_s_usd,
                "on_demand_usd": od_usd,
                "spot_factor": f_spot,
                "job_interruptions_per_hour": lam,
                "spot_price_ratio": ratio,
                "spot_usd": spot_usd,
                "take_spot": take_spot,
                "usd_per_1e18_flops": cal.usd_per_1e18_flops(od, achieved),
                "low_usd": low_usd,
                "high_usd": high_usd,
            },
        )
        runs, storage_bytes, storage_usd, engineering_usd, fixed_usd, billing = (
            project_figures(sections["project"])
        )  # fmt: skip
        ckpt = checkpoint_known[1]
        if writes != checkpoint_known[0] or storage_bytes is not checkpoint_known[2]:
            ckpt = made(
                CheckpointSummary,
                {
                    "params": ck_params,
                    "resumable_bytes": ck_bytes,
                    "bytes_per_param": ck_bytes_per_param,
                    "write_s": write_s,
                    "writes_per_run": writes,
                    "storage_bytes": storage_bytes,
                },
            )
            checkpoint_known[:] = writes, ckpt, storage_bytes
        run_usd = (
            od_usd if billing != "spot" else billed_run_usd(inputs, od_usd, spot_usd, warnings)
        )
        bill_scale = run_usd / od_usd if od_usd > 0 else 1.0
        total_usd = runs * run_usd + fixed_usd
        project = made(
            ProjectSummary,
            {
                "runs": runs,
                "run_usd": run_usd,
                "runs_usd": runs * run_usd,
                "evaluation_usd": runs * evaluation_usd * bill_scale,
                "storage_usd": storage_usd,
                "engineering_usd": engineering_usd,
                "total_usd": total_usd,
                "low_usd": runs * low_usd * bill_scale + fixed_usd,
                "high_usd": runs * high_usd * bill_scale + fixed_usd,
            },
        )
        layout = layout_fixed.copy()
        if run_alt is not None and alt_choice is not None:
            alt_mfu, alt_source, alt_default = alt_choice
            alt_rt = run_alt(alt_mfu, od, alt_default.shape if alt_source == "default" else None)
            layout["alt_on_demand_usd"] = alt_rt.on_demand_usd
            layout["alt_held_wall_s"] = alt_rt.held_wall_s
        layout["price_origin"] = origin
        layout["price_as_of"] = as_of
        layout["price_source"] = source
        if near_limit is not None:
            warnings.append(near_limit)
        # The ranges (core/ranges.py says what each end assumes).
        mfu_hi = top if top > mfu else mfu  # max(mfu, top), written out
        # the bill's ends of the MFU band where they are these (the same run_time arguments
        # but the price, which only run_time's last product reads: held GPU-hours × price)
        if mfu_hi == top:
            _, _, _, fast_gpu_s, _, _, _, _, _, fast_wall_s, fast_gpu_h, fast_usd = fast
            if od_lo != od:
                fast_usd = fast_gpu_h * od_lo
        else:
            _, _, _, fast_gpu_s, _, _, _, _, _, fast_wall_s, fast_gpu_h, fast_usd = run(
                mfu_hi, od_lo, shape
            )
        if slow is None or run_exposed is not None:
            slow = (run if run_exposed is None else run_exposed)(mfu_lo, od_hi, shape)
            _, _, slow_comm_s, slow_gpu_s, _, _, _, _, _, slow_wall_s, slow_gpu_h, slow_usd = slow
        else:
            _, _, slow_comm_s, slow_gpu_s, _, _, _, _, _, slow_wall_s, slow_gpu_h, slow_usd = slow
            if od_hi != od:
                slow_usd = slow_gpu_h * od_hi
        # What no price changes (the time breakdown, napkin rules, alignment and the bands of
        # MFU, GPU-hours and wall-clock) is made again only when the MFU or its band changes:
        # a price edit runs the same runs at another price (run_time's last product).
        run_key = (mfu, mfu_source, band)
        if run_key == run_known[0]:
            time_m, simple_m, alignment_m, mfu_band, gpu_s_band, wall_band, gpu_h_band = (
                run_known[1]
            )  # fmt: skip
        else:
            hours = SECONDS_PER_HOUR
            # The time breakdown: time_cost.time_breakdown_fixed's values and the run's.
            pure_wall_s = total_flops / (peak * mfu) / n
            time = time_fixed.copy()
            time["achieved_flops_per_s"] = achieved
            time["effective_mfu"] = achieved / peak
            time["mfu"] = mfu
            time["mfu_source"] = mfu_source
            time["stack_efficiency"] = mfu / default.achievable
            time["comm_overhead"] = comm_exposed_s / busy_wall_s
            time["comm_exposed_s"] = comm_exposed_s
            time["slowdown"] = train_wall_s / pure_wall_s
            time["tokens_per_s_per_gpu"] = achieved / per_token_flops
            time["compute_gpu_hours"] = compute_gpu_s / SECONDS_PER_HOUR
            time["train_wall_s"] = train_wall_s
            time["checkpoint_writes_s"] = writes_s
            time["eval_s"] = eval_s
            time["rl_generation_s"] = rl_s
            time["held_wall_s"] = held_wall_s
            time["held_gpu_hours"] = held_gpu_h
            time_m = made(TimeBreakdown, time)
            simple_m = simple_rules(simple_fixed, peak, mfu)
            alignment_m = alignment_summary(plan, rt, align_fixed, choice)
            mfu_band = _band(mfu_lo, mfu, mfu_hi)
            gpu_s_band = _band(fast_gpu_s / hours, compute_gpu_s / hours, slow_gpu_s / hours)
            wall_band = _band(fast_wall_s, held_wall_s, slow_wall_s)
            gpu_h_band = _band(fast_gpu_h, held_gpu_h, slow_gpu_h)
            run_known[:] = run_key, (
                time_m, simple_m, alignment_m, mfu_band, gpu_s_band, wall_band, gpu_h_band
            )  # fmt: skip
        spot = None
        lo_run, hi_run = fast_usd, slow_usd
        if spot_price is not None:
            # the same products as the bill, in the same order: a zero band is exactly zero
            spot = _band(
                spot_run_usd(fast_gpu_h, f_spot, spot_price),
                spot_usd or 0.0,
                spot_run_usd(slow_gpu_h, f_spot, spot_price),
            )
            if billing == "spot":
                lo_run, hi_run = spot.low, spot.high
        ranges = made(
            RangeSummary,
            {
                "memory_bytes": memory_bytes,
                "memory_row_tokens": longest_row,
                "memory_efficiency_high": worst,
                "memory_high_fits": high_fits,
                "mfu": mfu_band,
                "mfu_band": band,
                "comm_band": comm_band,
                "comm_exposed_s": comm_exposed_s,
                "comm_exposed_high_s": slow_comm_s,
                "price_usd_per_hour": price_band,
                "compute_gpu_hours": gpu_s_band,
                "held_wall_s": wall_band,
                "held_gpu_hours": gpu_h_band,
                "on_demand_usd": _band(fast_usd, od_usd, slow_usd),
                "spot_usd": spot,
                "project_usd": _band(
                    runs * lo_run + fixed_usd, total_usd, runs * hi_run + fixed_usd
                ),
            },
        )
        return made(
            EstimateResult,
            {
                "params": params,
                "tokens": tokens,
                "flops": flops,
                "memory": mem,
                "layout": made(LayoutSummary, layout),
                "time": time_m,
                "cost": cost,
                "checkpoint": ckpt,
                "project": project,
                "step_check": (
                    step_check(inputs, tokens, flops, n, peak, warnings)
                    if e["step_time_s"]
                    else None
                ),
                "measured_mfu": (  # None without a rate, as measured_mfu gives
                    measured_mfu(inputs, flops, peak, warnings)
                    if e["measured_tokens_per_s"]
                    else None
                ),
                "simple": simple_m,
                "alignment": alignment_m,
                "ranges": ranges,
                "warnings": tuple(warnings),
            },
        )

    return finish


def near_limit_warning(p: Plan | RowPlan) -> str | None:
    """The warning of a plan whose memory fits only within the near-limit margin."""
    return near_limit_text(p.memory, p.inputs.hardware.near_limit_fraction)


def near_limit_text(mem: MemoryBreakdown | Fit, margin: float) -> str | None:
    """``near_limit_warning`` of a plan of this memory and the inputs' near-limit ``margin``."""
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
