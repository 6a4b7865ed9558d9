"""Step: generation — RL rollouts and evaluation — timed from memory bandwidth, not from MFU.

Decoding one token for B sequences reads every weight once and the KV cache of every sequence
(memory-bound; Pope et al. 2022, 'Efficiently Scaling Transformer Inference' §2; the roofline of
Williams et al. 2009). A decoding step therefore takes

    t = max( (weights read + B × KV bytes per token × mean context) ÷ (bandwidth × efficiency),
             B × (2N + 4·L·context·d) ÷ (peak × MFU) )

on an engine of tp GPUs (both sides divided by tp), and yields B tokens: at small B the weights
dominate and generation runs at single-digit MFU (article 000, 'Reinforcement learning is mostly
generation'). Prefill (the prompts, once each: vLLM 0.33.0 caches prefixes by default) is
compute-bound and runs at the training MFU. KV cache per token: K and V of every layer,
2 · L · kv_heads · head_dim · 2 bytes (bf16, vLLM cache_dtype "auto"). MoE: a step reads the
experts its B tokens route to, E · (1 − (1 − k/E)^B) of E per layer with uniform routing.

Placement (TRL 1.16.0 ``vllm_mode``): colocated engines share the training GPUs (tp = 1) inside
the memory share they reserve; a server on separate GPUs uses the fewest GPUs per engine that hold
the weights and a KV cache within vLLM's 0.92 utilisation; without vLLM the policy generates. The
trainer sends its weights to the engines once per step (TRL ``sync_weights``: bf16, PEFT merged),
gathered first under ZeRO-3. Article 000's rule (2N per generated token at a generation MFU)
stays reachable: Objective → Generation time = mfu.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from .alignment import RlShape, is_rl
from .architecture import ModelSpec, ParamCounts
from .inputs import EstimateInputs
from .memory import BF16_BYTES, NF4_DQ_BYTES
from .objective import VLLM_MEMORY_UTILIZATION
from .units import GB, GIB

KV_BYTES = BF16_BYTES  # vLLM cache_dtype "auto": the model's dtype
MAX_TP = 64


def kv_bytes_per_token(m: ModelSpec) -> float:
    """K and V of every layer for one token: 2 · L · kv_dim · 2 bytes."""
    return 2.0 * m.num_layers * m.kv_dim * KV_BYTES


def experts_touched_fraction(m: ModelSpec, batch: float) -> float:
    """Share of a layer's routed experts that B tokens reach with uniform routing."""
    if not m.is_moe:
        return 1.0
    e, k = m.num_experts, m.experts_per_token
    return 1.0 - (1.0 - k / e) ** batch


def weights_read_bytes(
    m: ModelSpec, counts: ParamCounts, batch: float, linear_bytes: float = BF16_BYTES
) -> float:
    """Bytes of weights one decoding step reads: the decoder linears it uses and the output head.

    The embedding table is looked up (B rows), not read; a tied head is the same matrix, read once.
    """
    head = m.vocab_size * m.hidden_size * BF16_BYTES
    linear = counts.decoder_linear
    if m.is_moe and m.num_experts > m.experts_per_token:  # all experts active: all read
        e, k = m.num_experts, m.experts_per_token
        per_expert = (counts.decoder_linear - counts.decoder_linear_active) / (e - k)
        routed = per_expert * e
        linear = (counts.decoder_linear - routed) + routed * experts_touched_fraction(m, batch)
    return linear * linear_bytes + head


def decode_flops_per_token(m: ModelSpec, counts: ParamCounts, context: float) -> float:
    """2N for the matmuls + 4·L·context·d for QKᵀ and AV against the cached context.

    Measured: docs/data/measured/generation_flops.json (tests/core/test_generation_measured.py).
    """
    return 2.0 * counts.matmul_active + 4.0 * m.num_layers * context * m.q_dim


def prefill_flops(m: ModelSpec, counts: ParamCounts, prompt: float) -> float:
    """One prompt's forward: the decoder linears and causal attention for every prompt token, the
    output head for the last one only (it yields the first generated token; transformers'
    ``generate`` and vLLM keep only that logit). Measured with the decode steps above."""
    head = 2.0 * (counts.matmul_active - counts.decoder_linear_active)
    per_token = 2.0 * counts.decoder_linear_active + 2.0 * m.num_layers * prompt * m.q_dim
    return prompt * per_token + head


class GenerationPlan(NamedTuple):
    """The MFU-free part of a run's generation; ``wall_s`` finishes it at an MFU."""

    mode: str  # "bandwidth", "mfu" (article 000's rule) or "none"
    engines: int
    tp: int  # GPUs per engine
    batch: float  # sequences decoded at once per engine
    decode_steps: float  # per engine, whole run (engines run in parallel)
    decode_mem_s: float  # memory side of one decoding step
    decode_flops: float  # FLOPs of one decoding step of one engine (all tp GPUs)
    prefill_flops: float  # per engine, whole run
    sync_s: float  # weight sync, whole run
    rule_flops: float  # article 000's rule: generated tokens × 2N, all engines
    generated_tokens: float  # whole run
    gen_flops: float  # generated tokens × 2N (for the effective MFU)


NO_GENERATION = GenerationPlan("none", 0, 1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def wall_s(plan: GenerationPlan, peak: float, mfu: float, gen_mfu: float) -> float:
    """Wall-clock of the plan's generation at a training MFU (prefill, compute-bound decoding)."""
    if plan.mode == "none":
        return 0.0
    gpus = plan.engines * plan.tp
    if gpus == 0:  # nothing to generate (e.g. no evaluation examples): at most the syncs
        return plan.sync_s
    if plan.mode == "mfu":
        return plan.rule_flops / (peak * gen_mfu * gpus) + plan.sync_s
    rate = peak * mfu * plan.tp
    step = max(plan.decode_mem_s, plan.decode_flops / rate)
    return plan.decode_steps * step + plan.prefill_flops / rate + plan.sync_s


def reads_mfu(plan: GenerationPlan) -> bool:
    """Whether ``wall_s`` of the plan changes with the training MFU (bandwidth mode with engines):
    elsewhere it is one figure per plan, worked out once (time_cost.runner, sweep.py)."""
    return plan.mode == "bandwidth" and plan.engines * plan.tp != 0


def decode_wall_s(plan: GenerationPlan, peak: float, mfu: float) -> float:
    """Decoding alone (bandwidth mode)."""
    if plan.mode != "bandwidth":
        return 0.0
    step = max(plan.decode_mem_s, plan.decode_flops / (peak * mfu * plan.tp))
    return plan.decode_steps * step


class Engines(NamedTuple):
    placement: str
    engines: int
    tp: int
    extra_gpus: int  # GPUs held beside the trainer's
    weights_bytes: float  # one engine's weight copy
    kv_capacity_bytes: float  # one engine's KV cache (inf: bounded by the sequences only)
    memory_per_gpu_bytes: float  # what the engine reserves on each of its GPUs


def _pow2_tp(need_bytes: float, per_gpu_bytes: float) -> int:
    tp = 1
    while tp < MAX_TP and need_bytes / tp > per_gpu_bytes:
        tp *= 2
    return tp


def rollout_engines(inputs: EstimateInputs, counts: ParamCounts, n_train: int) -> Engines:
    """Where the rollouts run (see the module docstring) and what each engine holds."""
    ob, m = inputs.objective, inputs.model
    cap = inputs.hardware.gpu.memory_gib * GIB
    weights = counts.total * BF16_BYTES  # vLLM loads the policy's weights in bf16
    seq_kv = kv_bytes_per_token(m) * (ob.mean_prompt_tokens + ob.mean_completion_tokens)
    if ob.rollout_placement == "colocated":
        reserve = ob.rollout_memory_share * cap
        return Engines("colocated", n_train, 1, 0, weights, max(0.0, reserve - weights), reserve)
    if ob.rollout_placement == "separate":
        room = VLLM_MEMORY_UTILIZATION * cap
        tp = _pow2_tp(weights + seq_kv, room)
        extra = max(ob.rollout_gpus, tp)
        engines = extra // tp
        return Engines("separate", engines, tp, extra, weights, max(0.0, room * tp - weights), room)
    method = inputs.training.method
    if method == "qlora":
        weights = counts.decoder_linear * NF4_DQ_BYTES + counts.other_16bit * BF16_BYTES
    return Engines("policy", n_train, 1, 0, weights, math.inf, 0.0)


def _decode_plan(
    m: ModelSpec,
    counts: ParamCounts,
    bandwidth_bytes_per_s: float,
    *,
    sequences_per_engine: float,
    batch: float,
    completion: float,
    prompt: float,
    prompt_prefills: float,  # prompts prefilled per engine
    tp: int,
    linear_bytes: float,
) -> tuple[float, float, float, float]:
    """(decode steps, memory seconds per step, FLOPs per step, prefill FLOPs) of one engine."""
    context = prompt + completion / 2.0  # mean context while decoding
    # The prefill yields a sequence's first token; c − 1 decoding steps yield the rest, at a mean
    # context of p + c/2 (measured: one forward per new token after the prompt's).
    decode_steps = sequences_per_engine * (completion - 1) / batch
    read = (
        weights_read_bytes(m, counts, batch, linear_bytes) + batch * kv_bytes_per_token(m) * context
    )
    mem_s = read / tp / bandwidth_bytes_per_s
    flops = batch * decode_flops_per_token(m, counts, context)
    return decode_steps, mem_s, flops, prompt_prefills * prefill_flops(m, counts, prompt)


def max_sequences(inputs: EstimateInputs, eng: Engines) -> float:
    """Sequences one engine decodes at once: a vLLM server's max_num_seqs; colocated (and the
    policy generating itself) TRL 1.16.0 generates per_device_train_batch_size ×
    steps_per_generation (= gradient accumulation) × tp at a time (VLLMGeneration max_num_seqs)."""
    if eng.placement == "separate":
        return float(inputs.objective.max_concurrent_sequences)
    tr = inputs.training
    return float(tr.micro_batch * tr.grad_accum * eng.tp)


def rollout_plan(
    inputs: EstimateInputs,
    counts: ParamCounts,
    shape: RlShape,
    n_train: int,
    warnings: list[str],
) -> tuple[GenerationPlan, Engines]:
    """The run's rollouts: engines, decode batch, decoding and prefill work, weight syncs."""
    ob, m, gpu = inputs.objective, inputs.model, inputs.hardware.gpu
    eng = rollout_engines(inputs, counts, n_train)
    seq_kv = kv_bytes_per_token(m) * (ob.mean_prompt_tokens + ob.mean_completion_tokens)
    per_engine = shape.generated_completions_per_step / eng.engines
    fits = (
        math.floor(eng.kv_capacity_bytes / seq_kv)
        if math.isfinite(eng.kv_capacity_bytes)
        else per_engine
    )
    batch = min(per_engine, max_sequences(inputs, eng), fits)
    if batch < 1:
        share = f"{eng.memory_per_gpu_bytes / GIB:,.1f} GiB"
        warnings.append(
            f"The rollout engine's memory ({share} per GPU) cannot hold the weights "
            f"({eng.weights_bytes / GIB:,.1f} GiB) and one sequence's KV cache: raise the "
            "colocated memory share or put the rollouts on separate GPUs."
        )
        batch = 1.0
    bw = gpu.memory_bandwidth_gb_s * GB * ob.decode_bandwidth_efficiency
    linear_bytes = (
        NF4_DQ_BYTES
        if eng.placement == "policy" and inputs.training.method == "qlora"
        else BF16_BYTES
    )
    # Prefix caching (vLLM) prefills each prompt once; model.generate prefills every copy.
    prefills = (
        shape.generated_prompts_per_step
        if eng.placement != "policy"
        else shape.generated_completions_per_step
    )
    steps_total = shape.steps
    decode_steps, mem_s, flops, prefill = _decode_plan(
        m, counts, bw,
        sequences_per_engine=per_engine * steps_total,
        batch=batch,
        completion=ob.mean_completion_tokens,
        prompt=ob.mean_prompt_tokens,
        prompt_prefills=prefills * steps_total / eng.engines,
        tp=eng.tp,
        linear_bytes=linear_bytes,
    )  # fmt: skip
    generated = shape.generated_tokens_per_step * steps_total
    gen_flops = generated * 2.0 * counts.matmul_active
    plan = GenerationPlan(
        mode=ob.generation_rate,
        engines=eng.engines,
        tp=eng.tp,
        batch=batch,
        decode_steps=decode_steps,
        decode_mem_s=mem_s,
        decode_flops=flops,
        prefill_flops=prefill,
        sync_s=steps_total * weight_sync_s(inputs, counts, n_train, eng.placement),
        rule_flops=gen_flops,
        generated_tokens=generated,
        gen_flops=gen_flops,
    )
    return plan, eng


def weight_sync_s(
    inputs: EstimateInputs, counts: ParamCounts, n_train: int, placement: str
) -> float:
    """One weight sync: bf16 weights to the engines (TRL sync_weights), gathered under ZeRO-3.

    Colocated: each GPU copies them into its engine (read + write at HBM bandwidth). Separate: one
    broadcast over the GPU link (per direction: half the bidirectional figure). Policy: none.
    """
    if placement == "policy":
        return 0.0
    gpu = inputs.hardware.gpu
    w = counts.total * BF16_BYTES
    link = gpu.interconnect_gb_s / 2 * GB
    gather = (
        w * (n_train - 1) / n_train / link
        if inputs.training.sharding == "zero3" and n_train > 1
        else 0.0
    )
    if placement == "colocated":
        return gather + 2 * w / (gpu.memory_bandwidth_gb_s * GB)
    return gather + w / link


def eval_plan(inputs: EstimateInputs, counts: ParamCounts, n: int) -> GenerationPlan:
    """Evaluation passes of one run, generated by the trained model on the job's n GPUs."""
    ov, ob, m, gpu = inputs.overheads, inputs.objective, inputs.model, inputs.hardware.gpu
    examples = ov.eval_passes_per_run * ov.eval_examples
    out = ov.eval_output_tokens
    tokens = examples * out
    gen_flops = tokens * 2.0 * counts.matmul_active
    if tokens == 0:
        return NO_GENERATION._replace(mode=ob.generation_rate)
    if ob.generation_rate == "mfu":
        return NO_GENERATION._replace(
            mode="mfu",
            engines=n,
            rule_flops=gen_flops,
            generated_tokens=tokens,
            gen_flops=gen_flops,
        )
    linear_bytes = NF4_DQ_BYTES if inputs.training.method == "qlora" else BF16_BYTES
    tp = eval_tp(inputs, counts, n)
    engines = max(1, n // tp)
    per_engine = examples / engines
    batch = max(1.0, min(float(ob.eval_batch_size), per_engine))
    bw = gpu.memory_bandwidth_gb_s * GB * ob.decode_bandwidth_efficiency
    decode_steps, mem_s, flops, _ = _decode_plan(
        m, counts, bw, sequences_per_engine=per_engine, batch=batch, completion=out,
        prompt=0.0, prompt_prefills=0.0, tp=tp, linear_bytes=linear_bytes,
    )  # fmt: skip
    return GenerationPlan(
        "bandwidth", engines, tp, batch, decode_steps, mem_s, flops, 0.0, 0.0, gen_flops, tokens,
        gen_flops,
    )  # fmt: skip


def eval_tp(inputs: EstimateInputs, counts: ParamCounts, n: int) -> int:
    """The tensor-parallel degree of an evaluation engine on the job's n GPUs: all
    ``eval_plan`` reads of the GPU's memory ("Which GPU" plans one job on 5,000 GPUs and keeps
    the evaluation plan of each GPU count, degree and bandwidth: row_plans.RowPlanner)."""
    linear_bytes = NF4_DQ_BYTES if inputs.training.method == "qlora" else BF16_BYTES
    weights = counts.decoder_linear * linear_bytes + counts.other_16bit * BF16_BYTES
    gpu_bytes = VLLM_MEMORY_UTILIZATION * inputs.hardware.gpu.memory_gib * GIB
    return min(_pow2_tp(weights, gpu_bytes), max(1, n))


def generation_plans(
    inputs: EstimateInputs,
    counts: ParamCounts,
    shape: RlShape | None,
    n_train: int,
    warnings: list[str],
) -> tuple[GenerationPlan, GenerationPlan, Engines | None]:
    """(evaluation, rollouts, rollout engines) of one run."""
    ev = eval_plan(inputs, counts, n_train)
    if shape is None or not is_rl(inputs.objective):
        return ev, NO_GENERATION, None
    rl, eng = rollout_plan(inputs, counts, shape, n_train, warnings)
    return ev, rl, eng
