"""The MFU sweep (core/sweep.py): every point is ``run_time``'s figure, exactly, and a large
sweep creates no garbage (issue 17: 1e6 points linear from 1e4; the time is in
benchmarks/bench_core.py, the work is counted here)."""

from __future__ import annotations

import gc

import pytest

from ftcost_gui.core.estimate import plan
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.core.sweep import sweep, sweep_columns
from ftcost_gui.core.time_cost import generation_shape, run_time, runner, spot_factor

MFUS = [0.013, 0.05, 0.1, 0.2, 0.26, 0.37, 0.5, 0.61, 0.8, 0.95, 1.0, 1.2]

BASE = EstimateInputs()
VARIANTS = {
    "default": BASE,
    "no spot price": BASE.edited(
        "hardware", gpu={**BASE.hardware.gpu.model_dump(), "spot_usd_per_hour": None}
    ),
    "article table comm": BASE.edited("efficiency", communication="table"),
    "flat comm given": BASE.edited("efficiency", comm_overhead=0.2),
    "pinned mfu, offload": BASE.edited("efficiency", mfu=0.4).edited(
        "training", cpu_offload_optimizer=True
    ),
    "qlora slowdown": BASE.edited("training", method="qlora").edited(
        "efficiency", qlora_slowdown=1.3
    ),
    "no evaluation": BASE.edited("overheads", eval_passes_per_run=0),
    "grpo": BASE.edited("objective", objective="grpo"),
    "ppo separate": BASE.edited("objective", objective="ppo", rollout_placement="separate"),
    "article generation rule": BASE.edited("objective", objective="grpo", generation_rate="mfu"),
    "8 gpus zero3": BASE.edited(
        "training", sharding="zero3", auto_gpu_count=False, num_gpus=8, checkpointing="full"
    ),
}


@pytest.mark.parametrize("inputs", VARIANTS.values(), ids=VARIANTS.keys())
def test_every_point_is_run_times_figure_exactly(inputs):
    p = plan(inputs)
    gpu = inputs.hardware.gpu
    od, spot = gpu.on_demand_usd_per_hour, gpu.spot_usd_per_hour
    f = spot_factor(inputs, p.nodes)
    s = sweep_columns(p, MFUS)
    for i, mfu in enumerate(MFUS):
        rt = run_time(p.time, mfu, od)
        assert s.on_demand_usd[i] == rt.on_demand_usd
        assert s.held_gpu_hours[i] == rt.held_gpu_hours
        assert s.wall_s[i] == rt.held_wall_s
        if spot is None:
            assert s.spot_usd is None
        else:
            assert s.spot_usd is not None and s.spot_usd[i] == rt.held_gpu_hours * f * spot
    points = sweep(p, MFUS)
    assert [pt.mfu for pt in points] == MFUS
    assert [pt.on_demand_usd for pt in points] == list(s.on_demand_usd)
    assert [pt.spot_usd for pt in points] == (
        [None] * len(MFUS) if s.spot_usd is None else list(s.spot_usd)
    )


def test_the_sweep_at_the_inputs_mfu_is_the_estimates_cost():
    from ftcost_gui.core.estimate import finish

    p = plan(BASE)
    r = finish(p)
    s = sweep_columns(p, [p.time.mfu.mfu])
    assert s.on_demand_usd[0] == r.cost.on_demand_usd
    assert s.spot_usd is not None and s.spot_usd[0] == r.cost.spot_usd
    assert s.wall_s[0] == r.time.held_wall_s


def test_a_large_sweep_creates_no_objects_the_collector_tracks():
    """Arrays of doubles: no collection runs during 200,000 points (a tuple per point ran one
    every 700 points, and full collections over all of them made the sweep superlinear)."""
    p = plan(BASE)
    mfus = [0.05 + 0.9 * i / 199_999 for i in range(200_000)]
    runs: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start":
            runs.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        s = sweep_columns(p, mfus)
    finally:
        gc.callbacks.remove(count)
    assert len(s.on_demand_usd) == len(mfus)
    assert runs == []


@pytest.mark.parametrize("inputs", VARIANTS.values(), ids=VARIANTS.keys())
def test_the_cost_band_is_run_times_figure_at_each_end(inputs):
    """core/ranges.cost_band (the cost curve's band) from the same columns."""
    from ftcost_gui.core.ranges import _exposed, _price_band, cost_band

    p = plan(inputs)
    od_lo, _, od_hi = _price_band(p.inputs.hardware.gpu)
    low, high = cost_band(p, MFUS)
    assert low == tuple(run_time(p.time, m, od_lo).on_demand_usd for m in MFUS)
    assert high == tuple(run_time(_exposed(p), m, od_hi).on_demand_usd for m in MFUS)


@pytest.mark.parametrize("inputs", VARIANTS.values(), ids=VARIANTS.keys())
def test_a_bound_runner_is_run_time_exactly(inputs):
    """time_cost.runner (the finish's five run times) bound to a plan gives run_time's figures
    to the bit, for that plan's MFU choice and for other choices of an otherwise equal plan
    (a remembered plan's runner serves every MFU edit)."""
    p = plan(inputs)
    od = inputs.hardware.gpu.on_demand_usd_per_hour
    run = runner(p.time)
    for edit in ({"mfu": None}, {"mfu": 0.41}, {"mfu": None, "stack_efficiency": 0.7}):
        t = plan(inputs.edited("efficiency", **edit)).time
        assert t._replace(mfu=p.time.mfu) == p.time  # equal but in the MFU choice
        for mfu in MFUS:
            for price in (od, 0.0, 7.5):
                expected = run_time(t, mfu, price)
                got = run(mfu, price, generation_shape(t))
                assert type(got) is type(expected) and got == expected
                assert [type(v) for v in got] == [type(v) for v in expected]
