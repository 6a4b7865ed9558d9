"""The listings as text tables: GPUs, catalogs, models and the GPU ranking of ``compare``.

Every name that comes from a file (GPU, catalog, model, file names) is shown through
``io.names.for_terminal``: a shared catalog cannot write escape sequences to the terminal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from ..core.architecture import count_params
from ..core.catalog import BUILTIN_NAME, BUILTIN_ORIGIN, EffectiveRow, GpuCatalog, PresetLibrary
from ..core.compare import GpuComparison, cheapest_fitting, fastest_fitting
from ..core.inputs import METHOD_LABELS, EstimateInputs
from ..core.units import SECONDS_PER_HOUR, fmt_hours, fmt_pct, fmt_usd
from ..io.names import for_terminal as term
from .documents import rows_of


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    """A plain aligned table; ``right`` marks right-aligned (numeric) columns.

    Every cell is shown through ``for_terminal``: names from files are never printed raw.
    """
    rows = [[term(c) for c in r] for r in rows]
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
    effective = rows_of(catalog)
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
            f"Catalog '{term(name)}': its rows replace built-in rows of the same id "
            "(ORIGIN 'user:...', '(overrides)').\n"
        )
    return table(headers, rows, right) + "\n" + note


def _origin(r: EffectiveRow) -> str:
    return r.origin + (" (overrides)" if r.overrides_builtin else "")


def format_catalogs(
    entries: Sequence[tuple[GpuCatalog, Path]],
    active: str | None,
    folder: Path | None,
    builtin_gpus: int,
) -> str:
    """``ftcost catalogs``: the built-in catalog, then each user catalog; '*' marks the active.

    ``folder`` None: the config folder cannot be used (no user catalogs)."""
    active_key = (active or BUILTIN_NAME).casefold()
    rows = [["*" if active is None else "", BUILTIN_NAME, str(builtin_gpus), "(read-only)"]]
    rows += [
        ["*" if c.name.casefold() == active_key else "", c.name, str(len(c.gpus)), p.name]
        for c, p in entries
    ]
    out = table(["", "CATALOG", "GPUS", "FILE"], rows, [False, False, True, False])
    if folder is None:
        return (
            out + "\n* active. User catalogs are unavailable: the config folder cannot be used.\n"
        )
    return out + f"\n* active. User catalogs live in {term(folder)}.\n"


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
        f"{term(inputs.model.name)} · {METHOD_LABELS[tr.method]} · {count} · MFU "
        f"{fmt_pct(inputs.efficiency.mfu)} · catalog '{term(catalog)}'",
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
            f"Cheapest that fits: {cheapest.num_gpus} × {term(cheapest.gpu_name)}, "
            f"{_cell_usd(cheapest.on_demand_usd)} per run on-demand, "
            f"{fmt_hours(cheapest.wall_clock_s / SECONDS_PER_HOUR)} wall-clock."
        )
    fastest = fastest_fitting(ranked)
    if fastest is not None:
        notes.append(
            f"Fastest that fits: {fastest.num_gpus} × {term(fastest.gpu_name)}, "
            f"{fmt_hours(fastest.wall_clock_s / SECONDS_PER_HOUR)} wall-clock, "
            f"{_cell_usd(fastest.on_demand_usd)} per run on-demand."
        )
    current = next((r for r in ranked if r.current), None)
    if current is not None:
        notes.append(f"This estimate's GPU: {term(current.gpu_name)}.")
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
