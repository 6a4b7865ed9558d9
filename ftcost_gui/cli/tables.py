"""The listings as text tables: GPUs, catalogs, models and the GPU ranking of ``compare``.

Every name that comes from a file (GPU, catalog, model, file names) is shown through
``io.names.for_terminal``: a shared catalog cannot write escape sequences to the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..core.architecture import count_params
from ..core.catalog import BUILTIN_NAME, BUILTIN_ORIGIN, EffectiveRow, GpuCatalog, PresetLibrary
from ..core.compare import GpuComparison, cheapest_fitting
from ..core.inputs import METHOD_LABELS, EstimateInputs
from ..core.units import fmt_pct
from ..io.names import for_terminal as term
from ..present.blocks import inline_text
from ..present.compare import compare_cells, pick_notes
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


def format_compare(
    inputs: EstimateInputs, ranked: Sequence[GpuComparison], catalog: str, by: str
) -> str:
    """The 'which GPU for this job' ranking: one line per GPU, the cheapest fitting marked."""
    tr = inputs.training
    cheapest = cheapest_fitting(ranked)
    # Ranked by each row's run cost at its tier: 'on-demand' only when every row is.
    tiered = any(r.pricing_tier != "on_demand" for r in ranked)
    cost_text = "cost per run at each GPU's pricing tier" if tiered else "cost per run (on-demand)"
    by_text = cost_text if by == "cost" else "held wall-clock"
    count = "fewest GPUs that fit" if tr.auto_gpu_count else f"{tr.num_gpus} GPU(s)"
    pinned = inputs.efficiency.mfu
    mfu = "each GPU's own MFU" if pinned is None else f"MFU {fmt_pct(pinned)} pinned for all"
    lines = [
        f"{term(inputs.model.name)} · {METHOD_LABELS[tr.method]} · {count} · {mfu} · catalog "
        f"'{term(catalog)}'",
        f"Ranked by {by_text}; GPUs that fit first. * = cheapest GPU that fits.",
        "",
    ]
    show_origin = any(r.origin not in (None, BUILTIN_ORIGIN) for r in ranked)
    rows = []
    for r, c in zip(ranked, compare_cells(ranked), strict=True):
        cells = [
            c.rank, "*" if cheapest is not None and r is cheapest else "", c.gpu, c.fits, c.gpus,
            c.achieved_tflops, c.usd_per_1e18_flops, c.wall_clock, c.run_usd, c.spot_usd,
            c.held_gpu_hours,
        ]  # fmt: skip
        if tiered:
            cells.insert(8, c.tier)
        rows.append([*cells, c.origin] if show_origin else cells)
    headers = [
        "RANK", "", "GPU", "FITS", "GPUS", "ACHIEVED TFLOPS", "$/1e18 FLOPs", "WALL-CLOCK",
        "$ ON-DEMAND", "$ SPOT", "GPU-H HELD",
    ]  # fmt: skip
    right = [True, False, False, False, True, True, True, True, True, True, True]
    if tiered:  # the run cost at each row's tier (its rank), the tier beside it
        headers[8:9] = ["TIER", "$ PER RUN"]
        right.insert(8, False)
    if show_origin:
        headers.append("ORIGIN")
        right.append(False)
    out = "\n".join(lines) + "\n" + table(headers, rows, right)
    notes = [term(inline_text(n)) for n in pick_notes(ranked)]
    notes.append(
        "Costs are per run at each GPU's catalog prices ($ SPOT: interruptions included; '-': no\n"
        "spot price). Wall-clock and GPU-hours are held time (start-up, checkpoints, evaluation)."
        + (
            "\n$ PER RUN: at the row's tier (on-demand, 1- or 3-year committed rate, or spot)."
            if tiered
            else ""
        )
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
