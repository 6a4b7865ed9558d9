"""LayoutSummary by hand: GPUs needed, rented and trained on; checkpointing "auto"; the memory
verdict (core/layout.py; article 001 'you are billed for GPUs held').

Renting: within a node ceil(needed ÷ unit) × unit (capped at the node or unit); beyond a node
whole nodes, ceil(needed ÷ node) × node. 'near_limit' when the free memory is under the margin
share of the usable memory.
"""

from __future__ import annotations

import math

import pytest

from ftcost_gui.core import estimate

from .hand import SHAPES
from .helpers import gpu, make


def _run(s, gpus, unit=1, node=8, whole=True, **edits):
    row = edits.pop("hardware__gpu", gpu("H100 SXM")) | {
        "rent_unit_gpus": unit,
        "gpus_per_node": node,
        "price_as_of": "2031-01-02",
        "price_source": "a quote",
    }
    return estimate(
        make(
            s.preset,
            training__method="lora",
            training__checkpointing="full",
            training__auto_gpu_count=False,
            training__num_gpus=gpus,
            hardware__gpu=row,
            hardware__rent_whole_units=whole,
            hardware__price_origin="typed by hand",
            **edits,
        )
    )


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize(
    ("gpus", "unit", "node", "rented"),
    [
        (3, 1, 8, 3),  # single GPUs: what is needed
        (3, 8, 8, 8),  # only whole 8-GPU machines
        (5, 4, 8, 8),  # two 4-GPU units
        (10, 1, 8, 16),  # beyond a node: whole nodes
        (2, 16, 8, 16),  # a unit larger than the node: one unit
    ],
)
def test_renting(s, gpus, unit, node, rented):
    lay = _run(s, gpus, unit, node).layout
    assert rented == (
        math.ceil(gpus / node) * node
        if gpus > node
        else min(math.ceil(gpus / unit) * unit, max(node, unit))
    )
    assert (lay.num_gpus, lay.rented_gpus) == (gpus, rented)  # a fixed count trains on itself
    assert lay.nodes == math.ceil(rented / node)
    assert (lay.node_size, lay.rent_unit_gpus) == (node, unit)
    assert lay.rounded_up is (rented > gpus)
    r = _run(s, gpus, unit, node)
    assert r.time.rented_gpus == rented
    assert r.time.held_gpu_hours == pytest.approx(rented * r.time.held_wall_s / 3600)


def test_renting_off_bills_what_is_needed():
    lay = _run(SHAPES[0], 10, 1, 8, whole=False).layout
    assert (lay.rented_gpus, lay.nodes, lay.rounded_up) == (10, 2, False)


def test_fewest_gpus_train_on_every_rented_gpu():
    """auto count: the memory floor's GPUs, rounded up to whole units, all of them training."""
    r = estimate(
        make(
            "llama-3.1-8b",
            training__method="full_amp_adamw",
            training__sharding="zero3",
            training__checkpointing="full",
            hardware__gpu=gpu("H100 SXM") | {"rent_unit_gpus": 4, "gpus_per_node": 8},
            hardware__rent_whole_units=True,
        )
    )
    lay = r.layout
    needed = lay.gpus_needed
    assert needed is not None and needed == r.memory.gpus_needed
    assert lay.rented_gpus == min(math.ceil(needed / 4) * 4, 8)
    assert lay.num_gpus == lay.rented_gpus == r.time.num_gpus


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_memory_status_and_headroom(s):
    probe = _run(s, 4).memory
    # A GPU on which this run leaves about a quarter of the usable memory free.
    size = probe.total_bytes / (probe.usable_bytes / probe.capacity_bytes) / 0.75 / 2**30

    def on_card(**edits):
        return _run(s, 4, hardware__gpu=gpu("H100 SXM") | {"memory_gib": size}, **edits)

    r = on_card()
    m, lay = r.memory, r.layout
    free = (m.usable_bytes - m.total_bytes) / m.usable_bytes
    assert 0.2 < free < 0.3
    assert lay.headroom_fraction == pytest.approx(free)
    assert lay.near_limit_fraction == make().hardware.near_limit_fraction
    # The margin on either side of this run's free share decides the verdict.
    near = on_card(hardware__near_limit_fraction=free + 0.01)
    assert near.layout.memory_status == "near_limit"
    assert any("Near the memory limit" in w for w in near.warnings)
    roomy = on_card(hardware__near_limit_fraction=free - 0.01)
    assert roomy.layout.memory_status == "fits"
    assert not any("Near the memory limit" in w for w in roomy.warnings)


def test_does_not_fit():
    r = estimate(
        make(
            "llama-2-70b",
            training__method="full_amp_adamw",
            training__sharding="none",
            training__auto_gpu_count=False,
            training__num_gpus=1,
        )
    )
    assert (r.memory.fits, r.layout.memory_status) == (False, "does_not_fit")
    assert r.layout.headroom_fraction < 0


def test_prices_carry_their_origin():
    lay = _run(SHAPES[0], 1).layout
    assert (lay.price_origin, lay.price_as_of, lay.price_source) == (
        "typed by hand",
        "2031-01-02",
        "a quote",
    )


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_checkpointing_as_set_has_no_alternative(s):
    lay = _run(s, 2).layout
    assert (lay.checkpointing_mode, lay.checkpointing, lay.checkpointing_reason) == (
        "full",
        True,
        "as set",
    )
    assert lay.alt_checkpointing is None and lay.alt_on_demand_usd is None
    assert lay.alt_gpus_needed is None and lay.alt_rented_gpus is None
    assert lay.alt_fits is None and lay.alt_near_limit is None and lay.alt_held_wall_s is None


def test_auto_turns_checkpointing_off_when_one_gpu_holds_the_run():
    """LoRA on Llama-2-7B at 2,048 fits one H100 without recomputation: off, and the road not
    taken (recomputing on the same GPU) costs the recompute's extra FLOPs."""
    base = dict(training__method="lora", training__micro_batch=1, data__max_seq_len=2048)
    auto = estimate(make("llama-2-7b", training__checkpointing="auto", **base))
    off = estimate(make("llama-2-7b", training__checkpointing="none", **base))
    on = estimate(make("llama-2-7b", training__checkpointing="full", **base))
    lay = auto.layout
    assert (lay.checkpointing_mode, lay.checkpointing, lay.alt_checkpointing) == (
        "auto",
        False,
        True,
    )
    assert lay.checkpointing_reason == "off: the run fits without it on the same GPUs"
    assert auto.cost.on_demand_usd == pytest.approx(off.cost.on_demand_usd)
    assert lay.alt_on_demand_usd == pytest.approx(on.cost.on_demand_usd)
    assert lay.alt_held_wall_s == pytest.approx(on.time.held_wall_s)
    assert (lay.alt_gpus_needed, lay.alt_rented_gpus, lay.alt_fits) == (1, 1, True)
    assert lay.alt_near_limit is False


def test_auto_turns_checkpointing_on_when_it_rents_fewer_gpus():
    """Full fine-tuning Llama-3.1-8B at 8,192 tokens: without recomputation the activations
    force more GPUs; with it fewer, so "auto" recomputes and says how many it saved."""
    base = dict(
        training__method="full_amp_adamw",
        training__sharding="zero3",
        training__micro_batch=1,
        training__loss="chunked",
        data__max_seq_len=8192,
    )
    auto = estimate(make("llama-3.1-8b", training__checkpointing="auto", **base))
    off = estimate(make("llama-3.1-8b", training__checkpointing="none", **base))
    on = estimate(make("llama-3.1-8b", training__checkpointing="full", **base))
    lay = auto.layout
    assert off.layout.rented_gpus > on.layout.rented_gpus
    assert (lay.checkpointing, lay.alt_checkpointing) == (True, False)
    assert lay.checkpointing_reason == (
        f"on: without it the run needs {off.layout.gpus_needed} GPUs "
        f"({off.layout.rented_gpus} rented) instead of {on.layout.rented_gpus}"
    )
    assert (lay.alt_gpus_needed, lay.alt_rented_gpus) == (
        off.layout.gpus_needed,
        off.layout.rented_gpus,
    )
    assert lay.alt_on_demand_usd == pytest.approx(off.cost.on_demand_usd)
