"""Estimates of the current inputs with one thing changed (the memory plot's comparison bars)."""

from __future__ import annotations

from ..core.estimate import estimate
from ..core.inputs import EstimateInputs
from ..core.results import EstimateResult


def variant_inputs(inputs: EstimateInputs, result: EstimateResult, method: str) -> EstimateInputs:
    """The same inputs with only the method changed, at the current GPU count."""
    return inputs.edited(
        "training", method=method, auto_gpu_count=False, num_gpus=result.time.num_gpus
    )


def estimate_variant(inputs: EstimateInputs, result: EstimateResult, method: str) -> EstimateResult:
    return estimate(variant_inputs(inputs, result, method))
