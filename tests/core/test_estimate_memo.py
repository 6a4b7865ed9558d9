"""The estimate remembers its last few memory steps (issue 17): counted, and never a different
figure or warning than computing them again."""

from __future__ import annotations

import importlib

import pytest

from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io.resources import builtin_catalog, builtin_presets

estimate_mod = importlib.import_module("ftcost_gui.core.estimate")


@pytest.fixture
def steps(monkeypatch):
    """Memory steps computed (not remembered); the memo starts empty."""
    calls = {"memory": 0}
    real = estimate_mod.memory_per_gpu

    def counting(*args):
        calls["memory"] += 1
        return real(*args)

    monkeypatch.setattr(estimate_mod, "memory_per_gpu", counting)
    monkeypatch.setattr(estimate_mod, "_MEMORY_MEMO", [])
    return calls


def _job(model="qwen2.5-7b", gpu="h100-sxm", **training) -> EstimateInputs:
    return EstimateInputs.model_validate(
        {
            "model": builtin_presets().find(model).spec.model_dump(),
            "training": {"method": "full_amp_adamw", **training},
            "hardware": {"gpu": builtin_catalog().find(gpu).to_spec().model_dump()},
        }
    )


def test_an_edit_that_leaves_memory_alone_computes_no_memory_step(steps):
    inputs = _job()
    estimate_mod.estimate(inputs)
    first = steps["memory"]
    assert first >= 2  # checkpointing auto: both settings
    for section, fields in (
        ("efficiency", {"mfu": 0.31}),
        ("data", {"epochs": 2.0}),
        ("overheads", {"provisioning_min": 12.0}),
    ):
        estimate_mod.estimate(inputs.edited(section, **fields))  # equal values, new objects
        assert steps["memory"] == first, section
    estimate_mod.estimate(inputs.edited("data", max_seq_len=1024))  # memory follows it
    assert steps["memory"] > first


@pytest.mark.parametrize(
    "inputs",
    [
        _job(),
        _job("llama-2-70b", "a10g", auto_gpu_count=False, num_gpus=1),  # does not fit: warnings
        _job("llama-2-7b", "rtx-4090", checkpointing="full"),
        _job("llama-2-7b", "h100-sxm", checkpointing="none", micro_batch=64),
    ],
    ids=["auto", "no-fit", "full", "none"],
)
def test_remembered_steps_give_the_same_result_and_warnings(steps, inputs):
    cold = estimate_mod.estimate(inputs)
    computed = steps["memory"]
    warm = estimate_mod.estimate(inputs)
    assert steps["memory"] == computed  # all remembered
    assert warm == cold and warm.warnings == cold.warnings
    # Another GPU, then back: the memo holds a few inputs, each its own.
    other = inputs.edited(
        "hardware", gpu=builtin_catalog().find("a100-80gb-sxm").to_spec().model_dump()
    )
    assert estimate_mod.estimate(other).memory != cold.memory or other == inputs
    assert estimate_mod.estimate(inputs) == cold
