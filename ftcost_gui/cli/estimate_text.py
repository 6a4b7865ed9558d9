"""``ftcost estimate``'s table: one section per group, units on every figure.

Names from files (the model's, the GPU's) are shown through ``io.names.for_terminal``.
"""

from __future__ import annotations

import math

from ..core.inputs import METHOD_LABELS, SHARDING_LABELS, EstimateInputs
from ..core.results import MEMORY_PART_LABELS, EstimateResult
from ..core.units import (
    SECONDS_PER_HOUR,
    fmt_flops,
    fmt_gb,
    fmt_gib,
    fmt_hours,
    fmt_pct,
    fmt_usd,
)
from ..io.names import for_terminal as term
from ..present.text import fmt_count

LABEL_WIDTH = 27


def _usd(x: float | None) -> str:
    if x is None:
        return "-"
    return fmt_usd(x) if math.isfinite(x) else "unbounded"


def _section(title: str, rows: list[tuple[str, str]]) -> list[str]:
    out = [title]
    out += [f"  {label:<{LABEL_WIDTH}}{term(value)}" for label, value in rows]
    return [*out, ""]


def format_estimate(inputs: EstimateInputs, r: EstimateResult) -> str:
    """The human-readable report: one section per group, units on every figure."""
    tr, gpu, eff, pj = inputs.training, inputs.hardware.gpu, inputs.efficiency, inputs.project
    mem, t, c, f = r.memory, r.time, r.cost, r.flops
    n = t.num_gpus
    head = f"{term(inputs.model.name)} · {METHOD_LABELS[tr.method]} · {n} × {term(gpu.name)}"
    lines = [head, ""]

    trainable = fmt_count(r.params.trainable)
    if tr.method in ("lora", "qlora"):
        trainable += f" (LoRA r={tr.lora_rank}: {', '.join(tr.lora_targets)})"
    params = fmt_count(r.params.total)
    if inputs.model.param_count_override is not None:
        params += " (bare count)"
    lines += _section(
        "Model & data",
        [
            ("Parameters", params),
            ("Trainable", trainable),
            ("Useful tokens", f"{fmt_count(r.tokens.useful_tokens)} tokens"),
            (
                "Tokens processed",
                f"{fmt_count(r.tokens.tokens_processed)} tokens "
                f"({fmt_pct(r.tokens.useful_fraction)} useful, seq len {r.tokens.seq_len:,})",
            ),
        ],
    )

    layout = f"{n} × {term(gpu.name)}, {SHARDING_LABELS[tr.sharding]}"
    rows = [(MEMORY_PART_LABELS[k], fmt_gib(v)) for k, v in mem.parts() if v > 0]
    rows.append(("Total", fmt_gib(mem.total_bytes)))
    rows.append(
        (
            "Usable",
            f"{fmt_gib(mem.usable_bytes)} of {fmt_gib(mem.capacity_bytes)} "
            f"({fmt_pct(inputs.hardware.usable_memory_fraction, 0)})",
        )
    )
    if mem.fits:
        rows.append(("Fits", f"yes, {fmt_gib(mem.headroom_bytes)} headroom"))
    else:
        rows.append(("Fits", f"NO, short by {fmt_gib(-mem.headroom_bytes)}"))
    needed = str(mem.gpus_needed) if mem.gpus_needed is not None else "none (does not fit)"
    rows.append(("GPUs needed", needed))
    if mem.cpu_offloaded_bytes > 0:
        rows.append(("Offloaded to CPU RAM", fmt_gib(mem.cpu_offloaded_bytes)))
    lines += _section(f"Memory per GPU ({layout})", rows)

    s = r.simple
    lines += _section(
        "FLOPs",
        [
            ("Per token", fmt_flops(f.per_token)),
            ("Total", fmt_flops(f.total_flops)),
            ("Attention share", fmt_pct(f.attention_share)),
            (
                "Rule of thumb",
                f"{s.flop_coefficient:g}·N·D = {fmt_flops(s.flops)}, {s.gpu_hours:,.2f} GPU-h",
            ),
        ],
    )

    nodes = f"{t.nodes} node" + ("s" if t.nodes != 1 else "")
    rows = [
        ("GPUs", f"{n} on {nodes}"),
        (
            "Throughput",
            f"{t.tokens_per_s_per_gpu:,.0f} tokens/s per GPU (MFU {fmt_pct(eff.mfu)}, "
            f"effective {fmt_pct(t.effective_mfu)}, comm +{fmt_pct(t.comm_overhead, 0)})",
        ),
        ("Compute", f"{t.compute_gpu_hours:,.2f} GPU-h"),
        ("Training wall-clock", fmt_hours(t.train_wall_s / SECONDS_PER_HOUR)),
        ("Held wall-clock", fmt_hours(t.held_wall_s / SECONDS_PER_HOUR) + " (with start-up, eval)"),
        ("Held", f"{t.held_gpu_hours:,.2f} GPU-h"),
    ]
    if r.step_check is not None:
        sc = r.step_check
        rows.append(
            (
                "Step check",
                f"{sc.total_steps:,} steps × {sc.step_time_s:g} s = "
                f"{fmt_hours(sc.wall_s / SECONDS_PER_HOUR)}, {sc.gpu_hours:,.2f} GPU-h "
                f"(implied MFU {fmt_pct(sc.implied_mfu)})",
            )
        )
    if r.measured_mfu is not None:
        rows.append(("Measured MFU", fmt_pct(r.measured_mfu)))
    lines += _section("Time", rows)

    if c.spot_usd is None:
        spot = "no spot price (set --spot-price)"
    else:
        spot = f"{_usd(c.spot_usd)} at {_usd(c.spot_usd_per_hour)}/GPU-h, F = {c.spot_factor:.3f}"
        if c.spot_price_ratio is None:  # on-demand costs nothing (owned hardware): no ratio
            spot += " -> stay on-demand (it costs nothing here)"
        else:
            advice = "take spot" if c.take_spot else "stay on-demand"
            spot += f" -> {advice} ({c.spot_price_ratio:.2f}× on-demand)"
    lo_mfu = eff.mfu * (1 - eff.mfu_band)
    hi_mfu = min(eff.mfu * (1 + eff.mfu_band), 1.0)
    lines += _section(
        "Cost per run",
        [
            ("On-demand", f"{_usd(c.on_demand_usd)} at {_usd(c.on_demand_usd_per_hour)}/GPU-h"),
            ("Spot", spot),
            (
                "Range",
                f"{_usd(c.low_usd)} – {_usd(c.high_usd)} (on-demand, MFU "
                f"{fmt_pct(hi_mfu, 0)} – {fmt_pct(lo_mfu, 0)})",
            ),
            ("Compute only", f"{_usd(c.compute_only_usd)} (FLOPs at the MFU, no overheads)"),
            ("Per 1e18 FLOPs", _usd(c.usd_per_1e18_flops)),
        ],
    )

    p = r.project
    ck = r.checkpoint
    billing = "spot" if pj.billing == "spot" else "on-demand"
    lines += _section(
        f"Project ({p.runs} runs: {pj.planned_runs} planned + {pj.failed_runs} failed, {billing})",
        [
            ("Runs", f"{_usd(p.runs_usd)} ({p.runs} × {_usd(p.run_usd)})"),
            (
                "Checkpoint storage",
                f"{_usd(p.storage_usd)} ({pj.checkpoints_retained} × "
                f"{fmt_gb(ck.resumable_bytes)} for {pj.storage_months:g} months)",
            ),
            ("Engineering", _usd(p.engineering_usd)),
            ("Total", f"{_usd(p.total_usd)} (range {_usd(p.low_usd)} – {_usd(p.high_usd)})"),
        ],
    )

    if r.warnings:
        lines += ["Warnings", *(f"  - {term(w)}" for w in r.warnings), ""]
    return "\n".join(lines).rstrip("\n") + "\n"
