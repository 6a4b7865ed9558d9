"""The estimate remembers its last few memory steps, counts and adapters (issue 17,
core/remembered.py): counted, and never a different figure or warning than computing them
again."""

from __future__ import annotations

import importlib

import pytest

from ftcost_gui.core import memory as memory_mod
from ftcost_gui.core import remembered
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io.resources import builtin_catalog, builtin_presets

estimate_mod = importlib.import_module("ftcost_gui.core.estimate")


@pytest.fixture
def steps(monkeypatch):
    """Memory steps computed (not remembered); the memo starts empty."""
    calls = {"memory": 0}
    real = remembered.memory_per_gpu

    def counting(*args):
        calls["memory"] += 1
        return real(*args)

    monkeypatch.setattr(remembered, "memory_per_gpu", counting)
    monkeypatch.setattr(remembered, "MEMORY_MEMO", [])
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


def test_the_ranges_shorter_rows_are_remembered_too(steps):
    # Rows padded to their longest, data shorter than the max length: the ranges' low end is a
    # memory step of its own (core/ranges.py), remembered with the others.
    inputs = _job().edited("data", mode="examples", padding="longest", mean_tokens_per_example=300)
    cold = estimate_mod.estimate(inputs)
    assert cold.ranges.memory_row_tokens < inputs.data.max_seq_len
    computed = steps["memory"]
    assert computed >= 3  # checkpointing auto: both settings, and the shorter rows
    warm = estimate_mod.estimate(inputs.edited("efficiency", mfu=0.31))
    assert steps["memory"] == computed
    assert warm.ranges.memory_bytes == cold.ranges.memory_bytes


@pytest.fixture
def phases(monkeypatch):
    """Moments of a step computed by the memory models (core/memory.py ``_allocated``)."""
    calls = {"n": 0}
    real = memory_mod.MemoryModel._allocated

    def counting(self, n, phase):
        calls["n"] += 1
        return real(self, n, phase)

    monkeypatch.setattr(memory_mod.MemoryModel, "_allocated", counting)
    remembered.clear()
    return calls


@pytest.mark.parametrize(
    ("inputs", "most"),
    [
        # checkpointing auto, 2 GPUs: n = 1, 2 and 4, both moments each, and the split's dict
        (_job(), 3 * 2 + 1),
        # fits on one GPU: n = 1, both moments, and the split
        (_job("llama-2-7b", "h100-sxm", checkpointing="none", micro_batch=1, method="lora"), 3),
        # a 70B model on 18 GPUs, 24 rented (whole nodes): n = 1, 2, 4, the guess 18 and 17 below
        # it (no scan), and on the rented 24 the peak moment and the split
        (_job("llama-2-70b", "h100-sxm", checkpointing="full", sharding="zero3"), 7 * 2 + 1),
    ],
    ids=["auto", "one-gpu", "many-gpus"],
)
def test_each_moment_of_a_memory_step_is_computed_once_per_gpu_count(steps, phases, inputs, most):
    """Finding the GPU count, the peak moment and the split ask for the same counts again: the
    memory model computes each (count, moment) once (was 11 dicts of parts per memory step)."""
    estimate_mod.plan(inputs)
    assert steps["memory"] > 0
    assert 0 < phases["n"] <= most * steps["memory"], (phases["n"], steps["memory"])


def test_the_memory_models_key_holds_every_memory_input():
    """A MemoryInputs field added tomorrow must join remembered.model_of's key (else two runs
    that differ only there would share a memory model)."""
    from dataclasses import fields

    from ftcost_gui.core.memory_step import MemoryInputs

    assert {f.name for f in fields(MemoryInputs)} == remembered.MODEL_KEY_FIELDS


def test_which_gpu_plans_share_one_memory_model_per_checkpointing_setting(monkeypatch):
    """5,000 distinct GPUs, one job: the memory model does not read the GPU (unless a colocated
    rollout engine reserves a share of its memory), so every plan uses the same one or two
    models and their totals per GPU count (issue 17)."""
    from ftcost_gui.core.compare import GpuComparer, offer

    remembered.clear()
    built = {"n": 0}
    real = remembered.memory_model

    def counting(*args):
        built["n"] += 1
        return real(*args)

    gpus = builtin_catalog().gpus
    offers = [
        offer(g.model_copy(update={"id": f"{g.id}-{i}", "memory_gib": g.memory_gib + i / 7}))
        for i, g in enumerate(gpus * 3)
    ]
    monkeypatch.setattr(remembered, "memory_model", counting)
    comparer = GpuComparer()
    comparer.rows(_job(), offers)
    assert comparer.plans == len(offers)
    # checkpointing auto: off and on, and on each count rented beyond the count needed
    assert built["n"] <= 2 + len({r.num_gpus for r in comparer.rows(_job(), offers)})
