"""'How this is computed': each headline figure's arithmetic with the user's own numbers.

``explain(inputs, result)`` returns the sections as blocks (present/blocks.py), in the articles'
worked-example style; ``explain_html`` renders them for the window, and the report renders the
same blocks to HTML or Markdown. The numbers and coefficients come from the result: nothing here
re-derives a figure.
"""

from __future__ import annotations

from ..core.activations import Saved, source_record
from ..core.activations import fixed as fixed_bytes
from ..core.activations import total as total_bytes
from ..core.inputs import METHOD_LABELS, SHARDING_LABELS, EstimateInputs
from ..core.memory_step import inventory_for
from ..core.recompute import peak_station
from ..core.results import MEMORY_PART_LABELS, EstimateResult
from ..core.units import GIB, fmt_gib, fmt_hours, fmt_pct, fmt_usd
from .blocks import Bold, Inline, Items, Name, Ref, Section, Table, formula, note, text, to_html
from .explain_time import (
    FRACTION_SOURCES,
    comm_section,
    layout_section,
    padding_blocks,
    rate_section,
    time_section,
)
from .memory_texts import figure_rows, fits_text, phase_text
from .objective import generation_section, objective_section, objective_tokens_text
from .sections import spot_advice
from .text import fmt_count, sci
from .time_texts import price_word

STYLE = """
<style>
h3 { margin-top: 14px; margin-bottom: 4px; }
p { margin-top: 2px; margin-bottom: 6px; }
.f { font-family: monospace; }
.ref { color: %(muted)s; }
.note { color: %(muted)s; }
td { padding-right: 12px; }
</style>
"""
MUTED_ON_WHITE = "#595959"  # 7:1 on white (WCAG AA needs 4.5:1)

RECIPE_TEXTS = {
    "full_amp_adamw": "16 = 2 (bf16 weights) + 2 (bf16 grads) + 4 (fp32 master) + 8 (two fp32 "
    "Adam moments)",
    "full_adamw_8bit": "10 = 2 + 2 + 4 + 2 (8-bit moments)",
    "full_bf16_adamw": "8 = 2 + 2 + 4 (bf16 moments, no master)",
    "lora": "2 (frozen bf16 base) + 16 per fp32 adapter parameter (weight, grad, two moments; "
    "8 in bf16)",
    "qlora": "≈0.52 (NF4 + double quantisation) + 16 per adapter parameter",
}


def _is_full(inputs: EstimateInputs) -> bool:
    return inputs.training.method.startswith("full")


def tokens_section(inputs: EstimateInputs, r: EstimateResult) -> Section:
    d, t = inputs.data, r.tokens
    objective_first = objective_tokens_text(inputs, r)
    if objective_first:
        first = objective_first
    elif d.mode == "examples":
        first = (
            f"useful tokens = examples × tokens per example × epochs = {d.num_examples:,} × "
            f"{t.useful_per_example:,.1f} × {d.epochs:g} = {sci(t.useful_tokens)}"
        )
    else:
        first = f"useful tokens (all epochs, as given) = {sci(t.useful_tokens)}"
    return Section(
        ("Tokens processed (D)",),
        (
            formula(first),
            *padding_blocks(inputs, r),
            formula(
                f"D = useful ÷ useful-token fraction = {sci(t.useful_tokens)} ÷ "
                f"{t.useful_fraction:.3f} = ",
                Bold(f"{sci(t.tokens_processed)} tokens"),
                f" ({FRACTION_SOURCES[t.fraction_source]})",
                Ref("article 001 §Tokens and epochs"),
            ),
        ),
    )


def flops_section(inputs: EstimateInputs, r: EstimateResult) -> Section:
    f, m, d = r.flops, inputs.model, r.tokens.tokens_processed
    passes = inputs.objective.policy_epochs if r.alignment.steps else 1
    coef, n_mm = f.base_coefficient, f.matmul_params
    terms = [f"{coef:g}·N"]
    nums = [f"{coef:g} × {sci(n_mm)}"]
    if f.recompute_per_token:
        terms.append("2·N")
        nums.append(f"2 × {sci(n_mm)}")
    terms.append("attention")
    nums.append(
        f"{f.attention_coefficient:g} × {m.num_layers} × {r.tokens.seq_len:,} × {m.q_dim:,}"
    )
    if f.adapters_per_token:
        terms.append("adapters")
        nums.append(f"{sci(f.adapters_per_token)}")
    why = (
        "6N = forward 2N + input gradients 2N + weight gradients 2N (Kaplan et al. 2020)"
        if _is_full(inputs)
        else "4N: frozen base weights skip the weight-gradient 2N (LoRA/QLoRA)"
    )
    if f.recompute_per_token:
        why += "; +2N recomputes the forward under full activation checkpointing"
    return Section(
        ("Training FLOPs" if inputs.objective.objective == "sft" else "Policy update FLOPs",),
        (
            formula(
                f"FLOPs = ({' + '.join(terms)}) × D = ({' + '.join(nums)}) × {sci(d)} = "
                f"{sci(f.per_token)} FLOPs/token × {sci(d)}"
                + (f" × {passes} updates" if passes > 1 else "")
                + " = ",
                Bold(f"{sci(r.alignment.policy_flops)} FLOPs"),
                Ref("articles 000 §FLOPs per token, 001"),
            ),
            note(
                f"N = {sci(n_mm)} parameters in matrix multiplies per token (decoder linears + "
                f"output head; embedding lookups are not matmuls). {why}. Attention adds "
                f"{fmt_pct(f.attention_share)} of the parameter terms at s = {r.tokens.seq_len:,}."
            ),
        ),
    )


def memory_section(inputs: EstimateInputs, r: EstimateResult) -> Section:
    mem, tr = r.memory, inputs.training
    rows: list[tuple[Inline, Inline]] = [
        ((MEMORY_PART_LABELS[k],), (fmt_gib(v, 2),))
        for k, v in mem.parts()
        if v > 0 and k not in ("reserve", "overhead")
    ]
    figures: list[tuple[Inline, Inline, Inline]] = []
    for label, value, what in figure_rows(inputs, mem):
        plus = label.startswith("+")
        figures.append(
            ((label if plus else Bold(label),), (value if plus else Bold(value),), (what,))
        )
    none_fits = "none (no count of these GPUs fits)"
    gpus = f"{mem.gpus_needed}" if mem.gpus_needed is not None else none_fits
    offload = " and the optimizer offloaded to the CPU" if tr.cpu_offload_optimizer else ""
    ckpt = r.layout.checkpointing
    saved = "checkpointed layer inputs, 2·L·b·s·h" if ckpt else "every layer"
    return Section(
        ("Memory per GPU",),
        (
            formula(
                f"bytes/param = {RECIPE_TEXTS[tr.method]}; persistent state = "
                f"{fmt_count(r.params.total)} × {mem.bytes_per_param:.2f} B = "
                f"{fmt_gib(mem.state_bytes)} before sharding",
                Ref("article 001 §Memory sets the floor"),
            ),
            text(
                f"On {r.time.num_gpus} GPU(s) with {SHARDING_LABELS[tr.sharding]}{offload}, "
                f"every tensor at the step's {phase_text(mem)}:"
            ),
            Table(tuple(rows), align="lr"),
            text("Three figures, each the one a tool reports:"),
            Table(tuple(figures), header=("Figure", "GiB", "What it is"), align="lrl"),
            formula(fits_text(mem), Ref("device total against the GPU's memory")),
            formula(
                "GPUs = fewest whose per-GPU device total fits = ",
                Bold(gpus),
                Ref("article 001: ceil(total bytes ÷ usable HBM), made exact per part"),
            ),
            note(
                f"Activations: {fmt_gib(mem.activations_saved_bytes, 2)} saved ({saved}) + "
                f"{fmt_gib(mem.activations_working_bytes, 2)} working; tensor by tensor below. "
                "The peak is the larger of the backward (state, activations, loss path) and the "
                "optimizer step (state and every gradient)."
            ),
        ),
    )


def activations_section(inputs: EstimateInputs, r: EstimateResult) -> Section:
    """The saved-tensor inventory the activation figure comes from (core/activations.py)."""
    m = inputs.model
    ckpt = r.layout.checkpointing
    inv, tokens = inventory_for(inputs, ckpt)
    rows: list[tuple[Inline, Inline, Inline]] = []

    def add(where: str, items: tuple[Saved, ...]) -> None:
        for item in items:
            if item.fixed_bytes:
                size = f"{fmt_count(item.fixed_bytes)} B per layer"
            else:
                size = f"{item.bytes_per_token:,.1f}"
            rows.append(((f"{where}: {item.name}",), (size,), (f"{source_record(m, item)}.json",)))

    add("each layer", inv.layer)
    if inv.first != inv.layer:
        missing = [s for s in inv.layer if s not in inv.first]
        negated = (s._replace(bytes_per_token=-s.bytes_per_token, fixed_bytes=-s.fixed_bytes)
                   for s in missing)  # fmt: skip
        add("first layer lacks", tuple(negated))
    add("outside", inv.outside)
    station = peak_station(inv.recompute, tokens)
    for item in station:  # beside the recomputed layer at its peak (core/recompute.py)
        size = f"{fmt_count(item.fixed_bytes)} B per layer" if item.fixed_bytes else (
            f"{item.bytes_per_token:,.1f}")  # fmt: skip
        rows.append(((f"recomputed layer's peak: {item.name}",), (size,), ("backward_peak.json",)))
    layers = m.num_layers
    per_layer = f"{inv.layer_bytes:,.1f} B/token"
    if inv.layer_fixed_bytes:
        per_layer += f" + {fmt_count(inv.layer_fixed_bytes)} B"
    if ckpt:
        how = formula(
            f"saved = L × 2·h × tokens + outside = {layers} × {2 * m.hidden_size:,} × "
            f"{tokens:,.0f} + {inv.outside_bytes:,.1f} × {tokens:,.0f} = ",
            Bold(fmt_gib(r.memory.activations_saved_bytes, 2)),
            f"; one layer recomputed in backward, at its peak = ({per_layer} + "
            f"{total_bytes(station):,.1f} B/token beside it) × {tokens:,.0f} tokens"
            + (f" + {fmt_count(fixed_bytes(station))} B" if fixed_bytes(station) else "")
            + " = ",
            Bold(fmt_gib(r.memory.activations_working_bytes, 2)),
            f"; the loss path's {inv.loss_freed_bytes:,.1f} B/token are freed before it",
            Ref("article 001: 2·L·b·s·h with recomputation; backward_peak.json"),
        )
    else:
        first = "" if inv.first == inv.layer else f" (first layer: {inv.first_bytes:,.1f} B/token)"
        how = formula(
            f"saved = L × layer + outside = {layers} × {per_layer}{first} × {tokens:,.0f} tokens "
            f"+ {inv.outside_bytes:,.1f} × {tokens:,.0f} = ",
            Bold(fmt_gib(r.memory.activations_saved_bytes, 2)),
        )
    return Section(
        ("Activations, tensor by tensor",),
        (
            text(
                "Every tensor autograd keeps for backward, as the measured records show it "
                "(docs/data/measured/: one training step of the real model with PyTorch, "
                "Transformers and PEFT, each stored tensor counted once); bytes per token unless "
                "per layer:"
            ),
            Table(tuple(rows), header=("Tensor", "B/token", "Record"), align="lrl"),
            how,
        ),
    )


def cost_section(inputs: EstimateInputs, r: EstimateResult) -> Section:
    c, t, ck = r.cost, r.time, r.checkpoint
    sp, ov = inputs.spot, inputs.overheads
    price = fmt_usd(c.on_demand_usd_per_hour)
    blocks = [
        formula(
            f"cost per run ({price_word(inputs.hardware.gpu.pricing_tier)}) = held GPU-hours × "
            f"price = {t.held_gpu_hours:,.1f} × "
            f"{price}/GPU-h = ",
            Bold(fmt_usd(c.on_demand_usd)),
        ),
        formula(
            f"compute-only bill = {t.compute_gpu_hours:,.1f} GPU-h × {price} = "
            f"{fmt_usd(c.compute_only_usd)}; per 1e18 FLOPs = price ÷ (achieved FLOP/s × 3600) "
            f"× 1e18 = {price} ÷ ({sci(t.achieved_flops_per_s)} × 3600) × 1e18 = ",
            Bold(fmt_usd(c.usd_per_1e18_flops)),
            Ref("article 001 §Picking the SKU"),
        ),
        formula(
            f"range at MFU ±{fmt_pct(inputs.efficiency.mfu_band, 0)}: {fmt_usd(c.low_usd)} – "
            f"{fmt_usd(c.high_usd)}"
        ),
        formula(
            f"spot F = 1 + λ(T/2 + R) = 1 + {c.job_interruptions_per_hour:.3f}/h × "
            f"({ov.checkpoint_interval_min / 60:.2f} h ÷ 2 + {sp.restart_overhead_min / 60:.2f} "
            "h) = ",
            Bold(f"{c.spot_factor:.3f}"),
            f" (λ = {t.nodes} node(s) × {sp.interruptions_per_node_hour:g}/node-h)",
            Ref("article 001 §Interruptible capacity"),
        ),
    ]
    if c.spot_usd is not None and c.spot_price_ratio is not None:
        tier = inputs.hardware.gpu.pricing_tier
        advice = spot_advice(c, tier)
        blocks.append(
            formula(
                f"spot cost = {t.held_gpu_hours:,.1f} GPU-h × F {c.spot_factor:.3f} × "
                f"{fmt_usd(c.spot_usd_per_hour or 0)} = ",
                Bold(fmt_usd(c.spot_usd)),
                f"; (spot ÷ {price_word(tier)}) × F = {c.spot_price_ratio:.2f} "
                f"{'<' if c.take_spot else '≥'} 1 → {advice}",
            )
        )
    else:
        blocks.append(text("No spot price for this GPU."))
    amp = " (fp32 master 4 + two moments 8 = 12 B/param)"
    blocks.append(
        formula(
            f"resumable checkpoint = {fmt_count(ck.params)} params × {ck.bytes_per_param:g} B = "
            f"{ck.resumable_bytes / 1e9:,.1f} GB"
            f"{amp if inputs.training.method == 'full_amp_adamw' else ''}; write "
            f"{ck.write_s:,.0f} s at {ov.checkpoint_write_gb_per_s:g} GB/s, {ck.writes_per_run} "
            "per run",
            Ref("article 001"),
        )
    )
    return Section(("Cost per run",), tuple(blocks))


def project_section(inputs: EstimateInputs, r: EstimateResult) -> Section:
    p, pj = r.project, inputs.project
    return Section(
        ("Project",),
        (
            formula(
                f"project = runs × run + storage + engineering = ({pj.planned_runs} planned + "
                f"{pj.failed_runs} failed) × {fmt_usd(p.run_usd)} "
                f"({pj.billing.replace('_', '-')}) + {fmt_usd(p.storage_usd)} + "
                f"({pj.engineering_hours:g} + {pj.data_prep_hours:g} h) × "
                f"{fmt_usd(pj.hourly_rate_usd)}/h = ",
                Bold(fmt_usd(p.total_usd)),
                f" (range {fmt_usd(p.low_usd)} – {fmt_usd(p.high_usd)})",
                Ref("articles 000 §Where the money actually goes, 004"),
            ),
            formula(
                f"storage = {pj.checkpoints_retained} checkpoints × "
                f"{r.checkpoint.resumable_bytes / 1e9:,.1f} GB × "
                f"{fmt_usd(pj.storage_usd_per_gb_month)}/GB-mo × {pj.storage_months:g} months = "
                f"{fmt_usd(p.storage_usd)}"
            ),
        ),
    )


def simple_section(inputs: EstimateInputs, r: EstimateResult) -> Section:
    s = r.simple
    rows = [
        ("Training FLOPs", sci(s.flops), sci(r.flops.total_flops)),
        ("Compute GPU-hours", f"{s.gpu_hours:,.1f}", f"{r.time.compute_gpu_hours:,.1f}"),
        ("Bytes per parameter", f"{s.bytes_per_param:.2f}", f"{r.memory.bytes_per_param:.2f}"),
        ("Persistent state", fmt_gib(s.state_bytes), fmt_gib(r.memory.state_bytes)),
        (
            "Activations (per GPU)",
            fmt_gib(s.activations_bytes, 2),
            fmt_gib(r.memory.activations_bytes, 2),
        ),
        ("GPUs needed", str(s.gpus_needed), str(r.memory.gpus_needed or "n/a")),
        ("Attention share", fmt_pct(s.attention_share), fmt_pct(r.flops.attention_share)),
    ]
    ratio = r.flops.total_flops / s.flops if s.flops else float("nan")
    return Section(
        ("The articles' simple rules beside the detailed model",),
        (
            Table(
                tuple(tuple((cell,) for cell in row) for row in rows),
                header=("Figure", "Simple rule", "Detailed"),
                align="lrr",
            ),
            note(
                f"Simple FLOPs = {s.flop_coefficient:g}·N·D = {s.flop_coefficient:g} × "
                f"{sci(r.params.active)} × {sci(r.tokens.tokens_processed)}. The detailed figure "
                f"is {ratio:.2f}× that: it counts the attention term (L·s·d per token), adapter "
                "matmuls, and only matmul parameters (no embedding lookups). Simple GPU-hours "
                "ignore communication and QLoRA/offload slowdowns. The simple memory rule is "
                "state only, unsharded, ÷ usable memory; the detailed one adds activations, "
                "logits, buffers and the CUDA context per GPU and applies the sharding."
            ),
        ),
    )


def checks_section(inputs: EstimateInputs, r: EstimateResult) -> Section | None:
    blocks = []
    sc = r.step_check
    if sc is not None:
        # A token total already covers every epoch: the estimate counts it as one pass.
        per = "sequences/epoch" if inputs.data.mode == "examples" else "sequences (all epochs)"
        blocks.append(
            formula(
                f"steps = ceil({per} ÷ (micro-batch × accumulation × GPUs)) × passes = "
                f"ceil({r.tokens.sequences_per_epoch:,.0f} ÷ {sc.effective_batch}) × "
                f"{sc.passes:g} = {sc.total_steps:,}; wall = {sc.total_steps:,} × "
                f"{sc.step_time_s:g} s = {fmt_hours(sc.wall_s / 3600)}; GPU-hours "
                f"{sc.gpu_hours:,.2f}; implied MFU {fmt_pct(sc.implied_mfu)}",
                Ref("article 004 §Calculate GPU time"),
            )
        )
    if r.measured_mfu is not None:
        blocks.append(
            formula(
                "measured MFU = tokens/s × FLOPs/token ÷ peak = "
                f"{inputs.efficiency.measured_tokens_per_s:,.0f} × {sci(r.flops.per_token)} ÷ "
                f"{sci(r.time.peak_flops_per_s)} = ",
                Bold(fmt_pct(r.measured_mfu)),
                Ref("article 000 §From MFU to tokens per second"),
            )
        )
    if not blocks:
        return None
    return Section(("Cross-checks from your measurements",), tuple(blocks))


def heading(inputs: EstimateInputs, r: EstimateResult) -> Section:
    """The explanation's title: model · method · GPU, and the parameter and GPU counts."""
    gpu = inputs.hardware.gpu
    return Section(
        (Name(inputs.model.name), f" · {METHOD_LABELS[inputs.training.method]} · ", Name(gpu.name)),
        (
            text(
                f"N = {fmt_count(r.params.total)} parameters ({fmt_count(r.params.trainable)} "
                f"trainable), {r.time.num_gpus} × ",
                Name(gpu.name),
                f" ({r.memory.capacity_bytes / GIB:g} GiB, {r.time.peak_flops_per_s / 1e12:,.0f} "
                "TFLOPS dense BF16).",
            ),
        ),
        level=2,
    )


def explain(inputs: EstimateInputs, r: EstimateResult) -> tuple[Section, ...]:
    """The whole 'How this is computed' document as sections of blocks."""
    sections = [heading(inputs, r)]
    if r.warnings:
        sections.append(Section(("Warnings",), (Items(tuple((w,) for w in r.warnings)),)))
    sections += [
        tokens_section(inputs, r),
        flops_section(inputs, r),
        *(s for s in (objective_section(inputs, r), generation_section(inputs, r)) if s),
        rate_section(inputs, r),
        time_section(inputs, r),
    ]
    comm = comm_section(inputs, r)
    if comm is not None:
        sections.append(comm)
    sections += [
        memory_section(inputs, r),
        activations_section(inputs, r),
        layout_section(inputs, r),
        cost_section(inputs, r),
        project_section(inputs, r),
    ]
    checks = checks_section(inputs, r)
    if checks is not None:
        sections.append(checks)
    sections.append(simple_section(inputs, r))
    return tuple(sections)


def explain_html(inputs: EstimateInputs, r: EstimateResult, muted: str = MUTED_ON_WHITE) -> str:
    """The window's 'How this is computed' page (rich text with its style); ``muted``: the
    colour of references and notes, readable on the page's background (the window passes the
    palette's)."""
    return STYLE % {"muted": muted} + to_html(explain(inputs, r))
