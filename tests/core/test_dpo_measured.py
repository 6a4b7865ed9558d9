"""DPO FLOPs against one measured step (validation/dpo_flops.py, docs/data/measured/dpo_flops.json).

TRL's DPO step on a tiny Llama, counted by torch's FlopCounterMode: the reference forward under
no_grad and the policy's forward + loss + backward over the concatenated chosen and rejected
sequences. FlopCounterMode counts every s×s attention score; causal kernels (and the core) count
half, so half of the measured attention matmuls (aten.bmm) is taken off before comparing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ftcost_gui.core import estimate

from .helpers import hf_llama

RECORD = Path(__file__).resolve().parents[2] / "docs" / "data" / "measured" / "dpo_flops.json"


def causal(part: dict) -> float:
    return part["by_op"]["aten.mm"] + part["by_op"].get("aten.bmm", 0) / 2


def test_dpo_step_flops_match_the_measured_step():
    rec = json.loads(RECORD.read_text(encoding="utf-8"))
    c, s = rec["config"], rec["seq_len"]
    inputs = hf_llama(
        c,
        data__mode="examples",
        data__num_examples=1,  # one pair: two sequences
        data__mean_tokens_per_example=s,
        data__epochs=1,
        data__max_seq_len=s,
        data__length_cv=0.0,  # the measured pair: both sequences exactly s tokens
        training__method="full_amp_adamw",
        training__checkpointing="none",
        objective__objective="dpo",
    )
    a = estimate(inputs).alignment
    # By hand: N = 2 layers × (q, k, v, o + gate, up, down) + head = 1,310,720 matmul parameters.
    n_mm = 2 * (256 * 256 + 2 * 256 * 128 + 256 * 256 + 3 * 256 * 512) + 512 * 256
    tokens = 2 * s
    assert a.reference_flops == (2 * n_mm + 2 * 2 * s * 256) * tokens
    assert a.reference_flops == pytest.approx(causal(rec["reference"]), rel=1e-12)
    assert a.policy_flops == pytest.approx(causal(rec["policy"]), rel=1e-12)
    assert a.policy_flops == pytest.approx(3 * a.reference_flops)  # 6N + 6·L·s·d = 3 forwards
