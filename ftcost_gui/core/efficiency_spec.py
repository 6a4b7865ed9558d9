"""Time and held-time inputs: efficiency (MFU, stack efficiency, communication) and overheads.

Split from core/inputs.py (one module, one responsibility); ``core.inputs`` re-exports them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from ._field import fld

Communication = Literal["links", "table"]
_FROZEN = ConfigDict(frozen=True, extra="forbid")


class EfficiencySpec(BaseModel):
    model_config = _FROZEN

    mfu: float | None = fld(
        None,
        "MFU",
        "Model FLOPs utilisation: achieved model FLOP/s ÷ the vendor's dense peak, the one figure "
        "for every GPU. Empty: each GPU's achievable matmul fraction × the stack efficiency "
        "(by method and data shape). Well-tuned training 35–55%; small batches, short sequences "
        "and LoRA kernels 15–30% (article 000).",
        "",
        ge=0.001,
        le=1,
        step=0.01,
        decimals=3,
    )
    stack_efficiency: float | None = fld(
        None,
        "Stack efficiency",
        "Share of the GPU's achievable matmul rate the training stack sustains, fixed costs per "
        "micro-batch included. Empty: by method and data shape (0.60 at long sequences, less for "
        "short micro-batches and QLoRA's dequantisation; docs/model.md).",
        "",
        ge=0.01,
        le=1,
        step=0.01,
        decimals=3,
    )
    mfu_band: float = fld(
        0.3,
        "MFU uncertainty",
        "Relative band around the MFU for the low–high range (±30% → cost range of about "
        "0.77×–1.43×; article 003 calls napkin estimates ±40%).",
        "",
        ge=0,
        lt=1,
        step=0.05,
        decimals=2,
    )
    qlora_slowdown: float | None = fld(
        None,
        "QLoRA slowdown",
        "A flat per-token slowdown of NF4 dequantisation vs bf16 LoRA (article 001: 20–40% "
        "slower). Empty: dequantisation is timed per micro-batch from the weights and the GPU's "
        "memory bandwidth (inside the stack efficiency).",
        "×",
        ge=1,
        le=5,
        step=0.05,
        decimals=2,
    )
    communication: Communication = fld(
        "links",
        "Communication model",
        "links: bytes each step moves (by sharding and method) over the link that carries them, "
        "minus what overlaps compute. table: the articles' flat overhead by sharding and "
        "interconnect (10–30%; PCIe can halve sharded throughput).",
    )
    comm_overlap: float | None = fld(
        None,
        "Communication overlap",
        "Share of a step's compute that can hide communication. Empty: DDP hides its all-reduce "
        "behind the last micro-batch's backward, ZeRO-2 behind every backward, ZeRO-3 "
        "prefetches through the whole step.",
        "",
        ge=0,
        le=1,
        step=0.05,
        decimals=2,
    )
    comm_overhead: float | None = fld(
        None,
        "Communication overhead",
        "Extra time for gradient/parameter traffic as a fraction of compute, if you measured it. "
        "Empty: from the communication model.",
        "",
        ge=0,
        le=10,
        step=0.05,
        decimals=2,
    )
    offload_slowdown: float = fld(
        1.25,
        "Offload slowdown",
        "Step-time factor when the optimizer runs on the CPU (assumption; measure it).",
        "×",
        ge=1,
        le=10,
        step=0.05,
        decimals=2,
    )
    measured_tokens_per_s: float | None = fld(
        None,
        "Logged tokens/s per GPU",
        "Steady-state throughput from your log; gives the achieved MFU (article 000).",
        "tokens/s",
        ge=1,
        le=1e9,
    )
    step_time_s: float | None = fld(
        None,
        "Measured step time",
        "Seconds per optimizer step, for the step-based cross-check (article 004).",
        "s",
        ge=0.001,
        le=1e6,
        decimals=3,
    )


class OverheadSpec(BaseModel):
    """Time the GPUs are held without training (article 001, 'Why the estimate came in low')."""

    model_config = _FROZEN

    provisioning_min: float = fld(
        10.0,
        "Provisioning",
        "Node start and container image pull.",
        "min",
        ge=0,
        le=10_000,
        decimals=1,
    )
    weights_cached: bool = fld(False, "Weights cached", "Base weights are already on the nodes.")
    download_gb_per_s: float = fld(
        0.5,
        "Download bandwidth",
        "Weight download per node.",
        "GB/s",
        ge=0.001,
        le=1000,
        step=0.1,
        decimals=2,
    )
    warmup_min: float = fld(
        5.0,
        "Compile / warm-up",
        "Compilation, data loading start, first steps.",
        "min",
        ge=0,
        le=10_000,
        decimals=1,
    )
    nccl_init_min: float = fld(
        1.0,
        "NCCL init",
        "Process-group start, multi-GPU jobs only.",
        "min",
        ge=0,
        le=1000,
        decimals=1,
    )
    checkpoint_interval_min: float = fld(
        30.0,
        "Checkpoint interval",
        "Training time between resumable checkpoints (T).",
        "min",
        ge=1,
        le=10**6,
        decimals=1,
    )
    checkpoint_write_gb_per_s: float = fld(
        2.0,
        "Checkpoint write bandwidth",
        "Aggregate write speed (article 001 uses 2 GB/s).",
        "GB/s",
        ge=0.001,
        le=10_000,
        decimals=2,
    )
    eval_passes_per_run: int = fld(
        1,
        "Evaluation passes",
        "Checkpoints evaluated by generation in each run.",
        "",
        ge=0,
        le=10_000,
    )
    eval_examples: int = fld(
        2000, "Eval examples", "Held-out prompts per pass.", "", ge=0, le=10**8
    )
    eval_output_tokens: int = fld(
        300, "Eval output tokens", "Generated tokens per example.", "tokens", ge=0, le=10**6
    )
    generation_mfu: float = fld(
        0.05,
        "Generation MFU",
        "Decoding is memory-bound: single-digit MFU (article 000). Used when generation time "
        "follows article 000's rule (Objective → Generation time = mfu).",
        "",
        ge=0.0001,
        le=1,
        step=0.01,
        decimals=3,
    )
    idle_hours_per_run: float = fld(
        0.0,
        "Held idle",
        "Hours a reserved node bills while people read results.",
        "h",
        ge=0,
        le=10**5,
        decimals=2,
    )
