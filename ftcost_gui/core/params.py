"""Step: the parameters, what is trained and the LoRA adapters (their count and input widths).

Adapter counts come from ``ModelSpec.lora_params_by_target`` (r·(d_in + d_out) per adapted
matrix, Hu et al. 2021), scaled like the base counts when the model's total is given.
"""

from __future__ import annotations

from typing import NamedTuple

from .architecture import ModelSpec, ParamCounts
from .inputs import TrainingSpec
from .results import ParamSummary, build


class Adapters(NamedTuple):
    """LoRA adapters of one run (all zero for full fine-tuning)."""

    total: float  # adapter parameters
    active: float  # adapter parameters used per token (MoE: routed experts only)
    modules: tuple[tuple[int, int], ...]  # (input width, rank) of each adapted matrix kind


NO_ADAPTERS = Adapters(0.0, 0.0, ())


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
    return Adapters(total, active, modules)


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
