"""The MFU sweep (core/sweep.py): every point is ``run_time``'s figure, exactly, and a large
sweep creates no garbage (issue 17: 1e6 points linear from 1e4; the time is in
benchmarks/bench_core.py, the work is counted here)."""

from __future__ import annotations

import gc
import itertools
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ftcost_gui.core import rollout
from ftcost_gui.core.comm import NO_COMM
from ftcost_gui.core.estimate import plan
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.core.sweep import SweepPoint, run_columns, sweep, sweep_columns
from ftcost_gui.core.time_cost import (
    TimePlan,
    generation_shape,
    run_time,
    runner,
    spot_factor,
    spot_run_usd,
)

from .strategies import examples, inputs_anywhere

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


# Every stage of sweep.py is one comprehension chosen once per time plan; these draw time plans
# that reach each choice: communication flat or per step, with or without a slowdown or overlap
# other than 1 (the identity multiplications left out), evaluation and rollouts none, by
# article 000's rule, bandwidth without engines, or bandwidth (the MFU default's data shape or
# a pinned MFU), and a fixed part of 0 or more (``x + 0.0`` left out only when it is > 0).
GENERATION_KINDS = ("none", "mfu", "bandwidth, no engines", "bandwidth")
MFU_CHOICE = plan(BASE).time.mfu
# The MFUs a sweep is asked for: the field's declared range, bounds included, and beyond it
# (the cost curve's 0.10-0.60, the tests' 1.2).
sweep_mfus = st.lists(
    st.floats(0.001, 1.0) | st.sampled_from([0.001, 1.0, 1.2]), min_size=1, max_size=24
)


def generation(kind: str, draw) -> rollout.GenerationPlan:
    if kind == "none":
        return rollout.NO_GENERATION
    return rollout.GenerationPlan(
        mode="mfu" if kind == "mfu" else "bandwidth",
        engines=0 if kind == "bandwidth, no engines" else draw(st.integers(1, 64)),
        tp=draw(st.sampled_from([1, 2, 4, 8, 64])),
        batch=draw(st.floats(1.0, 4096.0)),
        decode_steps=draw(st.floats(0.0, 1e9)),
        decode_mem_s=draw(st.floats(0.0, 1.0)),
        decode_flops=draw(st.floats(0.0, 1e16)),
        prefill_flops=draw(st.floats(0.0, 1e21)),
        sync_s=draw(st.floats(0.0, 1e5)),
        rule_flops=draw(st.floats(0.0, 1e24)),
        generated_tokens=draw(st.floats(0.0, 1e12)),
        gen_flops=draw(st.floats(0.0, 1e24)),
    )


@st.composite
def time_plans(draw, comm=None, scaled=None, ev=None, rl=None, shaped=None, fixed=None):
    """A time plan that takes the given stage choices (None: drawn too)."""
    comm = comm or draw(st.sampled_from(["flat", "per step"]))
    scaled = draw(st.booleans()) if scaled is None else scaled
    ev = ev or draw(st.sampled_from(GENERATION_KINDS))
    rl = rl or draw(st.sampled_from(GENERATION_KINDS))
    shaped = draw(st.booleans()) if shaped is None else shaped
    fixed = draw(st.booleans()) if fixed is None else fixed

    def one_or(lo: float, hi: float) -> float:
        return draw(st.floats(lo, hi)) if scaled else 1.0

    n = draw(st.integers(1, 100_000))
    return TimePlan(
        total_flops=draw(st.floats(1e12, 1e27)),
        num_gpus=n,
        rented_gpus=n + draw(st.integers(0, 64)),
        steps=draw(st.floats(1e-3, 1e9)),
        comm=NO_COMM._replace(seconds_per_step=draw(st.floats(0.0, 1e4)), overlap=one_or(0.0, 1.0)),
        comm_flat=draw(st.floats(0.0, 10.0)) if comm == "flat" else None,
        qlora_flat=one_or(1.0, 5.0),
        offload_slowdown=one_or(1.0, 10.0),
        fixed_wall_s=draw(st.floats(1e-3, 1e7)) if fixed else 0.0,
        eval_gen=generation(ev, draw),
        rl_gen=generation(rl, draw),
        extra_gpus=draw(st.integers(0, 1024)),
        ckpt_write_s=draw(st.floats(0.0, 1e5)),
        ckpt_interval_s=draw(st.floats(1.0, 1e7)),
        peak=draw(st.floats(1e12, 1e16)),
        gen_mfu=draw(st.floats(0.001, 1.0)),
        download_s=0.0,
        nccl_s=0.0,
        mfu=MFU_CHOICE._replace(
            source="default" if shaped else "given",
            default=MFU_CHOICE.default._replace(shape=draw(st.floats(0.01, 1.0))),
        ),
    )


# The two stages' choices, each with the other stage's drawn: (comm, scaled) picks the training
# comprehension, (evaluation, rollouts, shaped, fixed > 0) the generation one.
BRANCHES = [
    {"comm": comm, "scaled": scaled}
    for comm, scaled in itertools.product(("flat", "per step"), (False, True))
] + [
    {"ev": ev, "rl": rl, "shaped": shaped, "fixed": fixed}
    for ev, rl, shaped, fixed in itertools.product(
        GENERATION_KINDS, GENERATION_KINDS, (False, True), (False, True)
    )
]


def assert_run_times_figures(t: TimePlan, mfus: list[float], od: float) -> None:
    on_demand, gpu_hours, walls = run_columns(t, mfus, od)
    for i, mfu in enumerate(mfus):
        rt = run_time(t, mfu, od)
        assert (on_demand[i], gpu_hours[i], walls[i]) == (
            rt.on_demand_usd, rt.held_gpu_hours, rt.held_wall_s
        ), (i, mfu)  # fmt: skip


@pytest.mark.parametrize(
    "branch", BRANCHES, ids=["-".join(map(str, b.values())).replace(" ", "_") for b in BRANCHES]
)
@settings(max_examples=examples(0.01, least=10))
@given(data=st.data(), mfus=sweep_mfus, od=st.floats(0.0, 1_000.0))
def test_every_stage_of_the_sweep_is_run_times_figure(branch, data, mfus, od):
    """Each of sweep.py's specialised comprehensions, over the time plans that choose it (every
    operand over its range), gives ``run_time``'s figures exactly."""
    assert_run_times_figures(data.draw(time_plans(**branch)), mfus, od)


@settings(max_examples=examples(0.03))
@given(inputs=inputs_anywhere(), mfus=sweep_mfus)
def test_every_point_is_run_times_figure_anywhere(inputs, mfus):
    """Inputs from anywhere in the declared space (tests/core/strategies.py): the sweep, its
    spot column and the points ``sweep_mfu`` gives are ``run_time``'s figures exactly."""
    p = plan(inputs)
    gpu = inputs.hardware.gpu
    od, spot = gpu.on_demand_usd_per_hour, gpu.spot_usd_per_hour
    f = spot_factor(inputs, p.nodes)
    s = sweep_columns(p, mfus)
    assert all(type(c) is array for c in (s.on_demand_usd, s.held_gpu_hours, s.wall_s))
    assert (s.spot_usd is None) == (spot is None)
    for i, mfu in enumerate(mfus):
        rt = run_time(p.time, mfu, od)
        assert (s.on_demand_usd[i], s.held_gpu_hours[i], s.wall_s[i]) == (
            rt.on_demand_usd, rt.held_gpu_hours, rt.held_wall_s
        )  # fmt: skip
        assert s.spot_usd is None or s.spot_usd[i] == spot_run_usd(rt.held_gpu_hours, f, spot)
    assert sweep(p, mfus) == [
        SweepPoint(m, u, None if s.spot_usd is None else s.spot_usd[i], h, w)
        for i, (m, u, h, w) in enumerate(
            zip(mfus, s.on_demand_usd, s.held_gpu_hours, s.wall_s, strict=True)
        )
    ]


@pytest.mark.parametrize("mfu", [5e-324, float("nan")], ids=["overflowing", "nan"])
def test_the_sweep_raises_where_run_time_raises(mfu):
    """``run_time`` counts checkpoint writes with int(), which refuses inf and NaN; the sweep
    counts them as floats and raises the same error at the same MFUs."""
    t = plan(BASE).time
    with pytest.raises(ValueError) as expected:
        run_time(t, mfu, 2.0)
    with pytest.raises(ValueError) as got:
        run_columns(t, [0.3, mfu, 0.4], 2.0)
    assert str(got.value) == str(expected.value)
    assert_run_times_figures(t, [1e-300, 0.3], 2.0)  # huge but finite: no error, the same figures
