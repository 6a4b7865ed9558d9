"""The example a first launch shows, and the shipped example files (article worked examples)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.inputs import EstimateInputs
from ..io.resources import builtin_catalog, builtin_presets


def _inputs(model: str, gpu: str, **sections: dict[str, Any]) -> EstimateInputs:
    preset = builtin_presets().find(model)
    cat = builtin_catalog().find(gpu)
    if preset is None or cat is None:  # pragma: no cover - resources are shipped with the app
        raise LookupError(f"missing preset {model!r} or GPU {gpu!r}")
    doc: dict[str, Any] = {"model": preset.spec.model_dump()}
    doc.update(sections)
    hw = dict(doc.get("hardware", {}))
    hw["gpu"] = cat.to_spec().model_dump()
    doc["hardware"] = hw
    return EstimateInputs.model_validate(doc)


def article_000() -> EstimateInputs:
    """Article 000: Qwen2.5-7B full fine-tune, 60M tokens, H100 SXM, MFU 0.4."""
    return _inputs(
        "qwen2.5-7b",
        "h100-sxm",
        data={"mode": "tokens", "total_tokens": 6e7},
        training={"method": "full_amp_adamw", "checkpointing": "full"},
        efficiency={"mfu": 0.4},
    )


def article_001() -> EstimateInputs:
    """Article 001: a 7B LoRA (r = 16 on q, k, v, o) over 120M tokens on H100 SXM."""
    return _inputs(
        "llama-2-7b",
        "h100-sxm",
        data={"mode": "tokens", "total_tokens": 1.2e8},
        training={
            "method": "lora",
            "lora_rank": 16,
            "lora_targets": ["q_proj", "k_proj", "v_proj", "o_proj"],
            "checkpointing": "full",
        },
        efficiency={"mfu": 0.35},
    )


def article_003() -> EstimateInputs:
    """Article 003: a 70B QLoRA on one A100 80GB SXM."""
    return _inputs(
        "llama-2-70b",
        "a100-80gb-sxm",
        data={
            "mode": "examples",
            "num_examples": 10_000,
            "mean_tokens_per_example": 1000,
            "epochs": 3,
        },
        training={
            "method": "qlora",
            "lora_rank": 16,
            "lora_targets": ["q_proj", "k_proj", "v_proj", "o_proj"],
            "checkpointing": "full",
            "auto_gpu_count": True,
        },
        efficiency={"mfu": 0.3},
    )


def article_004() -> EstimateInputs:
    """Article 004: a 7B LoRA on one A100 40GB, 10k examples at 2k context, step time 1.0 s."""
    return _inputs(
        "llama-2-7b",
        "a100-40gb",
        data={
            "mode": "examples",
            "num_examples": 10_000,
            "mean_tokens_per_example": 500,
            "epochs": 3,
            "max_seq_len": 2048,
            "packing": False,
        },
        training={
            "method": "lora",
            "loss": "chunked",
            "micro_batch": 16,
            "grad_accum": 4,
            "auto_gpu_count": False,
            "num_gpus": 1,
            "sharding": "none",
        },
        efficiency={"step_time_s": 1.0},
    )


EXAMPLES: dict[str, Callable[[], EstimateInputs]] = {
    "article-000-qwen2.5-7b-full.ftcost": article_000,
    "article-001-7b-lora.ftcost": article_001,
    "article-003-70b-qlora.ftcost": article_003,
    "article-004-7b-lora-a100.ftcost": article_004,
}


def first_launch_inputs() -> EstimateInputs:
    return article_000()
