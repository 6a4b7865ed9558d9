"""Exact parameter counts: SwiGLU, GQA, tied embeddings, biases, learned positions, MoE."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ftcost_gui.core import ModelSpec, count_params, effective_counts
from ftcost_gui.io.resources import builtin_presets

GPT2 = ModelSpec(
    name="gpt2",
    num_layers=12,
    hidden_size=768,
    num_attention_heads=12,
    num_kv_heads=12,
    intermediate_size=3072,
    mlp_kind="plain",
    vocab_size=50257,
    tied_embeddings=True,
    attention_qkv_bias=True,
    attention_out_bias=True,
    mlp_bias=True,
    norm_kind="layernorm",
    position_embeddings=1024,
)
MIXTRAL_8X7B = ModelSpec(
    name="Mixtral-8x7B",
    num_layers=32,
    hidden_size=4096,
    num_attention_heads=32,
    num_kv_heads=8,
    intermediate_size=14336,
    vocab_size=32000,
    num_experts=8,
    experts_per_token=2,
    expert_intermediate_size=14336,
)


@pytest.mark.parametrize("preset", [p.id for p in builtin_presets().models])
def test_presets_match_published_totals(preset):
    p = builtin_presets().find(preset)
    assert p is not None and p.expected_total is not None
    assert count_params(p.spec).total == p.expected_total


def test_gpt2_plain_mlp_biases_layernorm_positions_tied():
    c = count_params(GPT2)
    assert c.total == 124_439_808  # openai-community/gpt2
    assert c.lm_head == 0
    assert c.embedding == (50257 + 1024) * 768


def test_qwen_gqa_and_qkv_bias_untied():
    c = count_params(builtin_presets().find("qwen2.5-7b").spec)
    assert c.total == 7_615_616_512
    assert c.embedding == c.lm_head == 152064 * 3584
    assert c.non_embedding == c.total - 2 * 152064 * 3584


def test_mixtral_total_vs_active():
    c = count_params(MIXTRAL_8X7B)
    assert c.total == 46_702_792_704
    assert c.total_active == 12_879_925_248
    assert c.matmul_active < c.total_active


def test_swiglu_has_three_matrices():
    gated = count_params(ModelSpec(mlp_kind="gated"))
    plain = count_params(ModelSpec(mlp_kind="plain"))
    assert gated.total - plain.total == 32 * 4096 * 11008


def test_lora_counts_per_target():
    m = ModelSpec()
    by = m.lora_params_by_target(16)
    assert by["q_proj"][0] == 16 * (4096 + 4096) * 32
    separate = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
    all_linear = m.lora_params(16, separate)[0]
    assert all_linear == 39_976_960  # PEFT on Llama-2-7B, r=16, all linear layers
    # Fused: one adapter on (h, q + 2kv) and on each (h, 2i); PEFT on Phi-3's qkv_proj/gate_up_proj.
    assert by["qkv_proj"][0] == 16 * (4096 + 3 * 4096) * 32
    assert by["gate_up_proj"][0] == 16 * (4096 + 2 * 11008) * 32
    moe = MIXTRAL_8X7B.lora_params_by_target(8)
    assert moe["up_proj"][0] == 4 * moe["up_proj"][1]  # 8 experts stored, 2 active


def test_bare_parameter_count_scales_groups():
    c = effective_counts(ModelSpec(param_count_override=7e9))
    assert c.total == pytest.approx(7e9)
    assert c.embedding / c.total == pytest.approx(count_params(ModelSpec()).embedding / 6738415616)


@pytest.mark.parametrize(
    ("fields", "word"),
    [
        ({"num_attention_heads": 32, "num_kv_heads": 5}, "num_kv_heads"),
        ({"num_experts": 8, "experts_per_token": 9, "expert_intermediate_size": 10}, "experts"),
        ({"hidden_size": 1000, "num_attention_heads": 3, "num_kv_heads": 3}, "head_dim"),
        ({"num_layers": 0}, "num_layers"),
    ],
)
def test_invalid_shapes_are_validation_errors(fields, word):
    with pytest.raises(ValidationError, match=word):
        ModelSpec(**fields)
