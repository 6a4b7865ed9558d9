"""The estimate: inputs → memory floor, GPUs, FLOPs, time, cost, project budget.

Each step cites its article; the formulas live in memory.py, flops.py and calibration.py.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from . import calibration as cal
from .architecture import effective_counts
from .flops import attention_share_simple, flops_per_token, simple_coefficient
from .inputs import EstimateInputs
from .memory import (
    ADAPTER_GRAD_BYTES,
    ADAPTER_MOMENT_BYTES,
    ADAPTER_WEIGHT_BYTES,
    BF16_BYTES,
    CHUNKED_LOSS_TOKENS,
    LOGITS_CHUNKED_BYTES,
    LOGITS_STANDARD_BYTES,
    RECIPES,
    ZERO_BUCKET_BYTES,
    MemoryModel,
    activation_bytes_per_token_layer,
    base_weight_bytes,
)
from .results import (
    CheckpointSummary,
    CostBreakdown,
    EstimateResult,
    FlopBreakdown,
    MemoryBreakdown,
    ParamSummary,
    ProjectSummary,
    SimpleRules,
    StepCheck,
    TimeBreakdown,
    TokenSummary,
)
from .units import GB, GIB, SECONDS_PER_HOUR, SECONDS_PER_MINUTE, TERA

# Communication overhead as a fraction of compute time, when not given. Articles: multi-GPU runs
# 'add 10–30%' (003); on PCIe 'parameter gathering and gradient reduction can halve achieved
# throughput' of a sharded job (001); 'a single-node LoRA run is indifferent to NVLink' (001).
_FAST_FABRICS = frozenset({"nvlink", "infinity_fabric", "ici"})
COMM_OVERHEAD_FAST = {"none": 0.10, "zero1": 0.10, "zero2": 0.10, "zero3": 0.15}
COMM_OVERHEAD_SLOW = {"none": 0.20, "zero1": 0.25, "zero2": 0.30, "zero3": 1.00}
COMM_OVERHEAD_ADAPTERS = 0.02  # only adapter gradients cross the fabric
COMM_OVERHEAD_MULTI_NODE = 0.10  # inter-node network on top


def comm_overhead_auto(
    num_gpus: int, gpus_per_node: int, interconnect: str, sharding: str, full: bool
) -> float:
    """Default communication overhead for the layout (see the table above)."""
    if num_gpus <= 1:
        return 0.0
    if not full and sharding != "zero3":
        overhead = COMM_OVERHEAD_ADAPTERS
    elif interconnect in _FAST_FABRICS:
        overhead = COMM_OVERHEAD_FAST[sharding]
    else:
        overhead = COMM_OVERHEAD_SLOW[sharding]
    if num_gpus > gpus_per_node:
        overhead += COMM_OVERHEAD_MULTI_NODE
    return overhead


class RunTime(NamedTuple):
    """Time and cost of one run at one MFU; the part a sweep recomputes."""

    achieved_flops_per_s: float
    compute_gpu_s: float
    train_wall_s: float
    checkpoint_writes_s: float
    writes: int
    eval_s: float
    rl_s: float
    held_wall_s: float
    held_gpu_hours: float
    on_demand_usd: float


class _Plan(NamedTuple):
    """Everything that does not depend on MFU or prices."""

    total_flops: float
    slowdown: float  # QLoRA × (1 + comm) × offload
    num_gpus: int
    fixed_wall_s: float  # provisioning, download, warm-up, NCCL, idle
    eval_flops: float  # per run
    rl_flops: float
    ckpt_write_s: float
    ckpt_interval_s: float
    peak: float
    gen_mfu: float


def _run_time(plan: _Plan, mfu: float, od_price: float) -> RunTime:
    achieved = plan.peak * mfu / plan.slowdown
    compute_gpu_s = plan.total_flops / achieved
    train_wall_s = compute_gpu_s / plan.num_gpus
    writes = int(train_wall_s // plan.ckpt_interval_s)
    ckpt_s = writes * plan.ckpt_write_s
    gen_rate = plan.peak * plan.gen_mfu * plan.num_gpus
    eval_s = plan.eval_flops / gen_rate
    rl_s = plan.rl_flops / gen_rate
    held_wall_s = plan.fixed_wall_s + train_wall_s + ckpt_s + eval_s + rl_s
    held_gpu_h = plan.num_gpus * held_wall_s / SECONDS_PER_HOUR
    return RunTime(
        achieved, compute_gpu_s, train_wall_s, ckpt_s, writes, eval_s, rl_s, held_wall_s,
        held_gpu_h, held_gpu_h * od_price,
    )  # fmt: skip


def estimate(inputs: EstimateInputs) -> EstimateResult:
    """Compute every figure of one estimate. Pure; raises nothing for validated inputs."""
    m, data, tr, hw = inputs.model, inputs.data, inputs.training, inputs.hardware
    eff, ov, sp, pj = inputs.efficiency, inputs.overheads, inputs.spot, inputs.project
    gpu = hw.gpu
    warnings: list[str] = []
    counts = effective_counts(m)
    recipe = RECIPES[tr.method]
    full = recipe.full
    ckpt = tr.checkpointing == "full"

    # --- Tokens: D = useful tokens × epochs ÷ useful fraction (article 001, 'Tokens and epochs').
    s = data.max_seq_len
    if data.mode == "examples":
        useful_per_epoch = data.num_examples * min(data.mean_tokens_per_example, s)
        useful = useful_per_epoch * data.epochs
        natural = (
            1.0 if data.packing else cal.useful_token_fraction(data.mean_tokens_per_example, s)
        )
        if data.mean_tokens_per_example > s:
            warnings.append("Mean example length exceeds the max sequence length: truncated.")
    else:
        useful = data.total_tokens
        useful_per_epoch = useful
        natural = 1.0
    fraction = data.useful_fraction_override or natural
    tokens_processed = useful / fraction
    sequences_per_epoch = (
        data.num_examples
        if data.mode == "examples" and not data.packing
        else useful_per_epoch / fraction / s
    )

    # --- Parameters.
    adapter_total = adapter_active = 0.0
    lora_modules: tuple[tuple[int, int], ...] = ()
    if not full:
        by_target = m.lora_params_by_target(tr.lora_rank)
        scale = counts.total / m.counts().total
        for target in dict.fromkeys(tr.lora_targets):
            adapter_total += by_target[target][0] * scale
            adapter_active += by_target[target][1] * scale
        attn_shapes = m.attention_shapes()
        mlp_in = {"gate_proj": m.hidden_size, "up_proj": m.hidden_size}
        width = (
            (m.expert_intermediate_size * m.experts_per_token) if m.is_moe else m.intermediate_size
        )
        mlp_in["down_proj"] = width
        lora_modules = tuple(
            (attn_shapes[t][0] if t in attn_shapes else mlp_in[t], tr.lora_rank)
            for t in dict.fromkeys(tr.lora_targets)
            if not (t == "gate_proj" and m.mlp_kind == "plain")
        )
    trainable = counts.total if full else adapter_total

    # --- FLOPs (articles 000/001).
    fpt = flops_per_token(
        counts.matmul_active, full, ckpt, m.num_layers, s, m.q_dim, adapter_active
    )
    total_flops = fpt.total * tokens_processed
    param_terms = fpt.base + fpt.recompute
    attention_share = fpt.attention / param_terms

    # --- Memory (article 001 'Memory sets the floor'; memory.py).
    b = tr.micro_batch
    tokens_mb = b * s
    per_tok_layer = activation_bytes_per_token_layer(m, tr.attention, s, lora_modules)
    boundary = BF16_BYTES * m.hidden_size  # a layer input, bf16
    if ckpt:
        act_saved = m.num_layers * tokens_mb * boundary  # 001: 2·L·b·s·h
        act_working = tokens_mb * per_tok_layer  # one layer recomputed in backward
    else:
        act_saved = m.num_layers * tokens_mb * per_tok_layer
        act_working = 0.0
    act_saved += 2 * tokens_mb * boundary  # final norm input and output
    if tr.loss == "standard":
        logits = LOGITS_STANDARD_BYTES * tokens_mb * m.vocab_size
    else:
        logits = LOGITS_CHUNKED_BYTES * min(tokens_mb, CHUNKED_LOSS_TOKENS) * m.vocab_size
    trainable_grad_bytes = (
        counts.total * recipe.gradients if full else adapter_total * ADAPTER_GRAD_BYTES
    )
    if tr.sharding == "none":
        # DDP's reducer keeps a bucket copy of all gradients (PyTorch DDP docs,
        # gradient_as_bucket_view: 'saved memory size will be equal to the total gradients size').
        buckets = trainable_grad_bytes
    elif tr.sharding in ("zero1", "zero2"):
        buckets = min(trainable_grad_bytes, ZERO_BUCKET_BYTES)
    else:
        buckets = 0.0
    weight_bytes = base_weight_bytes(tr.method, counts)
    mem = MemoryModel(
        weights=weight_bytes,
        gradients=counts.total * recipe.gradients,
        master=counts.total * recipe.master,
        optimizer=counts.total * recipe.moments,
        adapters_weights=adapter_total * ADAPTER_WEIGHT_BYTES,
        adapters_grads=adapter_total * ADAPTER_GRAD_BYTES,
        adapters_moments=adapter_total * ADAPTER_MOMENT_BYTES,
        activations_saved=act_saved,
        activations_working=act_working,
        logits=logits,
        qlora_buffer=BF16_BYTES * counts.largest_linear if tr.method == "qlora" else 0.0,
        layer_gather=2 * BF16_BYTES * counts.layer,
        grad_buckets=buckets,
        overhead=hw.framework_overhead_gib * GIB,
        sharding=tr.sharding,
        offload=tr.cpu_offload_optimizer,
    )
    capacity = gpu.memory_gib * GIB
    usable = capacity * hw.usable_memory_fraction
    gpus_needed = mem.gpus_needed(usable)
    if tr.auto_gpu_count and gpus_needed is not None:
        n = gpus_needed
    else:
        n = tr.num_gpus
    parts = mem.split(n)
    mem_total = sum(parts.values())
    fits = mem_total <= usable
    if not fits:
        if gpus_needed is None:
            warnings.append(
                "Does not fit on any number of these GPUs with this sharding: shard more "
                "(ZeRO-3), offload the optimizer, cut the micro-batch or sequence length, or use "
                "a bigger GPU."
            )
        else:
            warnings.append(f"Does not fit on {n} GPU(s): needs {gpus_needed}.")
    nodes = math.ceil(n / hw.gpus_per_node)

    # --- Time (article 000: GPU-hours = FLOPs ÷ (peak × MFU); 001: GPUs held vs computing).
    peak = gpu.bf16_tflops * TERA
    if not gpu.bf16_supported:
        warnings.append(f"{gpu.name} has no BF16: timings use its FP16 rate (FP16 + loss scaling).")
    comm = eff.comm_overhead
    if comm is None:
        comm = comm_overhead_auto(n, hw.gpus_per_node, gpu.interconnect, tr.sharding, full)
    slowdown = (1.0 + comm) * (eff.qlora_slowdown if tr.method == "qlora" else 1.0)
    if tr.cpu_offload_optimizer:
        slowdown *= eff.offload_slowdown
    download_s = (
        0.0 if ov.weights_cached else counts.total * BF16_BYTES / (ov.download_gb_per_s * GB)
    )
    nccl_s = ov.nccl_init_min * SECONDS_PER_MINUTE if n > 1 else 0.0
    fixed_wall_s = (
        ov.provisioning_min * SECONDS_PER_MINUTE
        + download_s
        + ov.warmup_min * SECONDS_PER_MINUTE
        + nccl_s
        + ov.idle_hours_per_run * SECONDS_PER_HOUR
    )
    gen_flops_per_token = 2.0 * counts.matmul_active  # generation: a forward pass (article 000)
    eval_tokens = ov.eval_passes_per_run * ov.eval_examples * ov.eval_output_tokens
    ckpt_bpp = (
        (recipe.master + recipe.moments + (0 if recipe.master else recipe.weights)) if full else 0.0
    )
    resumable = counts.total * ckpt_bpp + adapter_total * (
        ADAPTER_WEIGHT_BYTES + ADAPTER_MOMENT_BYTES
    )
    ckpt_write_s = resumable / (ov.checkpoint_write_gb_per_s * GB)
    plan = _Plan(
        total_flops=total_flops,
        slowdown=slowdown,
        num_gpus=n,
        fixed_wall_s=fixed_wall_s,
        eval_flops=eval_tokens * gen_flops_per_token,
        rl_flops=ov.rl_generation_ratio * tokens_processed * gen_flops_per_token,
        ckpt_write_s=ckpt_write_s,
        ckpt_interval_s=ov.checkpoint_interval_min * SECONDS_PER_MINUTE,
        peak=peak,
        gen_mfu=ov.generation_mfu,
    )
    od = gpu.on_demand_usd_per_hour
    rt = _run_time(plan, eff.mfu, od)
    achieved = rt.achieved_flops_per_s

    # --- Cost and spot (article 001 'Interruptible capacity').
    lam = nodes * sp.interruptions_per_node_hour
    f_spot = cal.spot_overhead_factor(
        lam, ov.checkpoint_interval_min / 60.0, sp.restart_overhead_min / 60.0
    )
    spot_price = gpu.spot_usd_per_hour
    ratio: float | None = None
    spot_usd: float | None = None
    take_spot: bool | None = None
    if spot_price is not None:
        spot_usd = rt.held_gpu_hours * f_spot * spot_price
        if od > 0:  # the ratio needs an on-demand price to compare with
            ratio = spot_price / od * f_spot
            take_spot = ratio < 1.0
    per_gpu_s_usd = n * od / SECONDS_PER_HOUR
    hi = min(eff.mfu * (1 + eff.mfu_band), 1.0)
    lo = eff.mfu * (1 - eff.mfu_band)
    low_usd = _run_time(plan, hi, od).on_demand_usd
    high_usd = _run_time(plan, lo, od).on_demand_usd if lo > 0 else math.inf
    startup_s = fixed_wall_s - ov.idle_hours_per_run * SECONDS_PER_HOUR
    cost = CostBreakdown.model_construct(
        on_demand_usd_per_hour=od,
        spot_usd_per_hour=spot_price,
        compute_only_usd=rt.compute_gpu_s / SECONDS_PER_HOUR * od,
        training_usd=rt.train_wall_s * per_gpu_s_usd,
        startup_usd=startup_s * per_gpu_s_usd,
        checkpoint_usd=rt.checkpoint_writes_s * per_gpu_s_usd,
        evaluation_usd=rt.eval_s * per_gpu_s_usd,
        rl_generation_usd=rt.rl_s * per_gpu_s_usd,
        idle_usd=ov.idle_hours_per_run * SECONDS_PER_HOUR * per_gpu_s_usd,
        on_demand_usd=rt.on_demand_usd,
        spot_factor=f_spot,
        job_interruptions_per_hour=lam,
        spot_price_ratio=ratio,
        spot_usd=spot_usd,
        take_spot=take_spot,
        usd_per_1e18_flops=cal.usd_per_1e18_flops(od, achieved),
        low_usd=low_usd,
        high_usd=high_usd,
    )

    # --- Checkpoints (article 001: resumable = fp32 master + two moments, 12 B/param).
    checkpoint = CheckpointSummary.model_construct(
        resumable_bytes=resumable,
        bytes_per_param=ckpt_bpp if full else ADAPTER_WEIGHT_BYTES + ADAPTER_MOMENT_BYTES,
        write_s=ckpt_write_s,
        writes_per_run=rt.writes,
        storage_bytes=resumable * pj.checkpoints_retained,
    )

    # --- Project (article 000 'Where the money actually goes'; 001; 004 sample budget).
    runs = pj.planned_runs + pj.failed_runs
    run_usd = rt.on_demand_usd
    if pj.billing == "spot" and spot_usd is not None:
        run_usd = spot_usd
    elif pj.billing == "spot":
        warnings.append("No spot price for this GPU: the project is priced on-demand.")
    bill_scale = run_usd / rt.on_demand_usd if rt.on_demand_usd > 0 else 1.0
    storage_usd = checkpoint.storage_bytes / GB * pj.storage_usd_per_gb_month * pj.storage_months
    engineering_usd = (pj.engineering_hours + pj.data_prep_hours) * pj.hourly_rate_usd
    fixed_usd = storage_usd + engineering_usd
    project = ProjectSummary.model_construct(
        runs=runs,
        run_usd=run_usd,
        runs_usd=runs * run_usd,
        evaluation_usd=runs * cost.evaluation_usd * bill_scale,
        storage_usd=storage_usd,
        engineering_usd=engineering_usd,
        total_usd=runs * run_usd + fixed_usd,
        low_usd=runs * low_usd * bill_scale + fixed_usd,
        high_usd=runs * high_usd * bill_scale + fixed_usd,
    )

    # --- Step-based cross-check (article 004 'Calculate GPU time').
    step_check = None
    if eff.step_time_s:
        eff_batch = b * tr.grad_accum * n
        steps_per_epoch = math.ceil(sequences_per_epoch / eff_batch)
        # In 'tokens' mode the total already covers every epoch: count it as one pass.
        passes = data.epochs if data.mode == "examples" else 1.0
        total_steps = math.ceil(steps_per_epoch * passes)
        wall = total_steps * eff.step_time_s
        tokens_per_step = eff_batch * s
        step_check = StepCheck.model_construct(
            effective_batch=eff_batch,
            steps_per_epoch=steps_per_epoch,
            total_steps=total_steps,
            step_time_s=eff.step_time_s,
            wall_s=wall,
            gpu_hours=wall * n / SECONDS_PER_HOUR,
            implied_mfu=tokens_per_step * fpt.total / eff.step_time_s / (peak * n),
        )
        if step_check.implied_mfu > 1:
            warnings.append(
                f"The measured step time implies {step_check.implied_mfu:.0%} MFU, above the "
                "GPU's peak: check the step time, batch and sequence length."
            )
    measured_mfu = None
    if eff.measured_tokens_per_s:
        measured_mfu = cal.mfu_from_tokens_per_s(eff.measured_tokens_per_s, fpt.total, peak)
        if measured_mfu > 1:
            warnings.append(
                f"The logged tokens/s imply {measured_mfu:.0%} MFU, above the GPU's peak: "
                "is it per GPU, and processed (not useful) tokens?"
            )

    # --- The articles' simple rules, for comparison.
    coef = simple_coefficient(full, ckpt)
    n_active = counts.total_active
    simple_flops = coef * n_active * tokens_processed
    attn_coef = 8.0 if ckpt else 6.0
    simple_flops_attn = (
        coef * n_active + attn_coef * m.num_layers * s * m.hidden_size
    ) * tokens_processed
    simple_bpp = recipe.bytes_per_param
    simple_state = counts.total * simple_bpp
    simple = SimpleRules.model_construct(
        flop_coefficient=coef,
        flops=simple_flops,
        gpu_hours=simple_flops / (peak * eff.mfu) / SECONDS_PER_HOUR,
        attention_coefficient=attn_coef,
        flops_with_attention=simple_flops_attn,
        gpu_hours_with_attention=simple_flops_attn / (peak * eff.mfu) / SECONDS_PER_HOUR,
        bytes_per_param=simple_bpp,
        state_bytes=simple_state,
        activations_bytes=2.0 * m.num_layers * b * s * m.hidden_size,
        gpus_needed=max(1, math.ceil(simple_state / usable)),
        attention_share=attention_share_simple(m.num_layers, s, m.hidden_size, n_active),
    )

    state_total = (
        mem.weights + mem.gradients + mem.master + mem.optimizer
        + mem.adapters_weights + mem.adapters_grads + mem.adapters_moments
    )  # fmt: skip
    return EstimateResult.model_construct(
        params=ParamSummary.model_construct(
            total=counts.total,
            active=counts.total_active,
            embedding=counts.embedding,
            lm_head=counts.lm_head,
            non_embedding=counts.non_embedding,
            decoder_linear=counts.decoder_linear,
            trainable=trainable,
            adapter=adapter_total,
            adapter_active=adapter_active,
        ),
        tokens=TokenSummary.model_construct(
            useful_tokens=useful,
            useful_fraction=fraction,
            tokens_processed=tokens_processed,
            seq_len=s,
            sequences_per_epoch=sequences_per_epoch,
        ),
        flops=FlopBreakdown.model_construct(
            base_per_token=fpt.base,
            recompute_per_token=fpt.recompute,
            attention_per_token=fpt.attention,
            adapters_per_token=fpt.adapters,
            per_token=fpt.total,
            total_flops=total_flops,
            attention_share=attention_share,
            adapter_share=fpt.adapters / fpt.total,
        ),
        memory=MemoryBreakdown.model_construct(
            weights_bytes=parts["weights"],
            gradients_bytes=parts["gradients"],
            master_bytes=parts["master"],
            optimizer_bytes=parts["optimizer"],
            adapters_bytes=parts["adapters"],
            activations_bytes=parts["activations"],
            activations_saved_bytes=act_saved,
            activations_working_bytes=act_working,
            logits_bytes=parts["logits"],
            buffers_bytes=parts["buffers"],
            overhead_bytes=parts["overhead"],
            total_bytes=mem_total,
            capacity_bytes=capacity,
            usable_bytes=usable,
            fits=fits,
            headroom_bytes=usable - mem_total,
            gpus_needed=gpus_needed,
            cpu_offloaded_bytes=mem.offloaded_bytes(),
            bytes_per_param=state_total / counts.total,
        ),
        time=TimeBreakdown.model_construct(
            num_gpus=n,
            nodes=nodes,
            peak_flops_per_s=peak,
            achieved_flops_per_s=achieved,
            effective_mfu=achieved / peak,
            comm_overhead=comm,
            tokens_per_s_per_gpu=achieved / fpt.total,
            compute_gpu_hours=rt.compute_gpu_s / SECONDS_PER_HOUR,
            train_wall_s=rt.train_wall_s,
            provisioning_s=ov.provisioning_min * SECONDS_PER_MINUTE,
            download_s=download_s,
            warmup_s=ov.warmup_min * SECONDS_PER_MINUTE,
            nccl_s=nccl_s,
            checkpoint_writes_s=rt.checkpoint_writes_s,
            eval_s=rt.eval_s,
            rl_generation_s=rt.rl_s,
            idle_s=ov.idle_hours_per_run * SECONDS_PER_HOUR,
            held_wall_s=rt.held_wall_s,
            held_gpu_hours=rt.held_gpu_hours,
        ),
        cost=cost,
        checkpoint=checkpoint,
        project=project,
        step_check=step_check,
        measured_mfu=measured_mfu,
        simple=simple,
        warnings=tuple(warnings),
    )


class SweepPoint(NamedTuple):
    mfu: float
    on_demand_usd: float
    spot_usd: float | None
    held_gpu_hours: float
    wall_s: float


def sweep_mfu(inputs: EstimateInputs, mfus: list[float]) -> list[SweepPoint]:
    """Cost per run over MFU values, reusing everything that does not depend on MFU.

    Used by the cost-vs-MFU plot; one estimate builds the plan, each point is a few float ops.
    """
    base = estimate(inputs)
    plan = _plan_from(inputs, base)
    od = inputs.hardware.gpu.on_demand_usd_per_hour
    spot = inputs.hardware.gpu.spot_usd_per_hour
    f = base.cost.spot_factor
    out = []
    for mfu in mfus:
        rt = _run_time(plan, mfu, od)
        spot_usd = rt.held_gpu_hours * f * spot if spot is not None else None
        out.append(SweepPoint(mfu, rt.on_demand_usd, spot_usd, rt.held_gpu_hours, rt.held_wall_s))
    return out


def _plan_from(inputs: EstimateInputs, r: EstimateResult) -> _Plan:
    """Rebuild the MFU-independent plan from a result (keeps sweep and estimate in step)."""
    ov = inputs.overheads
    t = r.time
    fixed = t.provisioning_s + t.download_s + t.warmup_s + t.nccl_s + t.idle_s
    slowdown = t.peak_flops_per_s * inputs.efficiency.mfu / t.achieved_flops_per_s
    gen_rate = t.peak_flops_per_s * ov.generation_mfu * t.num_gpus
    return _Plan(
        total_flops=r.flops.total_flops,
        slowdown=slowdown,
        num_gpus=t.num_gpus,
        fixed_wall_s=fixed,
        eval_flops=t.eval_s * gen_rate,
        rl_flops=t.rl_generation_s * gen_rate,
        ckpt_write_s=r.checkpoint.write_s,
        ckpt_interval_s=ov.checkpoint_interval_min * SECONDS_PER_MINUTE,
        peak=t.peak_flops_per_s,
        gen_mfu=ov.generation_mfu,
    )
