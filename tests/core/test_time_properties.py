"""Properties of the time model (issue 11): more GPUs never slower before communication
dominates; faster links never slower; a higher achievable fraction never costlier.

The inputs come from anywhere in the declared space (tests/core/strategies.py: every field within
its bounds, bounds included — architectures, methods, shardings, GPUs, data shapes, objectives
and every time-model field); the example count is a share of the active hypothesis profile's
(tests/conftest.py).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ftcost_gui.core import estimate

from .strategies import examples, inputs_anywhere, replaced

SETTINGS = settings(max_examples=examples(0.1))


@SETTINGS
@given(inputs_anywhere(), st.integers(1, 50_000), st.sampled_from(["none", "full"]))
def test_more_gpus_never_slower_before_communication_dominates(inputs, gpus, ckpt):
    """Doubling the data-parallel GPUs halves each GPU's compute; the training wall-clock can
    only grow by communication the overlap window does not hide."""
    job = replaced(inputs, training__auto_gpu_count=False, training__checkpointing=ckpt)
    fewer = estimate(replaced(job, training__num_gpus=gpus))
    more = estimate(replaced(job, training__num_gpus=gpus * 2))

    def busy_s(r):  # the compute part of the training wall: (busy + exposed comm) × offload
        return r.time.train_wall_s / r.time.offload_slowdown - r.time.comm_exposed_s

    # The same FLOPs at the same MFU on twice the GPUs: each GPU's compute halves exactly ...
    assert more.time.mfu == fewer.time.mfu
    assert busy_s(more) == pytest.approx(busy_s(fewer) / 2, rel=1e-9)
    # ... so the wall-clock grows only by the communication left exposed.
    exposed = more.time.comm_exposed_s * more.time.offload_slowdown
    assert more.time.train_wall_s <= fewer.time.train_wall_s + exposed * (1 + 1e-9)


@SETTINGS
@given(inputs_anywhere(), st.floats(1.0, 100.0))
def test_faster_links_never_slower(inputs, factor):
    gpu = inputs.hardware.gpu
    slow = estimate(inputs)
    fast = estimate(
        replaced(
            inputs,
            hardware__gpu__interconnect_gb_s=min(gpu.interconnect_gb_s * factor, 1e6),
            hardware__gpu__network_gbit_s=min(gpu.network_gbit_s * factor, 1e6),
        )
    )
    assert fast.time.train_wall_s <= slow.time.train_wall_s * (1 + 1e-9)
    assert fast.cost.on_demand_usd <= slow.cost.on_demand_usd * (1 + 1e-9)


@SETTINGS
@given(inputs_anywhere(), st.floats(1.0, 3.0))
def test_higher_achievable_fraction_never_costlier(inputs, factor):
    achievable = inputs.hardware.gpu.achievable_fraction
    low = estimate(inputs)
    higher = min(achievable * factor, 1.5)
    high = estimate(replaced(inputs, hardware__gpu__achievable_fraction=higher))
    assert high.cost.on_demand_usd <= low.cost.on_demand_usd * (1 + 1e-9)
    assert high.time.mfu >= low.time.mfu * (1 - 1e-9)
