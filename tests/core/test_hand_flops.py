"""FlopBreakdown by hand (articles 000 and 001 'FLOPs per training token').

Per processed token: 2N forward + 2N input gradients + 2N weight gradients (6N full; 4N with a
frozen base), + 2N when the forward is recomputed; attention 6·L·s·q with causal masking (+2·L·s·q
recomputed); adapters 6 FLOPs per adapter parameter (8 recomputed). N is the parameters in
matmuls per token: the active decoder linears and the output head (embedding lookups are not
matmuls). D is the total of a 'tokens' run.
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
    rec = 2 * n if recompute else 0
    attn = (8 if recompute else 6) * s.L * S * s.q
    adapt = (8 if recompute else 6) * adapters
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
