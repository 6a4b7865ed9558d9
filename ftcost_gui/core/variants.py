"""Another method for the same job: on the same GPUs, or on the fewest GPUs that fit.

'Same GPUs' is what the memory-by-method bars compare (each method on the current GPU count);
'fewest GPUs' is what 'Compare methods' adds as scenarios (the GPU count follows the method when
it is chosen automatically).
"""

from __future__ import annotations

from .inputs import EstimateInputs, TrainingSpec
from .results import EstimateResult

# The memory plot's bars, in order; the current method is appended when it is not one of them.
COMPARED_METHODS: tuple[str, ...] = ("full_amp_adamw", "full_adamw_8bit", "lora", "qlora")
# 'Compare methods' adds one scenario each, named '<scenario> · <label>'.
METHOD_SCENARIOS: tuple[tuple[str, str], ...] = (
    ("Full FT", "full_amp_adamw"),
    ("LoRA", "lora"),
    ("QLoRA", "qlora"),
)


def compared_methods(current: str) -> tuple[str, ...]:
    """The methods the memory bars show: the four compared, plus the current one."""
    return COMPARED_METHODS if current in COMPARED_METHODS else (*COMPARED_METHODS, current)


def with_method(inputs: EstimateInputs, method: str) -> EstimateInputs:
    """Another method, fewest GPUs: the GPU count follows the method when it is automatic."""
    return inputs.edited("training", method=method)


def training_same_gpus(
    training: TrainingSpec, method: str, num_gpus: int, checkpointing: bool
) -> TrainingSpec:
    """Another method on exactly ``num_gpus`` GPUs with the run's checkpointing as it resolved
    (checkpointing "auto" decides per run: the bars compare like with like). Validated."""
    doc = training.model_dump()
    doc.update(
        method=method,
        auto_gpu_count=False,
        num_gpus=num_gpus,
        checkpointing="full" if checkpointing else "none",
    )
    return TrainingSpec.model_validate(doc)


def variant_inputs(inputs: EstimateInputs, result: EstimateResult, method: str) -> EstimateInputs:
    """Another method, same GPUs and checkpointing: the inputs with only the method changed, at
    the result's GPUs."""
    ckpt = "full" if result.layout.checkpointing else "none"
    return inputs.edited(
        "training",
        method=method,
        auto_gpu_count=False,
        num_gpus=result.time.num_gpus,
        checkpointing=ckpt,
    )
