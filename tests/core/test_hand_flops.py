"""FlopBreakdown by hand (articles 000 and 001 'FLOPs per training token', corrected by the
measured records docs/data/measured/*.json "flops", FlopCounterMode on Transformers + PEFT).

Per processed token: 2N forward + 2N input gradients + 2N weight gradients (6N full; 4N with a
frozen base). N is the parameters in matmuls per token: the active decoder linears and the output
head (embedding lookups are not matmuls). Measured corrections: without checkpointing a frozen
model's layer 0 computes no input gradient for q, k, v (its input, the embedding output, needs
none): −2·h·(q + 2·kv), and −2·r·h for each q/k/v adapter's A matrix. Checkpointing reruns
the decoder layers' forward only — not the head — and stops before each layer's last matmul,
the MLP down projection (L·h·i), unless a later op keeps its output (an MoE's routing
multiply): +2·(decoder linears − down projections).
Attention 6·L·s·q with causal masking (+2·L·s·q recomputed); adapters 6 FLOPs per adapter
parameter (8 recomputed). D is the total of a 'tokens' run.
"""

from __future__ import annotations

import pytest

from ftcost_gui.core import estimate

from .hand import SHAPES
from .helpers import make

D, S = 5e8, 4096


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize(
    ("method", "ckpt", "rank"),
    [
        ("full_amp_adamw", "full", 0),
        ("full_amp_adamw", "none", 0),
        ("lora", "full", 64),
        ("qlora", "none", 8),
    ],
)
def test_flops_per_token_and_total(s, method, ckpt, rank):
    edits = {"training__lora_rank": rank} if rank else {}
    r = estimate(
        make(
            s.preset,
            data__mode="tokens",
            data__total_tokens=D,
            data__max_seq_len=S,
            training__method=method,
            training__checkpointing=ckpt,
            **edits,
        )
    )
    f = r.flops
    full, recompute = method.startswith("full"), ckpt == "full"
    n = s.matmul
    adapters = 0
    if rank:  # q, k, v, o adapters: r·(h + q) + 2·r·(h + kv) + r·(q + h) per layer
        adapters = s.L * rank * ((s.h + s.q) + 2 * (s.h + s.kvd) + (s.q + s.h))
    base = (6 if full else 4) * n
    if not full and not recompute:  # layer 0's q, k, v need no input gradient
        base -= 2 * s.h * (s.q + 2 * s.kvd)
    down = 0 if s.experts else s.L * s.h * s.i  # the routing multiply keeps an expert's output
    rec = 2 * (s.L * (s.attn + s.mlp_active) - down) if recompute else 0
    attn = (8 if recompute else 6) * s.L * S * s.q
    adapt = (8 if recompute else 6) * adapters
    if rank and not recompute:  # nor the A matrices of q, k, v there (they read that input too)
        adapt -= 2 * 3 * rank * s.h
    assert f.matmul_params == n
    assert (f.base_coefficient, f.attention_coefficient) == (
        6 if full else 4,
        attn / (s.L * S * s.q),
    )
    assert f.base_per_token == pytest.approx(base)
    assert f.recompute_per_token == pytest.approx(rec)
    assert f.attention_per_token == pytest.approx(attn)
    assert f.adapters_per_token == pytest.approx(adapt)
    assert f.per_token == pytest.approx(base + rec + attn + adapt)
    assert f.total_flops == pytest.approx((base + rec + attn + adapt) * D)
    assert f.attention_share == pytest.approx(attn / (base + rec))
    assert f.adapter_share == pytest.approx(adapt / (base + rec + attn + adapt))


def test_moe_counts_the_active_experts_only():
    """Article 000: MoE needs N_active for FLOPs: Mixtral's 2 of 8 experts per token."""
    mixtral = SHAPES[2]
    f = estimate(make(mixtral.preset, data__mode="tokens", data__total_tokens=D)).flops
    assert f.matmul_params == mixtral.L * (mixtral.attn + 2 * 3 * mixtral.h * mixtral.i
                                           + mixtral.h * 8) + mixtral.V * mixtral.h  # fmt: skip
