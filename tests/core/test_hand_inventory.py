"""Saved-tensor inventories written out tensor by tensor: what the explanation's 'Activations'
table shows (present/explain.activations_section prints each tensor's label and bytes), so the
labels are part of the figure, not decoration.

Sources: core/activations.py's module docstring and the measured records it cites —
docs/data/measured/gemma2.json (four RMSNorms per layer computed in fp32, the normalised tensor
fp32, eager attention with logit soft-capping), llama.json (fp32 norm copy + rsqrt, bf16
normalised tensor when the weight trains, SDPA keeps q, k, v, output and the fp32 log-sum-exp),
and loss.json (the log-softmax over the vocabulary, fp32).
"""

from __future__ import annotations

import pytest

from ftcost_gui.core.activations import (
    LoraActs,
    Saved,
    layer_inventory,
    outside_inventory,
    source_record,
)
from ftcost_gui.core.architecture import ModelSpec
from ftcost_gui.core.memory_step import inventory_for

from .helpers import make

H, HEADS, W, S, V = 256, 8, 512, 128, 1000  # W: the MLP's intermediate width
HD = H // HEADS


def _rows(items):
    return [(s.name, s.bytes_per_token) for s in items]


def _gemma(kv_heads: int) -> ModelSpec:
    """A Gemma-2-shaped layer: four RMSNorms per layer, gated MLP, rotary positions."""
    return ModelSpec(hidden_size=H, num_attention_heads=HEADS, num_kv_heads=kv_heads,
                     intermediate_size=W, norms_per_layer=4, vocab_size=V)  # fmt: skip


def _gemma_norm(label: str, trains: bool) -> list[tuple[str, float]]:
    """Gemma's RMSNorm (fp32 compute): an fp32 copy of the input (4h), the fp32 rsqrt (4), and
    the normalised tensor, fp32 in Gemma (4h), only when the norm's weight trains."""
    rows = [(f"{label}: fp32 copy of the input", 4.0 * H), (f"{label}: rsqrt", 4.0)]
    return rows + ([(f"{label}: normalised tensor (weight trains)", 4.0 * H)] if trains else [])


def test_gemma_eager_layer_full_fine_tuning_by_hand():
    """Full fine-tuning, eager attention, 2 KV heads of 8 (grouped: K and V repeated to every
    head and kept at q width), s = 128: softmax fp32 + its bf16 cast + Gemma's soft-capping tanh
    (bf16), each one row of s scores per head; all four norms keep their normalised tensor."""
    q, scores = HEADS * HD, HEADS * S
    by_hand = [
        *_gemma_norm("attention norm", True),
        ("attention norm output (bf16, read by the linears)", 2.0 * H),
        ("q after rotary", 2.0 * q),
        ("k repeated to every head", 2.0 * q),
        ("v repeated to every head", 2.0 * q),
        ("softmax (fp32, s per head)", 4.0 * scores),
        ("softmax cast to bf16 (s per head)", 2.0 * scores),
        ("logit soft-capping tanh (s per head)", 2.0 * scores),
        ("attention output (o_proj input) (bf16, read by the linears)", 2.0 * q),
        *_gemma_norm("post-attention norm", True),
        *_gemma_norm("pre-MLP norm", True),
        ("MLP norm output (bf16, read by the linears)", 2.0 * H),
        ("gate output", 2.0 * W),
        ("up output", 2.0 * W),
        ("activation output", 2.0 * W),
        ("MLP product (down_proj input) (bf16, read by the linears)", 2.0 * W),
        *_gemma_norm("post-MLP norm", True),
    ]
    assert _rows(layer_inventory(_gemma(2), "eager", S, True, None)) == by_hand
    # 4 norms × (4h + 4 + 4h) + linear inputs 2h + 2q + 2h + 2i; q + repeated k, v 3·2q;
    # scores (4 + 2 + 2)·heads·s; gate, up, activation 3·2i.
    total = 4 * (8 * H + 4) + 2 * H + 2 * q + 2 * H + 2 * W + 6 * q + 8 * scores + 6 * W
    assert sum(b for _, b in by_hand) == total


def test_gemma_lora_layer_norms_keep_no_normalised_tensor():
    """LoRA on q and v (fp32 adapters, r = 8), SDPA, one KV head (MQA: no repeat): frozen norms
    keep only the fp32 copy and rsqrt; each adapter keeps an fp32 copy of its input (4h) and its
    lora_A output (4r); SDPA keeps q and k after rotary, v, the output and the log-sum-exp."""
    lora = LoraActs(frozenset({"q_proj", "v_proj"}), 8, 4.0)
    q, kv = HEADS * HD, HD
    by_hand = [
        *_gemma_norm("attention norm", False),
        ("q_proj LoRA: fp32 copy of its input", 4.0 * H),
        ("q_proj LoRA: lora_A output", 4.0 * 8),
        ("v_proj LoRA: fp32 copy of its input", 4.0 * H),
        ("v_proj LoRA: lora_A output", 4.0 * 8),
        ("q after rotary", 2.0 * q),
        ("k after rotary", 2.0 * kv),
        ("v", 2.0 * kv),
        ("attention output", 2.0 * q),
        ("log-sum-exp (fp32, per head)", 4.0 * HEADS),
        *_gemma_norm("post-attention norm", False),
        *_gemma_norm("pre-MLP norm", False),
        ("gate output", 2.0 * W),
        ("up output", 2.0 * W),
        ("activation output", 2.0 * W),
        *_gemma_norm("post-MLP norm", False),
    ]
    assert _rows(layer_inventory(_gemma(1), "flash", S, False, lora)) == by_hand


def test_llama_norms_keep_a_bf16_normalised_tensor():
    """Llama's RMSNorm keeps its normalised tensor in bf16 (2h) — Gemma's is fp32 (4h)."""
    llama = ModelSpec(hidden_size=H, num_attention_heads=HEADS, num_kv_heads=HEADS,
                      intermediate_size=W)  # fmt: skip
    rows = dict(_rows(layer_inventory(llama, "flash", S, True, None)))
    assert rows["attention norm: normalised tensor (weight trains)"] == 2.0 * H
    assert rows["MLP norm: normalised tensor (weight trains)"] == 2.0 * H
    assert "post-attention norm: rsqrt" not in rows


@pytest.mark.parametrize("loss", ["standard", "chunked"])
def test_outside_the_layers_by_hand(loss):
    """Full fine-tuning of a Gemma-2-shaped model: the shifted labels and input ids (int64, 8 B
    each), the rotary cos and sin (bf16, 2 · 2 · head_dim), the final norm (fp32 copy, rsqrt,
    fp32 normalised tensor) and its bf16 output read by the head (2h); then the loss: the
    standard path keeps Gemma's final soft-capping tanh (2V) and the fp32 log-softmax (4V), the
    chunked (fused) loss only the last hidden state's gradient (2h, loss.json)."""
    head = [
        ("shifted labels (int64)", 8.0),
        ("input ids (int64, kept by the trainable embedding)", 8.0),
        ("rotary cos and sin (bf16)", 2 * 2.0 * HD),
        *_gemma_norm("final norm", True),
        ("final norm output (the head's input)", 2.0 * H),
    ]
    if loss == "chunked":
        tail = [("fused loss: gradient of the last hidden state (bf16)", 2.0 * H)]
    else:
        tail = [
            ("final logit soft-capping tanh (bf16)", 2.0 * V),
            ("log-softmax output (fp32, per vocabulary entry)", 4.0 * V),
        ]
    assert _rows(outside_inventory(_gemma(2), S, True, None, loss)) == head + tail


def test_outside_with_learned_positions_and_lora():
    """GPT-2-shaped (LayerNorm, learned positions), LoRA: labels and position ids (int64), the
    final LayerNorm's bf16 input (2h) and fp32 mean and rstd (8) — no input ids (the embedding is
    frozen), no head input (the head is frozen) — and the fp32 log-softmax (4V)."""
    gpt2 = ModelSpec(hidden_size=H, num_attention_heads=HEADS, num_kv_heads=HEADS,
                     intermediate_size=W, norm_kind="layernorm", position_embeddings=1024,
                     mlp_kind="plain", fused_qkv=True, vocab_size=V)  # fmt: skip
    lora = LoraActs(frozenset({"c_attn"}), 8, 4.0)
    assert _rows(outside_inventory(gpt2, S, False, lora, "standard")) == [
        ("shifted labels (int64)", 8.0),
        ("position ids (int64)", 8.0),
        ("final norm: input (residual stream, bf16)", 2.0 * H),
        ("final norm: mean and rstd", 8.0),
        ("log-softmax output (fp32, per vocabulary entry)", 4.0 * V),
    ]


@pytest.mark.parametrize("norms", [2, 4], ids=["llama", "gemma"])
def test_lora_first_layer_adapting_only_down_proj_keeps_only_its_adapter(norms):
    """Layer 0 without checkpointing under LoRA: its input (the frozen embedding's output) needs
    no gradient, and nothing is adapted before down_proj, so no norm keeps anything; down_proj's
    fp32 adapter keeps its input copy (4i) and its lora_A output (4r)."""
    m = ModelSpec(hidden_size=H, num_attention_heads=HEADS, num_kv_heads=HEADS,
                  intermediate_size=W, norms_per_layer=norms)  # fmt: skip
    lora = LoraActs(frozenset({"down_proj"}), 8, 4.0)
    assert _rows(layer_inventory(m, "flash", S, False, lora, grad_in=False)) == [
        ("down_proj LoRA: fp32 copy of its input", 4.0 * W),
        ("down_proj LoRA: lora_A output", 4.0 * 8),
    ]


def test_a_gate_proj_adapter_keeps_the_mlp_norm_output():
    llama = ModelSpec(hidden_size=H, num_attention_heads=HEADS, num_kv_heads=HEADS,
                      intermediate_size=W)  # fmt: skip
    lora = LoraActs(frozenset({"gate_proj"}), 8, 4.0)
    rows = _rows(layer_inventory(llama, "flash", S, False, lora))
    assert ("gate_proj LoRA: fp32 copy of its input", 4.0 * H) in rows
    assert ("gate_proj LoRA: lora_A output", 4.0 * 8) in rows


def test_qk_norm_rows_are_named():
    m = ModelSpec(hidden_size=H, num_attention_heads=HEADS, num_kv_heads=2, intermediate_size=W,
                  qk_norm="per_head")  # fmt: skip
    rows = _rows(layer_inventory(m, "flash", S, False, None))
    q, kv = HEADS * HD, 2 * HD
    assert ("q norm: fp32 copy, rsqrt", 4.0 * q + 4.0 * HEADS) in rows
    assert ("k norm: fp32 copy, rsqrt", 4.0 * kv + 4.0 * 2) in rows


E, K, EI = 4, 2, 32  # experts, experts per token, one expert's intermediate width


def _moe(**kw) -> ModelSpec:
    return ModelSpec(hidden_size=H, num_attention_heads=HEADS, num_kv_heads=HEADS,
                     intermediate_size=EI, num_experts=E, experts_per_token=K,
                     expert_intermediate_size=EI, **kw)  # fmt: skip


def _expert_rows(items):
    return [r for r in _rows(items) if "xpert" in r[0] or "permutation" in r[0]]


def test_moe_first_layer_with_gate_up_adapters_keeps_no_merged_weights():
    """mixtral.json (grouped_mm, PEFT target_parameters): LoRA on gate_up in layer 0 without
    checkpointing — the routing needs no gradient, the experts' gathered rows (2·k·h), gate_up
    and activation outputs (2·k·2i, 2·k·i), routing weights (4k), inverse permutation (8k) and
    int32 row offsets (4E per layer); the merged W + B·A is not kept (its input needs no
    gradient), the fp32 factors' bf16 casts are (2·E·r·(h + 2i) per layer)."""
    lora = LoraActs(frozenset({"gate_up_proj"}), 8, 4.0)
    items = layer_inventory(_moe(), "flash", S, False, lora, grad_in=False)
    assert _expert_rows(items) == [
        ("experts' input rows (gathered hidden states, bf16)", 2.0 * K * H),
        ("experts' gate_up output (bf16)", 2.0 * K * 2 * EI),
        ("experts' activation output (bf16)", 2.0 * K * EI),
        ("routing weight of each expert row (fp32)", 4.0 * K),
        ("inverse permutation (int64)", 8.0 * K),
        ("expert row offsets (int32)", 0.0),
    ]
    fixed = [(s.name, s.fixed_bytes) for s in items if s.fixed_bytes]
    assert fixed == [
        ("expert row offsets (int32)", 4.0 * E),
        ("gate_up LoRA factors cast to bf16", 2.0 * E * 8 * (H + 2 * EI)),
    ]


def test_moe_down_adapters_keep_the_merged_down_weights():
    lora = LoraActs(frozenset({"down_proj"}), 8, 4.0)
    items = layer_inventory(_moe(), "flash", S, False, lora)
    fixed = [(s.name, s.fixed_bytes) for s in items if s.fixed_bytes]
    assert fixed == [
        ("expert row offsets (int32)", 4.0 * E),
        ("down merged expert weights W + B·A (bf16)", 2.0 * E * EI * H),
        ("down LoRA factors cast to bf16", 2.0 * E * 8 * (EI + H)),
    ]


def test_shared_experts_keep_what_a_dense_mlp_keeps():
    """A shared expert (not measured) is taken as a dense MLP of its width: full fine-tuning keeps
    the MLP norm output (2h), gate, up and activation outputs (3 · 2i) and down's input (2i)."""
    items = layer_inventory(_moe(num_shared_experts=1, shared_expert_intermediate_size=48),
                            "flash", S, True, None)  # fmt: skip
    assert [r for r in _rows(items) if r[0].startswith("shared expert: ")] == [
        ("shared expert: MLP norm output (bf16, read by the linears)", 2.0 * H),
        ("shared expert: gate output", 2.0 * 48),
        ("shared expert: up output", 2.0 * 48),
        ("shared expert: activation output", 2.0 * 48),
        ("shared expert: MLP product (down_proj input) (bf16, read by the linears)", 2.0 * 48),
    ]


@pytest.mark.parametrize(
    ("spec", "record"),
    [
        ({}, "llama"),
        ({"attention_qkv_bias": True}, "qwen2"),
        ({"qk_norm": "per_head"}, "qwen3"),
        ({"fused_qkv": True}, "phi3"),
        ({"norms_per_layer": 4}, "gemma2"),
        ({"norm_kind": "layernorm", "mlp_kind": "plain", "fused_qkv": True}, "gpt2"),
        ({"num_experts": 8, "experts_per_token": 2, "expert_intermediate_size": 64}, "mixtral"),
    ],
)
def test_each_tensor_names_the_record_it_was_measured_in(spec, record):
    m = ModelSpec(hidden_size=H, num_attention_heads=HEADS, num_kv_heads=HEADS,
                  intermediate_size=W, **spec)  # fmt: skip
    assert source_record(m, Saved("v", 2.0)) == record
    assert source_record(m, Saved("fused loss: gradient of the last hidden state", 2.0)) == "loss"


def test_the_explanations_inventory_follows_the_layouts_checkpointing():
    """inventory_for: the inventory with checkpointing as the layout resolved it, and the tokens
    of one micro-batch (2 × 2,048). LoRA without checkpointing: layer 0 keeps less (its input
    needs no gradient); with it, every layer's input requires grad, so layer 0 is like the rest."""
    inputs = make("llama-2-7b", training__method="lora", training__checkpointing="none",
                  training__micro_batch=2, data__max_seq_len=2048)  # fmt: skip
    on, tokens = inventory_for(inputs, True)
    off, _ = inventory_for(inputs, False)
    assert tokens == 2 * 2048
    assert on.first == on.layer and on.first_bytes == on.layer_bytes
    assert off.first_bytes < off.layer_bytes
    assert on.layer == off.layer
