"""Step: the parameters, what is trained and the LoRA adapters (their count and input widths).

Adapter counts come from ``ModelSpec.lora_params_by_target`` (r·(d_in + d_out) per adapted
matrix, Hu et al. 2021), scaled like the base counts when the model's total is given.
"""

from __future__ import annotations

from typing import NamedTuple

from .architecture import ModelSpec, ParamCounts
from .flops import LoraWork
from .inputs import TrainingSpec
from .results import ParamSummary, build


class Adapters(NamedTuple):
    """LoRA adapters of one run (all zero for full fine-tuning)."""

    total: float  # adapter parameters
    active: float  # adapter parameters used per token (MoE: routed experts only)
    modules: tuple[tuple[int, int], ...]  # (input width, rank) of each adapted matrix kind
    # Without checkpointing the first layer's input (the frozen embedding's output) needs no
    # gradient, so autograd skips the input gradient of every matmul before the first adapter
    # (measured: docs/data/measured/*.json, "flops"): those weights, per token, and how much of
    # the first layer's attention backward is skipped (all of it with no q/k/v adapter).
    first_skip_params: float = 0.0
    first_skip_adapters: float = 0.0  # adapters' A matrices there
    first_skip_attention: int = 0  # of the four matmuls of one layer's attention backward
    # PEFT 0.21 adapts the 3D expert parameters of Transformers 5 MoE models (target_parameters)
    # by merging: W + B·A for the whole stack of each adapted parameter every forward, whose
    # gradient autograd then computes (measured: docs/data/measured/mixtral.json).
    merged_base: float = 0.0  # expert weights merged, all layers (E·d_in·d_out each)
    merged_active: float = 0.0  # of those, the ones a token uses: their weight gradient is computed
    merged_adapters_active: float = 0.0  # adapter parameters of merged experts (no x·A·B per token)
    rank: int = 0


NO_ADAPTERS = Adapters(0.0, 0.0, ())
ROUTED_UP = frozenset({"gate_proj", "up_proj", "gate_up_proj"})  # one gate_up stack per layer
QKV = frozenset({"q_proj", "k_proj", "v_proj", "qkv_proj"})


def lora_adapters(m: ModelSpec, counts: ParamCounts, tr: TrainingSpec) -> Adapters:
    """Adapter parameters for the targeted modules, and the inputs PEFT saves for backward."""
    by_target = m.lora_params_by_target(tr.lora_rank)
    scale = counts.total / m.counts().total
    targets = tuple(dict.fromkeys(tr.lora_targets))
    total = active = 0.0
    for t in targets:
        total += by_target[t][0] * scale
        active += by_target[t][1] * scale
    attn_shapes = m.attention_shapes()
    h = m.hidden_size
    mlp_in = {"gate_proj": h, "up_proj": h, "gate_up_proj": h, "qkv_proj": h}
    width = (m.expert_intermediate_size * m.experts_per_token) if m.is_moe else m.intermediate_size
    mlp_in["down_proj"] = width
    modules = tuple(
        (attn_shapes[t][0] if t in attn_shapes else mlp_in[t], tr.lora_rank)
        for t in targets
        if not (t in ("gate_proj", "gate_up_proj") and m.mlp_kind == "plain")
    )
    skip = _first_layer_skip(m, frozenset(targets), tr.lora_rank)
    merged, merged_active, merged_adapters = _merged_experts(m, targets, tr.lora_rank)
    return Adapters(
        total, active, modules, skip.base * scale, skip.adapters * scale, skip.attention,
        merged * scale, merged_active * scale, merged_adapters * scale, tr.lora_rank,
    )  # fmt: skip


class FirstLayerSkip(NamedTuple):
    """What the first layer skips without checkpointing, per token (params.Adapters)."""

    base: float  # frozen weights whose input gradient is not computed
    adapters: float  # adapters' A matrices whose input gradient is not computed
    attention: int  # of the four matmuls of the attention backward


def _first_layer_skip(m: ModelSpec, targets: frozenset[str], rank: int) -> FirstLayerSkip:
    """Everything before the first layer's first adapter reads a tensor that needs no gradient,
    so autograd computes no input gradient for it (measured, docs/data/measured/*.json "flops")."""
    h, q, kv = m.hidden_size, m.q_dim, m.kv_dim
    base = float(h * (q + 2 * kv))  # q, k, v read the first norm's output: never a gradient
    adapted_qkv = targets & QKV
    adapters = float(rank * h * len(adapted_qkv))  # their adapters' A matrices read it too
    if adapted_qkv:
        if "qkv_proj" in adapted_qkv:
            return FirstLayerSkip(base, adapters, 0)
        # Backward of softmax(q·kᵀ)·v: dV, dP (for dq and dk), dQ, dK — each needs its input.
        q_grad, k_grad = "q_proj" in adapted_qkv, "k_proj" in adapted_qkv
        skipped = (not q_grad) + (not k_grad) + ("v_proj" not in adapted_qkv)
        return FirstLayerSkip(base, adapters, skipped + (not (q_grad or k_grad)))
    base += q * h  # the attention output needs no gradient: neither does o_proj's input
    if "o_proj" in targets:
        return FirstLayerSkip(base, adapters + rank * q, 4)
    # The MLP's input needs none either: the router, and gate/up (and down, when neither of
    # gate/up trains, since its input then needs none); dense adapters' A matrices likewise.
    if m.is_moe:
        base += h * m.num_experts + (h if m.shared_expert_gate else 0)
    up_matrices = 2 if m.mlp_kind == "gated" else 1
    down_too = not targets & ROUTED_UP
    for _kind, i, copies in m._mlp_blocks(active=True):
        base += copies * h * i * (up_matrices + (1 if down_too else 0))
    if not m.is_moe:  # MoE experts are merged, not run as x·A·B (_merged_experts)
        gate = {"gate_proj", "gate_up_proj"} if m.mlp_kind == "plain" else set()
        adapters += rank * h * len(targets & ROUTED_UP - gate)
        if down_too and "down_proj" in targets:
            adapters += rank * m.intermediate_size
    return FirstLayerSkip(base, adapters, 4)


def _merged_experts(
    m: ModelSpec, targets: tuple[str, ...], rank: int
) -> tuple[float, float, float]:
    """(merged expert weights, the active ones, their adapters active per token), all layers."""
    if not m.is_moe:
        return 0.0, 0.0, 0.0
    h, n, k, i = m.hidden_size, m.num_experts, m.experts_per_token, m.expert_intermediate_size
    up_matrices = 2 if m.mlp_kind == "gated" else 1
    widths = []
    if ROUTED_UP & set(targets):
        widths.append(up_matrices * i)
    if "down_proj" in targets:
        widths.append(i)
    per_expert = sum(h * w for w in widths)
    # The adapters counted per token for those targets (lora_params_by_target, routed part).
    adapters = sum(
        rank * (h + (2 * i if t == "gate_up_proj" else i))
        for t in dict.fromkeys(targets)
        if t in ROUTED_UP | {"down_proj"}
        and not (t in ("gate_proj", "gate_up_proj") and m.mlp_kind == "plain")
    )
    layers = m.num_layers
    return layers * n * per_expert, layers * k * per_expert, layers * k * adapters


def param_summary(counts: ParamCounts, adapters: Adapters, full: bool) -> ParamSummary:
    return build(
        ParamSummary,
        total=counts.total,
        active=counts.total_active,
        embedding=counts.embedding,
        lm_head=counts.lm_head,
        non_embedding=counts.non_embedding,
        decoder_linear=counts.decoder_linear,
        trainable=counts.total if full else adapters.total,
        adapter=adapters.total,
        adapter_active=adapters.active,
    )


def lora_work(adapters: Adapters, tokens_per_micro_batch: float) -> LoraWork:
    """The adapters' FLOP terms beyond 4N (flops.py): the merges are per micro-batch."""
    merge = 2.0 * adapters.rank * adapters.merged_base  # one W + B·A over every layer
    return LoraWork(
        adapters.first_skip_params, adapters.first_skip_adapters, adapters.first_skip_attention,
        adapters.merged_active, adapters.merged_adapters_active,
        merge / max(tokens_per_micro_batch, 1.0),
    )  # fmt: skip
