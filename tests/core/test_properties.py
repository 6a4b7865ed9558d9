"""Property tests: valid inputs give finite, non-negative, monotone results; invalid inputs give
a pydantic ValidationError naming the field, never another exception."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from ftcost_gui.core import EstimateInputs, estimate

from .helpers import gpu

GPUS = ["H100 SXM", "A100 40GB", "L4", "RTX 4090", "MI300X", "V100 32GB", "T4"]

inputs_st = st.fixed_dictionaries(
    {
        "model": st.fixed_dictionaries(
            {
                "num_layers": st.integers(1, 96),
                "hidden_size": st.sampled_from([256, 896, 2048, 4096, 8192]),
                "num_attention_heads": st.sampled_from([8, 16, 32]),
                "num_kv_heads": st.sampled_from([1, 2, 8]),
                "intermediate_size": st.integers(64, 40000),
                "vocab_size": st.integers(1000, 260000),
                "tied_embeddings": st.booleans(),
                "mlp_kind": st.sampled_from(["gated", "plain"]),
            }
        ),
        "data": st.fixed_dictionaries(
            {
                "mode": st.sampled_from(["examples", "tokens"]),
                "num_examples": st.integers(1, 10**7),
                "mean_tokens_per_example": st.floats(1, 20000),
                "epochs": st.floats(0.1, 20),
                "total_tokens": st.floats(1, 1e12),
                "max_seq_len": st.sampled_from([128, 2048, 8192, 131072]),
                "padding": st.sampled_from(["longest", "max_length", "pack"]),
            }
        ),
        "training": st.fixed_dictionaries(
            {
                "method": st.sampled_from(
                    ["full_amp_adamw", "full_adamw_8bit", "full_bf16_adamw", "lora", "qlora"]
                ),
                "lora_rank": st.integers(1, 512),
                "checkpointing": st.sampled_from(["auto", "none", "full"]),
                "attention": st.sampled_from(["flash", "eager"]),
                "loss": st.sampled_from(["standard", "chunked"]),
                "micro_batch": st.integers(1, 64),
                "auto_gpu_count": st.booleans(),
                "num_gpus": st.integers(1, 512),
                "sharding": st.sampled_from(["none", "zero1", "zero2", "zero3"]),
                "cpu_offload_optimizer": st.booleans(),
            }
        ),
        "hardware": st.fixed_dictionaries(
            {"gpu": st.sampled_from(GPUS).map(gpu), "gpus_per_node": st.integers(1, 16)}
        ),
        "efficiency": st.fixed_dictionaries({"mfu": st.floats(0.01, 1.0)}),
    }
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _walk(obj, path=""):
    if isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            yield from _walk(getattr(obj, name), f"{path}.{name}")
    elif isinstance(obj, tuple | list):
        for i, v in enumerate(obj):
            yield from _walk(v, f"{path}[{i}]")
    else:
        yield path, obj


def _valid(doc):
    try:
        return EstimateInputs.model_validate(doc)
    except ValidationError:
        return None


@SETTINGS
@given(inputs_st)
def test_results_are_finite_and_non_negative(doc):
    inputs = _valid(doc)
    if inputs is None:
        return  # e.g. heads not dividing the width: covered by the invalid-input test
    r = estimate(inputs)
    for path, value in _walk(r):
        if isinstance(value, bool) or value is None or isinstance(value, str):
            continue
        if path.endswith("high_usd"):
            assert value >= 0
            continue
        assert math.isfinite(value), path
        assert value >= 0 or path.endswith(("headroom_bytes", "headroom_fraction")), (path, value)


def _edit(inputs: EstimateInputs, section: str, field: str, value) -> EstimateInputs:
    doc = inputs.model_dump()
    doc[section][field] = value
    return EstimateInputs.model_validate(doc)


@SETTINGS
@given(inputs_st, st.floats(1.01, 10))
def test_monotone_in_tokens_epochs_runs_and_price(doc, factor):
    inputs = _valid(doc)
    if inputs is None:
        return
    r = estimate(inputs)
    d = inputs.data
    more_tokens = _edit(inputs, "data", "total_tokens", min(d.total_tokens * factor, 1e15))
    more_epochs = _edit(inputs, "data", "epochs", min(d.epochs * factor, 1000))
    more_runs = _edit(inputs, "project", "planned_runs", inputs.project.planned_runs + 3)
    gpu_doc = inputs.hardware.gpu.model_dump()
    gpu_doc["on_demand_usd_per_hour"] *= factor
    dearer = EstimateInputs.model_validate(
        inputs.model_dump() | {"hardware": inputs.hardware.model_dump() | {"gpu": gpu_doc}}
    )
    for other in (more_tokens, more_epochs):
        o = estimate(other)
        assert o.flops.total_flops >= r.flops.total_flops
        assert o.time.held_gpu_hours >= r.time.held_gpu_hours * (1 - 1e-12)
        assert o.cost.on_demand_usd >= r.cost.on_demand_usd * (1 - 1e-12)
    assert estimate(more_runs).project.total_usd >= r.project.total_usd
    assert estimate(dearer).cost.on_demand_usd >= r.cost.on_demand_usd


@SETTINGS
@given(inputs_st, st.floats(1.0, 4.0))
def test_more_usable_memory_never_needs_more_gpus(doc, factor):
    inputs = _valid(doc)
    if inputs is None:
        return
    if inputs.training.checkpointing == "auto":
        # auto may drop checkpointing once memory allows, which can need more GPUs: compare
        # like with like.
        inputs = inputs.edited("training", checkpointing="full")
    g = inputs.hardware.gpu.model_dump()
    g["memory_gib"] = min(g["memory_gib"] * factor, 4096)
    bigger = EstimateInputs.model_validate(
        inputs.model_dump() | {"hardware": inputs.hardware.model_dump() | {"gpu": g}}
    )
    small, large = estimate(inputs).memory.gpus_needed, estimate(bigger).memory.gpus_needed
    if small is not None:
        assert large is not None and large <= small


bad_values = st.one_of(
    st.just(("data", "total_tokens", -5.0)),
    st.just(("data", "epochs", 0)),
    st.just(("training", "micro_batch", 0)),
    st.just(("training", "method", "sgd")),
    st.just(("efficiency", "mfu", 1.5)),
    st.just(("model", "num_layers", "many")),
    st.tuples(st.just("data"), st.just("max_seq_len"), st.integers(max_value=15)),
    st.tuples(st.just("efficiency"), st.just("mfu"), st.floats(max_value=0) | st.just(math.nan)),
    st.tuples(st.just("hardware"), st.just("usable_memory_fraction"), st.floats(min_value=1.01)),
)


@SETTINGS
@given(bad_values)
def test_invalid_input_is_a_validation_error_naming_the_field(bad):
    section, field, value = bad
    doc = EstimateInputs().model_dump()
    doc[section][field] = value
    try:
        EstimateInputs.model_validate(doc)
    except ValidationError as exc:
        locs = [".".join(map(str, e["loc"])) for e in exc.errors()]
        assert any(field in loc for loc in locs), locs
    else:
        raise AssertionError(f"{section}.{field}={value!r} was accepted")
