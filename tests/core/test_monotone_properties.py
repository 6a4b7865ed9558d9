"""Properties over the whole input space (tests/core/strategies.py): every figure finite, the bill
linear in the price, and the figures that must move one way doing so.

These are the properties a mutation that breaks a sign, a division or a bound trips over
(docs/testing.md, mutation testing): finiteness and non-negativity of every number of the result,
exact proportionality to the GPU price, and monotonicity in the data, the epochs, the MFU, the
GPU's memory and the run count.
"""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.core.inputs import DataSpec, ProjectSpec

from .helpers import walk
from .strategies import bounds, inputs_anywhere

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
SIGNED = ("headroom_bytes", "headroom_fraction")  # negative: short of memory by


def _with(inputs: EstimateInputs, section: str, **values) -> EstimateInputs:
    part = getattr(inputs, section).model_copy(update=values)
    return inputs.model_copy(update={section: part})


def _with_gpu(inputs: EstimateInputs, **values) -> EstimateInputs:
    gpu = inputs.hardware.gpu.model_copy(update=values)
    return inputs.model_copy(update={"hardware": inputs.hardware.model_copy(update={"gpu": gpu})})


def _scaled(model, name, value, factor):
    lo, hi = bounds(model, name)
    return min(max(value * factor, lo), hi)


@SETTINGS
@given(inputs_anywhere())
def test_every_figure_is_finite_and_non_negative(inputs):
    r = estimate(inputs)
    for path, value in walk(r):
        if isinstance(value, bool) or value is None or isinstance(value, str):
            continue
        if path.endswith("high_usd"):  # the low end of the MFU band may be 0: unbounded
            assert value >= 0, path
            continue
        assert math.isfinite(value), (path, value)
        assert value >= 0 or path.endswith(SIGNED), (path, value)
    m = r.memory
    assert m.total_bytes == sum(v for _, v in m.parts())  # the parts add up to the total
    assert m.headroom_bytes == m.usable_bytes - m.total_bytes


@SETTINGS
@given(inputs_anywhere(), st.floats(1.5, 4.0))
def test_the_bill_is_linear_in_the_price(inputs, factor):
    price = max(inputs.hardware.gpu.on_demand_usd_per_hour, 0.5)
    base = _with_gpu(inputs, on_demand_usd_per_hour=price)
    dearer = _with_gpu(inputs, on_demand_usd_per_hour=price * factor)
    a, b = estimate(base).cost, estimate(dearer).cost
    for name in ("on_demand_usd", "compute_only_usd", "training_usd", "low_usd"):
        assert math.isclose(getattr(b, name), getattr(a, name) * factor, rel_tol=1e-9), name
    assert math.isclose(b.usd_per_1e18_flops, a.usd_per_1e18_flops * factor, rel_tol=1e-9)


@SETTINGS
@given(inputs_anywhere(), st.floats(1.1, 10.0))
def test_more_data_never_costs_less(inputs, factor):
    d = inputs.data
    more = _with(
        inputs,
        "data",
        num_examples=int(_scaled(DataSpec, "num_examples", d.num_examples, factor)),
        total_tokens=_scaled(DataSpec, "total_tokens", d.total_tokens, factor),
    )
    a, b = estimate(inputs), estimate(more)
    assert b.tokens.tokens_processed >= a.tokens.tokens_processed * (1 - 1e-12)
    assert b.flops.total_flops >= a.flops.total_flops * (1 - 1e-12)
    if b.time.num_gpus == a.time.num_gpus and b.layout.checkpointing == a.layout.checkpointing:
        assert b.time.train_wall_s >= a.time.train_wall_s * (1 - 1e-9)
        assert b.cost.on_demand_usd >= a.cost.on_demand_usd * (1 - 1e-9)


@SETTINGS
@given(inputs_anywhere(), st.floats(1.1, 5.0))
def test_a_higher_mfu_is_never_slower(inputs, factor):
    mfu = estimate(inputs).time.mfu
    low = _with(inputs, "efficiency", mfu=min(mfu, 0.9) / factor)
    high = _with(inputs, "efficiency", mfu=min(mfu, 0.9))
    a, b = estimate(low), estimate(high)
    assert b.time.train_wall_s <= a.time.train_wall_s * (1 + 1e-9)
    assert b.time.held_wall_s <= a.time.held_wall_s * (1 + 1e-9)
    assert b.cost.on_demand_usd <= a.cost.on_demand_usd * (1 + 1e-9)
    assert b.cost.low_usd <= b.cost.on_demand_usd * (1 + 1e-9) <= b.cost.high_usd * (1 + 1e-9)


@SETTINGS
@given(inputs_anywhere(), st.floats(1.1, 4.0))
def test_a_bigger_gpu_never_needs_more_gpus(inputs, factor):
    bigger = _with_gpu(inputs, memory_gib=min(inputs.hardware.gpu.memory_gib * factor, 100_000))
    small, large = estimate(inputs).memory, estimate(bigger).memory
    assert large.usable_bytes >= small.usable_bytes
    if small.gpus_needed is not None:
        assert large.gpus_needed is not None and large.gpus_needed <= small.gpus_needed
    if small.fits:
        assert large.fits


@SETTINGS
@given(inputs_anywhere(), st.integers(1, 50))
def test_more_runs_never_cost_less(inputs, extra):
    pj = inputs.project
    more = _with(
        inputs,
        "project",
        planned_runs=int(min(pj.planned_runs + extra, bounds(ProjectSpec, "planned_runs")[1])),
    )
    a, b = estimate(inputs).project, estimate(more).project
    assert b.runs >= a.runs
    assert b.total_usd >= a.total_usd * (1 - 1e-12)
    assert b.runs_usd == b.runs * b.run_usd
