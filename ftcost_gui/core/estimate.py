"""The estimate: inputs → memory floor, GPUs, FLOPs, time, cost, project budget.

Orchestration only; each step lives in its own module and cites its article there:
params.py (parameters, LoRA adapters) → tokens.py (tokens D, training FLOPs) → memory_step.py
(memory per GPU, GPU count) → time_cost.py (time plan, run time, cost, project) → checks.py
(step check, measured MFU, the articles' simple rules). ``plan`` runs everything that does not
depend on the MFU; ``estimate`` finishes it at the inputs' MFU, ``sweep`` at many.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from . import alignment, rollout
from .alignment import ExtraFlops, RlShape
from .architecture import ParamCounts, effective_counts
from .checks import measured_mfu, simple_rules, step_check
from .inputs import EstimateInputs
from .memory import RECIPES
from .memory_step import MemoryInputs, memory_per_gpu
from .params import NO_ADAPTERS, lora_adapters, param_summary
from .results import (
    EstimateResult,
    FlopBreakdown,
    MemoryBreakdown,
    ParamSummary,
    TokenSummary,
    build,
)
from .rl_summary import alignment_summary
from .time_cost import (
    Checkpoint,
    TimePlan,
    plan_time,
    price_run,
    resumable_checkpoint,
    run_time,
    spot_factor,
    time_breakdown,
)
from .tokens import count_flops


class Plan(NamedTuple):
    """Everything of one estimate that does not depend on the MFU."""

    inputs: EstimateInputs
    counts: ParamCounts
    params: ParamSummary
    tokens: TokenSummary
    flops: FlopBreakdown
    memory: MemoryBreakdown
    checkpoint: Checkpoint
    time: TimePlan
    nodes: int
    warnings: tuple[str, ...]
    # DPO/GRPO/PPO (alignment.py, rollout.py): the policy update alone, the extra forwards, the
    # rollouts' shape and engines (None for SFT and DPO).
    policy_flops: float
    extra_flops: ExtraFlops
    shape: RlShape | None
    engines: rollout.Engines | None


def plan(inputs: EstimateInputs) -> Plan:
    """Parameters, tokens, FLOPs, memory and GPUs, and the MFU-free part of the time."""
    m, tr, gpu = inputs.model, inputs.training, inputs.hardware.gpu
    warnings: list[str] = []
    counts = effective_counts(m)
    full = RECIPES[tr.method].full
    adapters = NO_ADAPTERS if full else lora_adapters(m, counts, tr)
    tokens = alignment.objective_tokens(inputs, warnings)
    ckpt = tr.checkpointing == "full"
    flops = count_flops(m, counts.matmul_active, adapters.active, full, ckpt, tokens)
    rl = alignment.is_rl(inputs.objective)
    policy_flops = flops.total_flops * (inputs.objective.policy_epochs if rl else 1)
    extra = alignment.extra_flops(inputs, counts, tokens, adapters.active)
    if policy_flops + extra.total != flops.total_flops:  # the trainer runs them all at the MFU
        flops = flops.model_copy(update={"total_flops": policy_flops + extra.total})
    memory, n = memory_per_gpu(MemoryInputs.of(inputs), counts, adapters, warnings)
    shape = alignment.rl_shape(inputs) if rl else None
    ev, rl_gen, engines = rollout.generation_plans(inputs, counts, shape, n, warnings)
    extra_gpus = engines.extra_gpus if engines else 0
    if not gpu.bf16_supported:
        warnings.append(f"{gpu.name} has no BF16: timings use its FP16 rate (FP16 + loss scaling).")
    checkpoint = resumable_checkpoint(tr.method, counts, adapters)
    time = plan_time(
        inputs, counts, flops.total_flops, tokens.tokens_processed, n, checkpoint,
        (ev, rl_gen, extra_gpus),
    )  # fmt: skip
    # The job's nodes: the trainer's GPUs and any rollout GPUs held beside them (spot's λ counts
    # every node the job needs).
    nodes = math.ceil((n + extra_gpus) / inputs.hardware.gpus_per_node)
    return Plan(
        inputs, counts, param_summary(counts, adapters, full), tokens, flops, memory, checkpoint,
        time, nodes, tuple(warnings), policy_flops, extra, shape, engines,
    )  # fmt: skip


def finish(p: Plan) -> EstimateResult:
    """The estimate at the inputs' MFU and prices."""
    inputs = p.inputs
    warnings = list(p.warnings)
    rt = run_time(p.time, inputs.efficiency.mfu, inputs.hardware.gpu.on_demand_usd_per_hour)
    prices = price_run(inputs, p.time, rt, p.checkpoint, p.nodes, warnings)
    peak, n = p.time.peak, p.time.num_gpus
    return build(
        EstimateResult,
        params=p.params,
        tokens=p.tokens,
        flops=p.flops,
        memory=p.memory,
        time=time_breakdown(inputs, p.time, rt, p.nodes, _trainer_flops_per_token(p)),
        cost=prices.cost,
        checkpoint=prices.checkpoint,
        project=prices.project,
        step_check=step_check(inputs, p.tokens, p.flops, n, peak, warnings),
        measured_mfu=measured_mfu(inputs, p.flops, peak, warnings),
        simple=simple_rules(inputs, p.counts, p.tokens, peak, p.memory.usable_bytes),
        alignment=alignment_summary(p, rt),
        warnings=tuple(warnings),
    )


def _trainer_flops_per_token(p: Plan) -> float:
    """FLOPs the trainer spends per trained token: the update's, plus DPO/RL's extra forwards and
    repeated updates (so tokens/s per GPU is trained tokens, not update-only tokens)."""
    if p.inputs.objective.objective == "sft":
        return p.flops.per_token
    return p.flops.total_flops / p.tokens.tokens_processed


def estimate(inputs: EstimateInputs) -> EstimateResult:
    """Compute every figure of one estimate. Pure; raises nothing for validated inputs."""
    return finish(plan(inputs))


class SweepPoint(NamedTuple):
    mfu: float
    on_demand_usd: float
    spot_usd: float | None
    held_gpu_hours: float
    wall_s: float


def sweep(p: Plan, mfus: list[float]) -> list[SweepPoint]:
    """Cost per run over MFU values: each point is a few float operations on the plan."""
    gpu = p.inputs.hardware.gpu
    od, spot = gpu.on_demand_usd_per_hour, gpu.spot_usd_per_hour
    f = spot_factor(p.inputs, p.nodes)
    out = []
    for mfu in mfus:
        rt = run_time(p.time, mfu, od)
        spot_usd = rt.held_gpu_hours * f * spot if spot is not None else None
        out.append(SweepPoint(mfu, rt.on_demand_usd, spot_usd, rt.held_gpu_hours, rt.held_wall_s))
    return out


def sweep_mfu(inputs: EstimateInputs, mfus: list[float]) -> list[SweepPoint]:
    """Cost per run over MFU values for one set of inputs (one plan, then float operations)."""
    return sweep(plan(inputs), mfus)
