"""Ranges (core/ranges.py): each band by hand, and low ≤ expected ≤ high for every figure over
the whole input space (tests/core/strategies.py)."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest
from hypothesis import HealthCheck, given, settings

from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.histogram import LengthHistogram
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.core.ranges import WORST_ALLOCATOR_EFFICIENCY, longest_row
from ftcost_gui.core.results import Band
from ftcost_gui.core.series import SWEEP_MFUS, Outcomes
from ftcost_gui.core.units import GIB
from ftcost_gui.io.resources import builtin_catalog

from .strategies import inputs_anywhere

HOUR = 3600.0


def _inputs(**sections) -> EstimateInputs:
    """EstimateInputs with fields replaced per section: _inputs(data={"epochs": 1}, ...)."""
    doc = EstimateInputs().model_dump()
    for section, fields in sections.items():
        node = doc
        for part in section.split("."):
            node = node[part]
        node.update(fields)
    return EstimateInputs.model_validate(doc)


# No start-up, checkpoint writes, evaluation or idle time: held wall-clock = training wall-clock.
BARE = {
    "provisioning_min": 0.0, "warmup_min": 0.0, "weights_cached": True, "nccl_init_min": 0.0,
    "idle_hours_per_run": 0.0, "checkpoint_interval_min": 10**6, "eval_passes_per_run": 0,
}  # fmt: skip


def _bands(r) -> dict[str, Band]:
    g = r.ranges
    out = {
        name: getattr(g, name)
        for name in type(g).model_fields
        if isinstance(getattr(g, name), Band)
    }
    return out


def test_time_and_cost_band_by_hand():
    """One GPU (no communication), MFU 0.40 ± 25 %, price $2.00 in a $1.50–$4.00 range:
    busy wall = FLOPs ÷ (peak × MFU); low at MFU 0.50 and $1.50, high at MFU 0.30 and $4.00."""
    inputs = _inputs(
        overheads=BARE,
        efficiency={"mfu": 0.40, "mfu_band": 0.25},
        training={"auto_gpu_count": False, "num_gpus": 1, "method": "qlora"},
        **{"hardware.gpu": {
            "on_demand_usd_per_hour": 2.0, "on_demand_low_usd_per_hour": 1.5,
            "on_demand_high_usd_per_hour": 4.0, "spot_usd_per_hour": 1.0,
        }},
    )  # fmt: skip
    r = estimate(inputs)
    assert r.layout.num_gpus == 1 and r.time.comm_exposed_s == 0
    flops, peak = r.flops.total_flops, inputs.hardware.gpu.bf16_tflops * 1e12
    wall = {m: flops / (peak * m) for m in (0.30, 0.40, 0.50)}
    g = r.ranges
    assert (g.mfu.low, g.mfu.expected, g.mfu.high) == pytest.approx((0.30, 0.40, 0.50))
    assert g.mfu_band == 0.25  # the relative band given: 0.40 × (1 ∓ 0.25)
    assert g.held_wall_s.low == pytest.approx(wall[0.50])
    assert g.held_wall_s.expected == pytest.approx(wall[0.40]) == pytest.approx(r.time.held_wall_s)
    assert g.held_wall_s.high == pytest.approx(wall[0.30])
    assert g.compute_gpu_hours.high == pytest.approx(wall[0.30] / HOUR)
    assert (g.price_usd_per_hour.low, g.price_usd_per_hour.high) == (1.5, 4.0)
    assert g.on_demand_usd.low == pytest.approx(wall[0.50] / HOUR * 1.5)
    assert g.on_demand_usd.expected == pytest.approx(wall[0.40] / HOUR * 2.0)
    assert g.on_demand_usd.high == pytest.approx(wall[0.30] / HOUR * 4.0)
    f = r.cost.spot_factor  # spot follows the time band at the spot price × F
    assert g.spot_usd.low == pytest.approx(wall[0.50] / HOUR * 1.0 * f)
    assert g.spot_usd.high == pytest.approx(wall[0.30] / HOUR * 1.0 * f)
    p = r.project  # runs × cost per run + storage + engineering
    fixed = p.storage_usd + p.engineering_usd
    assert g.project_usd.low == pytest.approx(p.runs * wall[0.50] / HOUR * 1.5 + fixed)
    assert g.project_usd.high == pytest.approx(p.runs * wall[0.30] / HOUR * 4.0 + fixed)


def test_no_range_of_offers_keeps_the_price():
    inputs = _inputs(overheads=BARE, **{"hardware.gpu": {"on_demand_usd_per_hour": 2.5}})
    g = estimate(inputs).ranges
    assert g.price_usd_per_hour.low == g.price_usd_per_hour.high == 2.5


def test_a_price_outside_the_catalogs_range_widens_it():
    inputs = _inputs(**{"hardware.gpu": {
        "on_demand_usd_per_hour": 20.0, "on_demand_low_usd_per_hour": 2.0,
        "on_demand_high_usd_per_hour": 12.29,
    }})  # fmt: skip
    g = estimate(inputs).ranges
    assert (g.price_usd_per_hour.low, g.price_usd_per_hour.high) == (2.0, 20.0)


def test_the_builtin_h100_prices_its_range_of_offers():
    h100 = builtin_catalog().find("h100-sxm").to_spec().model_dump()
    r = estimate(_inputs(**{"hardware.gpu": h100}))
    g = r.ranges
    assert (g.price_usd_per_hour.low, g.price_usd_per_hour.high) == (2.0, 12.29)
    assert g.on_demand_usd.low < r.cost.on_demand_usd < g.on_demand_usd.high


def test_communication_band_by_hand():
    """8 GPUs, DDP over links: the high end hides no communication at all, so its training wall
    is the busy time at the low MFU plus every step's communication."""
    inputs = _inputs(
        overheads=BARE,
        efficiency={"mfu": 0.40, "mfu_band": 0.2, "communication": "links"},
        training={"auto_gpu_count": False, "num_gpus": 8, "sharding": "none", "method": "lora"},
        hardware={"rent_whole_units": False},
    )
    r = estimate(inputs)
    t, g = r.time, r.ranges
    assert g.comm_band and t.comm_s_per_step > 0
    peak = inputs.hardware.gpu.bf16_tflops * 1e12
    busy = r.flops.total_flops / (peak * 0.32) / 8
    assert g.held_wall_s.high == pytest.approx(busy + t.steps * t.comm_s_per_step)
    assert g.comm_exposed_high_s == pytest.approx(t.steps * t.comm_s_per_step)
    # the low end: the MFU's top, communication hidden as modelled (max(0, c − overlap × busy))
    busy_fast = r.flops.total_flops / (peak * 0.48) / 8
    exposed = t.steps * max(0.0, t.comm_s_per_step - t.comm_overlap * busy_fast / t.steps)
    assert g.held_wall_s.low == pytest.approx(busy_fast + exposed)
    # as estimated: the expected MFU 0.40, communication hidden as modelled
    busy_mid = r.flops.total_flops / (peak * 0.40) / 8
    mid = t.steps * max(0.0, t.comm_s_per_step - t.comm_overlap * busy_mid / t.steps)
    assert g.comm_exposed_s == pytest.approx(mid)


def test_the_articles_flat_table_has_no_communication_band():
    inputs = _inputs(
        efficiency={"communication": "table"},
        training={"auto_gpu_count": False, "num_gpus": 8},
    )
    assert not estimate(inputs).ranges.comm_band


def test_memory_high_end_is_the_worst_measured_allocator():
    """Device total = allocated ÷ allocator efficiency + CUDA context: at 0.73 instead of 0.85."""
    r = estimate(_inputs())
    m, g = r.memory, r.ranges
    assert g.memory_efficiency_high == WORST_ALLOCATOR_EFFICIENCY == 0.73
    assert g.memory_bytes.high == pytest.approx(m.peak_allocated_bytes / 0.73 + m.overhead_bytes)
    assert m.total_bytes == pytest.approx(m.peak_allocated_bytes / 0.85 + m.overhead_bytes)
    high = m.peak_allocated_bytes / 0.73 + m.overhead_bytes
    assert g.memory_high_fits == (high <= m.capacity_bytes)
    low_eff = estimate(_inputs(hardware={"usable_memory_fraction": 0.6})).ranges
    assert low_eff.memory_efficiency_high == 0.6  # already below the worst measured: no band
    assert low_eff.memory_bytes.high == low_eff.memory_bytes.expected


def test_longest_row_by_hand():
    # the histogram's top edge, scaled to the mean: (100, 200, 400) measured mean 225 → × 2
    h = LengthHistogram(edges=(100, 200, 400), counts=(1, 1))
    data = {"length_histogram": h.model_dump(), "mean_tokens_per_example": 450.0}
    assert longest_row(_inputs(data={**data, "max_seq_len": 4096, "padding": "longest"})) == 800
    assert longest_row(_inputs(data={**data, "max_seq_len": 512, "padding": "longest"})) == 512
    assert longest_row(_inputs(data={**data, "max_seq_len": 4096, "padding": "pack"})) == 4096
    # the log-normal: the (1 − 1/(N + 1)) quantile of N = 20,000 examples, mean 300, cv 0.5
    sigma = math.sqrt(math.log(1.25))
    mu = math.log(300.0) - sigma**2 / 2
    top = math.exp(mu + sigma * NormalDist().inv_cdf(1 - 1 / 20_001))
    assert 1600 < top < 1800
    lognormal = _inputs(
        data={"mean_tokens_per_example": 300.0, "length_cv": 0.5, "num_examples": 20_000,
              "max_seq_len": 4096, "padding": "longest"}
    )  # fmt: skip
    assert longest_row(lognormal) == math.ceil(top)


def test_memory_low_end_at_the_datas_longest_row():
    """Rows of at most 800 tokens never fill a 4,096-token micro-batch: the low end is the
    memory at 800-token rows, which is the estimate at max length 800."""
    h = LengthHistogram(edges=(100, 200, 400), counts=(1, 1))
    data = {"length_histogram": h.model_dump(), "mean_tokens_per_example": 450.0,
            "padding": "longest"}  # fmt: skip
    training = {"checkpointing": "none", "auto_gpu_count": False, "num_gpus": 1}
    long = estimate(_inputs(data={**data, "max_seq_len": 4096}, training=training))
    short = estimate(_inputs(data={**data, "max_seq_len": 800}, training=training))
    assert long.ranges.memory_row_tokens == 800
    assert long.ranges.memory_bytes.low == pytest.approx(short.memory.total_bytes)
    assert long.ranges.memory_bytes.low < long.memory.total_bytes


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(inputs_anywhere())
def test_low_expected_high_are_ordered_everywhere(inputs):
    r = estimate(inputs)
    for name, band in _bands(r).items():
        assert band.low <= band.expected <= band.high or (
            math.isclose(band.low, band.expected, rel_tol=1e-12) and band.expected <= band.high
        ), (name, band)
        assert band.low >= 0 and not math.isnan(band.high), (name, band)
    assert r.ranges.memory_bytes.expected == r.memory.total_bytes
    assert r.ranges.on_demand_usd.expected == r.cost.on_demand_usd
    assert r.ranges.held_wall_s.expected == r.time.held_wall_s


def test_plotted_bands_by_hand():
    """The cost curve's band at each MFU m (one GPU, no communication, no fixed times): low =
    FLOPs ÷ (peak × m) in hours × the cheapest offer, high = the same × the dearest; the current
    point's error bar is the run's whole range; the memory bar's error bar is its band in GiB."""
    inputs = _inputs(
        overheads=BARE,
        efficiency={"mfu": 0.40, "mfu_band": 0.25},
        training={"auto_gpu_count": False, "num_gpus": 1, "method": "qlora"},
        **{"hardware.gpu": {
            "on_demand_usd_per_hour": 2.0, "on_demand_low_usd_per_hour": 1.5,
            "on_demand_high_usd_per_hour": 4.0,
        }},
    )  # fmt: skip
    o = Outcomes().get(inputs)
    r = o.result
    peak = inputs.hardware.gpu.bf16_tflops * 1e12
    curve = o.cost_curve
    for i in (0, 20, 50):  # MFU 0.10, 0.30, 0.60
        m = SWEEP_MFUS[i]
        hours = r.flops.total_flops / (peak * m) / HOUR
        assert curve.low_usd[i] == pytest.approx(hours * 1.5)
        assert curve.high_usd[i] == pytest.approx(hours * 4.0)
    now = o.cost_now
    assert now.low_usd == pytest.approx(r.flops.total_flops / (peak * 0.50) / HOUR * 1.5)
    assert now.high_usd == pytest.approx(r.flops.total_flops / (peak * 0.30) / HOUR * 4.0)
    bars = o.memory_by_method
    band = r.ranges.memory_bytes
    active = bars.keys.index("qlora")
    assert bars.ranges_gib[active] == pytest.approx((band.low / GIB, band.high / GIB))
    assert all(b is None for i, b in enumerate(bars.ranges_gib) if i != active)
