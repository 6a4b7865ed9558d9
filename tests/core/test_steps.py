"""The estimate's steps: the coefficients the result carries, pinned by hand, and the seams.

The default model is the Llama-2-7B shape: L = 32, h = 4096, 32 heads (no GQA), i = 11008 (gated),
V = 32000, untied, RMSNorm, no biases.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from ftcost_gui.core.architecture import effective_counts
from ftcost_gui.core.estimate import estimate, finish, plan, sweep, sweep_mfu
from ftcost_gui.core.memory_step import MemoryInputs, memory_per_gpu
from ftcost_gui.core.params import NO_ADAPTERS, lora_adapters

from .helpers import make

# Matmul parameters per token: 32 × (4·4096² attention + 3·4096·11008 MLP) + 32000·4096 head.
N_MATMUL = 32 * (4 * 4096**2 + 3 * 4096 * 11008) + 32000 * 4096
# All parameters: embedding + head (2 × 32000·4096), 32 layers with two norms, the final norm.
N_TOTAL = 2 * 32000 * 4096 + 32 * (4 * 4096**2 + 3 * 4096 * 11008 + 2 * 4096) + 4096


def test_hand_counts():
    assert N_MATMUL == 6_607_077_376
    assert N_TOTAL == 6_738_415_616


@pytest.mark.parametrize(
    ("method", "checkpointing", "base", "attention"),
    [
        ("full_amp_adamw", "full", 6, 8),
        ("full_amp_adamw", "none", 6, 6),
        ("lora", "full", 4, 8),
        ("qlora", "none", 4, 6),
    ],
)
def test_flop_coefficients_are_carried(method, checkpointing, base, attention):
    r = estimate(make(training__method=method, training__checkpointing=checkpointing))
    f = r.flops
    assert f.matmul_params == N_MATMUL
    assert f.base_coefficient == base
    assert f.attention_coefficient == attention
    # A frozen base without checkpointing: layer 0's q/k/v need no input gradient (the embedding
    # output requires none), 2 · 4096 · (3 · 4096) fewer (flops.py, measured records).
    skipped = 2 * 4096 * 3 * 4096 if base == 4 and checkpointing == "none" else 0
    assert f.base_per_token == pytest.approx(base * N_MATMUL - skipped)
    # attention = coefficient × L · s · q_dim (s = 2048, q_dim = 4096)
    assert f.attention_per_token == pytest.approx(attention * 32 * 2048 * 4096)


def test_slowdowns_are_carried():
    r = estimate(
        make(
            training__method="qlora",
            training__cpu_offload_optimizer=True,
            efficiency__comm_overhead=0.3,
            efficiency__qlora_slowdown=1.4,
            efficiency__offload_slowdown=1.5,
            efficiency__mfu=0.4,
        )
    )
    t = r.time
    assert (t.qlora_slowdown, t.offload_slowdown) == (1.4, 1.5)
    assert t.slowdown == pytest.approx(1.3 * 1.4 * 1.5)  # 2.73
    assert t.achieved_flops_per_s == pytest.approx(989e12 * 0.4 / 2.73)
    plain = estimate(make(training__method="lora", efficiency__comm_overhead=0.3)).time
    assert (plain.qlora_slowdown, plain.offload_slowdown, plain.slowdown) == (1.0, 1.0, 1.3)


def test_state_bytes_and_checkpoint_params():
    full = estimate(make())  # mixed-precision AdamW: 16 B per parameter
    assert full.memory.state_bytes == pytest.approx(16 * N_TOTAL)
    assert full.checkpoint.params == N_TOTAL
    # LoRA on q and v: 2 matrices × 32 layers × r (d_in + d_out) = 2 × 32 × 16 × 8192
    lora = estimate(make(training__method="lora", training__lora_targets=["q_proj", "v_proj"]))
    adapters = 2 * 32 * 16 * (4096 + 4096)
    assert adapters == 8_388_608
    assert lora.checkpoint.params == adapters
    # frozen bf16 base (2 B) + fp32 adapter weight, gradient and two moments (16 B)
    assert lora.memory.state_bytes == pytest.approx(2 * N_TOTAL + 16 * adapters)


@pytest.mark.parametrize(
    ("edits", "source", "fraction"),
    [
        ({"data__padding": "pack"}, "packing", 1.0),
        (
            {
                "data__padding": "max_length",
                "data__mean_tokens_per_example": 512.0,
                "data__length_cv": 0.0,
            },
            "max_length",
            0.25,
        ),
        ({"data__padding": "longest"}, "longest", 1.0),  # micro-batch 1: nothing to pad
        ({"data__mode": "tokens"}, "tokens", 1.0),
        ({"data__useful_fraction_override": 0.8}, "given", 0.8),
    ],
)
def test_fraction_source(edits, source, fraction):
    t = estimate(make(**edits)).tokens
    assert (t.fraction_source, t.useful_fraction) == (source, fraction)


def test_step_check_passes():
    by_examples = estimate(make(efficiency__step_time_s=2.0, data__epochs=3.0)).step_check
    by_tokens = estimate(make(efficiency__step_time_s=2.0, data__mode="tokens")).step_check
    assert by_examples is not None and by_tokens is not None
    assert (by_examples.passes, by_tokens.passes) == (3.0, 1.0)


def test_plan_then_finish_is_the_estimate():
    inputs = make(training__method="lora", efficiency__step_time_s=1.5)
    assert finish(plan(inputs)) == estimate(inputs)


def test_sweep_at_the_inputs_mfu_is_the_estimate_exactly():
    inputs = make(efficiency__mfu=0.37)
    point = sweep_mfu(inputs, [0.37])[0]
    r = estimate(inputs)
    assert point.on_demand_usd == r.cost.on_demand_usd
    assert point.spot_usd == r.cost.spot_usd
    assert point.held_gpu_hours == r.time.held_gpu_hours
    assert sweep(plan(inputs), [0.2, 0.37]) == sweep_mfu(inputs, [0.2, 0.37])


def test_memory_step_depends_on_memory_inputs_only():
    a = make(data__max_seq_len=4096)
    b = make(
        data__max_seq_len=4096,
        efficiency__mfu=0.2,
        data__num_examples=123,
        project__planned_runs=9,
    )
    assert MemoryInputs.of(a) == MemoryInputs.of(b)
    assert estimate(a).memory == estimate(b).memory
    counts = effective_counts(a.model)
    # Checkpointing "auto" is resolved by the estimate (it compares the rented GPUs of both
    # settings); the memory step takes it resolved.
    ckpt = "full" if estimate(a).layout.checkpointing else "none"
    a = a.edited("training", checkpointing=ckpt)
    step = memory_per_gpu(MemoryInputs.of(a), counts, NO_ADAPTERS, [])
    assert step.breakdown == estimate(a).memory
    assert step.num_gpus == estimate(a).time.num_gpus


def test_lora_adapters_count_and_input_widths():
    inputs = make(training__method="lora", training__lora_targets=["q_proj", "down_proj"])
    ad = lora_adapters(inputs.model, effective_counts(inputs.model), inputs.training)
    # q: 16 × (4096 + 4096); down: 16 × (11008 + 4096); 32 layers each
    assert ad.total == 32 * 16 * (8192 + 11008 + 4096)
    assert ad.modules == ((4096, 16), (11008, 16))


def test_build_makes_what_model_construct_makes():
    r = estimate(make(training__method="lora", efficiency__step_time_s=1.5))
    parts = [r, *(getattr(r, name) for name in type(r).model_fields)]
    models = [p for p in parts if hasattr(p, "model_dump")]
    assert len(models) == 14  # the 13 sections and result.ranges
    for part in models:
        cls = type(part)
        values = {name: getattr(part, name) for name in cls.model_fields}
        assert part.__dict__ == values  # every field given, nothing else
        twin = cls.model_construct(**values)
        assert part == twin
        assert part.model_dump() == twin.model_dump()
        assert part.model_dump_json() == twin.model_dump_json()
        assert part.__pydantic_fields_set__ == twin.__pydantic_fields_set__
        assert repr(part) == repr(twin)


@pytest.mark.parametrize("edited", [False, True])
def test_copied_makes_what_model_copy_makes(edited):
    from ftcost_gui.core.inputs import EstimateInputs
    from ftcost_gui.core.results import copied
    from ftcost_gui.io.resources import builtin_catalog

    inputs = EstimateInputs()  # nothing set: model_copy marks only the updated field
    if edited:
        inputs = inputs.edited("efficiency", mfu=0.3)
    gpu = builtin_catalog().gpus[3].to_spec()
    for m, name, value in ((inputs.hardware, "gpu", gpu), (inputs, "training", make().training)):
        twin = m.model_copy(update={name: value})
        copy = copied(m, name, value)
        assert copy.__dict__ == twin.__dict__ and copy == twin
        assert copy.__pydantic_fields_set__ == twin.__pydantic_fields_set__
        assert copy.__pydantic_extra__ == twin.__pydantic_extra__
        assert copy.__pydantic_private__ == twin.__pydantic_private__
        assert repr(copy) == repr(twin)


@pytest.mark.parametrize(
    "edits",
    [
        {},
        {"training__checkpointing": "none", "training__micro_batch": 16},
        {"training__auto_gpu_count": False, "training__num_gpus": 3, "training__sharding": "zero3"},
        {"training__method": "qlora", "hardware__usable_memory_fraction": 0.5},
        {"objective__objective": "grpo", "objective__rollout_placement": "colocated"},
    ],
)
def test_the_fit_alone_is_the_memory_steps_fit(edits):
    """``memory_fit`` (what "Which GPU" weighs both checkpointing settings by) says what the
    memory step's breakdown says, to the bit."""
    from ftcost_gui.core.memory_step import memory_fit, memory_model

    inputs = make(**edits)
    counts = effective_counts(inputs.model)
    mi = MemoryInputs.of(inputs)
    adapters = lora_adapters(inputs.model, counts, inputs.training)
    if inputs.training.method == "full_amp_adamw":
        adapters = NO_ADAPTERS
    for gpu_memory_gib in (8.0, 24.0, 80.0, 141.0):
        m = replace(mi, gpu_memory_gib=gpu_memory_gib)
        step = memory_per_gpu(m, counts, adapters, [])
        b = step.breakdown
        fit = memory_fit(m, memory_model(m, counts, adapters))
        assert fit == (
            b.gpus_needed, step.num_gpus, b.fits, b.headroom_bytes, b.usable_bytes, b.total_bytes
        )  # fmt: skip
