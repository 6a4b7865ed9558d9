"""DPO, GRPO and PPO: every new formula against a hand calculation written out here.

Two shapes: Llama-2-7B (multi-head attention, 32 KV heads) and Llama-3.1-8B (grouped-query
attention, 8 KV heads); Mixtral-8x7B where the MoE term applies. Parameter counts are the
architectures' own (tests/core/test_architecture.py pins them); everything else is arithmetic.
"""

from __future__ import annotations

import pytest

from ftcost_gui.core import estimate
from ftcost_gui.core.architecture import effective_counts
from ftcost_gui.core.rollout import experts_touched_fraction, weights_read_bytes
from ftcost_gui.core.units import GIB

from .helpers import gpu, make

H100 = "H100 SXM"
# Llama-2-7B: L = 32, d = 4096, 32 heads, 32 KV heads, MLP 11008, vocabulary 32000, untied.
L2_TOTAL = 6_738_415_616
L2_LINEAR = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)  # q, k, v, o + gate, up, down
L2_MATMUL = L2_LINEAR + 32000 * 4096  # + output head
# Llama-3.1-8B: L = 32, d = 4096, 32 heads, 8 KV heads (kv_dim 1024), MLP 14336, vocab 128256.
L3_TOTAL = 8_030_261_248
L3_LINEAR = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
L3_MATMUL = L3_LINEAR + 128256 * 4096


def test_shapes_used_below():
    assert L2_LINEAR == 6_476_005_376 and L2_MATMUL == 6_607_077_376
    assert L3_LINEAR == 6_979_321_856 and L3_MATMUL == 7_504_658_432
    assert effective_counts(make("llama-2-7b").model).matmul_active == L2_MATMUL
    assert effective_counts(make("llama-3.1-8b").model).total == L3_TOTAL


def dpo(preset: str = "llama-2-7b", **edits):
    base = dict(
        hardware__gpu=gpu(H100),
        data__mode="examples",
        data__num_examples=1000,
        data__mean_tokens_per_example=500,
        data__epochs=2,
        data__max_seq_len=1024,
        data__length_cv=0.0,  # every pair at the mean length: the arithmetic below is exact
        training__method="full_amp_adamw",
        training__checkpointing="none",
        objective__objective="dpo",
    )
    base.update(edits)
    return make(preset, **base)


# --- DPO ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("preset", "n_mm"), [("llama-2-7b", L2_MATMUL), ("llama-3.1-8b", L3_MATMUL)]
)
def test_dpo_trains_both_sequences_and_runs_the_reference_forward(preset, n_mm):
    r = estimate(dpo(preset))
    d = 2 * 1000 * 500 * 2  # chosen + rejected, 1000 pairs of 500 tokens, 2 epochs
    assert r.tokens.tokens_processed == d
    policy = 6 * n_mm + 6 * 32 * 1024 * 4096  # 6N + 6·L·s·d (no checkpointing), s = 1024
    reference = 2 * n_mm + 2 * 32 * 1024 * 4096  # a forward: 2N + 2·L·s·d
    assert r.alignment.policy_flops == pytest.approx(policy * d)
    assert r.alignment.reference_flops == pytest.approx(reference * d)
    assert r.flops.total_flops == pytest.approx((policy + reference) * d)


def test_dpo_reference_modes():
    d = 2 * 1000 * 500 * 2
    fwd = 2 * L2_MATMUL + 2 * 32 * 1024 * 4096
    pre = estimate(dpo(objective__dpo_reference="precomputed"))
    assert pre.alignment.reference_flops == pytest.approx(fwd * d / 2)  # once, not per epoch
    assert pre.memory.reference_bytes == 0
    free = estimate(dpo(objective__dpo_reference="none"))
    assert free.alignment.reference_flops == 0 and free.memory.reference_bytes == 0
    full = estimate(dpo(training__sharding="zero3"))
    # A bf16 copy of all 6.74e9 parameters, sharded like the policy's weights under ZeRO-3.
    assert full.memory.reference_bytes * full.time.num_gpus == pytest.approx(2 * L2_TOTAL)
    fp8 = estimate(dpo(objective__frozen_precision="fp8", training__sharding="zero3"))
    assert fp8.memory.reference_bytes * fp8.time.num_gpus == pytest.approx(
        L2_LINEAR * 1 + (L2_TOTAL - L2_LINEAR) * 2
    )


def test_dpo_with_lora_disables_the_adapters_instead_of_a_second_copy():
    r = estimate(dpo(training__method="lora"))
    assert r.memory.reference_bytes == 0
    d = 2 * 1000 * 500 * 2
    assert r.alignment.reference_flops == pytest.approx((2 * L2_MATMUL + 2 * 32 * 1024 * 4096) * d)


def test_dpo_micro_batch_holds_chosen_and_rejected():
    sft = estimate(dpo(objective__objective="sft", training__checkpointing="full"))
    pair = estimate(dpo(training__checkpointing="full"))
    # Checkpointed: L layer inputs (2h) + what stays outside the layers per token (activations.py:
    # ids/labels 16, rotary 2·2·128, final norm 4h + 4 + 2h, head input 2h, log-softmax 4V),
    # × rows · s, rows = 2 × micro-batch for DPO.
    per_token = 32 * 2 * 4096 + 16 + 2 * 2 * 128 + 4 * 4096 + 4 + 2 * 4096 + 2 * 4096 + 4 * 32000
    assert sft.memory.activations_saved_bytes == per_token * 1 * 1024
    assert pair.memory.activations_saved_bytes == per_token * 2 * 1024


# --- GRPO / PPO: tokens, steps and extra forwards ---------------------------------------------
def grpo(preset: str = "llama-3.1-8b", **edits):
    base = dict(
        hardware__gpu=gpu(H100),
        data__mode="examples",
        data__num_examples=1000,
        data__epochs=2,
        training__method="full_amp_adamw",
        training__checkpointing="full",
        training__sharding="zero3",
        efficiency__mfu=0.35,
        objective__objective="grpo",
        objective__prompts_per_step=64,
        objective__completions_per_prompt=8,
        objective__mean_prompt_tokens=256,
        objective__mean_completion_tokens=512,
    )
    base.update(edits)
    return make(preset, **base)


def test_grpo_steps_tokens_and_forwards():
    r = estimate(grpo(objective__kl_beta=0.04))
    a = r.alignment
    steps = 1000 * 2 / 64  # prompts × epochs ÷ prompts per step
    per_step = 64 * 8 * (256 + 512)  # P × G × (p + c)
    assert a.steps == steps and a.trained_tokens_per_step == per_step
    assert a.generated_tokens == pytest.approx(steps * 64 * 8 * 512)
    d = steps * per_step
    assert r.tokens.tokens_processed == pytest.approx(d)
    s = 768
    fwd = 2 * L3_MATMUL + 2 * 32 * s * 4096
    # 6N + what checkpointing reruns (decoder linears without the down projections, not the
    # head: flops.py, measured) + 8·L·s·d
    decoder = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
    down = 32 * 4096 * 14336
    train = 6 * L3_MATMUL + 2 * (decoder - down) + 8 * 32 * s * 4096
    assert a.policy_flops == pytest.approx(train * d)
    assert a.reference_flops == pytest.approx(fwd * d)  # β > 0
    assert a.old_logprob_flops == pytest.approx(fwd * d)  # vLLM: importance-sampling correction
    assert a.reward_flops == 0 and a.value_flops == 0
    assert r.flops.total_flops == pytest.approx((train + 2 * fwd) * d)


def test_grpo_defaults_load_no_reference_and_the_policy_generating_needs_no_old_logprobs():
    r = estimate(grpo(objective__rollout_placement="policy"))
    assert r.alignment.reference_flops == 0 and r.memory.reference_bytes == 0
    assert r.alignment.old_logprob_flops == 0 and r.alignment.sync_s_per_step == 0
    twice = estimate(grpo(objective__rollout_placement="policy", objective__policy_epochs=2))
    assert twice.alignment.policy_flops == pytest.approx(2 * r.alignment.policy_flops)
    assert twice.alignment.old_logprob_flops > 0  # μ > 1 needs the log-probs at sampling


def test_kept_fraction_generates_more_than_it_trains():
    r = estimate(grpo(objective__kept_fraction=0.5))
    assert r.alignment.generated_tokens_per_step == 64 * 8 * 512 / 0.5
    assert r.alignment.trained_tokens_per_step == 64 * 8 * 768


def test_ppo_value_and_reward_models():
    r = estimate(grpo(objective__objective="ppo", objective__critic_size_ratio=0.5))
    d = 1000 * 2 / 64 * 64 * 8 * 768
    s = 768
    fwd = 2 * L3_MATMUL + 2 * 32 * s * 4096
    # 6N + the measured recompute (decoder linears without the down projections) + 8·L·s·d
    train = 6 * L3_MATMUL + 2 * (L3_LINEAR - 32 * 4096 * 14336) + 8 * 32 * s * 4096
    assert r.alignment.reward_flops == pytest.approx(0.5 * fwd * d)
    assert r.alignment.value_flops == pytest.approx(0.5 * (fwd + train) * d)
    n = r.time.num_gpus
    # ZeRO-3: a bf16 reward model (0.5 × 2 B/param) and a value model with 0.5 × 16 B/param of
    # state, both split over n GPUs.
    assert r.memory.critic_bytes * n == pytest.approx(0.5 * 2 * L3_TOTAL + 0.5 * 16 * L3_TOTAL)


# --- Rollouts: KV cache, decoding from bandwidth, placement, sync --------------------------------
def test_kv_cache_per_token_mha_and_gqa():
    mha = estimate(grpo("llama-2-7b")).alignment.kv_bytes_per_token
    gqa = estimate(grpo("llama-3.1-8b")).alignment.kv_bytes_per_token
    assert mha == 2 * 32 * 4096 * 2 == 524_288  # K and V, 32 layers, 32 heads × 128, bf16
    assert gqa == 2 * 32 * 1024 * 2 == 131_072  # 8 KV heads × 128


def test_decode_step_reads_the_weights_and_the_kv_cache():
    r = estimate(
        grpo(
            objective__rollout_placement="separate",
            objective__rollout_gpus=1,
            objective__max_concurrent_sequences=16,
        )
    )
    a = r.alignment
    assert a.decode_batch == 16 and a.tp == 1 and a.engines == 1 and a.rollout_gpus == 1
    weights = 2 * L3_MATMUL  # decoder linears + head in bf16; embedding rows are looked up
    kv = 16 * 131_072 * (256 + 512 / 2)  # B × KV/token × mean context while decoding
    memory_s = (weights + kv) / (3350e9 * 0.7)
    compute_s = 16 * (2 * L3_MATMUL + 4 * 32 * 512 * 4096) / (989e12 * 0.35)
    assert compute_s < memory_s  # memory-bound at batch 16
    assert a.decode_step_s == pytest.approx(memory_s)
    assert a.decode_step_s == pytest.approx(6.8584e-3, rel=1e-4)
    assert a.generation_tokens_per_s_per_gpu == pytest.approx(16 / memory_s)
    assert 0.01 < a.generation_mfu < 0.10  # single-digit MFU (article 000)
    # Separate GPUs are held for the whole run, beside the trainer's.
    assert r.time.held_gpu_hours == pytest.approx((r.time.num_gpus + 1) * r.time.held_wall_s / 3600)


def test_decoding_turns_compute_bound_at_large_batches():
    r = estimate(grpo(objective__rollout_placement="separate", objective__rollout_gpus=8))
    a = r.alignment
    ctx = 256 + 256
    flops = a.decode_batch * (2 * L3_MATMUL + 4 * 32 * ctx * 4096)
    assert a.decode_step_s == pytest.approx(
        max(
            (2 * L3_MATMUL + a.decode_batch * 131_072 * ctx) / (3350e9 * 0.7),
            flops / (989e12 * 0.35),
        )
    )


def test_moe_decoding_reads_the_experts_its_tokens_reach():
    m = make("mixtral-8x7b").model
    counts = effective_counts(m)
    assert experts_touched_fraction(m, 1) == pytest.approx(2 / 8)
    assert experts_touched_fraction(m, 4) == pytest.approx(1 - (1 - 2 / 8) ** 4)
    head = 32000 * 4096 * 2
    # One token reads the active linears (attention, router, 2 of 8 experts); all 8 at large B.
    assert weights_read_bytes(m, counts, 1) == pytest.approx(
        2 * counts.decoder_linear_active + head
    )
    assert weights_read_bytes(m, counts, 10_000) == pytest.approx(2 * counts.decoder_linear + head)


def test_colocated_engine_reserves_its_share_of_each_gpu():
    r = estimate(
        grpo(objective__rollout_placement="colocated", objective__rollout_memory_share=0.3)
    )
    reserve = 0.3 * 79.6 * GIB
    weights = 2 * L3_TOTAL  # vLLM's bf16 copy of every parameter
    assert r.memory.rollout_weights_bytes == pytest.approx(weights)
    assert r.memory.kv_cache_bytes == pytest.approx(reserve - weights)
    # The decode batch: TRL decodes micro-batch × gradient accumulation sequences per GPU (1 × 8).
    assert r.alignment.decode_batch == 8
    kv_fits = (reserve - weights) // (131_072 * 768)
    assert kv_fits > 8


def test_weight_sync_per_step():
    r = estimate(grpo(objective__rollout_placement="colocated"))
    n, w = r.time.num_gpus, 2 * L3_TOTAL
    gather = w * (n - 1) / n / (900e9 / 2)  # ZeRO-3 gather over NVLink, one direction
    copy = 2 * w / 3350e9  # read + write into the engine at HBM bandwidth
    assert r.alignment.sync_s_per_step == pytest.approx(gather + copy)
    sep = estimate(grpo(objective__rollout_placement="separate", training__sharding="zero2"))
    assert sep.alignment.sync_s_per_step == pytest.approx(w / (900e9 / 2))  # one broadcast


def test_the_rl_step_is_generation_plus_sync_plus_training():
    r = estimate(grpo())
    a, t = r.alignment, r.time
    assert a.step_s == pytest.approx(
        a.generation_s_per_step + a.sync_s_per_step + a.training_s_per_step
    )
    assert a.steps * a.step_s == pytest.approx(t.rl_generation_s + t.train_wall_s)
    # An SFT step on the same trained tokens, same GPUs and MFU.
    assert a.sft_step_s == pytest.approx(
        r.flops.per_token * a.trained_tokens_per_step / t.achieved_flops_per_s / t.num_gpus
    )


def test_article_rule_for_generation_is_reachable():
    r = estimate(grpo(objective__generation_rate="mfu", overheads__generation_mfu=0.05))
    n = r.time.num_gpus
    gen_tokens = 1000 * 2 / 64 * 64 * 8 * 512
    sync = r.alignment.sync_s_per_step * r.alignment.steps
    assert r.time.rl_generation_s == pytest.approx(
        gen_tokens * 2 * L3_MATMUL / (989e12 * 0.05 * n) + sync
    )
    assert r.alignment.generation_mfu == pytest.approx(0.05)


def test_evaluation_from_bandwidth_and_by_the_rule():
    # Article 000: 2,000 examples × 300 tokens = 600k generated tokens per checkpoint.
    base = dict(hardware__gpu=gpu(H100), training__sharding="zero3", efficiency__mfu=0.25)
    rule = estimate(make("llama-3.1-8b", objective__generation_rate="mfu", **base))
    n = rule.time.num_gpus
    assert rule.time.eval_s == pytest.approx(600_000 * 2 * L3_MATMUL / (989e12 * 0.05 * n))
    bw = estimate(make("llama-3.1-8b", **base))
    engines = n  # the 8B model fits one GPU: every GPU decodes its share, 32 at a time
    steps = 2000 / engines * (300 - 1) / 32  # the prefill yields each answer's first token
    step_s = (2 * L3_MATMUL + 32 * 131_072 * 150) / (3350e9 * 0.7)
    assert bw.time.eval_s == pytest.approx(steps * step_s)
    assert 0.01 < bw.alignment.eval_generation_mfu < 0.10  # 'single-digit MFU'


# --- Article 000: 'Reinforcement learning is mostly generation' -----------------------------------
def article_rl(decode_batch: int):
    """The article's setting: an 8B model fully fine-tuned with checkpointing on H100 SXM at 40%
    MFU (its cost table); GRPO with TRL's 8 completions of 512 tokens to 128-token prompts,
    colocated vLLM decoding `decode_batch` sequences per GPU (TRL: per_device_train_batch_size ×
    steps_per_generation)."""
    return grpo(
        efficiency__mfu=0.4,
        training__micro_batch=decode_batch,
        training__grad_accum=1,
        objective__prompts_per_step=16,
        objective__mean_prompt_tokens=128,
        objective__mean_completion_tokens=512,
    )


def test_article_000_rl_generation_runs_at_single_digit_mfu_and_a_step_costs_ten_sft_steps():
    r = estimate(article_rl(4))
    a = r.alignment
    assert a.decode_batch == 4
    assert a.generation_mfu < 0.02  # bandwidth-bound: about 1% of the BF16 peak
    # 'An RL step can cost ten times an SFT step on the same number of tokens.'
    assert 7 <= a.rl_to_sft_step <= 13
    # Larger decode batches amortise the weight reads: the ratio falls, MFU rises.
    ratios = [estimate(article_rl(b)).alignment.rl_to_sft_step for b in (1, 2, 4, 8, 16)]
    assert ratios == sorted(ratios, reverse=True)
    assert ratios[0] > 20 and ratios[-1] < 5


def test_dpo_with_packing_says_trl_does_not_pack_pairs():
    packed = estimate(dpo(data__padding="pack", training__micro_batch=4))
    assert any("does not pack pairs" in w for w in packed.warnings)
    unpacked = estimate(dpo(data__padding="longest", training__micro_batch=4))
    assert not any("pack" in w for w in unpacked.warnings)
    one_pair = estimate(dpo(data__padding="pack", training__micro_batch=1))  # nothing to pad to
    assert not any("pack" in w for w in one_pair.warnings)


def test_gpus_the_memory_forces_per_placement():
    r = estimate(grpo(objective__rollout_placement="policy"))
    a = r.alignment
    assert a.gpus_policy == r.memory.gpus_needed
    alone = estimate(grpo(objective__rollout_placement="separate")).memory.gpus_needed
    colocated = estimate(grpo(objective__rollout_placement="colocated")).memory.gpus_needed
    assert (a.gpus_separate, a.gpus_colocated) == (alone, colocated)
    assert colocated >= alone  # the engine's share is a fixed part of every GPU
    # 8B full fine-tune, ZeRO-3: 16 B/param of state over n GPUs plus a 0.3 × 79.6 GiB share.
    assert colocated > alone
    assert estimate(dpo()).alignment.gpus_colocated == 0  # no rollouts


def test_separate_rollout_gpus_count_in_the_jobs_nodes():
    r = estimate(
        grpo(
            objective__rollout_placement="separate",
            objective__rollout_gpus=2,
            training__auto_gpu_count=False,
            training__num_gpus=8,
        )
    )
    assert r.time.nodes == 2  # ceil((8 + 2) / 8)
    assert r.cost.job_interruptions_per_hour == pytest.approx(2 * 0.05)


def test_trained_tokens_per_second_count_the_extra_forwards():
    r = estimate(dpo())
    t = r.time
    # 2 sequences of the pair, each token: update 6N + 6·L·s·d and reference forward 2N + 2·L·s·d.
    per_token = (6 * L2_MATMUL + 6 * 32 * 1024 * 4096) + (2 * L2_MATMUL + 2 * 32 * 1024 * 4096)
    assert t.tokens_per_s_per_gpu == pytest.approx(t.achieved_flops_per_s / per_token)
