"""'How this is computed': each headline figure's arithmetic with the user's own numbers.

Pure functions of (inputs, result) returning HTML, in the articles' worked-example style. Qt-free,
so tests read it without a window.
"""

from __future__ import annotations

import math
from html import escape

from ..core.inputs import METHOD_LABELS, SHARDING_LABELS, EstimateInputs
from ..core.results import MEMORY_PART_LABELS, EstimateResult
from ..core.units import GIB, fmt_count, fmt_gib, fmt_hours, fmt_pct, fmt_usd

_STYLE = """
<style>
h3 { margin-top: 14px; margin-bottom: 4px; }
p { margin-top: 2px; margin-bottom: 6px; }
.f { font-family: monospace; }
.ref { color: #666; }
.note { color: #444; }
td { padding-right: 12px; }
</style>
"""


def sci(x: float, digits: int = 2) -> str:
    """6.61e9-style scientific notation (the articles' worked examples)."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    exp = math.floor(math.log10(abs(x)))
    mant = x / 10**exp
    if round(mant, digits) >= 10:
        mant /= 10
        exp += 1
    return f"{mant:.{digits}f}e{exp}"


def _ref(text: str) -> str:
    return f' <span class="ref">[{escape(text)}]</span>'


def _f(text: str) -> str:
    return f'<p class="f">{text}</p>'


def _section(title: str, *paras: str) -> str:
    return f"<h3>{escape(title)}</h3>" + "".join(paras)


def _is_full(inputs: EstimateInputs) -> bool:
    return inputs.training.method.startswith("full")


_FRACTION_SOURCES = {
    "given": "as given",
    "tokens": "a token total counts as useful tokens",
    "packing": "packing: no padding",
    "padding": "padding to the max length: mean ÷ max",
}


def tokens_html(inputs: EstimateInputs, r: EstimateResult) -> str:
    d, t = inputs.data, r.tokens
    if d.mode == "examples":
        used = min(d.mean_tokens_per_example, d.max_seq_len)
        first = (
            f"useful tokens = examples × mean length × epochs = {d.num_examples:,} × {used:,.0f} × "
            f"{d.epochs:g} = {sci(t.useful_tokens)}"
        )
    else:
        first = f"useful tokens (all epochs, as given) = {sci(t.useful_tokens)}"
    frac = _FRACTION_SOURCES[t.fraction_source]
    return _section(
        "Tokens processed (D)",
        _f(first),
        _f(
            f"D = useful ÷ useful-token fraction = {sci(t.useful_tokens)} ÷ {t.useful_fraction:.3f} "
            f"= <b>{sci(t.tokens_processed)} tokens</b> ({frac})"
            + _ref("article 001 §Tokens and epochs")
        ),
    )


def flops_html(inputs: EstimateInputs, r: EstimateResult) -> str:
    full = _is_full(inputs)
    ckpt = inputs.training.checkpointing == "full"
    f = r.flops
    m = inputs.model
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
        if full
        else "4N: frozen base weights skip the weight-gradient 2N (LoRA/QLoRA)"
    )
    if ckpt:
        why += "; +2N recomputes the forward under full activation checkpointing"
    return _section(
        "Training FLOPs",
        _f(
            f"FLOPs = ({' + '.join(terms)}) × D = ({' + '.join(nums)}) × {sci(r.tokens.tokens_processed)} "
            f"= {sci(f.per_token)} FLOPs/token × {sci(r.tokens.tokens_processed)} = "
            f"<b>{sci(f.total_flops)} FLOPs</b>" + _ref("articles 000 §FLOPs per token, 001")
        ),
        f'<p class="note">N = {sci(n_mm)} parameters in matrix multiplies per token (decoder '
        f"linears + output head; embedding lookups are not matmuls). {escape(why)}. Attention "
        f"adds {fmt_pct(f.attention_share)} of the parameter terms at s = {r.tokens.seq_len:,}.</p>",
    )


def time_html(inputs: EstimateInputs, r: EstimateResult) -> str:
    t = r.time
    eff = inputs.efficiency
    tflops = t.peak_flops_per_s / 1e12
    slow = t.slowdown
    parts = [f"communication 1 + {t.comm_overhead:.2f}"]
    if inputs.training.method == "qlora":
        parts.append(f"QLoRA ×{t.qlora_slowdown:g}")
    if inputs.training.cpu_offload_optimizer:
        parts.append(f"offload ×{t.offload_slowdown:g}")
    comm_src = "given" if eff.comm_overhead is not None else "from the interconnect and sharding"
    held_parts = [
        ("training", t.train_wall_s),
        ("provisioning", t.provisioning_s),
        ("weight download", t.download_s),
        ("warm-up", t.warmup_s),
        ("NCCL init", t.nccl_s),
        ("checkpoint writes", t.checkpoint_writes_s),
        ("evaluation", t.eval_s),
        ("RL generation", t.rl_generation_s),
        ("idle", t.idle_s),
    ]
    held = " + ".join(f"{name} {s / 3600:.2f} h" for name, s in held_parts if s > 0)
    return _section(
        "GPU-hours and wall-clock",
        _f(
            f"GPU-hours = FLOPs ÷ ({tflops:,.0f} TFLOPS × MFU {eff.mfu:.2f} ÷ slowdowns "
            f"{slow:.2f}) ÷ 3600 = {sci(r.flops.total_flops)} ÷ {sci(t.achieved_flops_per_s)} "
            f"FLOP/s ÷ 3600 = <b>{t.compute_gpu_hours:,.1f} GPU-hours</b>"
            + _ref("article 000 §GPU-hours")
        ),
        f'<p class="note">Slowdowns: {escape(" × ".join(parts))} (communication {comm_src}). '
        f"Throughput: {t.tokens_per_s_per_gpu:,.0f} tokens/s per GPU = MFU × peak ÷ FLOPs per "
        f"token.</p>",
        _f(
            f"training wall-clock = {t.compute_gpu_hours:,.1f} GPU-h ÷ {t.num_gpus} GPUs = "
            f"{fmt_hours(t.train_wall_s / 3600)}"
        ),
        _f(
            f"held wall-clock = {held} = <b>{fmt_hours(t.held_wall_s / 3600)}</b>; held GPU-hours "
            f"= {t.num_gpus} × {t.held_wall_s / 3600:.2f} h = {t.held_gpu_hours:,.1f}"
            + _ref("article 001 §GPUs held, not GPUs computing")
        ),
    )


def memory_html(inputs: EstimateInputs, r: EstimateResult) -> str:
    mem = r.memory
    hw = inputs.hardware
    tr = inputs.training
    rows = "".join(
        f"<tr><td>{escape(MEMORY_PART_LABELS[k])}</td><td align='right'>{fmt_gib(v, 2)}</td></tr>"
        for k, v in mem.parts()
        if v > 0
    )
    recipe = {
        "full_amp_adamw": "16 = 2 (bf16 weights) + 2 (bf16 grads) + 4 (fp32 master) + 8 (two fp32 Adam moments)",
        "full_adamw_8bit": "10 = 2 + 2 + 4 + 2 (8-bit moments)",
        "full_bf16_adamw": "8 = 2 + 2 + 4 (bf16 moments, no master)",
        "lora": "2 (frozen bf16 base) + 16 per adapter parameter (fp32 weight, grad, two moments)",
        "qlora": "≈0.52 (NF4 + double quantisation) + 16 per adapter parameter",
    }[tr.method]
    gpus = (
        f"{mem.gpus_needed}"
        if mem.gpus_needed is not None
        else "none (no count of these GPUs fits)"
    )
    state = mem.state_bytes
    return _section(
        "Memory per GPU",
        _f(
            f"bytes/param = {escape(recipe)}; persistent state = {fmt_count(r.params.total)} × "
            f"{mem.bytes_per_param:.2f} B = {fmt_gib(state)} before sharding"
            + _ref("article 001 §Memory sets the floor")
        ),
        f"<p>On {r.time.num_gpus} GPU(s) with {escape(SHARDING_LABELS[tr.sharding])}"
        f"{' and the optimizer offloaded to the CPU' if tr.cpu_offload_optimizer else ''}:</p>",
        f"<table>{rows}<tr><td><b>Total per GPU</b></td><td align='right'><b>"
        f"{fmt_gib(mem.total_bytes, 2)}</b></td></tr></table>",
        _f(
            f"usable = {fmt_pct(hw.usable_memory_fraction, 0)} × {hw.gpu.memory_gib:g} GiB reported = "
            f"<b>{fmt_gib(mem.usable_bytes)}</b>; headroom {fmt_gib(mem.headroom_bytes)}"
        ),
        _f(
            f"GPUs = fewest whose per-GPU total fits the usable memory = <b>{gpus}</b>"
            + _ref("article 001: ceil(total bytes ÷ usable HBM), made exact per part")
        ),
        f'<p class="note">Activations: {fmt_gib(mem.activations_saved_bytes, 2)} saved '
        f"({'checkpointed layer inputs, 2·L·b·s·h' if tr.checkpointing == 'full' else 'every layer'}) "
        f"+ {fmt_gib(mem.activations_working_bytes, 2)} working.</p>",
    )


def cost_html(inputs: EstimateInputs, r: EstimateResult) -> str:
    c, t = r.cost, r.time
    sp, ov = inputs.spot, inputs.overheads
    out = [
        _f(
            f"cost per run (on-demand) = held GPU-hours × price = {t.held_gpu_hours:,.1f} × "
            f"{fmt_usd(c.on_demand_usd_per_hour)}/GPU-h = <b>{fmt_usd(c.on_demand_usd)}</b>"
        ),
        _f(
            f"compute-only bill = {t.compute_gpu_hours:,.1f} GPU-h × "
            f"{fmt_usd(c.on_demand_usd_per_hour)} = {fmt_usd(c.compute_only_usd)}; per 1e18 FLOPs = "
            f"price ÷ (achieved FLOP/s × 3600) × 1e18 = {fmt_usd(c.on_demand_usd_per_hour)} ÷ "
            f"({sci(t.achieved_flops_per_s)} × 3600) × 1e18 = <b>{fmt_usd(c.usd_per_1e18_flops)}</b>"
            + _ref("article 001 §Picking the SKU")
        ),
        _f(
            f"range at MFU ±{fmt_pct(inputs.efficiency.mfu_band, 0)}: {fmt_usd(c.low_usd)} – "
            f"{fmt_usd(c.high_usd)}"
        ),
    ]
    lam_t = ov.checkpoint_interval_min / 60
    lam_r = sp.restart_overhead_min / 60
    spot = _f(
        f"spot F = 1 + λ(T/2 + R) = 1 + {c.job_interruptions_per_hour:.3f}/h × ({lam_t:.2f} h ÷ 2 + "
        f"{lam_r:.2f} h) = <b>{c.spot_factor:.3f}</b> (λ = {t.nodes} node(s) × "
        f"{sp.interruptions_per_node_hour:g}/node-h)" + _ref("article 001 §Interruptible capacity")
    )
    out.append(spot)
    if c.spot_usd is not None and c.spot_price_ratio is not None:
        advice = "take spot" if c.take_spot else "stay on-demand"
        out.append(
            _f(
                f"spot cost = {t.held_gpu_hours:,.1f} GPU-h × F {c.spot_factor:.3f} × "
                f"{fmt_usd(c.spot_usd_per_hour or 0)} = <b>{fmt_usd(c.spot_usd)}</b>; "
                f"(spot ÷ on-demand) × F = {c.spot_price_ratio:.2f} "
                f"{'&lt;' if c.take_spot else '≥'} 1 → {advice}"
            )
        )
    else:
        out.append("<p>No spot price for this GPU.</p>")
    ck = r.checkpoint
    out.append(
        _f(
            f"resumable checkpoint = {fmt_count(ck.params)}"
            f" params × {ck.bytes_per_param:g} B = {ck.resumable_bytes / 1e9:,.1f} GB"
            f"{' (fp32 master 4 + two moments 8 = 12 B/param)' if inputs.training.method == 'full_amp_adamw' else ''}"
            f"; write {ck.write_s:,.0f} s at {ov.checkpoint_write_gb_per_s:g} GB/s, "
            f"{ck.writes_per_run} per run" + _ref("article 001")
        )
    )
    return _section("Cost per run", *out)


def project_html(inputs: EstimateInputs, r: EstimateResult) -> str:
    p, pj = r.project, inputs.project
    return _section(
        "Project",
        _f(
            f"project = runs × run + storage + engineering = ({pj.planned_runs} planned + "
            f"{pj.failed_runs} failed) × {fmt_usd(p.run_usd)} ({pj.billing.replace('_', '-')}) + "
            f"{fmt_usd(p.storage_usd)} + ({pj.engineering_hours:g} + {pj.data_prep_hours:g} h) × "
            f"{fmt_usd(pj.hourly_rate_usd)}/h = <b>{fmt_usd(p.total_usd)}</b> (range "
            f"{fmt_usd(p.low_usd)} – {fmt_usd(p.high_usd)})"
            + _ref("articles 000 §Where the money actually goes, 004")
        ),
        _f(
            f"storage = {pj.checkpoints_retained} checkpoints × "
            f"{r.checkpoint.resumable_bytes / 1e9:,.1f} GB × "
            f"{fmt_usd(pj.storage_usd_per_gb_month)}/GB-mo × {pj.storage_months:g} months = "
            f"{fmt_usd(p.storage_usd)}"
        ),
    )


def simple_html(inputs: EstimateInputs, r: EstimateResult) -> str:
    s = r.simple
    rows = [
        ("Training FLOPs", sci(s.flops), sci(r.flops.total_flops)),
        ("Compute GPU-hours", f"{s.gpu_hours:,.1f}", f"{r.time.compute_gpu_hours:,.1f}"),
        ("Bytes per parameter", f"{s.bytes_per_param:.2f}", f"{r.memory.bytes_per_param:.2f}"),
        (
            "Persistent state",
            fmt_gib(s.state_bytes),
            fmt_gib(r.memory.state_bytes),
        ),
        (
            "Activations (per GPU)",
            fmt_gib(s.activations_bytes, 2),
            fmt_gib(r.memory.activations_bytes, 2),
        ),
        ("GPUs needed", str(s.gpus_needed), str(r.memory.gpus_needed or "n/a")),
        ("Attention share", fmt_pct(s.attention_share), fmt_pct(r.flops.attention_share)),
    ]
    table = "".join(
        f"<tr><td>{escape(a)}</td><td align='right'>{b}</td><td align='right'>{c}</td></tr>"
        for a, b, c in rows
    )
    ratio = r.flops.total_flops / s.flops if s.flops else float("nan")
    return _section(
        "The articles' simple rules beside the detailed model",
        f"<table><tr><th align='left'>Figure</th><th>Simple rule</th><th>Detailed</th></tr>"
        f"{table}</table>",
        f'<p class="note">Simple FLOPs = {s.flop_coefficient:g}·N·D = {s.flop_coefficient:g} × '
        f"{sci(r.params.active)} × {sci(r.tokens.tokens_processed)}. The detailed figure is "
        f"{ratio:.2f}× that: it counts the attention term (L·s·d per token), adapter matmuls, "
        f"and only matmul parameters (no embedding lookups). Simple GPU-hours ignore "
        f"communication and QLoRA/offload slowdowns. The simple memory rule is state only, "
        f"unsharded, ÷ usable memory; the detailed one adds activations, logits, buffers and the "
        f"CUDA context per GPU and applies the sharding.</p>",
    )


def checks_html(inputs: EstimateInputs, r: EstimateResult) -> str:
    out = []
    sc = r.step_check
    if sc is not None:
        # A token total already covers every epoch: the estimate counts it as one pass.
        passes = sc.passes
        per = "sequences/epoch" if inputs.data.mode == "examples" else "sequences (all epochs)"
        out.append(
            _f(
                f"steps = ceil({per} ÷ (micro-batch × accumulation × GPUs)) × passes = "
                f"ceil({r.tokens.sequences_per_epoch:,.0f} ÷ {sc.effective_batch}) × "
                f"{passes:g} = {sc.total_steps:,}; wall = {sc.total_steps:,} × "
                f"{sc.step_time_s:g} s = {fmt_hours(sc.wall_s / 3600)}; GPU-hours "
                f"{sc.gpu_hours:,.2f}; implied MFU {fmt_pct(sc.implied_mfu)}"
                + _ref("article 004 §Calculate GPU time")
            )
        )
    if r.measured_mfu is not None:
        out.append(
            _f(
                f"measured MFU = tokens/s × FLOPs/token ÷ peak = "
                f"{inputs.efficiency.measured_tokens_per_s:,.0f} × {sci(r.flops.per_token)} ÷ "
                f"{sci(r.time.peak_flops_per_s)} = <b>{fmt_pct(r.measured_mfu)}</b>"
                + _ref("article 000 §From MFU to tokens per second")
            )
        )
    if not out:
        return ""
    return _section("Cross-checks from your measurements", *out)


def warnings_html(r: EstimateResult) -> str:
    if not r.warnings:
        return ""
    items = "".join(f"<li>{escape(w)}</li>" for w in r.warnings)
    return f"<h3>Warnings</h3><ul>{items}</ul>"


def explain_html(inputs: EstimateInputs, r: EstimateResult) -> str:
    """The whole 'How this is computed' document."""
    head = (
        f"<h2>{escape(inputs.model.name)} · {escape(METHOD_LABELS[inputs.training.method])} · "
        f"{escape(inputs.hardware.gpu.name)}</h2>"
        f"<p>N = {fmt_count(r.params.total)} parameters ({fmt_count(r.params.trainable)} trainable)"
        f", {r.time.num_gpus} × {escape(inputs.hardware.gpu.name)} "
        f"({r.memory.capacity_bytes / GIB:g} GiB, {r.time.peak_flops_per_s / 1e12:,.0f} TFLOPS dense BF16).</p>"
    )
    return (
        _STYLE
        + head
        + warnings_html(r)
        + tokens_html(inputs, r)
        + flops_html(inputs, r)
        + time_html(inputs, r)
        + memory_html(inputs, r)
        + cost_html(inputs, r)
        + project_html(inputs, r)
        + checks_html(inputs, r)
        + simple_html(inputs, r)
    )
