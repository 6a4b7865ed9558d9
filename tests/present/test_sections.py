"""The estimate's text sections, the spot advice and the which-GPU picks, worded once."""

from __future__ import annotations

import math

import pytest

from ftcost_gui.core.catalog import merge_catalogs
from ftcost_gui.core.compare import compare_gpus, rank_by_cost
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.core.units import GIB
from ftcost_gui.io.resources import builtin_catalog
from ftcost_gui.present.blocks import Name, inline_text
from ftcost_gui.present.compare import compare_cells, pick_notes
from ftcost_gui.present.figures import headline_texts
from ftcost_gui.present.sections import estimate_sections, headline, spot_advice
from ftcost_gui.present.text import fmt_cost


def _with_prices(on_demand: float, spot: float | None) -> EstimateInputs:
    base = EstimateInputs()
    gpu = {**base.hardware.gpu.model_dump(), "on_demand_usd_per_hour": on_demand}
    gpu["spot_usd_per_hour"] = spot
    return base.edited("hardware", gpu=gpu)


def test_spot_advice_in_the_three_cases():
    # (spot ÷ on-demand) × F with F = 1.02 at the defaults: 2/3 × 1.02 = 0.68 < 1 -> spot.
    cheap = estimate(_with_prices(3.0, 2.0)).cost
    assert cheap.spot_price_ratio == 2.0 / 3.0 * cheap.spot_factor
    assert spot_advice(cheap) == "take spot"
    dear = estimate(_with_prices(3.0, 3.0)).cost  # 1 × 1.02 ≥ 1
    assert spot_advice(dear) == "stay on-demand"
    owned = estimate(_with_prices(0.0, 2.0)).cost  # nothing to compare with
    assert owned.spot_price_ratio is None
    assert spot_advice(owned) == "stay on-demand: it costs nothing"
    inputs = _with_prices(0.0, 2.0)
    detail = headline_texts(inputs, estimate(inputs))["cost"][1]
    assert "stay on-demand: it costs nothing" in detail  # the window says the same


def test_fmt_cost():
    assert (fmt_cost(None), fmt_cost(math.inf), fmt_cost(2.5), fmt_cost(1234.0)) == (
        "-", "unbounded", "$2.50", "$1,234",
    )  # fmt: skip


def test_sections_carry_units_and_clean_names():
    inputs = EstimateInputs()
    model = inputs.model.model_copy(update={"name": "\x1b[2JEvil\u202e"})
    inputs = inputs.model_copy(update={"model": model})
    r = estimate(inputs)
    assert headline(inputs, r).startswith("Evil · Full · mixed-precision AdamW")
    sections = {s.title.split(" (")[0]: dict(s.rows) for s in estimate_sections(inputs, r)}
    assert list(sections) == ["Model & data", "Memory per GPU", "FLOPs", "Time", "Cost per run",
                              "Project", "Ranges"]  # fmt: skip
    g = r.ranges  # low / expected / high as the estimate's own figures, formatted
    assert sections["Ranges"]["Memory per GPU"] == " / ".join(
        f"{b / GIB:,.1f} GiB" for b in (g.memory_bytes.low, g.memory_bytes.expected,
                                         g.memory_bytes.high)
    )  # fmt: skip
    mem = sections["Memory per GPU"]
    # Each figure is named by the tool that reports it, each a step from the one before.
    m = r.memory
    assert mem["Peak allocated"].startswith(f"{m.peak_allocated_bytes / GIB:,.2f} GiB (every")
    assert "torch.cuda.max_memory_allocated()" in mem["Peak allocated"]
    assert mem["+ allocator reserve"].startswith(f"{m.reserve_bytes / GIB:,.2f} GiB (allocated × ")
    assert "max_memory_reserved()" in mem["Peak reserved (expected)"]
    assert mem["Device total"].startswith(f"{m.total_bytes / GIB:,.2f} GiB (what nvidia-smi shows")
    assert m.total_bytes == pytest.approx(
        m.peak_allocated_bytes / 0.85 + m.overhead_bytes
    )  # reserve = allocated × (1 ÷ 0.85 − 1), the default allocator efficiency
    assert mem["GPU memory"] == f"{m.capacity_bytes / GIB:,.1f} GiB"
    assert mem["Fits"].startswith("yes: device total ≤ GPU memory, ")
    assert mem["Peak"] in ("in the backward", "at the optimizer step")
    assert mem["GPUs needed"] == str(r.memory.gpus_needed)
    band = "30%"  # the default MFU band, ±30 %
    assert sections["Cost per run"]["Range"].endswith(f"(on-demand, MFU ±{band})")


def test_compare_cells_and_picks():
    inputs = EstimateInputs()
    ranked = rank_by_cost(compare_gpus(inputs, merge_catalogs(builtin_catalog())))
    cells = compare_cells(ranked)
    fitting = [c for c in cells if c.fits == "yes"]
    assert [c.rank for c in fitting] == [str(i + 1) for i in range(len(fitting))]
    assert all(c.rank == "-" and "(needs" in c.gpus for c in cells if c.fits == "no")
    notes = pick_notes(ranked)
    assert isinstance(notes[0][1], Name)
    text = inline_text(notes[0])
    best = ranked[0]
    assert text == (
        f"Cheapest that fits: {best.num_gpus} × {best.gpu_name}, {fmt_cost(best.on_demand_usd)} "
        f"per run on-demand, {cells[0].wall_clock} wall-clock."
    )
    assert inline_text(("a ", Name("\x1b[31mred\x9b0m"), Name("\u202ex"))) == "a redx"
