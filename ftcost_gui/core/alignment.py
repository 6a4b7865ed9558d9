"""Step: what DPO, GRPO and PPO add to a run — tokens, extra forward passes, extra models' memory.

Sources, per objective:

- DPO (Rafailov et al. 2023, 'Direct Preference Optimization'): every pair is two sequences,
  chosen and rejected, trained together (TRL 1.16.0 ``DPOTrainer`` concatenates them into one
  batch, so a micro-batch holds 2 × micro-batch rows). The loss needs the reference model's
  log-probabilities of both: one forward pass of the reference per trained token, unless they were
  precomputed (one forward over the data before training) or the loss is reference-free (SimPO,
  Meng et al. 2024; ORPO, Hong et al. 2024). With a PEFT policy the reference is the base with
  the adapters disabled: the same forward, no second copy in memory (TRL 1.16.0).
- GRPO (Shao et al. 2024, DeepSeekMath §4) and PPO (Ouyang et al. 2022; Schulman et al. 2017): each
  step samples G completions for each of P prompts (rollouts, rollout.py), scores them and trains
  the policy on prompt + completion. The policy update is SFT on the generated sequences. Extra
  forward passes over the trained tokens: the reference (when β > 0, TRL 1.16.0 loads none at
  β = 0), the policy's own log-probs at sampling time (TRL 1.16.0 computes them when vLLM
  generates, for its importance-sampling correction, or when μ > 1), a reward model when the
  reward is a model. PPO adds a value model: a forward for the values, then trained like the policy.

FLOPs: a forward pass is 2N per token plus causal attention 2·L·s·d (one third of the training
terms of flops.py, article 000); training terms come from flops.py.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from .architecture import ParamCounts
from .flops import flops_per_token
from .inputs import EstimateInputs
from .memory import BF16_BYTES, NF4_DQ_BYTES, RECIPES
from .objective import ObjectiveSpec
from .results import TokenSummary, build
from .tokens import count_tokens

RL_OBJECTIVES = frozenset({"grpo", "ppo"})
# Bytes per decoder-linear weight of a frozen model; embeddings, head and norms stay 16-bit.
FROZEN_LINEAR_BYTES = {"bf16": float(BF16_BYTES), "fp8": 1.0, "nf4": NF4_DQ_BYTES}


def is_rl(objective: ObjectiveSpec) -> bool:
    return objective.objective in RL_OBJECTIVES


def rows_per_micro_batch_factor(objective: ObjectiveSpec) -> int:
    """Sequences per micro-batch row: DPO holds chosen and rejected together (TRL)."""
    return 2 if objective.objective == "dpo" else 1


def rollout_seq_len(objective: ObjectiveSpec) -> int:
    """Length of a trained RL sequence: prompt + completion (rounded up to whole tokens)."""
    return math.ceil(objective.mean_prompt_tokens + objective.mean_completion_tokens)


def trained_seq_len(inputs: EstimateInputs) -> int:
    """The sequence length of the policy's micro-batches (attention term, activations)."""
    if is_rl(inputs.objective):
        return rollout_seq_len(inputs.objective)
    return inputs.data.max_seq_len


class RlShape(NamedTuple):
    """One optimizer step of GRPO/PPO and the run's number of them."""

    steps: float
    trained_completions_per_step: float  # P × G
    generated_completions_per_step: float  # P × G ÷ kept fraction
    generated_prompts_per_step: float  # P ÷ kept fraction
    trained_tokens_per_step: float  # P × G × (p + c)
    generated_tokens_per_step: float  # P × G × c ÷ kept fraction


def rl_shape(inputs: EstimateInputs) -> RlShape:
    """Steps: prompts × epochs ÷ prompts per step (a token total: ÷ tokens per step)."""
    ob, data = inputs.objective, inputs.data
    trained = ob.prompts_per_step * ob.completions_per_prompt
    per_step = trained * (ob.mean_prompt_tokens + ob.mean_completion_tokens)
    if data.mode == "examples":
        steps = data.num_examples * data.epochs / ob.prompts_per_step
    else:
        steps = data.total_tokens / per_step
    k = ob.kept_fraction
    return RlShape(
        steps=steps,
        trained_completions_per_step=trained,
        generated_completions_per_step=trained / k,
        generated_prompts_per_step=ob.prompts_per_step / k,
        trained_tokens_per_step=per_step,
        generated_tokens_per_step=trained * ob.mean_completion_tokens / k,
    )


def objective_tokens(inputs: EstimateInputs, warnings: list[str]) -> TokenSummary:
    """D of the policy update: the data (SFT), both sequences of a pair (DPO), the rollouts (RL)."""
    ob, data = inputs.objective, inputs.data
    rows = inputs.training.micro_batch
    if ob.objective == "sft":
        return count_tokens(data, rows, warnings)
    if ob.objective == "dpo":
        t = count_tokens(data, rows, warnings)
        packed = data.padding == "pack" and not data.useful_fraction_override
        if data.mode == "examples" and packed and inputs.training.micro_batch > 1:
            warnings.append(
                "TRL 1.16.0's DPOTrainer does not pack pairs (padding_free falls back to padding "
                "to the longest sequence of the micro-batch): choose padding to the longest, or "
                "give the useful-token fraction you measured."
            )
        if data.mode == "tokens":  # a token total counts chosen and rejected tokens already
            return t
        return build(
            TokenSummary,
            useful_tokens=2 * t.useful_tokens,
            useful_fraction=t.useful_fraction,
            tokens_processed=2 * t.tokens_processed,
            seq_len=t.seq_len,
            sequences_per_epoch=2 * t.sequences_per_epoch,
            fraction_source=t.fraction_source,
            row_tokens=t.row_tokens,
            useful_per_example=t.useful_per_example,
        )
    shape = rl_shape(inputs)
    useful = shape.steps * shape.trained_tokens_per_step
    fraction = data.useful_fraction_override or 1.0
    seq = rollout_seq_len(ob)
    if seq > data.max_seq_len:
        warnings.append(
            f"Prompt + completion ({seq:,} tokens) is longer than the max sequence length "
            f"({data.max_seq_len:,}): the rollouts are trained at their own length."
        )
    return build(
        TokenSummary,
        useful_tokens=useful,
        useful_fraction=fraction,
        tokens_processed=useful / fraction,
        seq_len=seq,
        sequences_per_epoch=(
            data.num_examples * ob.completions_per_prompt
            if data.mode == "examples"
            else useful / (ob.mean_prompt_tokens + ob.mean_completion_tokens)
        ),
        fraction_source="given" if data.useful_fraction_override else "rollouts",
        # a rollout row: its mean prompt + completion, as the trained tokens count it (time)
        row_tokens=float(ob.mean_prompt_tokens + ob.mean_completion_tokens),
        useful_per_example=float(ob.mean_prompt_tokens + ob.mean_completion_tokens),
    )


def forward_flops_per_token(
    matmul_params: float, num_layers: int, seq_len: int, q_dim: int
) -> float:
    """A forward pass: 2N + causal attention 2·L·s·d per token (article 000's terms ÷ 3)."""
    return 2.0 * matmul_params + 2.0 * num_layers * seq_len * q_dim


class ExtraFlops(NamedTuple):
    """FLOPs the objective adds on the training GPUs, beside the policy update (whole run)."""

    reference: float
    old_logprobs: float
    reward: float
    value: float  # PPO's value model: forward for the values + its training

    @property
    def total(self) -> float:
        return self.reference + self.old_logprobs + self.reward + self.value


NO_EXTRA = ExtraFlops(0.0, 0.0, 0.0, 0.0)


def extra_flops(
    inputs: EstimateInputs, counts: ParamCounts, tokens: TokenSummary, adapters_active: float
) -> ExtraFlops:
    ob, m, tr = inputs.objective, inputs.model, inputs.training
    if ob.objective == "sft":
        return NO_EXTRA
    d = tokens.tokens_processed
    fwd = forward_flops_per_token(counts.matmul_active, m.num_layers, tokens.seq_len, m.q_dim)
    if ob.objective == "dpo":
        if ob.dpo_reference == "frozen_copy":
            return ExtraFlops(fwd * d, 0.0, 0.0, 0.0)
        if ob.dpo_reference == "precomputed":
            # Once over the data before training, not once per epoch (TRL precompute_ref_log_probs).
            passes = inputs.data.epochs if inputs.data.mode == "examples" else 1.0
            return ExtraFlops(fwd * d / passes, 0.0, 0.0, 0.0)
        return NO_EXTRA
    reference = fwd * d if ob.kl_beta > 0 else 0.0
    vllm = ob.rollout_placement in ("colocated", "separate")
    old = fwd * d if (vllm or ob.policy_epochs > 1) else 0.0
    rho = ob.critic_size_ratio
    reward = rho * fwd * d if (ob.reward_model or ob.objective == "ppo") else 0.0
    value = 0.0
    if ob.objective == "ppo":
        full = RECIPES[tr.method].full
        train = flops_per_token(
            counts, full, tr.checkpointing == "full", m.num_layers,
            tokens.seq_len, m.q_dim, adapters_active,
        ).total  # fmt: skip
        value = rho * (fwd + train * ob.policy_epochs) * d
    return ExtraFlops(reference, old, reward, value)


def frozen_weight_bytes(precision: str, counts: ParamCounts) -> float:
    """A frozen model's weights: decoder linears at the precision, the rest in bf16."""
    return counts.decoder_linear * FROZEN_LINEAR_BYTES[precision] + counts.other_16bit * BF16_BYTES


class ExtraModels(NamedTuple):
    """Unsharded bytes of the models beside the policy on the training GPUs."""

    reference: float  # a frozen copy (none for PEFT: the base with adapters disabled)
    reward: float
    value_state: float  # PPO: a trained model, state like the policy's


NO_MODELS = ExtraModels(0.0, 0.0, 0.0)


def extra_models(
    ob: ObjectiveSpec, method: str, counts: ParamCounts, policy_state: float
) -> ExtraModels:
    if ob.objective == "sft":
        return NO_MODELS
    full = RECIPES[method].full
    frozen = frozen_weight_bytes(ob.frozen_precision, counts)
    if ob.objective == "dpo":
        return ExtraModels(frozen if full and ob.dpo_reference == "frozen_copy" else 0.0, 0.0, 0.0)
    rho = ob.critic_size_ratio
    reference = frozen if full and ob.kl_beta > 0 else 0.0
    reward = rho * frozen if (ob.reward_model or ob.objective == "ppo") else 0.0
    value = rho * policy_state if ob.objective == "ppo" else 0.0
    return ExtraModels(reference, reward, value)
