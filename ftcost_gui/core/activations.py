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

What a layer keeps also depends on whether its input needs a gradient: without checkpointing,
LoRA's first layer reads the frozen embedding, so every op before the first adapter keeps nothing
(with checkpointing transformers makes each layer's input require grad).

Mixture-of-experts (Mixtral; docs/data/measured/mixtral.json; Transformers 5.24's default
``grouped_mm`` experts, PEFT 0.21's ``target_parameters`` LoRA): the router keeps its fp32 softmax
and top-k, tokens are sorted by expert (int64 permutations kept for backward), each expert reads a
gathered copy of its tokens' hidden states, and the down projection's output is kept for the
routing-weight multiply. PEFT adapts the 3D expert parameters by merging: each forward computes
W + B·A for the whole stack (one ``baddbmm`` in bf16) and the grouped matmul keeps that merged
copy for backward — per layer, whatever the number of tokens (``Saved.fixed_bytes``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .architecture import ModelSpec

BF16 = 2.0
FP32 = 4.0
INT64 = 8.0
# LayerNorm's mean and rstd per token: fp32 on CUDA (accumulation type), 4 + 4 bytes. (The CPU
# records keep them in bf16, 2 + 2: 4 B per token less, far inside the tolerance.)
LAYERNORM_STATS = 8.0


class Saved(NamedTuple):
    """One saved tensor: what it is and its bytes per token (s-dependent terms included), or
    bytes per layer whatever the tokens (``fixed_bytes``: PEFT's merged expert weights)."""

    name: str
    bytes_per_token: float
    fixed_bytes: float = 0.0


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


def source_record(m: ModelSpec, item: Saved) -> str:
    """The measured record (docs/data/measured/<name>.json) whose inventory shows this tensor:
    the family whose structure the model shares."""
    if item.name.startswith("fused loss"):
        return "loss"
    if m.is_moe:
        return "mixtral"
    st = style(m)
    if st != "llama":
        return "gpt2" if st == "layernorm" else "gemma2"
    if m.fused_qkv:
        return "phi3"
    if m.qk_norm != "none":
        return "qwen3"
    return "qwen2" if m.attention_qkv_bias else "llama"


def _adapted(lora: LoraActs | None, *names: str) -> bool:
    return lora is not None and any(n in lora.targets for n in names)


def _norm(m: ModelSpec, label: str, trains: bool, grad_in: bool = True) -> list[Saved]:
    """What a norm keeps: nothing when neither its weight nor its input needs a gradient."""
    h = m.hidden_size
    if not (trains or grad_in):
        return []
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


ROUTED_UP = ("gate_up_proj", "gate_proj", "up_proj")  # targets that adapt the experts' gate_up


def layer_inventory(
    m: ModelSpec,
    attention: str,
    seq_len: int,
    full: bool,
    lora: LoraActs | None,
    grad_in: bool = True,
) -> list[Saved]:
    """Tensors one decoder layer saves for backward, per token (no checkpointing).

    ``grad_in``: the layer's input needs a gradient (False for LoRA's first layer without
    checkpointing: autograd then keeps nothing for the ops before the first adapter).
    """
    h, q = m.hidden_size, m.q_dim
    st = style(m)
    fused = m.fused_qkv
    qkv = (("qkv_proj",),) if fused else (("q_proj",), ("k_proj",), ("v_proj",))
    grad_in = grad_in or full
    out = _norm(m, "attention norm", full, grad_in)
    out += _linear_inputs("attention norm output", h, qkv, full, lora)
    # The attention's tensors need a gradient when the input does or a q/k/v adapter trains.
    grad_attn = grad_in or any(_adapted(lora, *names) for names in qkv)
    if grad_attn:
        out += _attention(m, attention, seq_len, full)
    o_names = ("o_proj",)
    if attention == "eager":
        read = full and grad_attn
        out += _linear_inputs("attention output (o_proj input)", q, (o_names,), read, lora)
    else:
        lo = _linear_inputs("attention output", q, (o_names,), False, lora)
        out += [s for s in lo if "bf16, read" not in s.name]  # the output is already kept
    grad_mid = grad_attn or _adapted(lora, *o_names)  # the residual stream after attention
    if st == "gemma":
        out += _norm(m, "post-attention norm", full, grad_mid)
    if st == "layernorm":
        out += _norm(m, "MLP norm", full, grad_mid)
    else:
        label = "MLP norm" if st == "llama" else "pre-MLP norm"
        out += _norm(m, label, full, grad_mid)
    if m.is_moe:
        out += _experts(m, full, lora, grad_mid)
    else:
        out += _mlp(m, full, lora, grad_mid)
    if st == "gemma":
        out += _norm(m, "post-MLP norm", full, grad_mid)
    return out


def _attention(m: ModelSpec, attention: str, seq_len: int, full: bool) -> list[Saved]:
    """q, k, v and what the attention kernel keeps (when the attention needs a gradient)."""
    q, kv = m.q_dim, m.kv_dim
    heads, kv_heads = m.num_attention_heads, m.num_kv_heads
    st = style(m)
    out: list[Saved] = []
    if m.qk_norm != "none":
        rows_q, rows_k = (heads, kv_heads) if m.qk_norm == "per_head" else (1, 1)
        normed = BF16 if full else 0.0
        out.append(Saved("q norm: fp32 copy, rsqrt", (FP32 + normed) * q + FP32 * rows_q))
        out.append(Saved("k norm: fp32 copy, rsqrt", (FP32 + normed) * kv + FP32 * rows_k))
    if m.fused_qkv and st != "layernorm":
        # Phi-3: v stays a view of the fused qkv output, so that whole storage is kept.
        out.append(Saved("fused qkv output (v is a view of it)", BF16 * (q + 2 * kv)))
        out += [Saved("q after rotary", BF16 * q), Saved("k after rotary", BF16 * kv)]
    elif m.fused_qkv:
        out.append(Saved("c_attn output (q, k, v are views of it)", BF16 * (q + 2 * kv)))
    elif attention == "eager" and 1 < kv_heads < heads:
        # Eager GQA repeats K and V to every query head before the matmuls; with more than one
        # KV head that reshape copies, and the copies are what backward keeps.
        out += [Saved("q after rotary", BF16 * q), Saved("k repeated to every head", BF16 * q),
                Saved("v repeated to every head", BF16 * q)]  # fmt: skip
    else:
        rope = "" if st == "layernorm" else " after rotary"
        out += [Saved(f"q{rope}", BF16 * q), Saved(f"k{rope}", BF16 * kv), Saved("v", BF16 * kv)]
    if attention == "eager":
        scores = heads * seq_len  # one row of s scores per head, causal or not
        if st == "layernorm":  # GPT-2's eager softmax runs in the input dtype
            out.append(Saved("softmax (bf16, s per head)", BF16 * scores))
        else:
            out.append(Saved("softmax (fp32, s per head)", FP32 * scores))
            out.append(Saved("softmax cast to bf16 (s per head)", BF16 * scores))
        if st == "gemma":
            out.append(Saved("logit soft-capping tanh (s per head)", BF16 * scores))
    else:
        out.append(Saved("attention output", BF16 * q))
        out.append(Saved("log-sum-exp (fp32, per head)", FP32 * heads))
    return out


def _mlp(m: ModelSpec, full: bool, lora: LoraActs | None, grad_in: bool) -> list[Saved]:
    """A dense MLP (and an MoE's shared experts): the linears' inputs and the activation's."""
    width = float(m.intermediate_size)
    if m.mlp_kind == "gated":
        readers: tuple[tuple[str, ...], ...] = (("gate_up_proj",), ("gate_proj",), ("up_proj",))
    else:
        readers = (("up_proj", "c_fc"),)
    out = _linear_inputs("MLP norm output", m.hidden_size, readers, full, lora)
    # gate·up: the product keeps each factor whose partner needs a gradient (autograd).
    grad_gate = grad_in or _adapted(lora, "gate_up_proj", "gate_proj")
    grad_up = grad_in or _adapted(lora, "gate_up_proj", "up_proj", "c_fc")
    if m.mlp_kind == "gated":
        if grad_gate:
            out += [Saved("gate output", BF16 * width), Saved("up output", BF16 * width)]
        if grad_up:
            out.append(Saved("activation output", BF16 * width))
    elif grad_up:
        out.append(Saved("MLP up output and gelu internals (4 tensors)", 4 * BF16 * width))
    out += _linear_inputs("MLP product (down_proj input)", width, (("down_proj",),), full, lora)
    return out


def _experts(m: ModelSpec, full: bool, lora: LoraActs | None, grad_in: bool) -> list[Saved]:
    """An MoE block as Transformers 5.24 runs it (grouped_mm) under PEFT 0.21 (merged LoRA).

    Per token, with k experts per token; bytes per layer for the merged weights. Measured
    tensor by tensor: docs/data/measured/mixtral.json (the module docstring).
    """
    h, n_exp, k = m.hidden_size, m.num_experts, m.experts_per_token
    i = m.expert_intermediate_size
    up_lora = _adapted(lora, *ROUTED_UP)
    down_lora = _adapted(lora, "down_proj")
    out: list[Saved] = []
    if full and not m.num_shared_experts:  # with shared experts their linears keep it
        out.append(Saved("MLP norm output (bf16, read by the router)", BF16 * h))
    route = full or grad_in  # the routing weights need a gradient
    if route:
        out += [
            Saved("router softmax (fp32, per expert)", FP32 * n_exp),
            Saved("router top-k: indices (int64), weights and their sum (fp32)",
                  (INT64 + FP32) * k + FP32),
            Saved("sort by expert: permutation (int64)", INT64 * k),
        ]  # fmt: skip
    if grad_in:
        out.append(Saved("token index of each expert row (int64)", INT64 * k))
    if full or up_lora:
        out.append(Saved("experts' input rows (gathered hidden states, bf16)", BF16 * k * h))
    grad_up = grad_in or full or up_lora  # the gate_up output needs a gradient
    if grad_up:
        out.append(Saved("experts' gate_up output (bf16)", BF16 * k * 2 * i))
        out.append(Saved("experts' activation output (bf16)", BF16 * k * i))
    if full or down_lora:
        out.append(Saved("experts' product (down input, bf16)", BF16 * k * i))
    if route:
        out.append(Saved("experts' down output (for the routing weights, bf16)", BF16 * k * h))
    if grad_up or down_lora:
        out.append(Saved("routing weight of each expert row (fp32)", FP32 * k))
    if grad_up or down_lora or route:
        out.append(Saved("inverse permutation (int64)", INT64 * k))
        out.append(Saved("expert row offsets (int32)", 0.0, 4.0 * n_exp))
    if lora is not None:
        merged = [("gate_up", h, 2 * i, up_lora and grad_in), ("down", i, h, down_lora and grad_up)]
        for name, d_in, d_out, kept in merged:
            if not (up_lora if name == "gate_up" else down_lora):
                continue
            if kept:  # the grouped matmul keeps the merged weight when its input needs a gradient
                out.append(Saved(f"{name} merged expert weights W + B·A (bf16)", 0.0,
                                 BF16 * n_exp * d_in * d_out))  # fmt: skip
            if lora.adapter_bytes != BF16:  # fp32 adapters: the bf16 casts of A and B
                out.append(Saved(f"{name} LoRA factors cast to bf16", 0.0,
                                 BF16 * n_exp * lora.rank * (d_in + d_out)))  # fmt: skip
    if m.num_shared_experts:  # not measured: taken as a dense MLP of the shared width
        shared = m.shared_expert_intermediate_size or m.expert_intermediate_size
        dense = m.model_copy(update={"intermediate_size": shared * m.num_shared_experts,
                                     "num_experts": 0})  # fmt: skip
        out += [
            s._replace(name=f"shared expert: {s.name}") for s in _mlp(dense, full, lora, grad_in)
        ]
    return out


def outside_inventory(
    m: ModelSpec,
    seq_len: int,
    full: bool,
    lora: LoraActs | None,
    loss: str = "standard",
) -> list[Saved]:
    """Tensors saved outside the decoder layers, per token: ids, positions, final norm, loss."""
    h, v = m.hidden_size, m.vocab_size
    st = style(m)
    out = [Saved("shifted labels (int64)", INT64)]
    if full:
        out.append(Saved("input ids (int64, kept by the trainable embedding)", INT64))
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
    return out


def total(items: Iterable[Saved]) -> float:
    """Bytes per token of the tensors (fixed per-layer bytes apart: ``fixed``)."""
    return sum(s.bytes_per_token for s in items)


def fixed(items: Iterable[Saved]) -> float:
    """Bytes per layer whatever the tokens (PEFT's merged expert weights)."""
    return sum(s.fixed_bytes for s in items)
