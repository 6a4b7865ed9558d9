"""Properties over the whole input space (tests/core/strategies.py): every figure finite, the bill
linear in the price, and the figures that must move one way doing so.

These are the properties a mutation that breaks a sign, a division or a bound trips over
(docs/testing.md, mutation testing): finiteness and non-negativity of every number of the result,
exact proportionality to the GPU price, and monotonicity in the data, the epochs, the MFU, the
GPU's memory and the run count.

One draw serves every property (``test_every_property_on_one_draw``): drawing and validating
inputs from the whole space costs as much as an estimate, and the unchanged inputs' estimate is
shared, so the CI profile's 10,000 examples reach each property at a third of the time of one
draw per property. A failure's traceback names the property's function.
"""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.core.inputs import DataSpec, ProjectSpec
from ftcost_gui.core.results import EstimateResult

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


def finite_and_non_negative(r: EstimateResult) -> None:
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


def bill_linear_in_the_price(inputs: EstimateInputs, factor: float) -> None:
    price = max(inputs.hardware.gpu.on_demand_usd_per_hour, 0.5)
    base = _with_gpu(inputs, on_demand_usd_per_hour=price)
    dearer = _with_gpu(inputs, on_demand_usd_per_hour=price * factor)
    a, b = estimate(base).cost, estimate(dearer).cost
    for name in ("on_demand_usd", "compute_only_usd", "training_usd", "low_usd"):
        assert math.isclose(getattr(b, name), getattr(a, name) * factor, rel_tol=1e-9), name
    assert math.isclose(b.usd_per_1e18_flops, a.usd_per_1e18_flops * factor, rel_tol=1e-9)


def more_data_never_costs_less(inputs: EstimateInputs, a: EstimateResult, factor: float) -> None:
    d = inputs.data
    more = _with(
        inputs,
        "data",
        num_examples=int(_scaled(DataSpec, "num_examples", d.num_examples, factor)),
        total_tokens=_scaled(DataSpec, "total_tokens", d.total_tokens, factor),
    )
    b = estimate(more)
    assert b.tokens.tokens_processed >= a.tokens.tokens_processed * (1 - 1e-12)
    assert b.flops.total_flops >= a.flops.total_flops * (1 - 1e-12)
    if b.time.num_gpus == a.time.num_gpus and b.layout.checkpointing == a.layout.checkpointing:
        assert b.time.train_wall_s >= a.time.train_wall_s * (1 - 1e-9)
        assert b.cost.on_demand_usd >= a.cost.on_demand_usd * (1 - 1e-9)


def higher_mfu_never_slower(inputs: EstimateInputs, r: EstimateResult, factor: float) -> None:
    mfu = r.time.mfu
    low = _with(inputs, "efficiency", mfu=min(mfu, 0.9) / factor)
    high = _with(inputs, "efficiency", mfu=min(mfu, 0.9))
    a, b = estimate(low), estimate(high)
    assert b.time.train_wall_s <= a.time.train_wall_s * (1 + 1e-9)
    assert b.time.held_wall_s <= a.time.held_wall_s * (1 + 1e-9)
    assert b.cost.on_demand_usd <= a.cost.on_demand_usd * (1 + 1e-9)
    # The range holds the bill within a relative 1e-9 (a collapsed range may differ by an ulp).
    assert b.cost.low_usd <= b.cost.on_demand_usd * (1 + 1e-9)
    assert b.cost.on_demand_usd <= b.cost.high_usd * (1 + 1e-9)


def bigger_gpu_never_needs_more_gpus(
    inputs: EstimateInputs, r: EstimateResult, factor: float
) -> None:
    # Monotone for one checkpointing setting. "auto" chooses it by whether the run fits on the GPUs
    # set (layout.checkpointing_reason), so a bigger GPU may run without it and need more GPUs than
    # the smaller one with it: a 1e13-parameter draw on 100,000 GPUs needed 381 (on) and, 3x the
    # memory, 703 (off; 60 with it, the layout's alternative). Compare at the small run's choice.
    if inputs.training.checkpointing == "auto":
        chosen = "full" if r.layout.checkpointing else "none"
        inputs = _with(inputs, "training", checkpointing=chosen)
        r = estimate(inputs)
    bigger = _with_gpu(inputs, memory_gib=min(inputs.hardware.gpu.memory_gib * factor, 100_000))
    small, large = r.memory, estimate(bigger).memory
    assert large.usable_bytes >= small.usable_bytes
    if small.gpus_needed is not None:
        assert large.gpus_needed is not None and large.gpus_needed <= small.gpus_needed
    if small.fits:
        assert large.fits


def more_runs_never_cost_less(inputs: EstimateInputs, r: EstimateResult, extra: int) -> None:
    pj = inputs.project
    more = _with(
        inputs,
        "project",
        planned_runs=int(min(pj.planned_runs + extra, bounds(ProjectSpec, "planned_runs")[1])),
    )
    a, b = r.project, estimate(more).project
    assert b.runs >= a.runs
    assert b.total_usd >= a.total_usd * (1 - 1e-12)
    assert b.runs_usd == b.runs * b.run_usd


@SETTINGS
@given(
    inputs_anywhere(),
    st.floats(1.5, 4.0),
    st.floats(1.1, 10.0),
    st.floats(1.1, 5.0),
    st.floats(1.1, 4.0),
    st.integers(1, 50),
)
def test_every_property_on_one_draw(inputs, price_x, data_x, mfu_x, memory_x, extra_runs):
    """Each property on the same inputs from anywhere (the module's docstring says why one draw);
    a failure's traceback names the property's function."""
    r = estimate(inputs)
    finite_and_non_negative(r)
    bill_linear_in_the_price(inputs, price_x)
    more_data_never_costs_less(inputs, r, data_x)
    higher_mfu_never_slower(inputs, r, mfu_x)
    bigger_gpu_never_needs_more_gpus(inputs, r, memory_x)
    more_runs_never_cost_less(inputs, r, extra_runs)
