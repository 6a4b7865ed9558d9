"""Estimates of the current inputs with one thing changed (the memory plot's comparison bars)."""

from __future__ import annotations

from ..core.estimate import estimate
from ..core.inputs import EstimateInputs
from ..core.results import EstimateResult


def variant_inputs(inputs: EstimateInputs, result: EstimateResult, method: str) -> EstimateInputs:
    """The same inputs with only the method changed, at the current GPU count."""
    doc = inputs.model_dump()
    doc["training"]["method"] = method
    doc["training"]["auto_gpu_count"] = False
    doc["training"]["num_gpus"] = result.time.num_gpus
    return EstimateInputs.model_validate(doc)


def estimate_variant(inputs: EstimateInputs, result: EstimateResult, method: str) -> EstimateResult:
    return estimate(variant_inputs(inputs, result, method))
