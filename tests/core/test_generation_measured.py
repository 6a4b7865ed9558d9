"""Generation FLOPs against transformers' generate with a KV cache, counted by FlopCounterMode.

validation/generation_flops.py → docs/data/measured/generation_flops.json: one prefill forward over
the prompt, then one decoding forward per further token. The prefill's attention is causal (the
counter counts every score: half is taken off); a decoding step's single query attends to the
whole cache, which the counter and the core both count in full.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ftcost_gui.core.architecture import effective_counts
from ftcost_gui.core.rollout import decode_flops_per_token, prefill_flops

from .helpers import hf_llama

RECORD = (
    Path(__file__).resolve().parents[2] / "docs" / "data" / "measured" / "generation_flops.json"
)


def test_prefill_and_every_decoding_step_match_the_measured_generation():
    rec = json.loads(RECORD.read_text(encoding="utf-8"))
    c = rec["config"]
    m = hf_llama(c).model
    counts = effective_counts(m)
    b, p, new = rec["batch"], rec["prompt_tokens"], rec["new_tokens"]
    prefill, *steps = rec["forwards"]
    assert prefill["input_tokens"] == p and len(steps) == new - 1  # c − 1 decoding steps
    measured_prefill = prefill["by_op"]["aten.mm"] + prefill["by_op"]["aten.bmm"] / 2
    assert b * prefill_flops(m, counts, p) == pytest.approx(measured_prefill, rel=1e-12)
    # By hand: 2 layers of linears (1,179,648 parameters) for 32 tokens, causal attention, the
    # 131,072-parameter head once.
    by_hand = 32 * (2 * 1_179_648 + 2 * 2 * 32 * 256) + 2 * 131_072
    assert prefill_flops(m, counts, p) == by_hand
    for t, step in enumerate(steps, start=1):
        assert step["input_tokens"] == 1
        context = p + t  # the cache after t − 1 steps, and the new token
        measured = step["by_op"]["aten.mm"] + step["by_op"]["aten.bmm"]
        assert b * decode_flops_per_token(m, counts, context) == pytest.approx(measured, rel=1e-12)
