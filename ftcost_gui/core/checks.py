"""Steps: cross-checks from the user's measurements, and the articles' simple rules beside it.

Article 004 'Calculate GPU time' (steps × step time); article 000 'From MFU to tokens per second'
(MFU from logged tokens/s); the napkin rules of articles 000, 001 and 003 (``result.simple``).
"""

from __future__ import annotations

import math

from . import calibration as cal
from .architecture import ModelSpec, ParamCounts
from .flops import attention_share_simple, simple_coefficient
from .inputs import EstimateInputs
from .memory import RECIPES
from .results import FlopBreakdown, SimpleRules, StepCheck, TokenSummary, build, made
from .units import SECONDS_PER_HOUR


def step_check(
    inputs: EstimateInputs,
    tokens: TokenSummary,
    flops: FlopBreakdown,
    num_gpus: int,
    peak_flops_per_s: float,
    warnings: list[str],
) -> StepCheck | None:
    """Article 004: steps × measured step time; None without a step time."""
    step_time_s = inputs.efficiency.step_time_s
    if not step_time_s:
        return None
    data, tr = inputs.data, inputs.training
    eff_batch = tr.micro_batch * tr.grad_accum * num_gpus
    steps_per_epoch = math.ceil(tokens.sequences_per_epoch / eff_batch)
    # In 'tokens' mode the total already covers every epoch: count it as one pass.
    passes = data.epochs if data.mode == "examples" else 1.0
    total_steps = math.ceil(steps_per_epoch * passes)
    wall = total_steps * step_time_s
    tokens_per_step = eff_batch * tokens.seq_len
    check = build(
        StepCheck,
        effective_batch=eff_batch,
        steps_per_epoch=steps_per_epoch,
        passes=passes,
        total_steps=total_steps,
        step_time_s=step_time_s,
        wall_s=wall,
        gpu_hours=wall * num_gpus / SECONDS_PER_HOUR,
        implied_mfu=tokens_per_step * flops.per_token / step_time_s / (peak_flops_per_s * num_gpus),
    )
    if check.implied_mfu > 1:
        warnings.append(
            f"The measured step time implies {check.implied_mfu:.0%} MFU, above the "
            "GPU's peak: check the step time, batch and sequence length."
        )
    return check


def measured_mfu(
    inputs: EstimateInputs, flops: FlopBreakdown, peak_flops_per_s: float, warnings: list[str]
) -> float | None:
    """Article 000: MFU = logged tokens/s × FLOPs per token ÷ peak; None without a rate."""
    tokens_per_s = inputs.efficiency.measured_tokens_per_s
    if not tokens_per_s:
        return None
    mfu = cal.mfu_from_tokens_per_s(tokens_per_s, flops.per_token, peak_flops_per_s)
    if mfu > 1:
        warnings.append(
            f"The logged tokens/s imply {mfu:.0%} MFU, above the GPU's peak: "
            "is it per GPU, and processed (not useful) tokens?"
        )
    return mfu


def simple_rules_fixed(
    inputs: EstimateInputs,
    counts: ParamCounts,
    tokens: TokenSummary,
    usable_bytes: float,
    ckpt: bool,
) -> dict[str, object]:
    """The articles' napkin figures: coef·N·D, (coef·N + attn·L·s·h)·D, bytes/param × N, at the
    estimate's checkpointing; their GPU-hours (None here) come at the MFU (``simple_rules``).
    Made once per plan (finishing.py)."""
    m: ModelSpec = inputs.model
    tr = inputs.training
    recipe = RECIPES[tr.method]
    s, d = tokens.seq_len, tokens.tokens_processed
    coef = simple_coefficient(recipe.full, ckpt)
    n_active = counts.total_active
    flops = coef * n_active * d
    attn_coef = 8.0 if ckpt else 6.0
    flops_attn = (coef * n_active + attn_coef * m.num_layers * s * m.hidden_size) * d
    state = counts.total * recipe.bytes_per_param
    return {
        "flop_coefficient": coef,
        "flops": flops,
        "gpu_hours": None,
        "attention_coefficient": attn_coef,
        "flops_with_attention": flops_attn,
        "gpu_hours_with_attention": None,
        "bytes_per_param": recipe.bytes_per_param,
        "state_bytes": state,
        "activations_bytes": 2.0 * m.num_layers * tr.micro_batch * s * m.hidden_size,
        "usable_bytes": usable_bytes,
        "gpus_needed": max(1, math.ceil(state / usable_bytes)),
        "attention_share": attention_share_simple(m.num_layers, s, m.hidden_size, n_active),
    }


def simple_rules(fixed: dict[str, object], peak_flops_per_s: float, mfu: float) -> SimpleRules:
    """The napkin figures (``simple_rules_fixed``: ``fixed``) with their GPU-hours at ``mfu``."""
    rate = peak_flops_per_s * mfu
    values = fixed.copy()
    values["gpu_hours"] = fixed["flops"] / rate / SECONDS_PER_HOUR  # type: ignore[operator]
    values["gpu_hours_with_attention"] = (
        fixed["flops_with_attention"] / rate / SECONDS_PER_HOUR  # type: ignore[operator]
    )
    return made(SimpleRules, values)
