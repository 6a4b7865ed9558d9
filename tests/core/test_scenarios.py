from __future__ import annotations

import pytest

from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.core.document import EstimateDocument, Scenario, compare_methods
from ftcost_gui.core.scenarios import compare_scenarios, estimate_all

from .helpers import make


def test_compare_methods_appends_three_scenarios():
    doc = EstimateDocument.single(make("llama-2-7b"), name="Base")
    out = compare_methods(doc)
    assert [s.name for s in out.scenarios] == [
        "Base",
        "Base · Full FT",
        "Base · LoRA",
        "Base · QLoRA",
    ]
    assert [s.inputs.training.method for s in out.scenarios[1:]] == [
        "full_amp_adamw",
        "lora",
        "qlora",
    ]
    assert out.active == 1
    again = compare_methods(EstimateDocument(scenarios=out.scenarios, active=0))
    assert again.scenarios[-1].name == "Base · QLoRA (2)"


def test_best_value_and_baseline_deltas():
    doc = compare_methods(EstimateDocument.single(make("llama-2-7b"), name="Base"))
    results = estimate_all(doc)
    rows = {row.metric.key: row for row in compare_scenarios(results, baseline=1)}
    mem = rows["memory_gib"]
    qlora = 3
    assert mem.best == (qlora,)
    assert mem.values[qlora] == pytest.approx(results[qlora].memory.total_bytes / 2**30)
    assert mem.deltas[1] == 0 and mem.ratios[1] == 1
    assert rows["on_demand_usd"].deltas[2] == pytest.approx(
        results[2].cost.on_demand_usd - results[1].cost.on_demand_usd
    )


def test_scenarios_that_do_not_fit_are_not_best():
    fits = make("llama-2-7b", training__method="qlora")
    too_big = make(
        "llama-2-70b",
        training__auto_gpu_count=False,
        training__num_gpus=1,
        training__sharding="none",
    )
    results = [estimate(too_big), estimate(fits)]
    assert not results[0].memory.fits
    rows = {row.metric.key: row for row in compare_scenarios(results)}
    assert rows["on_demand_usd"].best == (1,)
    assert (
        EstimateDocument(
            scenarios=(Scenario(name="a", inputs=EstimateInputs()), Scenario(name="b")), active=1
        ).current.name
        == "b"
    )


def test_names_stay_within_the_limit_when_copied():
    from ftcost_gui.core.document import MAX_NAME

    long_name = "x" * MAX_NAME
    doc = EstimateDocument.single(make("llama-2-7b"), name=long_name)
    copy_name = doc.unique_name(long_name)
    assert len(copy_name) == MAX_NAME and copy_name.endswith(" (2)")
    out = compare_methods(doc)
    assert all(len(s.name) <= MAX_NAME for s in out.scenarios)
    assert len({s.name for s in out.scenarios}) == 4
