"""Input models: one source of truth for names, units, ranges, defaults and help text.

Frozen pydantic models shared by the window's forms, the estimate file format and the CLI.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.config import ExtraValues

from . import validated
from ._field import fld
from .architecture import LoraTarget, ModelSpec
from .efficiency_spec import Communication, EfficiencySpec, OverheadSpec  # noqa: F401 (re-exported)
from .gpu_spec import (  # noqa: F401 (re-exported)
    MAMF_H100,
    GpuSpec,
    Interconnect,
    Network,
    PricingTier,
)
from .histogram import LengthHistogram
from .objective import ObjectiveSpec
from .project_spec import Billing, ProjectSpec, SpotSpec  # noqa: F401 (re-exported)

Method = Literal["full_amp_adamw", "full_adamw_8bit", "full_bf16_adamw", "lora", "qlora"]
METHOD_LABELS: dict[str, str] = {
    "full_amp_adamw": "Full · mixed-precision AdamW (16 B/param)",
    "full_adamw_8bit": "Full · 8-bit Adam (10 B/param)",
    "full_bf16_adamw": "Full · pure bf16 AdamW (8 B/param)",
    "lora": "LoRA (bf16 base)",
    "qlora": "QLoRA (NF4 base)",
}
Sharding = Literal["none", "zero1", "zero2", "zero3"]
SHARDING_LABELS: dict[str, str] = {
    "none": "None / DDP (replicated)",
    "zero1": "ZeRO-1 (optimizer states)",
    "zero2": "ZeRO-2 (+ gradients)",
    "zero3": "ZeRO-3 / FSDP full shard",
}
Checkpointing = Literal["auto", "none", "full"]
CHECKPOINTING_LABELS: dict[str, str] = {
    "auto": "Auto: only when the run needs it",
    "none": "Off",
    "full": "Full (recompute every layer)",
}
AttentionImpl = Literal["flash", "eager"]
LossImpl = Literal["standard", "chunked"]
AdapterDtype = Literal["fp32", "bf16"]
Padding = Literal["longest", "max_length", "pack"]
PADDING_LABELS: dict[str, str] = {
    "longest": "Pad to the longest in each micro-batch",
    "max_length": "Pad every row to the max length",
    "pack": "Pack examples into full rows",
}
DataMode = Literal["examples", "tokens"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class DataSpec(BaseModel):
    """The training data: D = useful tokens × epochs ÷ useful-token fraction (article 001)."""

    model_config = _FROZEN

    mode: DataMode = fld(
        "examples",
        "Data given as",
        "examples: count × mean length × epochs; tokens: a total of useful training tokens.",
    )
    num_examples: int = fld(
        20_000, "Examples", "Training examples in the dataset.", "", ge=1, le=10**10
    )
    mean_tokens_per_example: float = fld(
        1000.0,
        "Mean tokens / example",
        "Mean tokenised length, prompt and answer together. The MEAN, not the median: long "
        "examples dominate the sum (article 001, 'Tokens and epochs').",
        "tokens",
        ge=1,
        le=10**7,
        step=50,
        decimals=0,
    )
    epochs: float = fld(
        3.0,
        "Epochs",
        "Passes over the data. Instruction tuning gains most in 1–3 (articles 001, 003).",
        "",
        ge=0.01,
        le=1000,
        step=1,
        decimals=2,
    )
    total_tokens: float = fld(
        6e7,
        "Useful tokens (all epochs)",
        "With 'tokens': the useful (non-padding) training tokens over all epochs.",
        "tokens",
        ge=1,
        le=1e15,
    )
    max_seq_len: int = fld(
        2048,
        "Max sequence length",
        "Sequence length of each micro-batch row (packed length, or the padding bucket).",
        "tokens",
        ge=16,
        le=10**7,
    )
    padding: Padding = fld(
        "longest",
        "Batching",
        "longest: a data loader pads each micro-batch to its longest row (transformers' default "
        "collator): no padding at micro-batch 1. max_length: every row padded to the max "
        "sequence length. pack: examples concatenated into full rows with correct masking, "
        "nothing padded (article 001, 'Utilization').",
    )
    length_cv: float = fld(
        0.5,
        "Length spread",
        "Spread of the example lengths: standard deviation ÷ mean (0: all the same length). "
        "Decides how much padding to the longest in a micro-batch costs and how much truncation "
        "at the max length loses. 0.5 is an assumption: measure your data's (File → Measure "
        "Dataset…). Unused while a measured length distribution is held.",
        "× mean",
        ge=0,
        le=20,
        step=0.1,
        decimals=2,
    )
    length_histogram: LengthHistogram | None = Field(
        None,
        title="Measured lengths",
        description="Example lengths counted from the dataset (File → Measure Dataset…, ftcost "
        "data): their shape, scaled to the mean above, replaces the length spread. Empty: the "
        "log-normal of the mean and the spread.",
        json_schema_extra={"unit": ""},
    )
    useful_fraction_override: float | None = fld(
        None,
        "Useful-token fraction (given)",
        "Non-padding tokens ÷ processed tokens, if you measured it. Empty: from the batching "
        "and the length spread (1.0 packed, or at micro-batch 1 padded to the longest).",
        "",
        ge=0.01,
        le=1,
        step=0.01,
        decimals=3,
    )


class TrainingSpec(BaseModel):
    """Method, precision recipe and the parallel layout."""

    model_config = _FROZEN

    method: Method = fld(
        "full_amp_adamw",
        "Method",
        "Full fine-tuning recipes differ in bytes per parameter (article 001, 'Memory sets the "
        "floor'): mixed-precision AdamW 16, 8-bit Adam 10, pure bf16 AdamW 8. LoRA keeps the base "
        "in bf16 (2 B/param); QLoRA in NF4 (~0.52 B/param). Adapters train in fp32 (PEFT default).",
    )
    lora_rank: int = fld(16, "LoRA rank", "Adapter rank r.", "", ge=1, le=4096)
    lora_targets: tuple[LoraTarget, ...] = Field(
        ("q_proj", "k_proj", "v_proj", "o_proj"),
        title="LoRA targets",
        description=(
            "Adapted linear layers by their usual names; qkv_proj and gate_up_proj name fused "
            "projections (Phi-3). On an MoE model gate_up_proj/gate_proj/up_proj and down_proj "
            "adapt the routed experts as PEFT 0.21 does on Transformers 5's 3D expert weights "
            "(target_parameters: W + B·A merged each forward, kept for backward; "
            "docs/data/measured/mixtral.json)."
        ),
        min_length=1,
        json_schema_extra={"unit": ""},
    )
    adapter_dtype: AdapterDtype = fld(
        "fp32",
        "Adapter dtype",
        "fp32: PEFT's default (autocast_adapter_dtype=True) keeps adapters in fp32 on a bf16 base: "
        "16 B per adapter parameter with AdamW, and each adapted module keeps an fp32 copy of its "
        "input for backward. bf16: adapters in the base dtype (autocast_adapter_dtype=False): "
        "8 B per parameter, inputs shared.",
    )
    checkpointing: Checkpointing = fld(
        "auto",
        "Activation checkpointing",
        "full: keep only each layer's input and recompute the decoder layers in backward "
        "(transformers' gradient_checkpointing_enable: the output head and each layer's last "
        "matmul are not rerun, about +1.4N FLOPs per token rather than the articles' +2N; "
        "roughly a tenfold cut in activation memory, article 001). auto: off when the run fits "
        "on the same GPUs without it, on when it needs it.",
    )
    attention: AttentionImpl = fld(
        "flash",
        "Attention implementation",
        "flash: FlashAttention/SDPA, no s² buffer; eager: stores the softmax (s² per head).",
    )
    loss: LossImpl = fld(
        "standard",
        "Cross-entropy",
        "standard: full logits with the fp32 upcast (transformers' default loss); chunked: a "
        "fused/chunked loss (Liger, Unsloth, torchtune) that never holds all logits.",
    )
    micro_batch: int = fld(
        1, "Micro-batch", "Sequences per GPU per forward pass.", "seqs", ge=1, le=4096
    )
    grad_accum: int = fld(
        8, "Gradient accumulation", "Micro-batches per optimizer step.", "", ge=1, le=65536
    )
    auto_gpu_count: bool = fld(
        True,
        "Use the fewest GPUs that fit",
        "On: the GPU count is the minimum the memory floor allows for the sharding. Off: use "
        "'GPUs' as given.",
    )
    num_gpus: int = fld(1, "GPUs", "GPUs in the job (data parallel).", "", ge=1, le=100_000)
    sharding: Sharding = fld(
        "zero3",
        "Sharding",
        "What is split across the GPUs: ZeRO-1 optimizer states, ZeRO-2 also gradients, ZeRO-3/"
        "FSDP full shard also weights (Rajbhandari et al. 2020, ZeRO).",
    )
    cpu_offload_optimizer: bool = fld(
        False,
        "Offload optimizer to CPU",
        "Optimizer states live in host RAM (ZeRO-Offload); GPU memory drops, steps slow down.",
    )


class HardwareSpec(BaseModel):
    model_config = _FROZEN

    gpu: GpuSpec = Field(
        default_factory=GpuSpec, title="GPU", description="The accelerator and prices."
    )
    gpus_per_node: int = fld(
        0,
        "GPUs per node",
        "GPUs in one machine; 0 takes the GPU's own (catalog column).",
        "",
        ge=0,
        le=1024,
        zero_text="from the GPU",
    )
    rent_whole_units: bool = fld(
        True,
        "Bill what can be rented",
        "On: the GPUs needed are rounded up to what can be rented (the GPU's rental unit; whole "
        "nodes beyond one node) and billed as such, and the job trains on all of them. Off: "
        "billed per GPU used (your own cluster).",
    )
    near_limit_fraction: float = fld(
        0.05,
        "Near-limit margin",
        "A run with less free memory than this share of the GPU's is flagged: allocator "
        "fragmentation or a longer batch can tip it over.",
        "",
        ge=0,
        le=0.5,
        step=0.01,
        decimals=2,
    )
    price_origin: str = fld(
        "",
        "Prices from",
        "Where the GPU's prices come from: 'built-in', 'user:<catalog>' or 'typed by hand'.",
    )
    usable_memory_fraction: float = fld(
        0.85,
        "Allocator efficiency",
        "Allocated ÷ reserved memory at the peak: PyTorch's caching allocator keeps freed blocks "
        "and fragments, so max_memory_reserved exceeds max_memory_allocated. The reserve is "
        "allocated × (1 ÷ this − 1). Default 0.85, article 001's 'perhaps 85 percent of "
        "nameplate'; the published PEFT runs are consistent with 0.8–0.9 (docs/accuracy.md).",
        "",
        ge=0.1,
        le=1.0,
        step=0.01,
        decimals=2,
    )
    framework_overhead_gib: float = fld(
        1.0,
        "CUDA/framework overhead",
        "CUDA context, cuBLAS and NCCL workspaces per GPU (0.5–2 GiB seen; reference/gpus.md).",
        "GiB",
        ge=0,
        le=64,
        step=0.25,
        decimals=2,
    )


_DEFAULTS = (None, None, None, None, None)  # model_validate's other options, not given


class EstimateInputs(BaseModel):
    """Everything one estimate needs."""

    model_config = _FROZEN

    model: ModelSpec = Field(default_factory=ModelSpec)
    data: DataSpec = Field(default_factory=DataSpec)
    training: TrainingSpec = Field(default_factory=TrainingSpec)
    objective: ObjectiveSpec = Field(default_factory=ObjectiveSpec)
    hardware: HardwareSpec = Field(default_factory=HardwareSpec)
    efficiency: EfficiencySpec = Field(default_factory=EfficiencySpec)
    overheads: OverheadSpec = Field(default_factory=OverheadSpec)
    spot: SpotSpec = Field(default_factory=SpotSpec)
    project: ProjectSpec = Field(default_factory=ProjectSpec)

    @classmethod
    def model_validate(
        cls,
        obj: Any,
        *,
        strict: bool | None = None,
        extra: ExtraValues | None = None,
        from_attributes: bool | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        """``BaseModel.model_validate``. A document (a dict, validated laxly as by default) has
        its sections equal to those of the last inputs validated taken as those objects
        (core/validated.py: the same result; an edit's document validates what it changed)."""
        if (
            type(obj) is not dict
            or strict
            or (extra, from_attributes, context, by_alias, by_name) != _DEFAULTS
        ):
            return super().model_validate(
                obj, strict=strict, extra=extra, from_attributes=from_attributes,
                context=context, by_alias=by_alias, by_name=by_name,
            )  # fmt: skip
        return validated.validate(cls, obj)

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.model.tied_embeddings and self.model.position_embeddings < 0:
            raise ValueError("position_embeddings must be >= 0")
        return self

    def edited(self, section: str, **fields: Any) -> EstimateInputs:
        """A validated copy with some fields of one section replaced.

        ``model_copy(update=...)`` would skip validation; this raises ValidationError instead.
        """
        doc = self.model_dump()
        doc[section].update(fields)
        return EstimateInputs.model_validate(doc)


SECTIONS: tuple[str, ...] = (
    "model",
    "data",
    "training",
    "objective",
    "hardware",
    "efficiency",
    "overheads",
    "spot",
    "project",
)
