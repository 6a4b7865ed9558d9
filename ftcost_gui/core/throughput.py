"""The rate one GPU trains at: vendor peak × achievable matmul fraction × stack efficiency.

MFU is quoted against the vendor's dense peak (article 000), but no GPU reaches its peak even
on one large matmul: the best measured BF16 matmul ("MAMF", maximum achievable matmul FLOPS)
is 80% of spec on an H100 and 51% on an MI300X (reference/gpus.md, S1). So the default MFU is

    MFU = achievable fraction (the GPU: catalog row, measured or by rule)
        × stack efficiency   (the training stack: method × data shape)

``default_mfu`` is the ONE place that decides it; the window, the CLI, files and reports all read
the result's ``time.mfu_default``. A user value overrides it visibly: ``efficiency.mfu`` pins one
MFU for every GPU (the first release's behaviour); ``efficiency.stack_efficiency`` keeps each
GPU's own achievable fraction and replaces the stack part.

Stack efficiency, derived from the QwenLM/Qwen README table "Profiling of Memory and Speed"
(one A100-SXM4-80G, CUDA 11.8, PyTorch 2.0, FlashAttention 2, micro-batch 1, gradient
accumulation 8, rows padded to the length, gradient checkpointing; LoRA r = 64 on every linear;
Q-LoRA = GPTQ int4 via auto-gptq, exllama off), fitting seconds per micro-batch to
``a + tokens × FLOPs per token ÷ R`` over the six lengths 256…8,192 (tests/core/test_throughput.py
writes the fit out):

- the marginal rate R is 53% (7B) and 57% (14B) of the A100's 312 TFLOPS for LoRA, and the same
  for Q-LoRA (54%, 59%): ÷ the A100's measured 0.87 that is a stack efficiency of 0.61–0.65;
  ``STACK_EFFICIENCY`` takes 0.60 for every method. Article 000's "well-tuned training reaches
  35–55%" puts full fine-tuning at the same 0.45–0.69 of an H100's 0.80;
- the fixed part a is 0.07 s per micro-batch for LoRA at 1.8B, 7B and 14B alike (Python,
  kernel launches, the adapters' small kernels): what makes short sequences and micro-batch 1 run
  at article 000's "15–30%" (Qwen-7B LoRA at 256 tokens: 24% MFU; at 8,192: 52%);
- Q-LoRA adds 0.19 s (7B), 0.48 s (14B) and 2.8 s (72B) per micro-batch: dequantising every
  quantised weight in the forward, the recomputed forward and the backward, token-independent
  (article 001's "20–40% slower" is this fixed cost at typical lengths; at 8,192 tokens it is 5%).
  Per weight and pass that is the time of moving ``DEQUANT_BYTES_PER_WEIGHT`` bytes at the GPU's
  memory bandwidth, so the cost follows each GPU's bandwidth.

Multi-node runs get no separate factor here: their extra time is the inter-node traffic, computed
from bytes and links (core/comm.py), plus NCCL start-up and the job's interruption rate.
"""

from __future__ import annotations

from typing import NamedTuple

from .units import TERA

# --- Achievable fraction of the vendor peak --------------------------------------------------

# MAMF measurements (reference/gpus.md, S1: stas00/ml-engineering, snapshot 2026-08-22):
# best BF16 matmul TFLOPS ÷ dense BF16 spec.
MAMF_TFLOPS: dict[str, tuple[float, float]] = {
    "H100": (794.0, 989.0),
    "B200": (1745.0, 2250.0),
    "A100": (271.0, 312.0),
    "MI300X": (668.0, 1307.0),
    "MI325X": (785.0, 1307.0),
    "Gaudi 2": (419.0, 432.0),
    "Gaudi 3": (1243.0, 1835.0),
}
MAMF_AS_OF = "2026-08-22"


def mamf_fraction(part: str) -> float:
    measured, spec = MAMF_TFLOPS[part]
    return measured / spec


class AchievableRule(NamedTuple):
    """The fraction a row without its own measurement takes, and why."""

    fraction: float
    source: str


# By vendor and generation: the measured sibling of the same architecture, else the vendor's
# lowest measurement, else the median of all seven (0.78). Order matters: first match wins.
_RULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("nvidia", ("b200", "b300", "gb200", "blackwell"), "B200"),
    ("nvidia", ("h100", "h200", "gh200", "hopper"), "H100"),
    ("nvidia", ("a100", "a800", "a10", "a30", "a40", "a6000", "rtx 30", "ampere"), "A100"),
    ("amd", ("mi325",), "MI325X"),
    ("amd", ("",), "MI300X"),
    ("intel", ("gaudi 2", "gaudi2"), "Gaudi 2"),
    ("intel", ("",), "Gaudi 3"),
)


def achievable_rule(vendor: str, name: str) -> AchievableRule:
    """The documented rule for a GPU without a matmul measurement of its own (module docstring).

    NVIDIA parts take the measured part of their generation (Blackwell: B200 0.78; Hopper:
    H100 0.80; Ampere: A100 0.87) and other NVIDIA parts the H100's 0.80 (the median of the three
    NVIDIA measurements); AMD the MI300X's 0.51 (MI325X: its own 0.60); Intel Gaudi 3's 0.68
    (Gaudi 2: its own 0.97); any other vendor the median of all seven measurements, 0.78.
    """
    v, n = vendor.strip().casefold(), name.strip().casefold()
    for rule_vendor, keys, part in _RULES:
        if v == rule_vendor and any(k in n for k in keys):
            f = mamf_fraction(part)
            return AchievableRule(
                f, f"rule: {vendor} without its own measurement takes the {part}'s MAMF "
                f"{MAMF_TFLOPS[part][0]:,.0f} of {MAMF_TFLOPS[part][1]:,.0f} TFLOPS",
            )  # fmt: skip
    if v == "nvidia":
        f = mamf_fraction("H100")
        return AchievableRule(f, "rule: NVIDIA without its own measurement takes the H100's 0.80")
    fractions = sorted(mamf_fraction(p) for p in MAMF_TFLOPS)
    median = fractions[len(fractions) // 2]
    return AchievableRule(
        median, "rule: no measurement for this vendor: the median of the seven MAMF measurements"
    )


# --- Stack efficiency: method × data shape ------------------------------------------------------

STACK_EFFICIENCY: dict[str, float] = {
    # Matmul efficiency of the training stack at long sequences (module docstring: Qwen table,
    # LoRA and Q-LoRA 0.61–0.65 of the A100's achievable; article 000's 35–55% MFU for full).
    "full": 0.60,
    "lora": 0.60,
    "qlora": 0.60,
}
STACK_SOURCES: dict[str, str] = {
    "full": "full fine-tuning: article 000's well-tuned 35–55% MFU on an H100 (0.80 achievable)",
    "lora": "LoRA: QwenLM/Qwen profiling table, 53–57% marginal MFU on A100 (0.87 achievable)",
    "qlora": "QLoRA: the same table, Q-LoRA runs its matmuls at LoRA's rate (54–59%)",
}
# Fixed time per micro-batch of an HF Trainer + PEFT stack (Python, launches, small kernels):
# the Qwen table's intercept, 0.071 s (7B), 0.066 s (14B), 0.078 s (1.8B).
FIXED_S_PER_MICROBATCH = 0.07
# Q-LoRA dequantisation per quantised weight per pass, as bytes at the GPU's memory bandwidth:
# 0.19 s per micro-batch for Qwen-7B's 6.48e9 quantised weights × 3 passes on 2,039 GB/s → 20 B;
# 14B 0.48 s → 26 B; 72B 2.8 s → 28 B. We take 24. (NF4 + bf16 out alone would be 2.5 B: the
# measured kernels are ~10× slower than bandwidth-bound.)
DEQUANT_BYTES_PER_WEIGHT = 24.0


def stack_key(method: str) -> str:
    return "qlora" if method == "qlora" else "lora" if method == "lora" else "full"


class MfuDefault(NamedTuple):
    """The default MFU and every number it came from (the explanation shows them all)."""

    mfu: float  # achievable × stack_method × shape
    achievable: float
    stack_method: float
    shape: float  # busy fraction of a micro-batch spent in matmuls
    stack: float  # stack_method × shape
    method: str  # "full", "lora" or "qlora"
    tokens_per_microbatch: float
    matmul_s: float  # one micro-batch's matmuls at achievable × stack_method
    fixed_s: float  # FIXED_S_PER_MICROBATCH
    dequant_s: float  # Q-LoRA: DEQUANT_BYTES_PER_WEIGHT × weights × passes ÷ bandwidth


def dequant_s_per_microbatch(
    quantized_weights: float, passes: int, memory_bandwidth_gb_s: float
) -> float:
    """Q-LoRA: seconds per micro-batch spent dequantising (module docstring)."""
    return passes * quantized_weights * DEQUANT_BYTES_PER_WEIGHT / (memory_bandwidth_gb_s * 1e9)


def default_mfu(
    method: str,
    tokens_per_microbatch: float,
    flops_per_token: float,
    peak_tflops: float,
    achievable: float,
    quantized_weights: float,
    memory_bandwidth_gb_s: float,
    recomputes: bool,
) -> MfuDefault:
    """THE default MFU: achievable × stack efficiency by method × the data shape's busy fraction.

    One micro-batch takes its matmul time at achievable × stack_method, plus the fixed time of the
    stack and (Q-LoRA) the dequantisation of every quantised weight in each pass (forward,
    backward, and the recomputed forward under checkpointing). The shape factor is the matmul
    share of that time, so MFU = model FLOPs ÷ (peak × time) holds exactly.
    """
    key = stack_key(method)
    stack_method = STACK_EFFICIENCY[key]
    rate = peak_tflops * TERA * achievable * stack_method
    matmul_s = tokens_per_microbatch * flops_per_token / rate
    dequant_s = 0.0
    if key == "qlora":
        passes = 3 if recomputes else 2
        dequant_s = dequant_s_per_microbatch(quantized_weights, passes, memory_bandwidth_gb_s)
    busy = matmul_s + FIXED_S_PER_MICROBATCH + dequant_s
    shape = matmul_s / busy
    return MfuDefault(
        achievable * stack_method * shape, achievable, stack_method, shape, stack_method * shape,
        key, tokens_per_microbatch, matmul_s, FIXED_S_PER_MICROBATCH, dequant_s,
    )  # fmt: skip


class MfuChoice(NamedTuple):
    """The MFU an estimate uses and whose it is."""

    mfu: float
    source: str  # "default", "stack" (the user's stack efficiency × the GPU's) or "given"
    default: MfuDefault


def choose_mfu(given_mfu: float | None, given_stack: float | None, d: MfuDefault) -> MfuChoice:
    """The user's MFU if pinned; else the GPU's achievable × the user's stack; else the default."""
    # MfuChoice(…) without its __new__ (a Python call): an MFU edit chooses one per layout
    if given_mfu is not None:
        return _tuple_new(MfuChoice, (given_mfu, "given", d))
    if given_stack is not None:
        return _tuple_new(MfuChoice, (d.achievable * given_stack, "stack", d))
    return _tuple_new(MfuChoice, (d.mfu, "default", d))


_tuple_new = tuple.__new__
