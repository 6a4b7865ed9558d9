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
Without checkpointing, a frozen model's first layer needs no input gradient for q/k/v (the
embedding output requires none); transformers' checkpointing makes that input require grad.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def flops_per_token(
    counts: ParamCounts,
    full: bool,
    checkpointing: bool,
    num_layers: int,
    seq_len: int,
    attn_width: int,
    adapter_params_active: float,
    adapts_tail: bool = False,
) -> FlopsPerToken:
    """Model FLOPs per processed token.

    ``counts.matmul_active`` are the parameters in matrix multiplies per token: the active decoder
    linears plus the output head (embedding lookups are not matmuls; article 000 notes that 6N
    'ignores embedding lookups'). ``attn_width`` is heads × head_dim. ``adapts_tail``: LoRA on the
    down projection, which makes checkpointing rerun it.
    """
    base = (6.0 if full else 4.0) * counts.matmul_active
    if not full and not checkpointing:
        base -= 2.0 * counts.first_layer_inputs
    recompute = 2.0 * recomputed_params(counts, adapts_tail) if checkpointing else 0.0
    attention = 6.0 * num_layers * seq_len * attn_width
    if checkpointing:
        attention += 2.0 * num_layers * seq_len * attn_width
    adapters = (8.0 if checkpointing else 6.0) * adapter_params_active
    return FlopsPerToken(base, recompute, attention, adapters)


def simple_coefficient(full: bool, checkpointing: bool) -> float:
    """The articles' napkin coefficient: 6N / 4N, +2N with checkpointing (8N full)."""
    return (6.0 if full else 4.0) + (2.0 if checkpointing else 0.0)


def attention_share_simple(num_layers: int, seq_len: int, hidden: int, params: float) -> float:
    """Article 001: attention's extra work ≈ L·s·d ÷ N of the parameter term (causal)."""
    return num_layers * seq_len * hidden / params
