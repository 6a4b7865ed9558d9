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

from ftcost_gui.core.activations import LoraActs, layer_inventory, outside_inventory
from ftcost_gui.core.architecture import ModelSpec

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
