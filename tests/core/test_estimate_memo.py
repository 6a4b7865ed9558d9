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


def _counted(monkeypatch, owner: object, name: str, key: str = "n") -> dict[str, int]:
    """``owner.name`` replaced by a wrapper counting its calls in the dict returned."""
    calls = {key: 0}
    real = getattr(owner, name)

    def counting(*args, **kwargs):
        calls[key] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


@pytest.fixture
def steps(monkeypatch):
    """Memory steps computed (not remembered); the memo starts empty."""
    calls = _counted(monkeypatch, remembered, "memory_per_gpu", "memory")
    monkeypatch.setattr(remembered, "MEMORY_MEMO", [])
    remembered.PLAN_MEMO.clear()  # a remembered plan asks for no memory step
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


# One edit of each field a plan does not read (remembered.plan_key leaves them out).
_PLAN_FREE_EDITS = [
    ("efficiency", {"mfu": 0.33}),
    ("efficiency", {"stack_efficiency": 0.7}),
    ("efficiency", {"mfu_band": 0.3}),
    ("efficiency", {"measured_tokens_per_s": 1234.0}),
    ("efficiency", {"step_time_s": 2.0}),
    ("gpu", {"on_demand_usd_per_hour": 9.99}),
    ("gpu", {"spot_usd_per_hour": None}),
    ("gpu", {"spot_usd_per_hour": 0.77}),
    ("gpu", {"on_demand_low_usd_per_hour": 0.5, "on_demand_high_usd_per_hour": 30.0}),
    ("gpu", {"price_as_of": "2020-01", "price_source": "elsewhere"}),
    ("gpu", {"pricing_tier": "committed_3y"}),
    ("hardware", {"price_origin": "typed by hand"}),
    ("spot", {"interruptions_per_node_hour": 0.5, "restart_overhead_min": 30.0}),
    ("project", {"billing": "spot", "planned_runs": 7}),
]


def test_the_plan_free_edits_cover_every_field_the_plan_key_leaves_out():
    edited = {name for _, fields in _PLAN_FREE_EDITS for name in fields}
    left_out = {*remembered.FINISH_ONLY_EFFICIENCY, *remembered.PRICE_FIELDS, "price_origin"}
    assert left_out <= edited


def _edited(inputs: EstimateInputs, section: str, fields: dict) -> EstimateInputs:
    if section == "gpu":
        gpu = {**inputs.hardware.gpu.model_dump(), **fields}
        return inputs.edited("hardware", gpu=gpu)
    return inputs.edited(section, **fields)


@pytest.mark.parametrize(
    "inputs",
    [
        _job(),
        _job("llama-2-70b", "h100-sxm", checkpointing="full", sharding="zero3"),
        _job("llama-2-7b", "a10g", checkpointing="none", micro_batch=4),
        _job("llama-2-70b", "a10g", auto_gpu_count=False, num_gpus=1),  # does not fit
        _job().edited("objective", objective="grpo", rollout_placement="separate"),
        _job().edited("efficiency", communication="table"),
    ],
    ids=["auto", "zero3", "none", "no-fit", "grpo", "table"],
)
def test_a_remembered_plan_is_the_plan_of_the_edited_inputs(monkeypatch, inputs):
    """An MFU, price, measurement, spot or project edit takes the remembered plan (no layout
    computed): it must equal the plan and the estimate computed afresh for the edited inputs,
    warnings included. A field a plan reads, left out of remembered.plan_key, fails here."""
    made = _counted(monkeypatch, estimate_mod, "_plan")
    remembered.clear()
    estimate_mod.plan(inputs)
    for section, fields in _PLAN_FREE_EDITS:
        edited = _edited(inputs, section, fields)
        before = made["n"]
        warm_plan, warm = estimate_mod.plan(edited), estimate_mod.estimate(edited)
        assert made["n"] == before, (section, fields)  # remembered
        remembered.clear()
        assert estimate_mod.plan(edited) == warm_plan, (section, fields)
        cold = estimate_mod.estimate(edited)
        assert cold == warm and cold.warnings == warm.warnings, (section, fields)
        estimate_mod.plan(inputs)  # the base plan remembered again
    # A field the plan reads is in its key: a data or GPU memory edit plans again.
    for section, fields in (("data", {"epochs": 2.0}), ("gpu", {"memory_gib": 40.0})):
        before = made["n"]
        estimate_mod.plan(_edited(inputs, section, fields))
        assert made["n"] == before + 1, section
