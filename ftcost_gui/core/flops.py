"""Training FLOPs per processed token.

Article 000 'FLOPs per training token' and article 001 'Start with the FLOP bill': 2N forward,
+2N input gradients, +2N weight gradients (6N full, Kaplan et al. 2020); frozen base weights drop
the weight-gradient term (4N, LoRA/QLoRA); full activation checkpointing recomputes the forward
(+2N). Attention adds 6·L·s·d per token with causal masking (+2·L·s·d when recomputed). Adapter
matmuls add 2r/d per adapted matrix relative to 6N, i.e. 6 FLOPs per adapter parameter.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FlopsPerToken:
    base: float
    recompute: float
    attention: float
    adapters: float

    @property
    def total(self) -> float:
        return self.base + self.recompute + self.attention + self.adapters


def flops_per_token(
    matmul_params: float,
    full: bool,
    checkpointing: bool,
    num_layers: int,
    seq_len: int,
    attn_width: int,
    adapter_params_active: float,
) -> FlopsPerToken:
    """Model FLOPs per processed token.

    ``matmul_params`` are the parameters in matrix multiplies per token: the active decoder
    linears plus the output head (embedding lookups are not matmuls; article 000 notes that 6N
    'ignores embedding lookups'). ``attn_width`` is heads × head_dim.
    """
    base = (6.0 if full else 4.0) * matmul_params
    recompute = 2.0 * matmul_params if checkpointing else 0.0
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
