"""Activations: every tensor autograd saves for backward, per token, as Transformers + PEFT save it.

Derived tensor by tensor from the measured records (docs/data/measured/<family>.json, "saved" →
"inventory": op, dtype and shape of each storage saved for backward, counted once). Not fitted:
each entry below is one tensor of those inventories, and tests/core/test_measured.py checks the
sums against every record (within 10%). The families measured fix three styles:

- ``llama`` (Llama, Mistral, Qwen2/3, Phi-3, Mixtral): RMSNorm computed in fp32 — it keeps an fp32
  copy of its input and the fp32 rsqrt, and the bf16 normalised tensor only when its weight trains.
- ``gemma`` (four norms per layer, Gemma 2): the same norm, but the normalised tensor is fp32 and
  two of the four norms feed the residual stream, not a linear.
- ``layernorm`` (GPT-2): nn.LayerNorm keeps its bf16 input (the residual stream) and the mean and
  rstd; the MLP's gelu_new is composed of elementwise ops that keep four i-wide tensors.

What a linear keeps depends on what trains (PyTorch autograd): a trainable weight keeps the
input (bf16, shared by the linears that read the same tensor); a frozen one keeps nothing. A
LoRA adapter (PEFT) keeps its input cast to the adapter dtype — with fp32 adapters a separate fp32
copy per adapted module, with bf16 adapters the shared bf16 input — and the rank-r output of
lora_A. Attention: SDPA/FlashAttention keeps q, k, v, the output and the fp32 log-sum-exp (Dao
2022: no s² tensor); eager keeps q, k and v, the fp32 softmax and its bf16 copy (s² per head) and
the o_proj input. With grouped-query attention (1 < KV heads < heads) eager repeats K and V to
every head and keeps the q-sized copies; with one KV head the repeat stays a view.
"""

from __future__ import annotations

from typing import NamedTuple

from .architecture import ModelSpec

BF16 = 2.0
FP32 = 4.0
INT64 = 8.0
# LayerNorm's mean and rstd per token: fp32 on CUDA (accumulation type), 4 + 4 bytes. (The CPU
# records keep them in bf16, 2 + 2: 4 B per token less, far inside the tolerance.)
LAYERNORM_STATS = 8.0


class Saved(NamedTuple):
    """One saved tensor: what it is and its bytes per token (s-dependent terms included)."""

    name: str
    bytes_per_token: float


class LoraActs(NamedTuple):
    """What the activations need to know of the adapters."""

    targets: frozenset[str]  # module names as ftcost writes them (q_proj, qkv_proj, …)
    rank: int
    adapter_bytes: float  # 4 for fp32 adapters (PEFT's default), 2 for bf16


def style(m: ModelSpec) -> str:
    """The norm/MLP style of a family (see the module docstring)."""
    if m.norm_kind == "layernorm":
        return "layernorm"
    return "gemma" if m.norms_per_layer == 4 else "llama"


def _widths(m: ModelSpec) -> tuple[float, float]:
    """(MLP width a token passes through, router outputs per token)."""
    if not m.is_moe:
        return float(m.intermediate_size), 0.0
    width = m.expert_intermediate_size * m.experts_per_token
    if m.num_shared_experts:
        shared = m.shared_expert_intermediate_size or m.expert_intermediate_size
        width += shared * m.num_shared_experts
    return float(width), float(m.num_experts)


def _adapted(lora: LoraActs | None, *names: str) -> bool:
    return lora is not None and any(n in lora.targets for n in names)


def _norm(m: ModelSpec, label: str, trains: bool) -> list[Saved]:
    h = m.hidden_size
    if style(m) == "layernorm":
        return [Saved(f"{label}: input (residual stream, bf16)", BF16 * h),
                Saved(f"{label}: mean and rstd", LAYERNORM_STATS)]  # fmt: skip
    out = [Saved(f"{label}: fp32 copy of the input", FP32 * h), Saved(f"{label}: rsqrt", FP32)]
    if trains:
        normed = FP32 if style(m) == "gemma" else BF16
        out.append(Saved(f"{label}: normalised tensor (weight trains)", normed * h))
    return out


def _linear_inputs(
    label: str,
    width: float,
    modules: tuple[tuple[str, ...], ...],
    full: bool,
    lora: LoraActs | None,
) -> list[Saved]:
    """What the linears reading one tensor of ``width`` keep of it.

    ``modules``: each linear reading the tensor, by the names a LoRA target may give it.
    """
    out: list[Saved] = []
    adapted = [names for names in modules if _adapted(lora, *names)]
    if full or (adapted and lora is not None and lora.adapter_bytes == BF16):
        out.append(Saved(f"{label} (bf16, read by the linears)", BF16 * width))
    if lora is not None:
        for names in adapted:
            if lora.adapter_bytes != BF16:
                out.append(Saved(f"{names[0]} LoRA: fp32 copy of its input", FP32 * width))
            out.append(Saved(f"{names[0]} LoRA: lora_A output", lora.adapter_bytes * lora.rank))
    return out


def layer_inventory(
    m: ModelSpec, attention: str, seq_len: int, full: bool, lora: LoraActs | None
) -> list[Saved]:
    """Tensors one decoder layer saves for backward, per token (no checkpointing)."""
    h, q, kv = m.hidden_size, m.q_dim, m.kv_dim
    heads, kv_heads = m.num_attention_heads, m.num_kv_heads
    width, router = _widths(m)
    st = style(m)
    fused = m.fused_qkv
    qkv = (("qkv_proj",),) if fused else (("q_proj",), ("k_proj",), ("v_proj",))
    out = _norm(m, "attention norm", full)
    out += _linear_inputs("attention norm output", h, qkv, full, lora)
    if m.qk_norm != "none":
        rows_q, rows_k = (heads, kv_heads) if m.qk_norm == "per_head" else (1, 1)
        normed = BF16 if full else 0.0
        out.append(Saved("q norm: fp32 copy, rsqrt", (FP32 + normed) * q + FP32 * rows_q))
        out.append(Saved("k norm: fp32 copy, rsqrt", (FP32 + normed) * kv + FP32 * rows_k))
    if fused and st != "layernorm":
        # Phi-3: v stays a view of the fused qkv output, so that whole storage is kept.
        out.append(Saved("fused qkv output (v is a view of it)", BF16 * (q + 2 * kv)))
        out += [Saved("q after rotary", BF16 * q), Saved("k after rotary", BF16 * kv)]
    elif fused:
        out.append(Saved("c_attn output (q, k, v are views of it)", BF16 * (q + 2 * kv)))
    elif attention == "eager" and 1 < kv_heads < heads:
        # Eager GQA repeats K and V to every query head before the matmuls; with more than one
        # KV head that reshape copies, and the copies are what backward keeps.
        out += [Saved("q after rotary", BF16 * q), Saved("k repeated to every head", BF16 * q),
                Saved("v repeated to every head", BF16 * q)]  # fmt: skip
    else:
        rope = "" if st == "layernorm" else " after rotary"
        out += [Saved(f"q{rope}", BF16 * q), Saved(f"k{rope}", BF16 * kv), Saved("v", BF16 * kv)]
    o_names = ("o_proj",)
    if attention == "eager":
        scores = heads * seq_len  # one row of s scores per head, causal or not
        if st == "layernorm":  # GPT-2's eager softmax runs in the input dtype
            out.append(Saved("softmax (bf16, s per head)", BF16 * scores))
        else:
            out.append(Saved("softmax (fp32, s per head)", FP32 * scores))
            out.append(Saved("softmax cast to bf16 (s per head)", BF16 * scores))
        if st == "gemma":
            out.append(Saved("logit soft-capping tanh (s per head)", BF16 * scores))
        out += _linear_inputs("attention output (o_proj input)", q, (o_names,), full, lora)
    else:
        out.append(Saved("attention output", BF16 * q))
        out.append(Saved("log-sum-exp (fp32, per head)", FP32 * heads))
        lo = _linear_inputs("attention output", q, (o_names,), False, lora)
        out += [s for s in lo if "bf16, read" not in s.name]  # the output is already kept
    if st == "gemma":
        out += _norm(m, "post-attention norm", full)
    if st == "layernorm":
        out += _norm(m, "MLP norm", full)
    else:
        out += _norm(m, "MLP norm", full) if st == "llama" else _norm(m, "pre-MLP norm", full)
    if m.mlp_kind == "gated":
        readers: tuple[tuple[str, ...], ...] = (("gate_up_proj",), ("gate_proj",), ("up_proj",))
    else:
        readers = (("up_proj", "c_fc"),)
    out += _linear_inputs("MLP norm output", h, readers, full, lora)
    if router:
        out.append(Saved("router softmax (fp32, per expert)", FP32 * router))
    if m.mlp_kind == "gated":
        out += [Saved("gate output", BF16 * width), Saved("up output", BF16 * width),
                Saved("activation output", BF16 * width)]  # fmt: skip
    else:
        out.append(Saved("MLP up output and gelu internals (4 tensors)", 4 * BF16 * width))
    out += _linear_inputs("MLP product (down_proj input)", width, (("down_proj",),), full, lora)
    if st == "gemma":
        out += _norm(m, "post-MLP norm", full)
    return out


def outside_inventory(
    m: ModelSpec,
    seq_len: int,
    full: bool,
    lora: LoraActs | None,
    checkpointing: bool,
    loss: str = "standard",
) -> list[Saved]:
    """Tensors saved outside the decoder layers, per token: ids, positions, final norm, loss."""
    h, v = m.hidden_size, m.vocab_size
    st = style(m)
    out = [Saved("input ids and shifted labels (int64)", 2 * INT64)]
    if m.position_embeddings:
        out.append(Saved("position ids (int64)", INT64))
    else:
        out.append(Saved("rotary cos and sin (bf16)", 2 * BF16 * m.head_dim_eff))
    out += _norm(m, "final norm", full)
    if full:
        out.append(Saved("final norm output (the head's input)", BF16 * h))
    if loss == "chunked":
        # A fused linear + cross-entropy computes the hidden state's gradient in the forward and
        # keeps only that (docs/data/measured/loss.json).
        out.append(Saved("fused loss: gradient of the last hidden state (bf16)", BF16 * h))
    else:
        if st == "gemma":
            out.append(Saved("final logit soft-capping tanh (bf16)", BF16 * v))
        out.append(Saved("log-softmax output (fp32, per vocabulary entry)", FP32 * v))
    if lora is not None and not full and not checkpointing:
        # Layer 0's input comes from a frozen embedding: it needs no gradient, so the first norm
        # keeps nothing of it (the other layers' inputs do).
        first = sum(s.bytes_per_token for s in _norm(m, "", False))
        out.append(Saved("layer 0's first norm keeps nothing (input needs no grad)", -first))
    return out


def total(items: list[Saved]) -> float:
    return sum(s.bytes_per_token for s in items)
