"""Version 2 → 3 of estimate files: the 'objective' section replaces ``rl_generation_ratio``.

Version 2 modelled RL as one number, ``overheads.rl_generation_ratio`` r: the run trained like SFT
on D tokens and generated r·D more at the generation MFU. Version 3 models the objective (SFT,
DPO, GRPO, PPO) and times generation from memory bandwidth. A version-2 file opens with the old
behaviour:

- r = 0 (every file ftcost wrote unless RL was asked for): objective SFT, and generation (the
  evaluation passes) timed by article 000's rule at the file's generation MFU — the same figures.
- r > 0: GRPO in which the training policy generates itself (no vLLM: no weight copy, no sync, no
  extra log-prob pass), β = 0, one completion per prompt, generation timed by article 000's rule:
  the trained tokens are the old D and the generated tokens r·D, as before. A completion of
  length r·L follows a prompt of L − r·L (L: the mean example, or the max sequence length for a
  token total); r above (L − 1)/L keeps a 1-token prompt and trains (L − 1)/(L·r) of the
  completions (the rest are sampled and dropped, as DAPO's dynamic sampling does). What changes:
  the attention term and the activations use the rollout length L instead of the max sequence
  length (examples mode), and generated tokens are not padding (a padded run generated r·D/f
  before, now r·D). tests/io/test_migrate_objective.py pins both cases.
"""

from __future__ import annotations

from typing import Any

from ..core.objective import ObjectiveSpec

# Values of the new section for files written before it (r = 0): SFT, generation by the rule.
OBJECTIVE_V2_VALUES: dict[str, Any] = {
    **ObjectiveSpec().model_dump(mode="json"),
    "objective": "sft",
    "generation_rate": "mfu",
}


def v2_inputs(inputs: dict[str, Any]) -> None:
    """Rewrite one version-2 scenario's inputs in place (missing sections are left to report)."""
    overheads, data = inputs.get("overheads"), inputs.get("data")
    if not isinstance(overheads, dict) or "rl_generation_ratio" not in overheads:
        return
    ratio = overheads.pop("rl_generation_ratio")
    objective = inputs.setdefault("objective", {})
    if not isinstance(objective, dict) or not isinstance(ratio, int | float) or ratio <= 0:
        return
    if not isinstance(data, dict):
        return
    seq = data.get("max_seq_len", 2048)
    mean = data.get("mean_tokens_per_example", seq)
    length = float(min(mean, seq) if data.get("mode") == "examples" else seq)
    if ratio <= (length - 1) / length:
        completion, kept = ratio * length, 1.0
    else:
        completion = length - 1
        kept = completion / (length * ratio)
    objective.update(
        objective="grpo",
        rollout_placement="policy",
        generation_rate="mfu",
        prompts_per_step=1,
        completions_per_prompt=1,
        mean_prompt_tokens=length - completion,
        mean_completion_tokens=completion,
        kept_fraction=kept,
        kl_beta=0.0,
        reward_model=False,
        policy_epochs=1,
    )
