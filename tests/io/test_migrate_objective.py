"""Version-2 files keep their figures under the objective section (io/migrate_objective.py).

'The same figures as before' is pinned by the version-2 formulas written out here: evaluation at
eval tokens × 2N ÷ (peak × generation MFU × GPUs), RL generation r·D × 2N at the same rate, and
nothing else added (no reference, no rollout memory, no weight sync).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ftcost_gui.core import estimate
from ftcost_gui.core.architecture import effective_counts
from ftcost_gui.io.estimate_file import loads_document

DATA = Path(__file__).resolve().parent.parent / "data"


def v2() -> dict:
    return json.loads((DATA / "estimate_v2.ftcost").read_text(encoding="utf-8"))


def test_v2_files_are_sft_with_generation_by_the_article_rule():
    doc = loads_document(json.dumps(v2()))
    for scenario in doc.scenarios:
        i = scenario.inputs
        assert i.objective.objective == "sft" and i.objective.generation_rate == "mfu"
        r = estimate(i)
        ov, n = i.overheads, r.time.num_gpus
        n_mm = effective_counts(i.model).matmul_active
        tokens = ov.eval_passes_per_run * ov.eval_examples * ov.eval_output_tokens
        peak = i.hardware.gpu.bf16_tflops * 1e12
        assert r.time.eval_s == pytest.approx(tokens * 2 * n_mm / (peak * ov.generation_mfu * n))
        assert r.time.rl_generation_s == 0
        m = r.memory
        assert (
            m.reference_bytes == m.critic_bytes == m.rollout_weights_bytes == m.kv_cache_bytes == 0
        )
        assert r.flops.total_flops == pytest.approx(r.flops.per_token * r.tokens.tokens_processed)
        assert r.time.held_gpu_hours == pytest.approx(n * r.time.held_wall_s / 3600)


@pytest.mark.parametrize("ratio", [0.5, 3.0])
def test_a_v2_rl_ratio_becomes_grpo_with_the_same_generated_and_trained_tokens(ratio):
    doc = v2()
    scenario = copy.deepcopy(doc["scenarios"][0])  # 'Full FT': a token total, max length 2048
    scenario["inputs"]["overheads"]["rl_generation_ratio"] = ratio
    doc["scenarios"] = [scenario]
    doc["active"] = 0
    i = loads_document(json.dumps(doc)).current.inputs
    ob = i.objective
    assert (ob.objective, ob.rollout_placement, ob.generation_rate) == ("grpo", "policy", "mfu")
    assert ob.kl_beta == 0 and ob.completions_per_prompt == 1
    length = 2048  # a token total: the max sequence length
    assert ob.mean_prompt_tokens + ob.mean_completion_tokens == length
    r = estimate(i)
    d = i.data.total_tokens
    assert r.tokens.tokens_processed == pytest.approx(d)  # the old D
    assert r.alignment.generated_tokens == pytest.approx(ratio * d)  # the old r·D
    n_mm = effective_counts(i.model).matmul_active
    peak = i.hardware.gpu.bf16_tflops * 1e12
    gen_mfu, n = i.overheads.generation_mfu, r.time.num_gpus
    # Version 2: rl_s = r · D · 2N ÷ (peak × generation MFU × GPUs); no sync when the policy
    # generates, no reference, no extra log-prob pass.
    assert r.time.rl_generation_s == pytest.approx(ratio * d * 2 * n_mm / (peak * gen_mfu * n))
    assert r.flops.total_flops == pytest.approx(r.flops.per_token * d)
    if ratio > 1:  # more generated than trained: the rest is sampled and dropped
        assert ob.mean_prompt_tokens == 1
        assert ob.kept_fraction == pytest.approx((length - 1) / (length * ratio))
