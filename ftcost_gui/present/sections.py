"""The estimate as titled sections of (label, value) rows: what ``ftcost estimate`` prints.

Plain text with a unit on every figure; names from files are cleaned (``io.names.plain``). The
spot advice is worded here once and shared with the headline figures.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.inputs import METHOD_LABELS, SHARDING_LABELS, EstimateInputs
from ..core.results import MEMORY_PART_LABELS, CostBreakdown, EstimateResult
from ..core.units import SECONDS_PER_HOUR, fmt_flops, fmt_gb, fmt_gib, fmt_hours, fmt_pct
from ..io.names import plain
from .memory_texts import GPU_MEMORY, TENSORS, figure_rows, phase_text
from .objective import objective_label_rows
from .ranges import range_rows
from .text import fmt_cost, fmt_count
from .time_texts import (
    checkpointing_text,
    gpus_text,
    memory_status_text,
    mfu_text,
    price_word,
    rollout_gpus_text,
)


@dataclass(frozen=True, slots=True)
class Section:
    """A heading with (label, value) rows, or with bulleted ``items`` (the warnings)."""

    title: str
    rows: tuple[tuple[str, str], ...] = ()
    items: tuple[str, ...] = ()


def spot_advice(c: CostBreakdown, tier: str = "on_demand") -> str:
    """Whether spot pays: (spot price ÷ the GPU's first price) × F below 1 (article 001). The
    first price is on-demand, or a 1- or 3-year committed rate where the catalog row says so."""
    if c.spot_price_ratio is None:  # no on-demand price to compare with: owned hardware
        return "stay on-demand: it costs nothing"
    if c.take_spot:
        return "take spot"
    word = price_word(tier)
    return "stay on-demand" if word == "on-demand" else f"keep the {word} price"


def headline(inputs: EstimateInputs, r: EstimateResult) -> str:
    """'Qwen2.5-7B · Full · mixed-precision AdamW (16 B/param) · 2 × H100 SXM'."""
    method = METHOD_LABELS[inputs.training.method]
    gpu = plain(inputs.hardware.gpu.name)
    return f"{plain(inputs.model.name)} · {method} · {r.layout.rented_gpus} × {gpu}"


def estimate_sections(inputs: EstimateInputs, r: EstimateResult) -> list[Section]:
    """Model & data, Memory per GPU, FLOPs, Time, Cost per run, Project, and any Warnings."""
    sections = [
        _model_and_data(inputs, r),
        _memory(inputs, r),
        _flops(r),
        _time(inputs, r),
        *_objective(r),
        _cost(inputs, r),
        _project(inputs, r),
        _ranges(inputs, r),
    ]
    if r.warnings:
        sections.append(Section("Warnings", items=tuple(plain(w) for w in r.warnings)))
    return sections


def _model_and_data(inputs: EstimateInputs, r: EstimateResult) -> Section:
    tr = inputs.training
    trainable = fmt_count(r.params.trainable)
    if tr.method in ("lora", "qlora"):
        trainable += f" (LoRA r={tr.lora_rank}: {', '.join(tr.lora_targets)})"
    params = fmt_count(r.params.total)
    if inputs.model.param_count_override is not None:
        params += " (bare count)"
    tok = r.tokens
    processed = (
        f"{fmt_count(tok.tokens_processed)} tokens ({fmt_pct(tok.useful_fraction)} useful, "
        f"seq len {tok.seq_len:,})"
    )
    return Section(
        "Model & data",
        (
            ("Parameters", params),
            ("Trainable", trainable),
            ("Useful tokens", f"{fmt_count(tok.useful_tokens)} tokens"),
            ("Tokens processed", processed),
        ),
    )


def _memory(inputs: EstimateInputs, r: EstimateResult) -> Section:
    mem = r.memory
    layout = (
        f"{r.time.num_gpus} × {plain(inputs.hardware.gpu.name)}, "
        f"{SHARDING_LABELS[inputs.training.sharding]}"
    )
    rows = [(MEMORY_PART_LABELS[k], fmt_gib(v)) for k, v in mem.parts() if v > 0 and k in TENSORS]
    rows += [(label, f"{value} ({what})") for label, value, what in figure_rows(inputs, mem)]
    rows.append((GPU_MEMORY, fmt_gib(mem.capacity_bytes)))
    if mem.fits:
        verdict = "yes" if r.layout.memory_status == "fits" else memory_status_text(r.layout)
        rows.append(
            ("Fits", f"{verdict}: device total ≤ GPU memory, {fmt_gib(mem.headroom_bytes)} free")
        )
    else:
        rows.append(
            ("Fits", f"NO: device total > GPU memory, short by {fmt_gib(-mem.headroom_bytes)}")
        )
    rows.append(("Peak", phase_text(mem).removeprefix("peak ")))
    needed = str(mem.gpus_needed) if mem.gpus_needed is not None else "none (does not fit)"
    rows.append(("GPUs needed", needed))
    if mem.cpu_offloaded_bytes > 0:
        rows.append(("Offloaded to CPU RAM", fmt_gib(mem.cpu_offloaded_bytes)))
    return Section(f"Memory per GPU ({layout})", tuple(rows))


def _flops(r: EstimateResult) -> Section:
    f, s = r.flops, r.simple
    rule = f"{s.flop_coefficient:g}·N·D = {fmt_flops(s.flops)}, {s.gpu_hours:,.2f} GPU-h"
    return Section(
        "FLOPs",
        (
            ("Per token", fmt_flops(f.per_token)),
            ("Total", fmt_flops(f.total_flops)),
            ("Attention share", fmt_pct(f.attention_share)),
            ("Rule of thumb", rule),
        ),
    )


def _rollout_gpus(r: EstimateResult) -> str:
    return rollout_gpus_text(r.alignment.rollout_gpus, r.layout, noun=True)


def _held_parts(r: EstimateResult) -> str:
    if r.time.rl_generation_s:
        rollouts = fmt_hours(r.time.rl_generation_s / SECONDS_PER_HOUR)
        return f" (with start-up, eval, {rollouts} of rollouts)"
    return " (with start-up, eval)"


def _objective(r: EstimateResult) -> list[Section]:
    """DPO's reference or the RL step, as titled rows (present/objective.py words them)."""
    rows = objective_label_rows(r)
    if not rows:
        return []
    return [Section(rows[0][0], tuple((label, value) for _, label, value in rows))]


def _time(inputs: EstimateInputs, r: EstimateResult) -> Section:
    t = r.time
    nodes = f"{t.nodes} node" + ("s" if t.nodes != 1 else "")
    throughput = (
        f"{t.tokens_per_s_per_gpu:,.0f} tokens/s per GPU (effective MFU "
        f"{fmt_pct(t.effective_mfu)}, communication +{fmt_pct(t.comm_overhead, 0)})"
    )
    gpu = plain(inputs.hardware.gpu.name)
    rows = [
        ("GPUs", f"{gpus_text(r.layout)} on {nodes}" + _rollout_gpus(r)),
        ("Checkpointing", checkpointing_text(inputs.training.checkpointing, r)),
        ("MFU", mfu_text(t, gpu)),
        ("Throughput", throughput),
        ("Compute", f"{t.compute_gpu_hours:,.2f} GPU-h"),
        ("Training wall-clock", fmt_hours(t.train_wall_s / SECONDS_PER_HOUR)),
        ("Held wall-clock", fmt_hours(t.held_wall_s / SECONDS_PER_HOUR) + _held_parts(r)),
        ("Held", f"{t.held_gpu_hours:,.2f} GPU-h"),
    ]
    if r.step_check is not None:
        sc = r.step_check
        check = (
            f"{sc.total_steps:,} steps × {sc.step_time_s:g} s = "
            f"{fmt_hours(sc.wall_s / SECONDS_PER_HOUR)}, {sc.gpu_hours:,.2f} GPU-h "
            f"(implied MFU {fmt_pct(sc.implied_mfu)})"
        )
        rows.append(("Step check", check))
    if r.measured_mfu is not None:
        rows.append(("Measured MFU", fmt_pct(r.measured_mfu)))
    return Section("Time", tuple(rows))


def _cost(inputs: EstimateInputs, r: EstimateResult) -> Section:
    c = r.cost
    tier = inputs.hardware.gpu.pricing_tier
    word = price_word(tier)
    if c.spot_usd is None:
        spot = "no spot price"
    else:
        spot = (
            f"{fmt_cost(c.spot_usd)} at {fmt_cost(c.spot_usd_per_hour)}/GPU-h, "
            f"F = {c.spot_factor:.3f} -> {spot_advice(c, tier)}"
        )
        if c.spot_price_ratio is not None:
            spot += f" ({c.spot_price_ratio:.2f}× {word})"
    band = fmt_pct(inputs.efficiency.mfu_band, 0)
    on_demand = f"{fmt_cost(c.on_demand_usd)} at {fmt_cost(c.on_demand_usd_per_hour)}/GPU-h"
    return Section(
        "Cost per run",
        (
            (word[:1].upper() + word[1:], on_demand),
            ("Spot", spot),
            ("Range", f"{fmt_cost(c.low_usd)} – {fmt_cost(c.high_usd)} ({word}, MFU ±{band})"),
            ("Compute only", f"{fmt_cost(c.compute_only_usd)} (FLOPs at the MFU, no overheads)"),
            ("Per 1e18 FLOPs", fmt_cost(c.usd_per_1e18_flops)),
        ),
    )


def _ranges(inputs: EstimateInputs, r: EstimateResult) -> Section:
    """Low / expected / high of each figure; where each band comes from below them."""
    rows = range_rows(inputs, r)
    by_source: dict[str, list[str]] = {}
    for name, *_, src in rows:
        by_source.setdefault(src, []).append(name)
    return Section(
        "Ranges (low / expected / high)",
        tuple((name, f"{lo} / {mid} / {hi}") for name, lo, mid, hi, _ in rows),
        tuple(f"{' and '.join(names)}: {src}" for src, names in by_source.items()),
    )


def _project(inputs: EstimateInputs, r: EstimateResult) -> Section:
    p, pj = r.project, inputs.project
    billing = "spot" if pj.billing == "spot" else price_word(inputs.hardware.gpu.pricing_tier)
    storage = (
        f"{fmt_cost(p.storage_usd)} ({pj.checkpoints_retained} × "
        f"{fmt_gb(r.checkpoint.resumable_bytes)} for {pj.storage_months:g} months)"
    )
    band = fmt_pct(inputs.efficiency.mfu_band, 0)
    total = (
        f"{fmt_cost(p.total_usd)} ({fmt_cost(p.low_usd)} – {fmt_cost(p.high_usd)} at MFU ±{band}; "
        "every band under Ranges)"
    )
    return Section(
        f"Project ({p.runs} runs: {pj.planned_runs} planned + {pj.failed_runs} failed, {billing})",
        (
            ("Runs", f"{fmt_cost(p.runs_usd)} ({p.runs} × {fmt_cost(p.run_usd)})"),
            ("Checkpoint storage", storage),
            ("Engineering", fmt_cost(p.engineering_usd)),
            ("Total", total),
        ),
    )
