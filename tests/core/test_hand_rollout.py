"""GRPO rollouts on separate GPUs and evaluation by hand (core/rollout.py, core/rl_summary.py).

Decoding is memory-bound (Pope et al. 2022 §2): a step of B sequences reads the weights in use
and each sequence's KV cache, 2·L·kv_dim·2 bytes per token of context, at bandwidth × efficiency;
it is compute-bound only when B·(2N + 4·L·ctx·q) ÷ (peak × MFU) is longer. Prefill runs each prompt
once (vLLM prefix caching): p·(2·N_decoder + 2·L·p·q) + 2·N_head. A vLLM server (TRL vllm-serve)
takes the fewest power-of-two GPUs whose 92% holds the bf16 weights and one sequence's cache.
"""

from __future__ import annotations

import math

import pytest

from ftcost_gui.core import estimate

from .hand import LLAMA31_8B, MIXTRAL
from .helpers import gpu, make

GIB = 2**30
PEAK, BW, MEM = 989e12, 3350e9, 79.6 * GIB  # H100 SXM: dense BF16, HBM, memory
P, G, PROMPT, COMPLETION = 32, 8, 256, 512


def grpo(s, rollout_gpus, **edits):
    return estimate(
        make(
            s.preset,
            hardware__gpu=gpu("H100 SXM"),
            data__num_examples=640,
            data__epochs=1,
            training__method="lora",
            training__checkpointing="full",
            training__auto_gpu_count=False,
            training__num_gpus=4,
            training__sharding="zero3",
            efficiency__mfu=0.3,
            objective__objective="grpo",
            objective__prompts_per_step=P,
            objective__completions_per_prompt=G,
            objective__mean_prompt_tokens=PROMPT,
            objective__mean_completion_tokens=COMPLETION,
            objective__rollout_placement="separate",
            objective__rollout_gpus=rollout_gpus,
            objective__max_concurrent_sequences=64,
            **edits,
        )
    )


@pytest.mark.parametrize(("s", "rollout_gpus"), [(LLAMA31_8B, 2), (MIXTRAL, 8)])
def test_separate_rollout_engines(s, rollout_gpus):
    r = grpo(s, rollout_gpus)
    a = r.alignment
    weights = 2 * s.total
    kv_token = 2 * s.L * s.kvd * 2
    seq_kv = kv_token * (PROMPT + COMPLETION)
    room = 0.92 * MEM
    tp = 1
    while (weights + seq_kv) / tp > room:
        tp *= 2
    engines = max(rollout_gpus, tp) // tp
    assert (a.placement, a.tp, a.engines) == ("separate", tp, engines)
    assert a.rollout_gpus == max(rollout_gpus, tp)
    assert a.rollout_gpu_bytes == pytest.approx(room)
    assert a.kv_bytes_per_token == kv_token
    # Decode batch: the step's completions per engine, the server's 64, or what the cache holds.
    per_engine = P * G / engines
    fits = math.floor((room * tp - weights) / seq_kv)
    batch = min(per_engine, 64, fits)
    assert a.decode_batch == batch
    # One decoding step: weights read (MoE: the experts B tokens reach) + B caches at the mean
    # context p + c/2, split over tp GPUs; or the compute of B tokens, whichever is longer.
    ctx = PROMPT + COMPLETION / 2
    routed = 1.0
    if s.experts:
        routed = 1 - (1 - s.top_k / s.experts) ** batch
    linear = s.L * (s.attn + s.h * s.experts + (s.experts or 1) * 3 * s.h * s.i * routed)
    read = 2 * linear + 2 * s.V * s.h + batch * kv_token * ctx
    mem_s = read / tp / (BW * 0.7)
    compute_s = batch * (2 * s.matmul + 4 * s.L * ctx * s.q) / (PEAK * 0.3 * tp)
    step = max(mem_s, compute_s)
    assert a.decode_step_s == pytest.approx(step, rel=1e-6)
    assert a.generation_tokens_per_s_per_gpu == pytest.approx(batch / step / tp, rel=1e-6)
    # Prefill: each prompt once per step, the head once per prompt, at the training MFU.
    head = 2 * s.V * s.h
    decoder_active = s.L * (s.attn + s.mlp_active)
    prefill = PROMPT * (2 * decoder_active + 2 * s.L * PROMPT * s.q) + head
    prefill_s = P / engines * prefill / (PEAK * 0.3 * tp)
    assert a.prefill_s_per_step == pytest.approx(prefill_s, rel=1e-6)
    # The step's generation: c − 1 decoding steps per sequence (the prefill yields the first).
    decode_steps = per_engine * (COMPLETION - 1) / batch
    assert a.generation_s_per_step == pytest.approx(decode_steps * step + prefill_s, rel=1e-6)
    steps = 640 / P
    generated = P * G * COMPLETION
    assert (a.steps, a.generated_tokens_per_step) == (steps, generated)
    assert a.generated_tokens == steps * generated
    gen_gpus = engines * tp
    assert a.generation_mfu == pytest.approx(
        generated * 2 * s.matmul / (a.generation_s_per_step * PEAK * gen_gpus), rel=1e-6
    )
    # The job holds the rollout GPUs beside the trainer's: they are billed, and renting rounds the
    # job's GPUs (4 trainer + rollout) to whole 8-GPU nodes past one node (core/layout.py).
    job = 4 + a.rollout_gpus
    held = job if job <= 8 else math.ceil(job / 8) * 8  # Mixtral: 4 + 8 = 12 → 2 nodes = 16
    assert r.layout.rollout_rented_gpus == held - 4
    assert r.time.held_gpu_hours == pytest.approx(held * r.time.held_wall_s / 3600)


@pytest.mark.parametrize("s", [LLAMA31_8B, MIXTRAL])
def test_evaluation_rate_and_mfu(s):
    """Evaluation: 2,000 × 300 tokens decoded on the trainer's GPUs, 32 sequences at a time."""
    r = grpo(s, 2)
    a, t = r.alignment, r.time
    assert t.eval_s > 0
    engines_gpus = 4  # every trainer GPU decodes (the model fits one GPU) or tp × engines
    tokens = 2000 * 300
    assert a.eval_tokens_per_s_per_gpu == pytest.approx(tokens / t.eval_s / engines_gpus)
    assert a.eval_generation_mfu == pytest.approx(
        tokens * 2 * s.matmul / (t.eval_s * PEAK * engines_gpus)
    )


def test_sft_has_no_alignment_figures():
    a = estimate(make("llama-2-7b")).alignment
    assert (a.objective, a.placement, a.engines, a.tp, a.rollout_gpus) == ("sft", "", 0, 0, 0)
    zeros = (a.policy_flops, a.steps, a.decode_batch, a.step_s, a.sft_step_s, a.rl_to_sft_step)
    assert zeros[1:] == (0.0,) * 5
    assert (a.gpus_colocated, a.gpus_separate, a.gpus_policy) == (0, 0, 0)
    assert a.reference_flops == a.reward_flops == a.value_flops == a.old_logprob_flops == 0
