"""Step: the per-step figures of DPO/GRPO/PPO at the inputs' MFU (``result.alignment``).

An RL step runs, one after the other as TRL does: the rollouts (decoding + prefill on the
engines), the weight sync, then the trainer's compute (extra forwards + the policy update). It is
compared with an SFT step on the same trained tokens, GPUs and MFU (article 000: 'an RL step can
cost ten times an SFT step on the same number of tokens').
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from . import rollout
from .memory_step import memory_per_gpu
from .results import AlignmentSummary, build, made
from .time_cost import generation_compute_mfu

if TYPE_CHECKING:
    from .plan import Plan
    from .throughput import MfuChoice
    from .time_cost import RunTime


def _build(**values: object) -> AlignmentSummary:
    """``build`` in the model's field order (what model_construct would make)."""
    return build(AlignmentSummary, **{k: values[k] for k in AlignmentSummary.model_fields})


def gpus_by_placement(p: Plan) -> dict[str, int | None]:
    """The fewest trainer GPUs that fit with each rollout placement (the memory step alone)."""
    inputs, counts, adapters, base = p.inputs, p.counts, p.job.adapters, p.memory_inputs
    out: dict[str, int | None] = {}
    for placement in ("colocated", "separate", "policy"):
        if placement == inputs.objective.rollout_placement:
            out[placement] = p.memory.gpus_needed
            continue
        ob = inputs.objective.model_copy(update={"rollout_placement": placement})
        mi = dataclasses.replace(base, objective=ob)
        out[placement] = memory_per_gpu(mi, counts, adapters, []).breakdown.gpus_needed
    return out


def _rate(tokens: float, wall_s: float, gpus: int) -> float:
    return tokens / wall_s / gpus if wall_s > 0 and gpus > 0 else 0.0


def _eval_rates(p: Plan, rt: RunTime) -> tuple[float, float]:
    """The evaluation's tokens/s per GPU and generation MFU at the estimate's MFU (``rt``: the
    plan's run at it, whose evaluation is rollout.wall_s at generation_compute_mfu)."""
    tp_ = p.time
    peak, ev, eval_s = tp_.peak, tp_.eval_gen, rt.eval_s
    eval_gpus = ev.engines * ev.tp
    eval_rate = _rate(ev.generated_tokens, eval_s, eval_gpus)
    eval_mfu = ev.gen_flops / (eval_s * peak * eval_gpus) if eval_s > 0 and eval_gpus else 0.0
    return eval_rate, eval_mfu


def alignment_fixed(p: Plan) -> dict[str, object]:
    """What no MFU changes, once per plan. SFT and DPO (no rollouts): the summary's values but
    the evaluation's rates (None here), in field order: the extra forwards, the rest zeros.
    GRPO/PPO: the trainer GPUs each rollout placement needs (``gpus_…``)."""
    x, shape, eng = p.extra_flops, p.shape, p.engines
    steps = shape.steps if shape else 0.0
    if not (shape is None or eng is None or steps <= 0):
        return {f"gpus_{k}": v for k, v in gpus_by_placement(p).items()}
    return {
        "objective": p.inputs.objective.objective, "policy_flops": p.policy_flops,
        "reference_flops": x.reference, "old_logprob_flops": x.old_logprobs,
        "reward_flops": x.reward, "value_flops": x.value, "steps": 0.0,
        "trained_tokens_per_step": 0.0, "generated_tokens_per_step": 0.0,
        "generated_tokens": 0.0, "placement": "", "engines": 0, "tp": 0, "rollout_gpus": 0,
        "rollout_gpu_bytes": 0.0, "decode_batch": 0.0, "kv_bytes_per_token": 0.0,
        "decode_step_s": 0.0, "generation_tokens_per_s_per_gpu": 0.0, "generation_mfu": 0.0,
        "generation_s_per_step": 0.0, "prefill_s_per_step": 0.0, "sync_s_per_step": 0.0,
        "training_s_per_step": 0.0, "step_s": 0.0, "sft_step_s": 0.0, "rl_to_sft_step": 0.0,
        "eval_tokens_per_s_per_gpu": None, "eval_generation_mfu": None, "gpus_colocated": 0,
        "gpus_separate": 0, "gpus_policy": 0,
    }  # fmt: skip


def alignment_summary(
    p: Plan, rt: RunTime, fixed: dict[str, object], choice: MfuChoice
) -> AlignmentSummary:
    """What DPO/GRPO/PPO add at the estimate's MFU ``choice``, run as ``rt``; ``fixed``:
    ``alignment_fixed(p)``."""
    eval_rate, eval_mfu = _eval_rates(p, rt)
    if "objective" in fixed:  # SFT and DPO: the whole summary but the evaluation's rates
        zeros = fixed.copy()
        zeros["eval_tokens_per_s_per_gpu"] = eval_rate
        zeros["eval_generation_mfu"] = eval_mfu
        return made(AlignmentSummary, zeros)
    inputs, tp_ = p.inputs, p.time
    peak, mfu, gen_mfu = tp_.peak, generation_compute_mfu(choice, choice.mfu), tp_.gen_mfu
    rl, x, shape, eng = tp_.rl_gen, p.extra_flops, p.shape, p.engines
    assert shape is not None and eng is not None
    steps = shape.steps
    n = tp_.num_gpus
    achieved = rt.achieved_flops_per_s
    values: dict[str, object] = {
        "objective": inputs.objective.objective,
        "policy_flops": p.policy_flops,
        "reference_flops": x.reference,
        "old_logprob_flops": x.old_logprobs,
        "reward_flops": x.reward,
        "value_flops": x.value,
        "eval_tokens_per_s_per_gpu": eval_rate,
        "eval_generation_mfu": eval_mfu,
    }
    gen_gpus = rl.engines * rl.tp
    sync = rl.sync_s / steps
    gen_wall = rollout.wall_s(rl, peak, mfu, gen_mfu) - rl.sync_s
    if rl.mode == "bandwidth":
        rate = peak * mfu * rl.tp
        decode_step = max(rl.decode_mem_s, rl.decode_flops / rate)
        prefill = rl.prefill_flops / rate / steps
        tokens_per_s = rl.batch / decode_step / rl.tp
    else:
        decode_step = prefill = 0.0
        tokens_per_s = _rate(rl.generated_tokens, gen_wall, gen_gpus)
    training = rt.train_wall_s / steps
    step = gen_wall / steps + sync + training
    trained = shape.trained_tokens_per_step / p.tokens.useful_fraction
    sft = p.flops.per_token * trained / (achieved * n)
    return _build(
        **values,
        steps=steps,
        trained_tokens_per_step=shape.trained_tokens_per_step,
        generated_tokens_per_step=shape.generated_tokens_per_step,
        generated_tokens=rl.generated_tokens,
        placement=eng.placement,
        engines=eng.engines,
        tp=eng.tp,
        rollout_gpus=eng.extra_gpus,
        rollout_gpu_bytes=eng.memory_per_gpu_bytes if eng.placement == "separate" else 0.0,
        decode_batch=rl.batch,
        kv_bytes_per_token=rollout.kv_bytes_per_token(inputs.model),
        decode_step_s=decode_step,
        generation_tokens_per_s_per_gpu=tokens_per_s,
        generation_mfu=rl.gen_flops / (gen_wall * peak * gen_gpus) if gen_wall > 0 else 0.0,
        generation_s_per_step=gen_wall / steps,
        prefill_s_per_step=prefill,
        sync_s_per_step=sync,
        training_s_per_step=training,
        step_s=step,
        sft_step_s=sft,
        rl_to_sft_step=step / sft if sft > 0 else 0.0,
        **fixed,
    )
