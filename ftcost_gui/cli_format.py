"""Text tables and JSON documents for the CLI (no argument parsing, no I/O)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .core.architecture import count_params
from .core.catalog import (
    BUILTIN_NAME,
    BUILTIN_ORIGIN,
    EffectiveRow,
    GpuCatalog,
    PresetLibrary,
    merge_catalogs,
)
from .core.compare import GpuComparison, cheapest_fitting, fastest_fitting
from .core.inputs import METHOD_LABELS, SHARDING_LABELS, EstimateInputs
from .core.results import MEMORY_PART_LABELS, EstimateResult
from .core.units import (
    SECONDS_PER_HOUR,
    fmt_count,
    fmt_flops,
    fmt_gb,
    fmt_gib,
    fmt_hours,
    fmt_pct,
    fmt_usd,
)

RESULT_FORMAT = "ftcost-result"
RESULT_VERSION = 1
LABEL_WIDTH = 27

# --- JSON -----------------------------------------------------------------------------------------


def finite(value: Any) -> Any:
    """A copy with every non-finite float (inf, nan) replaced by None, so the JSON is valid."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def to_json(doc: Any) -> str:
    return json.dumps(finite(doc), indent=2, allow_nan=False)


def estimate_document(inputs: EstimateInputs, result: EstimateResult) -> dict[str, Any]:
    """``{"format": "ftcost-result", "version": 1, "inputs": ..., "result": ...}`` (docs/cli.md)."""
    return {
        "format": RESULT_FORMAT,
        "version": RESULT_VERSION,
        "inputs": inputs.model_dump(mode="json"),
        "result": result.model_dump(mode="json"),
    }


def _rows(catalog: GpuCatalog | Sequence[EffectiveRow]) -> list[EffectiveRow]:
    return merge_catalogs(catalog) if isinstance(catalog, GpuCatalog) else list(catalog)


def gpus_document(
    catalog: GpuCatalog | Sequence[EffectiveRow], name: str | None = None
) -> dict[str, Any]:
    """``ftcost gpus --json``: each GPU's fields plus ``origin`` and ``overrides_builtin``."""
    rows = _rows(catalog)
    if name is None:
        name = catalog.name if isinstance(catalog, GpuCatalog) else BUILTIN_NAME
    return {
        "format": "ftcost-gpus",
        "version": 1,
        "catalog": name,
        "gpus": [
            {
                **r.gpu.model_dump(mode="json"),
                "origin": r.origin,
                "overrides_builtin": r.overrides_builtin,
            }
            for r in rows
        ],
    }


def compare_row_document(row: GpuComparison, rank: int | None) -> dict[str, Any]:
    return {"rank": rank, **row.model_dump(mode="json")}


def compare_document(
    inputs: EstimateInputs, ranked: Sequence[GpuComparison], catalog: str, by: str
) -> dict[str, Any]:
    """``ftcost compare --json`` (docs/catalogs.md): the ranked rows and the picks."""
    cheapest = cheapest_fitting(ranked)
    fastest = fastest_fitting(ranked)
    rows = []
    rank = 0
    for r in ranked:
        if r.fits:
            rank += 1
        rows.append(compare_row_document(r, rank if r.fits else None))
    return {
        "format": "ftcost-compare",
        "version": 1,
        "catalog": catalog,
        "ranked_by": "cost" if by == "cost" else "wall_clock",
        "cheapest_fitting": cheapest.gpu_id if cheapest else None,
        "fastest_fitting": fastest.gpu_id if fastest else None,
        "inputs": inputs.model_dump(mode="json"),
        "rows": rows,
    }


def catalogs_document(
    entries: Sequence[tuple[GpuCatalog, Path]], active: str | None, folder: Path
) -> dict[str, Any]:
    """``ftcost catalogs --json``: the folder, the active catalog's name and the user catalogs."""
    return {
        "format": "ftcost-catalogs",
        "version": 1,
        "folder": str(folder),
        "active": active if active is not None else BUILTIN_NAME,
        "catalogs": [
            {"name": c.name, "description": c.description, "gpus": len(c.gpus), "file": str(p)}
            for c, p in entries
        ],
    }


def models_document(presets: PresetLibrary) -> dict[str, Any]:
    models = []
    for p in presets.models:
        counts = count_params(p.spec)
        row = p.model_dump(mode="json")
        row["params_total"] = int(counts.total)
        row["params_active"] = int(counts.total_active)
        models.append(row)
    return {"format": "ftcost-models", "version": 1, "models": models}


# --- Tables ---------------------------------------------------------------------------------------


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    """A plain aligned table; ``right`` marks right-aligned (numeric) columns."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = [
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)
        ]
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in rows)]) + "\n"


def _price(x: float | None) -> str:
    return "-" if x is None else f"{x:,.2f}"


def format_gpus(catalog: GpuCatalog | Sequence[EffectiveRow], name: str | None = None) -> str:
    effective = _rows(catalog)
    if name is None:
        name = catalog.name if isinstance(catalog, GpuCatalog) else BUILTIN_NAME
    rows = [
        [
            g.id,
            g.name,
            f"{g.memory_gib:,.1f}",
            f"{g.bf16_tflops:,.1f}" + ("" if g.bf16_supported else "*"),
            f"{g.memory_bandwidth_gb_s:,.0f}",
            f"{g.interconnect} {g.interconnect_gb_s:,.0f}",
            _price(g.on_demand_usd_per_hour),
            _price(g.spot_usd_per_hour),
            g.price_as_of or "-",
            _origin(r),
        ]
        for r in effective
        for g in (r.gpu,)
    ]
    headers = [
        "ID", "NAME", "MEM GiB", "BF16 TFLOPS", "HBM GB/s", "INTERCONNECT GB/s",
        "ON-DEMAND $/h", "SPOT $/h", "PRICES AS OF", "ORIGIN",
    ]  # fmt: skip
    right = [False, False, True, True, True, False, True, True, False, False]
    note = "Dense BF16 (FP16 where marked *). Prices are per GPU-hour and suggestions only.\n"
    if name != BUILTIN_NAME:
        note += (
            f"Catalog {name!r}: its rows replace built-in rows of the same id "
            "(ORIGIN 'user:...', '(overrides)').\n"
        )
    return table(headers, rows, right) + "\n" + note


def _origin(r: EffectiveRow) -> str:
    return r.origin + (" (overrides)" if r.overrides_builtin else "")


def format_catalogs(
    entries: Sequence[tuple[GpuCatalog, Path]], active: str | None, folder: Path, builtin_gpus: int
) -> str:
    """``ftcost catalogs``: the built-in catalog, then each user catalog; '*' marks the active."""
    active_key = (active or BUILTIN_NAME).casefold()
    rows = [["*" if active is None else "", BUILTIN_NAME, str(builtin_gpus), "(read-only)"]]
    rows += [
        ["*" if c.name.casefold() == active_key else "", c.name, str(len(c.gpus)), p.name]
        for c, p in entries
    ]
    out = table(["", "CATALOG", "GPUS", "FILE"], rows, [False, False, True, False])
    return out + f"\n* active. User catalogs live in {folder}.\n"


def _cell_usd(x: float | None) -> str:
    if x is None:
        return "-"
    return fmt_usd(x) if math.isfinite(x) else "unbounded"


def format_compare(
    inputs: EstimateInputs, ranked: Sequence[GpuComparison], catalog: str, by: str
) -> str:
    """The 'which GPU for this job' ranking: one line per GPU, the cheapest fitting marked."""
    tr = inputs.training
    cheapest = cheapest_fitting(ranked)
    by_text = "cost per run (on-demand)" if by == "cost" else "held wall-clock"
    count = "fewest GPUs that fit" if tr.auto_gpu_count else f"{tr.num_gpus} GPU(s)"
    lines = [
        f"{inputs.model.name} · {METHOD_LABELS[tr.method]} · {count} · MFU "
        f"{fmt_pct(inputs.efficiency.mfu)} · catalog {catalog!r}",
        f"Ranked by {by_text}; GPUs that fit first. * = cheapest GPU that fits.",
        "",
    ]
    show_origin = any(r.origin not in (None, BUILTIN_ORIGIN) for r in ranked)
    rows = []
    rank = 0
    for r in ranked:
        if r.fits:
            rank += 1
        fits = "yes" if r.fits else "no"
        needed = "-" if r.gpus_needed is None else str(r.gpus_needed)
        gpus = str(r.num_gpus) if r.fits else f"{r.num_gpus} (needs {needed})"
        name = r.gpu_name + ("" if r.bf16_supported else " (FP16)")
        cells = [
            str(rank) if r.fits else "-",
            "*" if cheapest is not None and r is cheapest else "",
            name,
            fits,
            gpus,
            f"{r.achieved_tflops:,.1f}",
            _cell_usd(r.usd_per_1e18_flops),
            fmt_hours(r.wall_clock_s / SECONDS_PER_HOUR),
            _cell_usd(r.on_demand_usd),
            _cell_usd(r.spot_usd),
            f"{r.held_gpu_hours:,.2f}",
        ]
        if show_origin:
            cells.append(r.origin or "-")
        rows.append(cells)
    headers = [
        "RANK", "", "GPU", "FITS", "GPUS", "ACHIEVED TFLOPS", "$/1e18 FLOPs", "WALL-CLOCK",
        "$ ON-DEMAND", "$ SPOT", "GPU-H HELD",
    ]  # fmt: skip
    right = [True, False, False, False, True, True, True, True, True, True, True]
    if show_origin:
        headers.append("ORIGIN")
        right.append(False)
    out = "\n".join(lines) + "\n" + table(headers, rows, right)
    notes = []
    if cheapest is None:
        notes.append("No GPU of the catalog fits at these settings.")
    else:
        notes.append(
            f"Cheapest that fits: {cheapest.num_gpus} × {cheapest.gpu_name}, "
            f"{_cell_usd(cheapest.on_demand_usd)} per run on-demand, "
            f"{fmt_hours(cheapest.wall_clock_s / SECONDS_PER_HOUR)} wall-clock."
        )
    fastest = fastest_fitting(ranked)
    if fastest is not None:
        notes.append(
            f"Fastest that fits: {fastest.num_gpus} × {fastest.gpu_name}, "
            f"{fmt_hours(fastest.wall_clock_s / SECONDS_PER_HOUR)} wall-clock, "
            f"{_cell_usd(fastest.on_demand_usd)} per run on-demand."
        )
    current = next((r for r in ranked if r.current), None)
    if current is not None:
        notes.append(f"This estimate's GPU: {current.gpu_name}.")
    notes.append(
        "Costs are per run at each GPU's catalog prices ($ SPOT: interruptions included; '-': no\n"
        "spot price). Wall-clock and GPU-hours are held time (start-up, checkpoints, evaluation)."
    )
    return out + "\n" + "\n".join(notes) + "\n"


def format_models(presets: PresetLibrary) -> str:
    rows = []
    for p in presets.models:
        s = p.spec
        rows.append(
            [
                p.id,
                p.family,
                p.size,
                f"{int(count_params(s).total):,}",
                str(s.num_layers),
                f"{s.hidden_size:,}",
                f"{s.vocab_size:,}",
                f"{s.max_context:,}",
                p.license or "-",
            ]
        )
    headers = ["ID", "FAMILY", "SIZE", "PARAMS", "LAYERS", "HIDDEN", "VOCAB", "CONTEXT", "LICENCE"]
    right = [False, False, False, True, True, True, True, True, False]
    return table(headers, rows, right)


def _usd(x: float | None) -> str:
    if x is None:
        return "-"
    return fmt_usd(x) if math.isfinite(x) else "unbounded"


def _section(title: str, rows: list[tuple[str, str]]) -> list[str]:
    out = [title]
    out += [f"  {label:<{LABEL_WIDTH}}{value}" for label, value in rows]
    return [*out, ""]


def format_estimate(inputs: EstimateInputs, r: EstimateResult) -> str:
    """The human-readable report: one section per group, units on every figure."""
    tr, gpu, eff, pj = inputs.training, inputs.hardware.gpu, inputs.efficiency, inputs.project
    mem, t, c, f = r.memory, r.time, r.cost, r.flops
    n = t.num_gpus
    head = f"{inputs.model.name} · {METHOD_LABELS[tr.method]} · {n} × {gpu.name}"
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

    layout = f"{n} × {gpu.name}, {SHARDING_LABELS[tr.sharding]}"
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
        advice = "take spot" if c.take_spot else "stay on-demand"
        spot = (
            f"{_usd(c.spot_usd)} at {_usd(c.spot_usd_per_hour)}/GPU-h, F = {c.spot_factor:.3f}"
            f" -> {advice} ({c.spot_price_ratio:.2f}× on-demand)"
        )
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
        lines += ["Warnings", *(f"  - {w}" for w in r.warnings), ""]
    return "\n".join(lines).rstrip("\n") + "\n"
