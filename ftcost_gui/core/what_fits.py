"""What fits: memory per GPU as the context and the micro-batch grow, one curve per method.

Every point is the memory step of the estimate (``memory_step.memory_per_gpu``) on the
scenario's GPU count with its checkpointing as it resolved (like the memory-by-method bars,
``variants.training_same_gpus``), only the sequence length or the micro-batch changed; the lines
are each GPU's usable memory and its total. The figures are the boundary of the same rule: the
longest sequence (tokens per row) that fits on those GPUs at the scenario's micro-batch, and the
largest micro-batch at the scenario's sequence length, found by bisection (memory grows with
both: activations and logits with the tokens of a micro-batch, eager attention with s²).
Pure: no Qt, no files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from .architecture import ParamCounts, effective_counts
from .estimate import plan
from .inputs import EstimateInputs, GpuSpec
from .memory import RECIPES
from .memory_step import MemoryInputs, memory_per_gpu
from .params import NO_ADAPTERS, Adapters, lora_adapters
from .plan import Plan
from .units import GIB
from .variants import compared_methods, training_same_gpus

# The curves' x values: powers of two over the lengths and micro-batches people train at.
SEQ_LENS: tuple[int, ...] = tuple(2**i for i in range(8, 18))  # 256 … 131,072
MICRO_BATCHES: tuple[int, ...] = tuple(2**i for i in range(0, 8))  # 1 … 128
# The bisection's range: the fields' bounds (DataSpec.max_seq_len, TrainingSpec.micro_batch).
MIN_SEQ_LEN, MAX_SEQ_LEN = 16, 10**7
MAX_MICRO_BATCH = 4096
EXTRA_GPUS = 2  # lines of other GPUs beside the scenario's


@dataclass(frozen=True, slots=True)
class FitCurve:
    """Memory per GPU of one method against the sequence length or the micro-batch."""

    method: str
    x: tuple[int, ...]
    gib: tuple[float, ...]  # the device total per GPU (what must fit)


@dataclass(frozen=True, slots=True)
class GpuLine:
    """One GPU's memory: what the run may use (usable) and what the driver reports (total)."""

    gpu_id: str
    name: str
    usable_gib: float
    total_gib: float


@dataclass(frozen=True, slots=True)
class FitFigures:
    """On one GPU, for one method: the boundary of 'fits on the scenario's GPU count'."""

    gpu_id: str
    method: str
    longest_seq_len: int | None  # at the scenario's micro-batch; None: not even MIN_SEQ_LEN
    largest_micro_batch: int | None  # at the scenario's sequence length; None: not even 1
    seq_len_capped: bool  # fits at MAX_SEQ_LEN: the bisection's end, not a limit
    micro_batch_capped: bool


@dataclass(frozen=True, slots=True)
class WhatFits:
    """The what-fits plots' series and figures for one scenario."""

    method: str  # the scenario's
    num_gpus: int
    checkpointing: bool
    seq_len: int  # the scenario's trained sequence length
    micro_batch: int
    by_seq_len: tuple[FitCurve, ...]  # one per method
    by_micro_batch: tuple[FitCurve, ...]
    gpus: tuple[GpuLine, ...]  # the scenario's first, then up to EXTRA_GPUS more
    figures: tuple[FitFigures, ...]  # every method on the scenario's GPU; its method on the rest
    current_gib: float  # the scenario's own memory per GPU (its method, length and micro-batch)

    def figure(self, method: str | None = None, gpu_id: str | None = None) -> FitFigures | None:
        method = method or self.method
        gpu_id = gpu_id or self.gpus[0].gpu_id
        return next((f for f in self.figures if f.method == method and f.gpu_id == gpu_id), None)


@dataclass(frozen=True, slots=True)
class _Method:
    """One method's memory inputs on the scenario's GPUs, and what the step needs besides."""

    method: str
    mi: MemoryInputs
    counts: ParamCounts
    adapters: Adapters

    def total(self, seq_len: int, micro_batch: int, gpu_memory_gib: float) -> tuple[float, bool]:
        """(device total per GPU in bytes, fits) at this length and micro-batch on a GPU."""
        training = self.mi.training
        if micro_batch != training.micro_batch:
            training = training.model_copy(update={"micro_batch": micro_batch})
        mi = replace(self.mi, seq_len=seq_len, training=training, gpu_memory_gib=gpu_memory_gib)
        b = memory_per_gpu(mi, self.counts, self.adapters, []).breakdown
        return b.total_bytes, b.fits


def _largest(fits: Callable[[int], bool], lo: int, hi: int) -> tuple[int | None, bool]:
    """The largest x in [lo, hi] with fits(x), memory growing with x; (None, False) if not lo,
    (hi, True) if hi fits."""
    if not fits(lo):
        return None, False
    if fits(hi):
        return hi, True
    while hi - lo > 1:  # fits(lo), not fits(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo, False


def _figures(m: _Method, g: GpuSpec, seq_len: int, micro_batch: int) -> FitFigures:
    gib = g.memory_gib
    longest, s_cap = _largest(lambda x: m.total(x, micro_batch, gib)[1], MIN_SEQ_LEN, MAX_SEQ_LEN)
    largest, b_cap = _largest(lambda x: m.total(seq_len, x, gib)[1], 1, MAX_MICRO_BATCH)
    return FitFigures(g.id, m.method, longest, largest, s_cap, b_cap)


def what_fits(
    inputs: EstimateInputs, others: Sequence[GpuSpec] = (), p: Plan | None = None
) -> WhatFits:
    """The series and figures of ``inputs`` (its plan ``p`` if already made); ``others``: up to
    EXTRA_GPUS more GPUs whose lines (and figures for the scenario's method) are shown."""
    p = p or plan(inputs)
    base = MemoryInputs.of(inputs)
    n, ckpt = p.time.num_gpus, p.layout.checkpointing
    counts = effective_counts(inputs.model)
    share = p.memory.usable_bytes / p.memory.capacity_bytes
    gpus = [inputs.hardware.gpu, *list(others)[:EXTRA_GPUS]]
    lines = tuple(
        GpuLine(g.id, g.name, g.memory_gib * GIB * share / GIB, g.memory_gib) for g in gpus
    )
    current = inputs.training.method
    methods = []
    for method in compared_methods(current):
        training = training_same_gpus(inputs.training, method, n, ckpt)
        full = RECIPES[method].full
        adapters = NO_ADAPTERS if full else lora_adapters(inputs.model, counts, training)
        methods.append(_Method(method, replace(base, training=training), counts, adapters))
    s, mb, own = base.seq_len, inputs.training.micro_batch, base.gpu_memory_gib
    by_seq = tuple(
        FitCurve(m.method, SEQ_LENS, tuple(m.total(x, mb, own)[0] / GIB for x in SEQ_LENS))
        for m in methods
    )
    by_mb = tuple(
        FitCurve(m.method, MICRO_BATCHES, tuple(m.total(s, x, own)[0] / GIB for x in MICRO_BATCHES))
        for m in methods
    )
    figures = []
    for g in gpus:
        for m in methods:
            if g is not gpus[0] and m.method != current:
                continue
            figures.append(_figures(m, g, s, mb))
    now = p.memory.total_bytes / GIB
    return WhatFits(current, n, ckpt, s, mb, by_seq, by_mb, lines, tuple(figures), now)
