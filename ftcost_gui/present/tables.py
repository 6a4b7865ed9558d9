"""The report's, the comparison view's and the CLI's tables as plain data.

One place formats the scenario comparison (values, best markers, deltas to a baseline), the
inputs that matter, the GPU prices used and the fixed assumptions, so the window's Compare tab,
the PDF, the HTML and the Markdown show the same text.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ..core.architecture import ModelSpec
from ..core.catalog import TIER_LABELS
from ..core.document import EstimateDocument
from ..core.fields import field_spec
from ..core.inputs import (
    METHOD_LABELS,
    PADDING_LABELS,
    SHARDING_LABELS,
    DataSpec,
    EfficiencySpec,
    EstimateInputs,
    GpuSpec,
    HardwareSpec,
    ProjectSpec,
    TrainingSpec,
)
from ..core.results import EstimateResult
from ..core.scenarios import ComparisonRow, compare_scenarios
from ..core.units import fmt_hours, fmt_usd
from .text import fmt_count
from .time_texts import checkpointing_text, gpus_text, mfu_text, price_origin_text, price_word

MINUS = "\u2212"
BEST_MARK = "✓"


# --- comparison ---------------------------------------------------------------------------------
def fmt_metric(key: str, value: float | None) -> str:
    """A comparison figure as the window shows it ('—' when there is none)."""
    if value is None:
        return "—"
    if key == "memory_gib":
        return f"{value:,.1f} GiB"
    if key == "gpus":
        return f"{value:,.0f}"
    if key.endswith("gpu_hours"):
        return f"{value:,.1f} GPU-h"
    if key == "wall_clock_h":
        return fmt_hours(value)
    if key.endswith("_usd"):
        return fmt_usd(value)
    return f"{value:,.3g}"


def _signed(text: str, negative: bool) -> str:
    return f"{MINUS if negative else '+'}{text}"


def fmt_delta(key: str, delta: float | None, ratio: float | None) -> str:
    """'+12% / −$3.20'-style difference to the baseline; '' when there is none."""
    if delta is None:
        return ""
    if abs(delta) < 1e-12 or (ratio is not None and abs(ratio - 1.0) < 1e-9):
        return "same"
    neg = delta < 0
    if key == "gpus":
        amount = _signed(f"{abs(delta):,.0f}", neg)
    elif key == "wall_clock_h":
        amount = _signed(fmt_hours(abs(delta)), neg)
    else:
        amount = _signed(fmt_metric(key, abs(delta)), neg)
    if ratio is None:
        return amount
    pct = (ratio - 1.0) * 100.0
    if abs(pct) >= 1000:
        pct_text = f"×{ratio:,.1f}"
    else:
        digits = 0 if abs(pct) >= 10 else 1 if abs(pct) >= 1 else 2
        pct_text = _signed(f"{abs(pct):.{digits}f}%", pct < 0)
    return f"{pct_text} / {amount}"


def same_figure(a: float | None, b: float | None) -> bool:
    """The same figure, which ``fmt_metric`` words the same: equal, of one sign (0.0 and −0.0 are
    equal and may read differently; NaN is not equal to itself)."""
    return a == b and (a is None or b is None or math.copysign(1.0, a) == math.copysign(1.0, b))


@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    delta: str = ""
    best: bool = False
    baseline: bool = False


@dataclass(frozen=True, slots=True)
class ComparisonTable:
    """``compare_scenarios`` as text, one cell formatted when asked (``cell``): a view of a
    thousand scenarios words the cells it shows, a report every cell (``cells``)."""

    names: tuple[str, ...]
    baseline: int
    fits: tuple[bool, ...]
    labels: tuple[str, ...]  # one per row (with the unit where it helps)
    keys: tuple[str, ...]
    rows: tuple[ComparisonRow, ...]

    def cell(self, i: int, j: int, worded: Cell | None = None) -> Cell:
        """Row ``i``, scenario ``j``: the value, its difference to the baseline, best or not.
        ``worded``: a cell that said this very value of this metric (``same_figure``), whose words
        for it are kept (an edit of the baseline moves every delta and no other value)."""
        row = self.rows[i]
        value = row.values[j]
        several = len(self.names) > 1
        is_base = several and j == self.baseline
        key = row.metric.key
        delta = "" if is_base or not several else fmt_delta(key, row.deltas[j], row.ratios[j])
        best = several and value is not None and j in row.best
        text = fmt_metric(key, value) if worded is None else worded.text
        return Cell(text, delta, best, is_base)

    @property
    def cells(self) -> tuple[tuple[Cell, ...], ...]:
        """Every cell, [row][scenario]."""
        n = len(self.names)
        return tuple(tuple(self.cell(i, j) for j in range(n)) for i in range(len(self.rows)))

    def best_cells(self) -> set[tuple[int, int]]:
        if len(self.names) < 2:
            return set()
        return {
            (i, j) for i, row in enumerate(self.rows) for j in row.best if row.values[j] is not None
        }


def _first_price_label(tiers: Sequence[str]) -> str:
    """'Cost per run, on-demand', '… 1-year committed', or both words when scenarios differ."""
    return "Cost per run, " + " / ".join(sorted({price_word(t) for t in tiers}))


def _row_label(row: ComparisonRow, tiers: Sequence[str]) -> str:
    if row.metric.key == "on_demand_usd" and tiers:
        return _first_price_label(tiers)
    return row.metric.label


def comparison_table(
    names: list[str] | tuple[str, ...],
    results: list[EstimateResult],
    baseline: int = 0,
    tiers: Sequence[str] = (),
) -> ComparisonTable:
    """``compare_scenarios`` as text: best values marked, deltas to the baseline scenario.
    ``tiers`` (each scenario's GPU pricing tier) words the first cost row: a 1-year committed
    rate is not called on-demand."""
    if not 0 <= baseline < len(results):
        baseline = 0
    rows = tuple(compare_scenarios(results, baseline))
    return ComparisonTable(
        names=tuple(names),
        baseline=baseline,
        fits=tuple(r.memory.fits for r in results),
        labels=tuple(_row_label(row, tiers) for row in rows),
        keys=tuple(row.metric.key for row in rows),
        rows=rows,
    )


# --- inputs -------------------------------------------------------------------------------------
def _num(x: float) -> str:
    if abs(x) >= 1e5:
        return fmt_count(x)
    if float(x).is_integer():
        return f"{x:,.0f}"
    return f"{x:,.4g}"


PERCENT_FIELDS = ("mfu", "usable_memory_fraction", "stack_efficiency")
# The inputs table reads ~23 fields' metadata per scenario: each field's once (issue 17).
_field_spec = functools.cache(field_spec)


def _field(model: type[BaseModel], name: str, value: Any) -> tuple[str, str]:
    """(label with unit, value text) from the field's metadata."""
    spec = _field_spec(model, name)
    unit = spec.unit
    if value is None:
        text = {"spot_usd_per_hour": "none", "mfu": "default"}.get(name, "—")
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    elif name == "method":
        text = METHOD_LABELS.get(value, value)
    elif name == "sharding":
        text = SHARDING_LABELS.get(value, value)
    elif name == "padding":
        text = PADDING_LABELS.get(value, value)
    elif isinstance(value, tuple):
        text = ", ".join(str(v) for v in value)
    elif name in PERCENT_FIELDS:
        text = f"{value:.0%}" if round(value * 100, 6).is_integer() else f"{value:.1%}"
    elif isinstance(value, int | float) and unit.startswith("$"):
        text = f"${value:,.2f}"
    elif isinstance(value, int | float):
        text = _num(value)
    else:
        text = str(value)
    if not unit or unit == "×":
        label = spec.label
    else:
        label = f"{spec.label}, {unit}" if "(" in spec.label else f"{spec.label} ({unit})"
    return label, text


def _scenario_inputs(inputs: EstimateInputs, r: EstimateResult | None) -> list[tuple[str, str]]:
    """(label, value) of the fields that matter for one scenario, in a fixed order."""
    m, d, t, h, g = inputs.model, inputs.data, inputs.training, inputs.hardware, inputs.hardware.gpu
    e, p = inputs.efficiency, inputs.project
    out = [_field(ModelSpec, "name", m.name)]
    if r is not None:
        out.append(("Parameters", fmt_count(r.params.total)))
    out.append(_field(ModelSpec, "num_layers", m.num_layers))
    if d.mode == "examples":
        out += [
            _field(DataSpec, "num_examples", d.num_examples),
            _field(DataSpec, "mean_tokens_per_example", d.mean_tokens_per_example),
            _field(DataSpec, "epochs", d.epochs),
        ]
    else:
        out.append(_field(DataSpec, "total_tokens", d.total_tokens))
    if r is not None:
        out.append(("Tokens processed (D)", fmt_count(r.tokens.tokens_processed)))
    out += [
        _field(DataSpec, "max_seq_len", d.max_seq_len),
        _field(DataSpec, "padding", d.padding),
    ]
    if d.mode == "examples" and d.padding != "pack":
        out.append(_field(DataSpec, "length_cv", d.length_cv))
    out += [
        _field(TrainingSpec, "method", t.method),
    ]
    if t.method in ("lora", "qlora"):
        out.append(_field(TrainingSpec, "lora_rank", t.lora_rank))
    out += [
        _field(TrainingSpec, "micro_batch", t.micro_batch),
        _field(TrainingSpec, "grad_accum", t.grad_accum),
        ("GPUs", gpus_text(r.layout) if r is not None else str(t.num_gpus))
        if t.auto_gpu_count
        else _field(TrainingSpec, "num_gpus", t.num_gpus),
        _field(TrainingSpec, "sharding", t.sharding),
        ("Activation checkpointing", checkpointing_text(t.checkpointing, r)),
        _field(GpuSpec, "name", g.name),
        _field(GpuSpec, "memory_gib", g.memory_gib),
        _field(GpuSpec, "bf16_tflops", g.bf16_tflops),
        _field(HardwareSpec, "usable_memory_fraction", h.usable_memory_fraction),
        _field(GpuSpec, "on_demand_usd_per_hour", g.on_demand_usd_per_hour),
        _field(GpuSpec, "spot_usd_per_hour", g.spot_usd_per_hour),
        ("MFU", mfu_text(r.time) if r is not None else _field(EfficiencySpec, "mfu", e.mfu)[1]),
        _field(ProjectSpec, "planned_runs", p.planned_runs),
        _field(ProjectSpec, "failed_runs", p.failed_runs),
        _field(ProjectSpec, "engineering_hours", p.engineering_hours),
        _field(ProjectSpec, "data_prep_hours", p.data_prep_hours),  # engineering cost = both
        _field(ProjectSpec, "hourly_rate_usd", p.hourly_rate_usd),
    ]
    return out


@dataclass(frozen=True, slots=True)
class InputRow:
    label: str
    values: tuple[str, ...]  # one per scenario

    @property
    def differs(self) -> bool:
        return len(set(self.values)) > 1


def input_rows(document: EstimateDocument, results: list[EstimateResult | None]) -> list[InputRow]:
    """The fields that matter, one column per scenario (rows in first-seen order)."""
    per = [
        dict(_scenario_inputs(s.inputs, results[i] if i < len(results) else None))
        for i, s in enumerate(document.scenarios)
    ]
    labels: list[str] = []
    for d in per:
        previous = None
        for k in d:
            if k not in labels:
                labels.insert(labels.index(previous) + 1 if previous else 0, k)
            previous = k
    return [InputRow(k, tuple(d.get(k, "—") for d in per)) for k in labels]


# --- prices ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PriceRow:
    gpu: str
    on_demand: str
    spot: str
    as_of: str
    source: str
    scenarios: str


def _tier_note(tier: str) -> str:
    """' (1-year committed)' after a price that is not billed on-demand by the hour."""
    return "" if tier == "on_demand" else f" ({TIER_LABELS[tier].lower()})"


def price_rows(document: EstimateDocument) -> list[PriceRow]:
    """Each distinct GPU price used, with its date and source and the scenarios using it."""
    seen: dict[tuple, list[str]] = {}
    specs: dict[tuple, GpuSpec] = {}
    origins: dict[tuple, str] = {}
    for s in document.scenarios:
        g, origin = s.inputs.hardware.gpu, s.inputs.hardware.price_origin
        key = (
            g.name, g.on_demand_usd_per_hour, g.spot_usd_per_hour, g.price_as_of, g.price_source,
            origin,
        )  # fmt: skip
        seen.setdefault(key, []).append(s.name)
        specs[key] = g
        origins[key] = origin
    rows = []
    for key, names in seen.items():
        g = specs[key]
        rows.append(
            PriceRow(
                gpu=g.name,
                on_demand=f"${g.on_demand_usd_per_hour:,.2f}{_tier_note(g.pricing_tier)}",
                spot="none" if g.spot_usd_per_hour is None else f"${g.spot_usd_per_hour:,.2f}",
                as_of=g.price_as_of or "not recorded",
                source=price_origin_text(origins[key], g.price_source),
                scenarios=", ".join(names),
            )
        )
    return rows


# --- assumptions (a fixed summary of docs/model.md) -----------------------------------------------
ARTICLES = (
    ("000", "Fine-tuning compute"),
    ("001", "GPU Fine-Tuning Costs"),
    ("003", "Fine-Tuning Cost Estimator"),
    ("004", "How much does it cost to fine-tune a model"),
)

ASSUMPTIONS: tuple[tuple[str, str, str], ...] = (
    (
        "Training FLOPs",
        "6·N per token for full fine-tuning (forward 2N + two backward passes 2N each), 4·N for "
        "LoRA/QLoRA (no weight gradients of the frozen base); activation checkpointing reruns "
        "the decoder layers' forward but not the output head nor each layer's down projection "
        "(measured; the articles say +2·N); plus the causal attention term and 6 FLOPs per "
        "adapter parameter. N counts parameters in matrix multiplies (no embedding lookups).",
        "articles 000, 001; Kaplan et al. 2020; docs/data/measured/",
    ),
    (
        "Bytes per parameter",
        "Full mixed-precision AdamW 16 (2 weights + 2 gradients + 4 fp32 master + 8 moments); "
        "8-bit Adam 10; pure bf16 AdamW 8; LoRA base 2 (bf16); QLoRA base ≈0.52 (NF4 with "
        "double quantisation). Adapters train in fp32 (PEFT's default): 16 B per adapter "
        "parameter, 8 B in bf16.",
        "article 001 'Memory sets the floor'; 003",
    ),
    (
        "Activations",
        "Tensor by tensor, as one measured training step of the real model keeps them for "
        "backward (PyTorch + Transformers + PEFT, docs/data/measured/): norm precision copies, "
        "what frozen layers keep under LoRA, adapter dtype, eager attention's s² tensors, "
        "MoE routing and PEFT's merged expert weights; with full checkpointing each layer keeps "
        "its input (2·L·b·s·h) and one layer is recomputed in backward, with its output's "
        "gradient and one moment's temporaries beside it (measured op by op).",
        "measured records; backward_peak.json; article 001; Dao 2022",
    ),
    (
        "Logits and loss",
        "The standard cross-entropy keeps the fp32 log-softmax (4 B per token per vocabulary "
        "entry) and adds its fp32 gradients (8 B) at the backward peak: 12 B in all, measured; a "
        "chunked (fused) loss holds one 2,048-token chunk at 14 B.",
        "docs/data/measured/loss.json",
    ),
    (
        "Memory figures",
        "Peak allocated (every tensor: torch.cuda.max_memory_allocated) ÷ the allocator "
        "efficiency (default 85%) = expected peak reserved (max_memory_reserved); + the CUDA "
        "context (1 GiB) = device total, what nvidia-smi shows. A run fits when the device total "
        "is at most the GPU's memory.",
        "article 001 (85%); docs/accuracy.md",
    ),
    (
        "MFU",
        "Achieved FLOP/s = dense BF16 peak × MFU ÷ slowdowns (QLoRA 1.3×, communication, "
        "offload). Well-tuned training reaches 35–55%; small batches and LoRA kernels 15–30%. "
        "The cost range recomputes the run at MFU × (1 ± band).",
        "article 000; 001",
    ),
    (
        "GPUs held, not computing",
        "Wall-clock adds provisioning, weight download, warm-up, NCCL start, checkpoint writes, "
        "evaluation and idle time to training; GPU-hours held = GPUs × wall-clock.",
        "article 001 'Why the estimate came in low'",
    ),
    (
        "Spot",
        "Interruptions stretch the run by F = 1 + λ(T/2 + R), λ = nodes × preemptions per "
        "node-hour, T = checkpoint interval, R = restart overhead; spot pays when spot ÷ "
        "on-demand × F < 1.",
        "article 001",
    ),
    (
        "Checkpoints",
        "A resumable checkpoint is the fp32 master and two moments: 12 B per parameter for "
        "mixed-precision AdamW (84 GB for 7B); 6 B for 8-bit Adam and pure bf16; LoRA saves "
        "adapters and their moments.",
        "article 001",
    ),
    (
        "Project",
        "(planned + failed runs) × cost per run + checkpoint storage + (engineering + "
        "data-preparation hours) × hourly rate.",
        "articles 000, 001, 004",
    ),
)
