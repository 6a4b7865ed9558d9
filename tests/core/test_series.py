"""core/series.py: every plotted series computed once per input set, equal to the estimate's own."""

from __future__ import annotations

import importlib

import pytest

from ftcost_gui.core.document import EstimateDocument, compare_methods
from ftcost_gui.core.estimate import estimate, sweep_mfu
from ftcost_gui.core.series import (
    SWEEP_MFUS,
    Outcomes,
    document_series,
)
from ftcost_gui.core.units import GIB
from ftcost_gui.core.variants import COMPARED_METHODS, variant_inputs

from .helpers import make

series_mod = importlib.import_module("ftcost_gui.core.series")


@pytest.fixture
def counted(monkeypatch):
    """Counts full estimates (plans) and memory-only steps that core/series.py runs."""
    calls = {"plan": 0, "memory": 0}
    plan, memory = series_mod.plan, series_mod.method_memory

    def counting_plan(inputs):
        calls["plan"] += 1
        return plan(inputs)

    def counting_memory(mi, counts):
        calls["memory"] += 1
        return memory(mi, counts)

    monkeypatch.setattr(series_mod, "plan", counting_plan)
    monkeypatch.setattr(series_mod, "method_memory", counting_memory)
    return calls


def test_memory_by_method_is_each_method_on_the_same_gpus():
    inputs = make(training__method="lora", data__max_seq_len=4096)
    o = Outcomes().get(inputs)
    bars = o.memory_by_method
    assert bars.keys == COMPARED_METHODS
    assert bars.keys[bars.active] == "lora"
    n = o.result.time.num_gpus
    assert bars.num_gpus == (n,) * 4
    for i, method in enumerate(COMPARED_METHODS):
        r = estimate(variant_inputs(inputs, o.result, method))
        assert r.time.num_gpus == n
        parts = dict(r.memory.parts())
        for key, value in parts.items():
            assert bars.part(key)[i] == value / GIB
        assert bars.totals_gib[i] == pytest.approx(r.memory.total_bytes / GIB)
        assert bars.gpus_needed[i] == r.memory.gpus_needed
        assert bars.fits[i] == r.memory.fits
    assert bars.usable_gib[bars.active] == o.result.memory.usable_bytes / GIB


def test_another_method_is_appended_as_the_current_bar():
    o = Outcomes().get(make(training__method="full_bf16_adamw"))
    assert o.memory_by_method.keys == (*COMPARED_METHODS, "full_bf16_adamw")
    assert o.memory_by_method.active == 4


def test_cost_curve_is_the_sweep_and_the_point_is_the_estimate():
    inputs = make(efficiency__mfu=0.37)
    o = Outcomes().get(inputs)
    points = sweep_mfu(inputs, list(SWEEP_MFUS))
    assert o.cost_curve.mfu_pct == tuple(p.mfu * 100 for p in points)
    assert o.cost_curve.on_demand_usd == tuple(p.on_demand_usd for p in points)
    assert o.cost_curve.spot_usd == tuple(p.spot_usd for p in points)
    assert (SWEEP_MFUS[0], SWEEP_MFUS[-1], len(SWEEP_MFUS)) == (0.10, 0.60, 51)
    assert o.cost_now.mfu_pct == pytest.approx(37.0)
    assert o.cost_now.on_demand_usd == o.result.cost.on_demand_usd
    assert o.result == estimate(inputs)


def test_a_cost_curve_makes_no_object_per_point(monkeypatch):
    """The curve is the sweep's columns (issue 17: a report of 200 scenarios made 10,200 point
    objects, ~1/6 of its estimates' work); the same figures as the sweep point by point."""
    import ftcost_gui.core.sweep as sweep_mod

    made = []

    class Counted(sweep_mod.SweepPoint):
        def __new__(cls, *a):
            made.append(1)
            return super().__new__(cls, *a)

    monkeypatch.setattr(sweep_mod, "SweepPoint", Counted)
    inputs = make(efficiency__mfu=0.37)
    own = series_mod.own_outcome(inputs, band=False)
    both = Outcomes().get(inputs)
    assert made == []
    points = sweep_mfu(inputs, list(SWEEP_MFUS))  # the sweep point by point, for the figures
    assert len(made) == 51
    for curve in (own.cost_curve, both.cost_curve):
        assert curve.mfu_pct == tuple(p.mfu * 100 for p in points)
        assert curve.on_demand_usd == tuple(p.on_demand_usd for p in points)
        assert curve.spot_usd == tuple(p.spot_usd for p in points)


def test_no_spot_line_without_a_spot_price():
    gpu = {**make().hardware.gpu.model_dump(), "spot_usd_per_hour": None}
    o = Outcomes().get(make(hardware__gpu=gpu))
    assert o.cost_curve.spot_usd is None and o.cost_now.spot_usd is None


def test_each_input_set_is_estimated_once(counted):
    outcomes = Outcomes()
    inputs = make(data__max_seq_len=2048)
    first = outcomes.get(inputs)
    assert counted == {"plan": 1, "memory": 3}  # the current method + three others
    assert outcomes.get(inputs) is first
    assert counted == {"plan": 1, "memory": 3}


@pytest.mark.parametrize(
    ("edit", "memory_steps"),
    [
        ({"data__max_seq_len": 4096}, 3),  # memory changes: the other methods' bars again
        ({"efficiency__mfu": 0.31}, 0),  # memory unchanged: the bars are reused
        ({"data__num_examples": 31_000}, 0),
        ({"hardware__gpus_per_node": 4}, 0),
    ],
)
def test_an_edit_estimates_only_the_input_sets_it_changes(counted, edit, memory_steps):
    outcomes = Outcomes()
    before = outcomes.get(make())
    outcomes.keep([make()])
    counted.update(plan=0, memory=0)
    after = outcomes.get(make(**edit))
    outcomes.keep([make(**edit)])
    assert counted == {"plan": 1, "memory": memory_steps}
    if not memory_steps:
        assert after.memory_by_method == before.memory_by_method


def test_keep_forgets_unused_input_sets(counted):
    outcomes = Outcomes()
    a, b = make(data__max_seq_len=1024), make(data__max_seq_len=8192)
    outcomes.get(a)
    outcomes.get(b)
    outcomes.keep([b])
    counted.update(plan=0, memory=0)
    outcomes.get(b)
    assert counted == {"plan": 0, "memory": 0}
    outcomes.get(a)
    assert counted == {"plan": 1, "memory": 3}


def test_scenario_series_one_bar_and_curve_per_scenario():
    doc = compare_methods(EstimateDocument.single(make(), name="Base"))
    outcomes = Outcomes()
    series = document_series(doc, outcomes)
    assert series.names == ("Base", "Base · Full FT", "Base · LoRA", "Base · QLoRA")
    assert series.active == 1
    for i, scenario in enumerate(doc.scenarios):
        r = estimate(scenario.inputs)
        assert series.memory.totals_gib[i] == pytest.approx(r.memory.total_bytes / GIB)
        assert series.memory.num_gpus[i] == r.time.num_gpus
        assert series.memory.usable_gib[i] == r.memory.usable_bytes / GIB
        assert series.now[i].on_demand_usd == r.cost.on_demand_usd
        assert series.curves[i] == outcomes.get(scenario.inputs).cost_curve
