"""The finish makes what no MFU or price changes once per plan (core/finishing.py, issue 10):
counted per edit, and never a different figure than a cold estimate."""

from __future__ import annotations

import gc
import importlib

import pytest
from pydantic import BaseModel

from ftcost_gui.core import EstimateInputs, checks, finishing, remembered, rl_summary, time_cost
from ftcost_gui.core.plan import PlanMemo

from .helpers import gpu, make
from .test_estimate_memo import _counted

estimate_mod = importlib.import_module("ftcost_gui.core.estimate")

_CASES = [
    make(),
    make(objective__objective="dpo"),
    make(objective__objective="grpo", objective__rollout_placement="separate"),
    make(training__method="qlora", training__checkpointing="full"),
    make(efficiency__communication="table", training__num_gpus=16, training__auto_gpu_count=False),
    make("llama-2-70b", hardware__gpu=gpu("a10g"), training__auto_gpu_count=False),
]


def _mfu_edits(inputs: EstimateInputs) -> list[EstimateInputs]:
    """An MFU edit, a stack-efficiency edit (the MFU's source changes), a price edit."""
    g = {**inputs.hardware.gpu.model_dump(), "on_demand_usd_per_hour": 7.25}
    return [
        inputs.edited("efficiency", mfu=0.27),
        inputs.edited("efficiency", mfu=None, stack_efficiency=0.6),
        inputs.edited("hardware", gpu=g),
    ]


@pytest.fixture
def made_once(monkeypatch):
    """Calls of each once-per-plan part of the finish."""
    return {
        "fixed": _counted(monkeypatch, finishing, "_fixed"),
        "time": _counted(monkeypatch, finishing, "time_breakdown_fixed"),
        "simple": _counted(monkeypatch, finishing, "simple_rules_fixed"),
        "alignment": _counted(monkeypatch, finishing, "alignment_fixed"),
        "placements": _counted(monkeypatch, rl_summary, "gpus_by_placement"),
    }


@pytest.mark.parametrize("inputs", _CASES, ids=["sft", "dpo", "grpo", "qlora", "table", "no-fit"])
def test_an_mfu_or_price_edit_makes_nothing_of_the_plan_again(made_once, inputs):
    remembered.clear()
    estimate_mod.estimate(inputs)
    first = {k: v["n"] for k, v in made_once.items()}
    assert first["fixed"] == 1 and first["time"] == 1 and first["simple"] == 1
    for edited in _mfu_edits(inputs):
        warm = estimate_mod.estimate(edited)
        assert {k: v["n"] for k, v in made_once.items()} == first  # the plan's, reused
        remembered.clear()
        cold = estimate_mod.estimate(edited)
        assert repr(cold) == repr(warm) and cold.warnings == warm.warnings
        for part in made_once.values():
            part["n"] = 0
        estimate_mod.estimate(inputs)  # the base plan remembered again
        first = {k: v["n"] for k, v in made_once.items()}


def test_an_mfu_edit_runs_five_run_times_at_most(monkeypatch):
    """The run at the MFU, the alternative's, the MFU band's two ends and the exposed
    communication's slow end: no more (the ranges reuse price_run's ends), each by a runner
    bound once per plan (time_cost.runner), none by run_time."""
    runs = {"n": 0, "bound": 0}
    real = finishing.runner

    def counting_runner(t):
        runs["bound"] += 1
        run = real(t)

        def counted(*args):
            runs["n"] += 1
            return run(*args)

        return counted

    monkeypatch.setattr(finishing, "runner", counting_runner)
    called = [_counted(monkeypatch, time_cost, "run_time")]
    remembered.clear()
    inputs = make()
    estimate_mod.estimate(inputs)
    assert runs["bound"] == 3  # the plan's, its alternative's, the exposed communication's
    runs["n"] = 0
    estimate_mod.estimate(inputs.edited("efficiency", mfu=0.33))
    assert runs == {"n": 5, "bound": 3} and [c["n"] for c in called] == [0]


def test_a_plans_memo_is_not_part_of_its_value():
    a, b = PlanMemo(), PlanMemo(finish=1)
    assert a == b and a.__ne__(b) is False and a != {}
    p = estimate_mod.plan(make())
    estimate_mod.finish(p)
    assert "finish" in p.memo
    remembered.clear()
    assert estimate_mod.plan(make()) == p


_COMPARED = ("model", "data", "training", "objective", "overheads")


@pytest.mark.parametrize("cls", [type(getattr(EstimateInputs(), name)) for name in _COMPARED])
def test_sections_compared_by_their_fields_alone(cls: type[BaseModel]):
    """remembered.same compares the job's sections and the overheads by __dict__: right only
    while they keep no private attributes, no extras and nothing but fields in __dict__."""
    assert not cls.__private_attributes__
    assert cls.model_config.get("extra") != "allow"
    section = cls()
    assert list(section.__dict__) == list(cls.model_fields)
    assert remembered.same(section, cls()) and section == cls()


def test_the_finishs_templates_hold_every_field_in_order():
    p = estimate_mod.plan(make())
    f = finishing.fixed(p)
    r = estimate_mod.finish(p)
    assert list(f.layout) == list(type(r.layout).model_fields)
    assert list(f.time) == list(type(r.time).model_fields)
    assert list(f.simple) == list(type(r.simple).model_fields)
    assert list(f.alignment) == list(type(r.alignment).model_fields)
    assert checks.simple_rules(f.simple, p.time.peak, p.time.mfu.mfu) == r.simple


@pytest.mark.parametrize("inputs", _CASES, ids=["sft", "dpo", "grpo", "qlora", "table", "no-fit"])
def test_a_price_edit_makes_nothing_a_price_does_not_change(monkeypatch, inputs):
    """A price edit runs the same runs at another price: the time breakdown, napkin rules,
    alignment and checkpoint summary are the ones of the estimate before (the same objects),
    the bill and ranges new; an MFU edit makes them again. Figures as a cold estimate's."""
    made_again = {
        "simple": _counted(monkeypatch, finishing, "simple_rules"),
        "alignment": _counted(monkeypatch, finishing, "alignment_summary"),
    }
    remembered.clear()
    before = estimate_mod.estimate(inputs)
    hw, gpu = inputs.hardware, inputs.hardware.gpu
    price = gpu.on_demand_usd_per_hour * 1.5 + 0.25
    gpu = gpu.model_copy(update={"on_demand_usd_per_hour": price})
    # the other sections the same objects, as the window's store and validation keep them
    priced = inputs.model_copy(update={"hardware": hw.model_copy(update={"gpu": gpu})})
    counts = {k: v["n"] for k, v in made_again.items()}
    warm = estimate_mod.estimate(priced)
    assert {k: v["n"] for k, v in made_again.items()} == counts
    for name in ("time", "simple", "alignment", "checkpoint"):
        assert getattr(warm, name) is getattr(before, name), name
    assert warm.cost != before.cost and warm.ranges.on_demand_usd != before.ranges.on_demand_usd
    assert warm.ranges.held_wall_s is before.ranges.held_wall_s
    remembered.clear()
    assert repr(estimate_mod.estimate(priced)) == repr(warm)
    mfu = inputs.efficiency.mfu or 0.4
    counts = {k: v["n"] for k, v in made_again.items()}
    edited = estimate_mod.estimate(priced.edited("efficiency", mfu=mfu * 0.9))
    assert {k: v["n"] for k, v in made_again.items()} == {k: n + 1 for k, n in counts.items()}
    assert edited.time is not warm.time


def test_plans_dropped_from_the_memo_are_freed_without_the_garbage_collector():
    """A plan holds its finish (Plan.memo): the finish must not hold the plan (a cycle that only
    the collector frees: every edit that plans again would pile plans up until it runs)."""
    docs = []
    for i in range(12):  # more plans than the plan memo keeps
        doc = EstimateInputs().model_dump(mode="json")
        doc["data"]["epochs"] = 1.0 + i * 0.25
        docs.append(EstimateInputs.model_validate(doc))
    estimate_mod.estimate(docs[0])
    gc.collect()
    gc.disable()
    try:
        for inputs in docs:
            estimate_mod.estimate(inputs)
        remembered.clear()
        assert gc.collect() == 0
    finally:
        gc.enable()
