"""A measured dataset into a scenario's inputs: one new set of inputs (one undoable edit).

What it fills depends on what the rows of the run are (the objective):

- SFT and DPO: examples (preference pairs for DPO), mean tokens per sequence, and the length
  histogram, whose shape then decides the padding (core/lengths.py); the data is given as
  examples. A file of preference pairs can also switch the objective to DPO.
- GRPO / PPO: the prompts and their mean length (the objective's rollout shape); the rollouts are
  not padded by the dataset's lengths, so no histogram.
"""

from __future__ import annotations

from ..core.histogram import LengthHistogram
from ..core.inputs import EstimateInputs
from .dataset import DatasetMeasure

MAX_MEAN_TOKENS = 10**7  # the data section's bound


class FillError(ValueError):
    """A measurement that cannot fill the inputs (one line)."""


def filled_inputs(
    inputs: EstimateInputs, m: DatasetMeasure, *, switch_to_dpo: bool = False
) -> EstimateInputs:
    """``inputs`` with the measurement filled in (module docstring)."""
    if m.records < 1:
        raise FillError(f"{m.name} holds no example ftcost could read")
    objective = inputs.objective.objective
    doc = inputs.model_dump()
    if objective in ("grpo", "ppo"):
        doc["data"].update(mode="examples", num_examples=m.records)
        doc["objective"]["mean_prompt_tokens"] = min(max(m.mean_prompt_tokens, 1.0), 10**6)
        return EstimateInputs.model_validate(doc)
    if m.mean_tokens > MAX_MEAN_TOKENS:
        raise FillError(f"a mean of {m.mean_tokens:,.0f} tokens is beyond the data section's range")
    if switch_to_dpo and m.preference:
        doc["objective"]["objective"] = "dpo"
    histogram: LengthHistogram = m.histogram()
    doc["data"].update(
        mode="examples",
        num_examples=m.records,
        mean_tokens_per_example=max(m.mean_tokens, 1.0),
        length_histogram=histogram.model_dump(),
    )
    return EstimateInputs.model_validate(doc)


def fills(inputs: EstimateInputs, m: DatasetMeasure) -> str:
    """What ``filled_inputs`` would set, in words (for the dialog and the CLI)."""
    if inputs.objective.objective in ("grpo", "ppo"):
        return "prompts and their mean length (the rollouts' own lengths stay the objective's)"
    rows = "preference pairs" if m.preference else "examples"
    return f"{rows}, mean tokens per sequence and the measured lengths (padding)"
