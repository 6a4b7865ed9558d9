"""'How this is computed': the time model's sections (rate, time, communication, GPUs rented).

Blocks in the style of present/explain.py, with the user's own numbers; every figure comes from
the result (core/throughput.py, core/comm.py, core/layout.py, core/lengths.py through
``EstimateResult``): nothing here re-derives one.
"""

from __future__ import annotations

from ..core.inputs import SHARDING_LABELS, EstimateInputs
from ..core.results import EstimateResult
from ..core.throughput import DEQUANT_BYTES_PER_WEIGHT, STACK_SOURCES
from ..core.units import GB, fmt_hours, fmt_usd
from .blocks import Block, Bold, Name, Ref, Section, Table, formula, note, text
from .text import sci
from .time_texts import METHOD_WORDS, checkpointing_text, gpus_text, memory_status_text

FRACTION_SOURCES = {
    "given": "as given",
    "tokens": "a token total counts as useful tokens",
    "packing": "packing: no padding",
    "longest": "each micro-batch padded to its longest row",
    "max_length": "every row padded to the max length",
    "rollouts": "rollouts are not padded",
}


def _held_gpus(r: EstimateResult) -> str:
    """The GPUs held: the trainer's rented ones, plus any rented for rollouts beside them."""
    t, extra = r.time, r.layout.rollout_rented_gpus
    return f"({t.rented_gpus} + {extra} rollout) rented" if extra else f"{t.rented_gpus} rented"


def padding_blocks(inputs: EstimateInputs, r: EstimateResult) -> tuple[Block, ...]:
    """The useful-token fraction of the batching rule (core/lengths.py)."""
    d, t, b = inputs.data, r.tokens, inputs.training.micro_batch
    if d.mode != "examples" or t.fraction_source == "given":
        return ()
    s = d.max_seq_len
    spread = f"mean {d.mean_tokens_per_example:,.0f}, spread {d.length_cv:g} × mean (log-normal)"
    per_example = formula(
        f"tokens per example = E[min(length, {s:,})] = {t.useful_per_example:,.1f} ({spread})",
    )
    if d.padding == "pack":
        return (per_example, note("Packed rows are full: nothing is padded."))
    if d.padding == "max_length":
        row = f"every row holds the max length: {s:,} tokens"
    elif b == 1:
        alone = "Micro-batch 1, padded to its longest row: the row is the example."
        return (per_example, note(alone))
    else:
        row = (
            f"a row holds the longest of its micro-batch: E[min(max of {b} lengths, {s:,})] = "
            f"∫₀^{s:,} (1 − F(x)^{b}) dx = {t.row_tokens:,.1f} tokens"
        )
    return (
        per_example,
        formula(
            f"{row}; useful-token fraction = {t.useful_per_example:,.1f} ÷ {t.row_tokens:,.1f} = ",
            Bold(f"{t.useful_fraction:.3f}"),
            Ref("order statistics: David & Nagaraja 2003; article 001 §Utilization"),
        ),
    )


def rate_section(inputs: EstimateInputs, r: EstimateResult) -> Section:
    """MFU = achievable × stack efficiency, the default's parts, and whose MFU it is."""
    t, gpu = r.time, inputs.hardware.gpu
    method = METHOD_WORDS[t.stack_method_key]
    busy = f"{t.matmul_s_per_microbatch:.3f} + {t.fixed_s_per_microbatch:.3f} fixed"
    if t.dequant_s_per_microbatch:
        busy += f" + {t.dequant_s_per_microbatch:.3f} dequantisation"
    blocks: list[Block] = [
        formula(
            "achievable = best sustained dense matmul ÷ vendor peak = ",
            Bold(f"{t.achievable_fraction:.3f}"),
            " (",
            Name(gpu.achievable_source or "not stated"),
            f"{', ' + gpu.achievable_as_of if gpu.achievable_as_of else ''})",
            Ref("reference/gpus.md, MAMF"),
        ),
        formula(
            f"data shape = matmul share of one micro-batch of {t.tokens_per_microbatch:,.0f} "
            f"tokens = {t.matmul_s_per_microbatch:.3f} s ÷ ({busy}) s = {t.shape_factor:.3f}",
            Ref("QwenLM/Qwen profiling table (A100): 0.07 s fixed per micro-batch"),
        ),
        formula(
            f"default stack efficiency ({method}) = {t.stack_method:.2f} × data shape "
            f"{t.shape_factor:.3f} = {t.stack_method * t.shape_factor:.3f}",
            Ref("article 000: 35–55% well-tuned, 15–30% short sequences and LoRA"),
        ),
        formula(
            f"default MFU on this GPU = {t.achievable_fraction:.3f} × "
            f"{t.stack_method * t.shape_factor:.3f} = ",
            Bold(f"{t.mfu_default:.1%}"),
        ),
    ]
    if t.mfu_source == "given":
        blocks.append(
            formula(
                "MFU used = ",
                Bold(f"{t.mfu:.1%}"),
                " (given: one MFU for every GPU; it replaces the default above)",
            )
        )
    elif t.mfu_source == "stack":
        blocks.append(
            formula(
                f"MFU used = achievable {t.achievable_fraction:.3f} × your stack efficiency "
                f"{t.stack_efficiency:.3f} = ",
                Bold(f"{t.mfu:.1%}"),
            )
        )
    if t.dequant_s_per_microbatch:
        blocks.append(
            note(
                f"QLoRA dequantisation: every quantised weight, in each pass, costs the time of "
                f"{DEQUANT_BYTES_PER_WEIGHT:g} B at the GPU's {gpu.memory_bandwidth_gb_s:,.0f} "
                "GB/s (measured in the Qwen table: token-independent, so it weighs most on "
                "short micro-batches)."
            )
        )
    blocks.append(note(f"Sources: {STACK_SOURCES[t.stack_method_key]}."))
    return Section(("Achieved rate (MFU)",), tuple(blocks))


def time_section(inputs: EstimateInputs, r: EstimateResult) -> Section:
    """GPU-hours from FLOPs at the MFU, communication on top, and the held wall-clock."""
    t = r.time
    n = t.num_gpus
    busy_h = r.flops.total_flops / (t.peak_flops_per_s * t.mfu) / 3600
    parts = [f"compute {busy_h:,.2f} GPU-h"]
    if t.qlora_slowdown != 1:
        parts.append(f"× QLoRA {t.qlora_slowdown:g} (flat, given)")
    if t.comm_exposed_s:
        parts.append(f"+ exposed communication {t.comm_exposed_s * n / 3600:,.2f} GPU-h")
    if t.offload_slowdown != 1:
        parts.append(f"× offload {t.offload_slowdown:g}")
    held_parts = [
        ("training", t.train_wall_s),
        ("provisioning", t.provisioning_s),
        ("weight download", t.download_s),
        ("warm-up", t.warmup_s),
        ("NCCL init", t.nccl_s),
        ("checkpoint writes", t.checkpoint_writes_s),
        ("evaluation", t.eval_s),
        ("rollouts", t.rl_generation_s),
        ("idle", t.idle_s),
    ]
    held = " + ".join(f"{name} {s / 3600:.2f} h" for name, s in held_parts if s > 0)
    return Section(
        ("GPU-hours and wall-clock",),
        (
            formula(
                f"compute = FLOPs ÷ (peak × MFU) = {sci(r.flops.total_flops)} ÷ "
                f"({t.peak_flops_per_s / 1e12:,.0f} TFLOPS × {t.mfu:.3f}) ÷ 3600 = "
                f"{busy_h:,.2f} GPU-h",
                Ref("article 000 §GPU-hours"),
            ),
            formula(
                f"GPU-hours = {' '.join(parts)} = ",
                Bold(f"{t.compute_gpu_hours:,.2f} GPU-hours"),
                f" (effective MFU {t.effective_mfu:.1%})",
            ),
            note(
                f"Throughput: {t.tokens_per_s_per_gpu:,.0f} tokens/s per GPU = effective MFU × "
                "peak ÷ FLOPs per token (article 000)."
            ),
            formula(
                f"training wall-clock = {t.compute_gpu_hours:,.2f} GPU-h ÷ {n} GPUs = "
                f"{fmt_hours(t.train_wall_s / 3600)}"
            ),
            formula(
                f"held wall-clock = {held} = ",
                Bold(fmt_hours(t.held_wall_s / 3600)),
                f"; held GPU-hours = {_held_gpus(r)} × {t.held_wall_s / 3600:.2f} h = "
                f"{t.held_gpu_hours:,.1f}",
                Ref("article 001 §GPUs held, not GPUs computing"),
            ),
        ),
    )


def comm_section(inputs: EstimateInputs, r: EstimateResult) -> Section | None:
    """Bytes per step by collective, the link, the overlap and what stays exposed."""
    t, tr = r.time, inputs.training
    if t.num_gpus <= 1:
        return None
    if t.communication != "links":
        why = "given" if t.communication == "given" else "the articles' table by sharding and link"
        return Section(
            ("Communication",),
            (
                formula(
                    f"communication = {t.comm_overhead:.2f} × compute ({why}) = "
                    f"{t.comm_exposed_s / 3600:,.2f} h of wall-clock",
                    Ref("articles 001, 003"),
                ),
            ),
        )
    rows = tuple(
        (
            (c.name,),
            (f"{c.payload_bytes / GB:,.3f} GB",),
            (f"{c.ring_factor:.3f}",),
            (f"{c.per_step:g}",),
            (f"{c.bytes_per_step / GB:,.3f} GB",),
        )
        for c in t.comm_collectives
    )
    where = "between nodes" if t.comm_between_nodes else "within a node"
    busy_step = (t.train_wall_s / t.offload_slowdown - t.comm_exposed_s) / t.steps
    window = "given" if t.comm_overlap_given else "default for " + SHARDING_LABELS[tr.sharding]
    exposed_step = t.comm_exposed_s / t.steps
    return Section(
        ("Communication",),
        (
            text(
                f"Per GPU per optimizer step ({t.steps:,.0f} steps; {tr.grad_accum} micro-batches "
                f"each), ring collectives over {t.num_gpus} GPUs:"
            ),
            Table(
                rows,
                header=("Collective", "Payload S", "Ring factor", "Per step", "Bytes"),
                align="lrrrr",
            ),
            formula(
                f"time = {t.comm_bytes_per_step / GB:,.3f} GB ÷ {t.comm_link_gb_s:,.1f} GB/s "
                f"({t.comm_link} {where}, one direction) = {t.comm_s_per_step:.3f} s per step",
                Ref("ring all-reduce 2(n−1)/n: Patarasuk & Yuan 2009; ZeRO §7.2"),
            ),
            formula(
                f"exposed = max(0, {t.comm_s_per_step:.3f} − overlap {t.comm_overlap:.2f} × "
                f"compute {busy_step:.3f} s) = {exposed_step:.3f} s per step × {t.steps:,.0f} = ",
                Bold(fmt_hours(t.comm_exposed_s / 3600)),
                f" ({t.comm_overhead:.1%} of compute; overlap {window})",
            ),
            note(
                "Trainable gradients only cross the link (adapters' for LoRA/QLoRA); ZeRO-3/FSDP "
                "gathers the weights in their stored dtype (NF4 for QLoRA) twice per micro-batch."
            ),
        ),
    )


def layout_section(inputs: EstimateInputs, r: EstimateResult) -> Section:
    """GPUs needed → rented, nodes, checkpointing's choice and its alternative, memory verdict."""
    lay, hw = r.layout, inputs.hardware
    blocks: list[Block] = [
        formula(
            "GPUs = ",
            Bold(gpus_text(lay)),
            f"; {lay.nodes} node(s) of {lay.node_size}",
            Ref("article 001 §GPUs held"),
        ),
    ]
    if lay.rounded_up:
        blocks.append(
            note(
                f"Rented in units of {lay.rent_unit_gpus} GPU(s) within a node and whole nodes "
                "beyond one; the job trains on every rented GPU"
                + ("" if inputs.training.auto_gpu_count else " it can use")
                + " and all of them are billed."
            )
        )
    elif not hw.rent_whole_units:
        blocks.append(note("Billed per GPU used (renting in whole units is off)."))
    blocks.append(
        formula(
            "activation checkpointing: ",
            Bold(checkpointing_text(inputs.training.checkpointing, r)),
        )
    )
    if lay.checkpointing_mode == "auto":
        blocks.append(note(f"Why: {lay.checkpointing_reason}."))
        if lay.alt_on_demand_usd is not None and lay.alt_held_wall_s is not None:
            blocks.append(
                note(
                    f"The other choice: {fmt_usd(lay.alt_on_demand_usd)} per run, "
                    f"{fmt_hours(lay.alt_held_wall_s / 3600)} held, against "
                    f"{fmt_usd(r.cost.on_demand_usd)} and {fmt_hours(r.time.held_wall_s / 3600)}."
                )
            )
    blocks.append(formula("memory: ", Bold(memory_status_text(lay))))
    return Section(("GPUs rented and checkpointing",), tuple(blocks))
