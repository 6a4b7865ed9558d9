"""Input section 'objective': what the run optimises (SFT, DPO, GRPO, PPO) and how it generates.

The defaults are the frameworks' own, with the version they were read from:

- TRL 1.16.0 ``DPOConfig``: ``beta=0.1``, ``max_length=1024``, ``loss_type=["sigmoid"]``,
  ``precompute_ref_log_probs=False``; ``DPOTrainer`` loads no reference model for a PEFT policy
  ("the adapter can be disabled to revert to the initial model") or with precomputed log-probs.
- TRL 1.16.0 ``GRPOConfig``: ``num_generations=8``, ``max_completion_length=512``, ``beta=0.0``
  ("the reference model is not loaded"), ``num_iterations=1``, ``vllm_mode="colocate"``,
  ``vllm_gpu_memory_utilization=0.3``, ``vllm_importance_sampling_correction=True`` (an extra
  forward of the policy over every rollout when vLLM generates).
- vLLM 0.33.0: ``gpu_memory_utilization=0.92`` per engine (``CacheConfig``), ``max_num_seqs``
  256 (1,024 on GPUs with 70 GiB or more, except A100), prefix caching on, KV cache in the model's
  dtype (``cache_dtype="auto"``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from ._field import fld

Objective = Literal["sft", "dpo", "grpo", "ppo"]
OBJECTIVE_LABELS: dict[str, str] = {
    "sft": "SFT (supervised fine-tuning)",
    "dpo": "DPO (preference pairs)",
    "grpo": "GRPO (group rollouts, rewards)",
    "ppo": "PPO (rollouts, value + reward models)",
}
Reference = Literal["frozen_copy", "precomputed", "none"]
REFERENCE_LABELS: dict[str, str] = {
    "frozen_copy": "Frozen copy",
    "precomputed": "Precomputed log-probs",
    "none": "Reference-free (SimPO, ORPO)",
}
Placement = Literal["colocated", "separate", "policy"]
PLACEMENT_LABELS: dict[str, str] = {
    "colocated": "vLLM, colocated",
    "separate": "vLLM server, own GPUs",
    "policy": "Policy generates (no vLLM)",
}
FrozenPrecision = Literal["bf16", "fp8", "nf4"]
GenerationRate = Literal["bandwidth", "mfu"]
GENERATION_RATE_LABELS: dict[str, str] = {
    "bandwidth": "From memory bandwidth",
    "mfu": "Article 000's rule (generation MFU)",
}

# vLLM 0.33.0 CacheConfig.gpu_memory_utilization: an engine on GPUs of its own takes this share.
VLLM_MEMORY_UTILIZATION = 0.92

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class ObjectiveSpec(BaseModel):
    """The training objective, its extra models, and generation (rollouts and evaluation)."""

    model_config = _FROZEN

    objective: Objective = fld(
        "sft",
        "Objective",
        "SFT trains on the data. DPO trains on chosen + rejected pairs against a frozen reference. "
        "GRPO and PPO generate completions every step (rollouts), score them and train on them: "
        "'reinforcement learning is mostly generation' (article 000). TRL 1.16.0 has no PPO "
        "trainer any more (GRPO, RLOO); PPO here is the shape OpenRLHF and verl run: a value model "
        "trained beside the policy, a reward model scoring the rollouts. Every objective combines "
        "with every method; with LoRA/QLoRA the reference is the base with adapters disabled.",
    )
    dpo_reference: Reference = fld(
        "frozen_copy",
        "DPO reference",
        "frozen_copy: a second copy of the model runs a forward pass on every pair (TRL "
        "DPOTrainer's default); with LoRA/QLoRA the reference is the base with the adapters "
        "disabled: no extra memory, the same extra forward. precomputed: one forward pass over the "
        "data before training (TRL precompute_ref_log_probs). none: reference-free losses (SimPO, "
        "ORPO, CPO).",
    )
    prompts_per_step: int = fld(
        64,
        "Prompts per step",
        "Prompts whose completions are trained on in one optimizer step (TRL: the effective batch "
        "÷ num_generations).",
        "prompts",
        ge=1,
        le=10**6,
    )
    completions_per_prompt: int = fld(
        8,
        "Completions per prompt",
        "Group size G: completions sampled for each prompt (TRL 1.16.0 num_generations = 8).",
        "",
        ge=1,
        le=4096,
    )
    mean_prompt_tokens: float = fld(
        512.0,
        "Mean prompt length",
        "Mean tokenised prompt length of a rollout.",
        "tokens",
        ge=1,
        le=10**6,
        step=64,
        decimals=0,
    )
    mean_completion_tokens: float = fld(
        512.0,
        "Mean completion length",
        "Mean generated length; TRL 1.16.0 caps it at max_completion_length = 512.",
        "tokens",
        ge=1,
        le=10**6,
        step=64,
        decimals=0,
    )
    kept_fraction: float = fld(
        1.0,
        "Kept completions",
        "Share of generated completions that are trained on. 1: all (GRPO, PPO). Below 1: groups "
        "are filtered and more are sampled (DAPO's dynamic sampling drops groups whose rewards "
        "are all equal).",
        "",
        ge=0.01,
        le=1,
        step=0.05,
        decimals=2,
    )
    policy_epochs: int = fld(
        1,
        "Updates per rollout batch",
        "Passes of the policy update over each batch of rollouts (TRL GRPO num_iterations μ = 1; "
        "PPO commonly 4).",
        "",
        ge=1,
        le=100,
    )
    kl_beta: float = fld(
        0.0,
        "KL coefficient β",
        "Above 0 a frozen reference model scores every rollout (a forward pass, and its weights "
        "in memory unless LoRA disables the adapters instead). TRL 1.16.0 GRPO: β = 0.0, no "
        "reference model loaded; DeepSeek-R1 used 0.001.",
        "",
        ge=0,
        le=100,
        step=0.01,
        decimals=3,
    )
    reward_model: bool = fld(
        False,
        "Reward model",
        "A reward model scores the completions (a forward pass, weights in memory). PPO always "
        "has one; GRPO when its reward function is a model rather than a rule.",
    )
    critic_size_ratio: float = fld(
        1.0,
        "Reward/value model size",
        "Reward model (and PPO's value model) parameters ÷ the policy's.",
        "×",
        ge=0.01,
        le=100,
        step=0.1,
        decimals=2,
    )
    frozen_precision: FrozenPrecision = fld(
        "bf16",
        "Frozen models' precision",
        "Weights of the reference and reward models: bf16 2 B, fp8 1 B, NF4 ≈0.52 B per parameter.",
    )
    rollout_placement: Placement = fld(
        "colocated",
        "Rollout engine",
        "colocated: vLLM shares the training GPUs and reserves a share of their memory for its "
        "weights copy and KV cache (TRL 1.16.0 vllm_mode='colocate'). separate: a vLLM server on "
        "GPUs of its own (trl vllm-serve), held for the whole run. policy: the training model "
        "generates itself (TRL use_vllm=False): no copy, slower.",
    )
    rollout_memory_share: float = fld(
        0.3,
        "Colocated vLLM memory share",
        "Share of each GPU's memory the colocated engine reserves for its weights and KV cache "
        "(vLLM gpu_memory_utilization; TRL 1.16.0 default 0.3).",
        "",
        ge=0.01,
        lt=1,
        step=0.05,
        decimals=2,
    )
    rollout_gpus: int = fld(
        1,
        "Rollout GPUs (separate)",
        "GPUs running the vLLM server when the rollouts are on separate GPUs; each engine uses the "
        "fewest GPUs (tensor parallel) that hold the weights and a KV cache.",
        "",
        ge=1,
        le=100_000,
    )
    max_concurrent_sequences: int = fld(
        256,
        "Max sequences in flight (server)",
        "Sequences a vLLM server engine decodes at once (max_num_seqs: 256, or 1,024 on GPUs "
        "with 70 GiB and more in vLLM 0.33.0); the KV cache may allow fewer. Colocated, TRL "
        "decodes micro-batch × gradient accumulation sequences per GPU at a time.",
        "seqs",
        ge=1,
        le=10**6,
    )
    decode_bandwidth_efficiency: float = fld(
        0.7,
        "Decode bandwidth efficiency",
        "Achieved ÷ peak memory bandwidth while decoding (weights and KV cache read once per "
        "token step). An assumption, not measured here: measure yours.",
        "",
        ge=0.01,
        le=1,
        step=0.05,
        decimals=2,
    )
    generation_rate: GenerationRate = fld(
        "bandwidth",
        "Generation time",
        "bandwidth: each decoding step reads the weights and the KV cache (memory-bound), prefill "
        "runs at the training MFU. mfu: article 000's rule, 2N FLOPs per generated token at the "
        "generation MFU (Advanced).",
    )
    eval_batch_size: int = fld(
        32,
        "Evaluation batch",
        "Sequences decoded at once during evaluation (per GPU).",
        "seqs",
        ge=1,
        le=10**6,
    )
