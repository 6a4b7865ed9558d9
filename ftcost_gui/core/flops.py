"""Training FLOPs per processed token.

Article 000 'FLOPs per training token' and article 001 'Start with the FLOP bill': 2N forward,
+2N input gradients, +2N weight gradients (6N full, Kaplan et al. 2020); frozen base weights drop
the weight-gradient term (4N, LoRA/QLoRA). Attention adds 6·L·s·d per token with causal masking.
Adapter matmuls add 6 FLOPs per adapter parameter (2r/d per adapted matrix relative to 6N).

Activation checkpointing, as measured with ``FlopCounterMode`` on Transformers + PyTorch
(docs/data/measured/*.json, "flops"; docs/model.md): the articles' "+2N" recomputes every
parameter, but what is rerun is the decoder layers' forward only, and not all of it:
- the output head is outside the checkpointed layers and never recomputed;
- non-reentrant checkpointing (transformers' default) stops the rerun once the last tensor that
  backward needs is back, so each layer's final matmul, the MLP down projection, is skipped —
  unless something after it keeps a tensor (LoRA on down_proj, Gemma 2's post-MLP norm, an MoE's
  routing-weight multiply);
- the attention forward is rerun (+2·L·s·d).
Without checkpointing, a frozen model's first layer needs no input gradient for the frozen
matmuls before its first adapter — q/k/v always, and with no q/k/v adapter also o_proj, the
attention backward and, with no o_proj adapter, the MLP's first matmuls (the embedding output
requires none); transformers' checkpointing makes that input require grad.

LoRA on MoE experts (PEFT 0.21 ``target_parameters`` on Transformers 5's 3D expert weights,
docs/data/measured/mixtral.json): PEFT merges W + B·A for the whole expert stack (one ``baddbmm``,
2·r·E·d_in·d_out) — twice per forward, since registering the parametrization evaluates it once to
check it — and backward computes the merged weight's gradient (+2 per active expert parameter per
token, as full fine-tuning) and the adapters' from it (two ``bmm`` of the same size). Per micro-
batch: 4 merges' worth, 6 with checkpointing (the recomputed forward merges twice again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .architecture import ParamCounts


@dataclass(frozen=True, slots=True)
class FlopsPerToken:
    base: float
    recompute: float
    attention: float
    adapters: float

    @property
    def total(self) -> float:
        return self.base + self.recompute + self.attention + self.adapters


def recomputed_params(counts: ParamCounts, adapts_tail: bool) -> float:
    """Parameters whose forward matmul a checkpointed backward reruns, per token (measured)."""
    tail = 0.0 if adapts_tail else counts.tail_linear
    return counts.decoder_linear_active - tail


class LoraWork(NamedTuple):
    """What the adapters change beyond 4N (params.Adapters; see the module docstring)."""

    first_skip_params: float  # frozen weights whose input gradient layer 0 skips (no ckpt)
    first_skip_adapters: float  # adapters' A matrices whose input gradient layer 0 skips
    first_skip_attention: int  # of layer 0's four attention-backward matmuls (no ckpt)
    merged_active: float  # merged expert weights a token uses: weight gradient computed
    merged_adapters_active: float  # adapters of merged experts: no per-token x·A·B
    merge_flops_per_token: float  # one W + B·A over all layers ÷ tokens per micro-batch


def flops_per_token(
    counts: ParamCounts,
    full: bool,
    checkpointing: bool,
    num_layers: int,
    seq_len: int,
    attn_width: int,
    adapter_params_active: float,
    adapts_tail: bool = False,
    lora: LoraWork | None = None,
) -> FlopsPerToken:
    """Model FLOPs per processed token.

    ``counts.matmul_active`` are the parameters in matrix multiplies per token: the active decoder
    linears plus the output head (embedding lookups are not matmuls; article 000 notes that 6N
    'ignores embedding lookups'). ``attn_width`` is heads × head_dim. ``adapts_tail``: LoRA on the
    down projection, which makes checkpointing rerun it. ``lora``: what the adapter targets change
    (params.Adapters); without it a frozen base skips only layer 0's q/k/v input gradients.
    """
    base = (6.0 if full else 4.0) * counts.matmul_active
    attention = 6.0 * num_layers * seq_len * attn_width
    if checkpointing:
        attention += 2.0 * num_layers * seq_len * attn_width
    per_token_adapters = adapter_params_active
    extra = 0.0  # adapter FLOPs not proportional to the per-token adapter parameters
    if not full:
        if lora is None:
            lora = LoraWork(counts.first_layer_inputs, 0.0, 0, 0.0, 0.0, 0.0)
        if not checkpointing:
            base -= 2.0 * lora.first_skip_params
            # One layer's attention backward is 4·s·d (causal): s·d per matmul skipped.
            attention -= lora.first_skip_attention * seq_len * attn_width
        base += 2.0 * lora.merged_active
        per_token_adapters -= lora.merged_adapters_active
        extra = (6.0 if checkpointing else 4.0) * lora.merge_flops_per_token
        if not checkpointing:
            extra -= 2.0 * lora.first_skip_adapters
    recompute = 2.0 * recomputed_params(counts, adapts_tail) if checkpointing else 0.0
    adapters = (8.0 if checkpointing else 6.0) * per_token_adapters + extra
    return FlopsPerToken(base, recompute, attention, adapters)


def simple_coefficient(full: bool, checkpointing: bool) -> float:
    """The articles' napkin coefficient: 6N / 4N, +2N with checkpointing (8N full)."""
    return (6.0 if full else 4.0) + (2.0 if checkpointing else 0.0)


def attention_share_simple(num_layers: int, seq_len: int, hidden: int, params: float) -> float:
    """Article 001: attention's extra work ≈ L·s·d ÷ N of the parameter term (causal)."""
    return num_layers * seq_len * hidden / params
