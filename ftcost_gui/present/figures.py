"""Headline figures, breakdown rows and the status line as text, from one EstimateResult.

The window's cards, table and status bar, the report and the CLI read the same strings from here.
"""

from __future__ import annotations

from ..core.inputs import METHOD_LABELS, EstimateInputs
from ..core.results import MEMORY_PART_LABELS, OBJECTIVE_MEMORY_PARTS, EstimateResult
from ..core.units import fmt_gib, fmt_hours, fmt_pct, fmt_usd
from ..io.names import plain
from .memory_texts import (
    ALLOCATED,
    DEVICE_TOTAL,
    GPU_MEMORY,
    RESERVED,
    TENSORS,
    figure_rows,
    headline_detail,
    headline_tooltip,
    headline_value,
)
from .objective import objective_label_rows
from .sections import spot_advice
from .text import sci
from .time_texts import (
    MEMORY_STATUS_TEXTS,
    checkpointing_text,
    gpus_text,
    mfu_text,
    price_word,
    rollout_gpus_text,
)

# The breakdown table names each figure with the tool that reports it.
_TOOLS = {
    ALLOCATED: f"{ALLOCATED} (max_memory_allocated)",
    RESERVED: f"{RESERVED} (max_memory_reserved)",
    DEVICE_TOTAL: f"{DEVICE_TOTAL} (nvidia-smi)",
}


def objective_rows(r: EstimateResult) -> list[tuple[str, str, str]]:
    """The objective's rows of the breakdown table (present/objective.py words them)."""
    return [(title, label, value) for title, label, value in objective_label_rows(r)]


HEADLINES: tuple[tuple[str, str], ...] = (
    ("memory", "Memory per GPU"),  # the detail line names the figure (1024-px cards)
    ("gpus", "GPUs"),
    ("gpu_hours", "Compute GPU-hours"),
    ("wall", "Wall-clock (held)"),
    ("cost", "Cost per run"),
    ("project", "Project total"),
)


def headline_texts(inputs: EstimateInputs, r: EstimateResult) -> dict[str, tuple[str, str, str]]:
    """(value, detail, tooltip) per headline key; pure, so tests compare against it."""
    mem, t, c, p, lay = r.memory, r.time, r.cost, r.project, r.layout
    people_h = inputs.project.engineering_hours + inputs.project.data_prep_hours
    need = "none fits" if mem.gpus_needed is None else f"{mem.gpus_needed} needed"
    rented = gpus_text(lay)
    gpus_detail = rented if lay.rounded_up else f"{need}"
    if c.spot_usd is not None:
        advice = spot_advice(c, inputs.hardware.gpu.pricing_tier)
        spot = f"spot {fmt_usd(c.spot_usd)} (F = {c.spot_factor:.3f}: {advice})"
    else:
        spot = "no spot price"
    return {
        "memory": (
            headline_value(mem),
            # The warnings line says how near the limit; the card says which state.
            headline_detail(
                mem, MEMORY_STATUS_TEXTS[lay.memory_status] if mem.fits else "does NOT fit"
            ),
            headline_tooltip(inputs, r, lay.near_limit_fraction),
        ),
        "gpus": (
            (f"{lay.rented_gpus} rented" if lay.rounded_up else f"{t.num_gpus} used")
            + rollout_gpus_text(r.alignment.rollout_gpus, lay),
            f"{gpus_detail} · {t.nodes} node{'s' if t.nodes != 1 else ''} of {lay.node_size}",
            "GPUs needed: the fewest whose per-GPU memory fits with the chosen sharding, rounded "
            "up to what can be rented (the GPU's rental unit; whole nodes beyond one), all "
            "billed.",
        ),
        "gpu_hours": (
            f"{t.compute_gpu_hours:,.1f} GPU-h",
            f"{sci(r.flops.total_flops)} FLOPs at {fmt_pct(t.effective_mfu)} effective MFU · "
            f"checkpointing {checkpointing_text(inputs.training.checkpointing, r)}",
            f"FLOPs ÷ achieved FLOP/s per GPU ÷ 3600 (article 000). MFU {mfu_text(t)}.",
        ),
        "wall": (
            fmt_hours(t.held_wall_s / 3600),
            f"{t.held_gpu_hours:,.1f} GPU-h held · training {fmt_hours(t.train_wall_s / 3600)}"
            + (f" · rollouts {fmt_hours(t.rl_generation_s / 3600)}" if t.rl_generation_s else ""),
            "Wall-clock the GPUs are held: training plus start-up, checkpoints, evaluation.",
        ),
        "cost": (
            f"{fmt_usd(c.on_demand_usd)} {price_word(inputs.hardware.gpu.pricing_tier)}",
            spot,
            "Held GPU-hours × your price.",
        ),
        "project": (
            fmt_usd(p.total_usd),
            # The split first: a $6,000 project beside a $16 run is people's time, not GPUs.
            f"{fmt_usd(p.runs_usd)} runs ({p.runs} × {fmt_usd(p.run_usd)}) + "
            f"{fmt_usd(p.engineering_usd)} engineering & data ({people_h:,.4g} h) + "
            f"{fmt_usd(p.storage_usd)} storage",
            "Runs (planned + failed) × cost per run + engineering and data-preparation hours × "
            "the hourly rate + checkpoint storage.",
        ),
    }


def breakdown_rows(inputs: EstimateInputs, r: EstimateResult) -> list[tuple[str, str, str]]:
    """(group, item, value) rows of the breakdown table."""
    rows: list[tuple[str, str, str]] = []
    mem = r.memory
    for key, value in mem.parts():
        if not value and key in OBJECTIVE_MEMORY_PARTS:  # DPO/RL parts, listed when a run has them
            continue
        if key in TENSORS:
            rows.append(("Memory per GPU", MEMORY_PART_LABELS[key], fmt_gib(value, 2)))
    for label, gib, _what in figure_rows(inputs, mem):
        rows.append(("Memory per GPU", _TOOLS.get(label, label), gib))
    rows.append(("Memory per GPU", GPU_MEMORY, fmt_gib(mem.capacity_bytes, 2)))
    if mem.cpu_offloaded_bytes:
        rows.append(
            ("Memory per GPU", "Offloaded to CPU (all GPUs)", fmt_gib(mem.cpu_offloaded_bytes))
        )
    f = r.flops
    for name, v in (
        ("Parameter matmuls", f.base_per_token),
        ("Recompute (checkpointing)", f.recompute_per_token),
        ("Attention", f.attention_per_token),
        ("Adapters", f.adapters_per_token),
        ("Total per token", f.per_token),
    ):
        rows.append(("FLOPs per token", name, sci(v)))
    rows.append(("FLOPs per token", "Training FLOPs (× D)", sci(f.total_flops)))
    c = r.cost
    for name, v in (
        ("Training", c.training_usd),
        ("Start-up", c.startup_usd),
        ("Checkpoint writes", c.checkpoint_usd),
        ("Evaluation", c.evaluation_usd),
        ("Rollouts (generation)", c.rl_generation_usd),
        ("Idle", c.idle_usd),
        (f"Total {price_word(inputs.hardware.gpu.pricing_tier)}", c.on_demand_usd),
    ):
        rows.append(("Cost per run", name, fmt_usd(v)))
    if c.spot_usd is not None:
        rows.append(("Cost per run", "Total spot", fmt_usd(c.spot_usd)))
    rows.append(("Cost per run", "Per 1e18 FLOPs", fmt_usd(c.usd_per_1e18_flops)))
    t = r.time
    for name, s in (
        ("Training", t.train_wall_s),
        ("Provisioning", t.provisioning_s),
        ("Weight download", t.download_s),
        ("Warm-up", t.warmup_s),
        ("NCCL init", t.nccl_s),
        ("Checkpoint writes", t.checkpoint_writes_s),
        ("Evaluation", t.eval_s),
        ("Rollouts (generation)", t.rl_generation_s),
        ("Idle", t.idle_s),
        ("Total held", t.held_wall_s),
    ):
        rows.append(("Wall-clock", name, fmt_hours(s / 3600)))
    p = r.project
    rows.append(("Project", f"Runs ({p.runs})", fmt_usd(p.runs_usd)))
    rows.append(("Project", "Storage", fmt_usd(p.storage_usd)))
    rows.append(("Project", "Engineering", fmt_usd(p.engineering_usd)))
    rows.append(("Project", "Total", fmt_usd(p.total_usd)))
    rows += objective_rows(r)
    return rows


def summary_text(inputs: EstimateInputs, r: EstimateResult) -> str:
    """The status-bar line: model, method, GPUs, memory, GPU-hours and cost."""
    method = METHOD_LABELS[inputs.training.method].split(" (")[0]
    spot = f" · {fmt_usd(r.cost.spot_usd)} spot" if r.cost.spot_usd is not None else ""
    return (
        f"{plain(inputs.model.name)} · {method} · {r.layout.rented_gpus} × "
        f"{plain(inputs.hardware.gpu.name)} · "
        f"{fmt_gib(r.memory.total_bytes)} / {fmt_gib(r.memory.capacity_bytes)} per GPU"
        f"{'' if r.memory.fits else ' (does not fit)'} · {r.time.compute_gpu_hours:,.1f} "
        f"GPU-h · {fmt_usd(r.cost.on_demand_usd)} per run{spot} · project "
        f"{fmt_usd(r.project.total_usd)}"
    )
