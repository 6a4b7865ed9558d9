"""Which memory figure a view shows: peak allocated, expected peak reserved, device total.

One wording for the headline card, the breakdown table, the CLI table, the explanation and the
report (issue 10): each figure is named after the tool that reports it, so a user comparing with
``torch.cuda.max_memory_allocated()``, ``max_memory_reserved()`` or ``nvidia-smi`` knows which
of ours to read. "Fits" compares the device total with the GPU's memory.
"""

from __future__ import annotations

from ..core.inputs import EstimateInputs
from ..core.results import MEMORY_PART_LABELS, EstimateResult, MemoryBreakdown
from ..core.units import GIB, fmt_gib

ALLOCATED = "Peak allocated"
RESERVED = "Peak reserved (expected)"
DEVICE_TOTAL = "Device total"
GPU_MEMORY = "GPU memory"
ALLOCATED_TOOL = "torch.cuda.max_memory_allocated()"
RESERVED_TOOL = "torch.cuda.max_memory_reserved()"
DEVICE_TOOL = "nvidia-smi"
# The parts that are tensors (their sum is the peak allocated); the allocator reserve and the
# CUDA context come after, as the figures' steps.
TENSORS = frozenset(k for k in MEMORY_PART_LABELS if k not in ("reserve", "overhead"))
PHASE_WORDS = {"backward": "in the backward", "optimizer step": "at the optimizer step"}
# What the memory plot's bars stack to, and what its line marks.
# The title names the figure (the axis has no room for it in a 1024-px window).
PLOT_TITLE_METHODS = "Device total by method"
PLOT_TITLE_SCENARIOS = "Device total by scenario"
PLOT_AXIS = "GiB per GPU"
PLOT_LINE = "GPU memory {value:.1f} GiB"
PLOT_STACK = (
    "the bars stack the tensors (peak allocated), the allocator reserve and the CUDA context to "
    "the device total, what nvidia-smi shows; the dashed line is the GPU's memory"
)


def phase_text(mem: MemoryBreakdown) -> str:
    """'peak in the backward' / 'peak at the optimizer step'."""
    return "peak " + PHASE_WORDS.get(mem.peak_phase, mem.peak_phase)


def figure_rows(inputs: EstimateInputs, mem: MemoryBreakdown) -> list[tuple[str, str, str]]:
    """(figure, GiB, what it is) for allocated → reserve → reserved → context → device total."""
    eff = inputs.hardware.usable_memory_fraction
    return [
        (ALLOCATED, fmt_gib(mem.peak_allocated_bytes, 2),
         f"every tensor at the step's peak, what {ALLOCATED_TOOL} reports"),
        ("+ allocator reserve", fmt_gib(mem.reserve_bytes, 2),
         f"allocated × (1 ÷ {eff:.2f} − 1): freed blocks and fragments PyTorch's caching "
         "allocator keeps"),
        (RESERVED, fmt_gib(mem.peak_reserved_bytes, 2), f"what {RESERVED_TOOL} reports"),
        ("+ CUDA context", fmt_gib(mem.overhead_bytes, 2),
         "context and library workspaces, outside the allocator"),
        (DEVICE_TOTAL, fmt_gib(mem.total_bytes, 2),
         f"what {DEVICE_TOOL} shows; it must fit the GPU's memory"),
    ]  # fmt: skip


def fits_text(mem: MemoryBreakdown) -> str:
    """'fits: 61.2 GiB device total ≤ 79.6 GiB, 18.4 GiB free' or '… > …, short by …'."""
    total, cap = fmt_gib(mem.total_bytes), fmt_gib(mem.capacity_bytes)
    if mem.fits:
        return f"fits: {total} device total ≤ {cap}, {fmt_gib(mem.headroom_bytes)} free"
    return f"does NOT fit: {total} device total > {cap}, short by {fmt_gib(-mem.headroom_bytes)}"


def headline_value(mem: MemoryBreakdown) -> str:
    """The memory card's value: the device total against the GPU's memory (short enough for a
    1024-px window's card; the detail line names the figure)."""
    return f"{mem.total_bytes / GIB:,.1f} of {fmt_gib(mem.capacity_bytes)}"


def headline_detail(mem: MemoryBreakdown, status: str) -> str:
    """'fits · device total (nvidia-smi) · allocated 52.1 · reserved 61.3 GiB'."""
    return (
        f"{status} · device total ({DEVICE_TOOL}) · allocated "
        f"{mem.peak_allocated_bytes / 2**30:,.1f} · reserved {fmt_gib(mem.peak_reserved_bytes)}"
    )


def headline_tooltip(inputs: EstimateInputs, r: EstimateResult, near_limit: float) -> str:
    mem = r.memory
    eff = inputs.hardware.usable_memory_fraction
    return (
        f"Device total per GPU, what {DEVICE_TOOL} shows, {phase_text(mem)}: peak allocated "
        f"{fmt_gib(mem.peak_allocated_bytes)} (every tensor, {ALLOCATED_TOOL}) + allocator "
        f"reserve {fmt_gib(mem.reserve_bytes)} (at {eff:.0%} allocator efficiency; peak reserved "
        f"{fmt_gib(mem.peak_reserved_bytes)}, {RESERVED_TOOL}) + CUDA context "
        f"{fmt_gib(mem.overhead_bytes)}. It fits when it is at most the GPU's memory "
        f"({fmt_gib(mem.capacity_bytes)}); amber when less than {near_limit:.0%} of it stays free."
    )
