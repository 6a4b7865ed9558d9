"""ParamSummary by hand: every parameter group of three shapes written out from config.json.

Counts follow the modules transformers builds (LlamaDecoderLayer, MixtralDecoderLayer): q, k, v, o
(no biases), a gated MLP of three h×i matrices (per expert, plus an h×E router), two RMSNorm
vectors per layer, the final norm, untied embedding and head. LoRA (Hu et al. 2021, eq. 3):
r·(d_in + d_out) per adapted matrix and layer; in an MoE every expert's matrix is adapted and a
token uses top-k of them.
"""

from __future__ import annotations

import pytest

from ftcost_gui.core import estimate

from .hand import LLAMA2_7B, LLAMA31_8B, SHAPES
from .helpers import make

# The exact totals transformers reports (num_parameters) for the three checkpoints.
PUBLISHED = {
    "llama-2-7b": 6_738_415_616,
    "llama-3.1-8b": 8_030_261_248,
    "mixtral-8x7b": 46_702_792_704,
}


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_parameter_groups(s):
    p = estimate(make(s.preset)).params
    layer_attn = s.h * s.q + 2 * s.h * s.kvd + s.q * s.h  # q, k, v, o
    layer_mlp = (s.experts or 1) * 3 * s.h * s.i + s.h * s.experts  # experts + router
    layer_norms = 2 * s.h
    embedding = head = s.V * s.h
    total = s.L * (layer_attn + layer_mlp + layer_norms) + embedding + head + s.h
    assert total == PUBLISHED[s.preset]
    assert p.total == total
    assert p.embedding == embedding
    assert p.lm_head == head
    assert p.non_embedding == total - embedding - head
    assert p.decoder_linear == s.L * (layer_attn + layer_mlp)
    # Active per token: MoE uses top-k experts (article 000 'Assumptions': N_active for FLOPs).
    unused = (s.experts - s.top_k) * 3 * s.h * s.i if s.experts else 0
    assert p.active == total - s.L * unused
    # Full fine-tuning trains everything; no adapters.
    assert p.trainable == total
    assert p.adapter == p.adapter_active == 0


def test_mixtral_active_is_the_published_12_9b():
    p = estimate(make("mixtral-8x7b")).params
    assert p.active == 12_879_925_248  # config card: 12.9B active (2 of 8 experts)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize("rank", [8, 64])
def test_lora_adapters_attention(s, rank):
    """Default targets q, k, v, o: r·(h + q) + 2·r·(h + kv) + r·(q + h) per layer (GQA shrinks
    k and v), the same for every expert count."""
    p = estimate(make(s.preset, training__method="lora", training__lora_rank=rank)).params
    per_layer = rank * (s.h + s.q) + 2 * rank * (s.h + s.kvd) + rank * (s.q + s.h)
    assert p.adapter == s.L * per_layer
    assert p.adapter_active == s.L * per_layer
    assert p.trainable == p.adapter
    assert p.total == s.total


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_lora_adapters_mlp(s):
    """gate, up (h → i) and down (i → h): r·(h + i) each, per expert; a token uses top-k."""
    rank = 16
    p = estimate(
        make(
            s.preset,
            training__method="qlora",
            training__lora_rank=rank,
            training__lora_targets=("gate_proj", "up_proj", "down_proj"),
        )
    ).params
    per_expert = 3 * rank * (s.h + s.i)
    assert p.adapter == s.L * per_expert * (s.experts or 1)
    assert p.adapter_active == s.L * per_expert * (s.top_k or 1)


def test_gqa_adapters_are_smaller_than_mha():
    """Llama-2-7B and Llama-3.1-8B share h = 4096 and 32 layers; GQA's k/v are 1,024 wide."""
    mha = estimate(make(LLAMA2_7B.preset, training__method="lora", training__lora_rank=8)).params
    gqa = estimate(make(LLAMA31_8B.preset, training__method="lora", training__lora_rank=8)).params
    assert mha.adapter == 32 * 8 * (4 * 4096 + 4 * 4096)  # article 001: 8.4M at rank 8
    assert gqa.adapter == 32 * 8 * (2 * (4096 + 4096) + 2 * (4096 + 1024))


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_bare_parameter_count_scales_every_group(s):
    """A bare count scales each group by N ÷ exact total (architecture.effective_counts)."""
    n = 10e9
    p = estimate(make(s.preset, model__param_count_override=n)).params
    f = n / s.total
    assert p.total == pytest.approx(n)
    assert p.embedding == pytest.approx(s.V * s.h * f)
    assert p.decoder_linear == pytest.approx(s.decoder_linear * f)
    assert p.active == pytest.approx(s.active * f)
