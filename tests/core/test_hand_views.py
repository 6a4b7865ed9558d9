"""What the plots, the comparison table and the Which-GPU rows show, by hand.

The cost curve (core/series.py) is the run's bill at each MFU of 10–60%: on one GPU with no
communication, evaluation or checkpoint writes, held time = start-up + FLOPs ÷ (peak × MFU), billed
at the on-demand price, and at the spot price × F (article 001). The memory bars are the parts in
GiB (2^30 bytes). Comparison rows are the estimate's figures in the table's units.
"""

from __future__ import annotations

import pytest

from ftcost_gui.core import estimate
from ftcost_gui.core.compare import Offer, comparison_row
from ftcost_gui.core.results import MEMORY_PART_LABELS
from ftcost_gui.core.scenarios import METRICS, compare_scenarios
from ftcost_gui.core.series import SWEEP_MFUS, Outcomes, scenario_series

from .hand import SHAPES
from .helpers import gpu, make

GIB = 2**30
PEAK = 989e12


def _inputs(s, **edits):
    base = dict(
        training__method="lora",
        training__checkpointing="full",
        training__auto_gpu_count=False,
        training__num_gpus=1,
        hardware__gpu=gpu("H100 SXM") | {"on_demand_usd_per_hour": 2.5, "spot_usd_per_hour": 1.0},
        efficiency__mfu=0.3,
        overheads__provisioning_min=6,
        overheads__weights_cached=True,
        overheads__warmup_min=4,
        overheads__eval_passes_per_run=0,
        overheads__checkpoint_interval_min=10**6,
        spot__interruptions_per_node_hour=0.1,
        spot__restart_overhead_min=6,
    )
    return make(s.preset, **(base | edits))


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_cost_curve_by_hand(s):
    inputs = _inputs(s)
    o = Outcomes().get(inputs)
    flops = o.result.flops.total_flops
    f_spot = 1 + 0.1 * (10**6 / 60 / 2 + 6 / 60)
    assert o.cost_curve.mfu_pct == tuple(m * 100 for m in SWEEP_MFUS)
    assert o.cost_curve.mfu_pct[0] == pytest.approx(10) and o.cost_curve.mfu_pct[-1] == 60
    for i, mfu in enumerate(SWEEP_MFUS):
        held = 10 * 60 + flops / (PEAK * mfu)
        assert o.cost_curve.on_demand_usd[i] == pytest.approx(held / 3600 * 2.5)
        assert o.cost_curve.spot_usd[i] == pytest.approx(held / 3600 * f_spot * 1.0)
    held_now = 10 * 60 + flops / (PEAK * 0.3)
    assert o.cost_now.mfu_pct == pytest.approx(30)
    assert o.cost_now.on_demand_usd == pytest.approx(held_now / 3600 * 2.5)
    assert o.cost_now.spot_usd == pytest.approx(held_now / 3600 * f_spot)


def test_no_spot_line_without_a_spot_price():
    o = Outcomes().get(_inputs(SHAPES[0], hardware__gpu=gpu("L4")))
    assert o.cost_curve.spot_usd is None and o.cost_now.spot_usd is None


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_memory_bars_are_the_parts_in_gib(s):
    o = Outcomes().get(_inputs(s))
    m, bars = o.result.memory, o.memory_by_method
    assert bars.keys == ("full_amp_adamw", "full_adamw_8bit", "lora", "qlora")
    assert bars.active == 2
    i = bars.active
    assert len(bars.parts_gib) == len(MEMORY_PART_LABELS)
    for k, key in enumerate(MEMORY_PART_LABELS):
        assert bars.parts_gib[k][i] == pytest.approx(getattr(m, f"{key}_bytes") / GIB)
        assert bars.part(key) == bars.parts_gib[k]
    assert bars.totals_gib[i] == pytest.approx(m.total_bytes / GIB)
    assert bars.usable_gib[i] == pytest.approx(m.usable_bytes / GIB)
    assert bars.capacity_gib[i] == pytest.approx(79.6)
    assert (bars.gpus_needed[i], bars.fits[i]) == (m.gpus_needed, m.fits)
    assert bars.num_gpus == (1, 1, 1, 1)  # every method drawn on the run's GPUs
    # Another method's bar is that method on the same GPUs (the memory step alone).
    full = estimate(_inputs(s, training__method="full_amp_adamw")).memory
    assert bars.totals_gib[0] == pytest.approx(full.total_bytes / GIB)


def test_scenario_series_one_bar_and_curve_each():
    outcomes = Outcomes()
    a, b = outcomes.get(_inputs(SHAPES[0])), outcomes.get(_inputs(SHAPES[1], efficiency__mfu=0.4))
    series = scenario_series(["a", "b"], [a, b], 1)
    assert (series.names, series.active, series.memory.keys) == (("a", "b"), 1, ("a", "b"))
    assert series.memory.totals_gib == pytest.approx(
        (a.result.memory.total_bytes / GIB, b.result.memory.total_bytes / GIB)
    )
    assert series.curves == (a.cost_curve, b.cost_curve) and series.now == (a.cost_now, b.cost_now)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize("tier", ["on_demand", "spot"])
def test_which_gpu_row(s, tier):
    inputs = _inputs(s)
    r = estimate(inputs)
    spec = inputs.hardware.gpu
    row = comparison_row(r, Offer(spec, "built-in", "a cloud", "eu", tier), current=True)
    assert (row.gpu_id, row.gpu_name, row.origin, row.provider, row.region) == (
        "h100-sxm",
        "H100 SXM",
        "built-in",
        "a cloud",
        "eu",
    )
    assert (row.pricing_tier, row.current, row.fits) == (tier, True, r.memory.fits)
    assert (row.gpus_needed, row.num_gpus) == (r.memory.gpus_needed, 1)
    assert row.achieved_tflops == pytest.approx(r.time.achieved_flops_per_s / 1e12)
    assert row.achieved_tflops == pytest.approx(989 * 0.3)  # one GPU: peak × MFU
    assert row.usd_per_1e18_flops == pytest.approx(2.5 / (989e12 * 0.3 * 3600) * 1e18)
    assert (row.wall_clock_s, row.train_wall_s) == (r.time.held_wall_s, r.time.train_wall_s)
    assert row.run_usd == (r.cost.spot_usd if tier == "spot" else r.cost.on_demand_usd)
    assert (row.on_demand_usd, row.spot_usd) == (r.cost.on_demand_usd, r.cost.spot_usd)
    assert (row.held_gpu_hours, row.compute_gpu_hours) == (
        r.time.held_gpu_hours,
        r.time.compute_gpu_hours,
    )
    assert (row.memory_per_gpu_bytes, row.usable_bytes) == (r.memory.total_bytes,
                                                            r.memory.usable_bytes)  # fmt: skip
    assert (row.on_demand_usd_per_hour, row.spot_usd_per_hour) == (2.5, 1.0)
    assert row.bf16_supported is True and row.warnings == r.warnings and row.spec == spec


def test_compare_scenarios_best_and_deltas():
    """Best value: the lowest among scenarios that fit; deltas and ratios against the baseline."""
    results = [estimate(_inputs(s)) for s in SHAPES[:2]]
    rows = compare_scenarios(results, baseline=1)
    assert [row.metric.key for row in rows] == [m.key for m in METRICS]
    by_key = {row.metric.key: row for row in rows}
    wall = [r.time.held_wall_s / 3600 for r in results]
    w = by_key["wall_clock_h"]
    assert w.values == pytest.approx(tuple(wall))
    assert w.best == ((0,) if wall[0] < wall[1] else (1,))
    assert w.deltas == pytest.approx((wall[0] - wall[1], 0.0))
    assert w.ratios == pytest.approx((wall[0] / wall[1], 1.0))
    mem = by_key["memory_gib"]
    assert mem.values == pytest.approx(tuple(r.memory.total_bytes / GIB for r in results))
    assert by_key["gpus"].values == (1.0, 1.0) and by_key["gpus"].best == (0, 1)
    assert by_key["project_usd"].values == tuple(r.project.total_usd for r in results)
    # A scenario that does not fit is never the best while another fits.
    never = compare_scenarios(results, fits=[False, True])
    assert all(0 not in row.best for row in never if row.values[1] is not None)
