"""Plan search: what to rent and how to run the scenario, within a deadline and a budget.

Every candidate of ``plan_space`` (offer × method × rentable count × batch split × checkpointing
× sharding) gets a verdict: on the Pareto front of cost per run against wall-clock, dominated by
a front plan (another is cheaper and at least as fast, or faster and no dearer), over the
deadline, over the budget, more GPUs than allowed, fits only within the near-limit margin (when
the constraints keep it: the estimate's own ``memory_status``), does not fit, or no price at this
billing.

The search is exact and cheap by bounding, not by sampling:

1. GPU-independent work once: per (method, checkpointing, micro-batch) one core ``plan`` gives
   the FLOPs and the MFU's inputs; per (…, sharding, count) the memory model gives the bytes per
   GPU (``memory_step.memory_model``, the estimate's own).
2. Per offer and candidate, a few float operations: fits (bytes ≤ the GPU's usable memory, with
   the margin left free),
   and a LOWER BOUND of the wall-clock (start-up + FLOPs ÷ (peak × MFU) ÷ GPUs: communication,
   checkpoint writes, evaluation and slowdowns only add) and of the cost (rented GPUs × that).
3. Candidates in order of their cost bound; one whose bounds are already beaten by a front plan
   on both axes is dominated without more work; the others get the estimate's own ``plan`` (shared
   across offers with the same GPU facts, as ``compare.GpuComparer``) and price (``sweep``).

So every figure on the front is the estimate's, and a plan the bounds skip provably loses. The
weighted objective (``PlanConstraints.cost_weight``) picks from the front: a best plan under any
non-negative weights is never dominated. Pure: no Qt, no files.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from . import alignment
from .architecture import ParamCounts, effective_counts
from .compare import Offer
from .estimate import plan
from .inputs import EstimateInputs
from .layout import memory_status
from .memory import RECIPES, MemoryModel
from .memory_step import MemoryInputs, memory_model
from .params import NO_ADAPTERS, Adapters, lora_adapters
from .plan import Plan
from .plan_front import (
    VERDICT_ORDER,
    Front,
    GpuTally,
    PlanOption,
    PlanSearch,
    Verdict,
    finish_front,
    gpu_verdicts,
    rank_front,
    resolve,
)
from .plan_space import (
    Knobs,
    PlanConstraints,
    batch_splits,
    effective_batch,
    node_size,
    plan_inputs,
    rentable_counts,
    shardings_for,
    with_knobs,
)
from .throughput import choose_mfu, default_mfu
from .time_cost import run_time, spot_factor, spot_run_usd
from .units import GIB, SECONDS_PER_HOUR, TERA

# --- step 1: what does not depend on the GPU ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Ref:
    """One (method, checkpointing, micro-batch): what every GPU's bound needs."""

    method: str
    checkpointing: bool
    micro_batch: int
    total_flops: float
    work_per_token: float  # the trainer's FLOPs per processed token (as estimate._layout)
    tokens_mb: float
    quantized: float  # QLoRA: the quantised weights dequantised per pass
    fixed_s: float  # start-up the run holds its GPUs for, whatever the count (lower bound)


@dataclass(slots=True)
class _Space:
    inputs: EstimateInputs
    counts: ParamCounts
    adapters: dict[str, Adapters]
    refs: dict[tuple[str, bool, int], _Ref] = field(default_factory=dict)
    memory: dict[tuple[object, ...], MemoryModel] = field(default_factory=dict)
    totals: dict[tuple[object, ...], float] = field(default_factory=dict)
    by_gib: dict[float, dict[int, list[float]]] = field(default_factory=dict)
    plans_run: int = 0

    def ref(self, method: str, ckpt: bool, mb: int, batch: int) -> _Ref:
        key = (method, ckpt, mb)
        found = self.refs.get(key)
        if found is None:
            k = Knobs(method, 1, mb, batch // mb, ckpt, self.inputs.training.sharding)
            p = plan(with_knobs(self.inputs, k))
            self.plans_run += 1
            quantized = p.counts.decoder_linear if method == "qlora" else 0.0
            found = self.refs[key] = _Ref(
                method, ckpt, mb, p.time.total_flops,
                p.flops.total_flops / p.tokens.tokens_processed,
                p.time.mfu.default.tokens_per_microbatch, quantized,
                p.time.fixed_wall_s - p.time.nccl_s,
            )  # fmt: skip
        return found

    def totals_for(
        self, configs: dict[int, list[Config]], gpu_memory_gib: float
    ) -> dict[int, list[float]]:
        """Bytes per GPU of every config, by count (shared by every GPU but for GRPO/PPO)."""
        gib = gpu_memory_gib if alignment.is_rl(self.inputs.objective) else 0.0
        found = self.by_gib.get(gib)
        if found is None:
            found = self.by_gib[gib] = {
                n: [self.total_bytes(k, gib) for k, _ in row] for n, row in configs.items()
            }
        return found

    def total_bytes(self, k: Knobs, gpu_memory_gib: float) -> float:
        """Bytes per GPU on k.num_gpus GPUs (the memory model's device total)."""
        # Only GRPO/PPO's rollout reservation reads the GPU's memory (memory_step): other
        # objectives share one memory model across GPUs.
        gib = gpu_memory_gib if alignment.is_rl(self.inputs.objective) else 0.0
        key = (k, gib)
        total = self.totals.get(key)
        if total is None:
            mkey = (k.method, k.checkpointing, k.micro_batch, k.grad_accum, k.sharding, gib)
            mm = self.memory.get(mkey)
            if mm is None:
                mi = MemoryInputs.of(with_knobs(self.inputs, k))
                mi = replace(mi, gpu_memory_gib=gib or mi.gpu_memory_gib)
                mm = self.memory[mkey] = memory_model(mi, self.counts, self.adapters[k.method])
            total = self.totals[key] = mm.total(k.num_gpus)
        return total


Config = tuple[Knobs, tuple[str, bool, int]]


def _configs(
    methods: Sequence[str], counts: list[int], batch: int, sharding: str
) -> dict[int, list[Config]]:
    """Every way to run on each count (plan_space.knobs_for), with its reference key."""
    out: dict[int, list[Config]] = {}
    for n in counts:
        row = out[n] = []
        for mb, ga in batch_splits(batch, n):
            for sh in shardings_for(n, sharding):
                for method in methods:
                    for ckpt in (False, True):
                        row.append((Knobs(method, n, mb, ga, ckpt, sh), (method, ckpt, mb)))
    return out


def _mfu(space: _Space, r: _Ref, o: Offer) -> float:
    """The MFU the estimate gives this GPU (estimate._layout's default_mfu + choose_mfu)."""
    g, eff = o.spec, space.inputs.efficiency
    d = default_mfu(
        r.method, r.tokens_mb, r.work_per_token, g.bf16_tflops, g.achievable_fraction,
        r.quantized, g.memory_bandwidth_gb_s, r.checkpointing,
    )  # fmt: skip
    return choose_mfu(eff.mfu, eff.stack_efficiency, d).mfu


def _price(o: Offer, billing: str) -> float | None:
    """The hourly price a plan on ``o`` pays, or None: no price at this billing."""
    if billing == "spot":
        return o.spec.spot_usd_per_hour
    if o.pricing_tier == "spot":  # an interruptible offer is not on-demand capacity
        return None
    return o.spec.on_demand_usd_per_hour


# --- the search ---------------------------------------------------------------------------------


# A candidate in the queue: (cost bound, wall bound, sequence, offer index, knobs); the sequence
# keeps the sort on floats and ints (knobs are not ordered) and stable.
_Candidate = tuple[float, float, int, int, Knobs]


def search_plans(
    inputs: EstimateInputs,
    offers: Sequence[Offer],
    constraints: PlanConstraints | None = None,
) -> PlanSearch:
    """The Pareto front of cost against wall-clock over every way to run ``inputs`` on
    ``offers`` that meets ``constraints``, ranked by its objective, and why the rest lost."""
    started = time.perf_counter()
    c = constraints or PlanConstraints()
    offers = tuple(offers)
    billing = c.billing
    deadline = c.deadline_s if c.deadline_s is not None else math.inf
    budget = c.budget_usd if c.budget_usd is not None else math.inf
    max_held = c.max_gpus or math.inf
    counts = effective_counts(inputs.model)
    adapters: dict[str, Adapters] = {
        m: NO_ADAPTERS if RECIPES[m].full else lora_adapters(inputs.model, counts, inputs.training)
        for m in c.methods
    }
    scenario = plan(inputs)
    batch = c.effective_batch or effective_batch(inputs, scenario.time.num_gpus)
    space = _Space(inputs, counts, adapters, plans_run=1)
    usable_share = scenario.memory.usable_bytes / scenario.memory.capacity_bytes
    margin = inputs.hardware.near_limit_fraction if c.memory_margin else 0.0
    current = _scenario_point(scenario, billing)

    # Step 2: every candidate's verdict from bounds, or a place in the queue.
    tallies = [GpuTally() for _ in offers]
    verdicts: dict[str, int] = dict.fromkeys(VERDICT_ORDER, 0)
    queue: list[_Candidate] = []
    seq = 0
    candidates = 0
    counts_by_offer = [rentable_counts(inputs, o, batch, c.max_gpus) for o in offers]
    configs = _configs(c.methods, sorted({n for ns in counts_by_offer for n in ns}), batch,
                       inputs.training.sharding)  # fmt: skip
    for oi, o in enumerate(offers):
        tally, gpu_counts = tallies[oi], counts_by_offer[oi]
        tally.most_gpus = gpu_counts[-1] if gpu_counts else 0
        if not gpu_counts:  # no count this offer rents can split the batch evenly
            tally.see("no_split", math.inf, math.inf)
            continue
        price = _price(o, billing)
        if price is None:
            n_no = sum(len(configs[n]) for n in gpu_counts)
            candidates += n_no
            verdicts["no_price"] += n_no
            tally.see("no_price", math.inf, math.inf)
            continue
        usable = o.spec.memory_gib * GIB * usable_share
        peak = o.spec.bf16_tflops * TERA
        node = node_size(inputs, o)
        busy_by: dict[tuple[str, bool, int], tuple[float, float]] = {}
        totals = space.totals_for(configs, o.spec.memory_gib)
        no_fit = near = late = dear = 0
        late_wall = dear_cost = math.inf
        for n in gpu_counts:
            f = spot_factor(inputs, math.ceil(n / node)) if billing == "spot" else 1.0
            rate = n * price / SECONDS_PER_HOUR
            row = configs[n]
            candidates += len(row)
            for (k, rkey), total in zip(row, totals[n], strict=True):
                if total > usable:
                    no_fit += 1
                    continue
                if usable - total < margin * usable:  # layout.memory_status's near_limit
                    near += 1
                    continue
                hit = busy_by.get(rkey)
                if hit is None:
                    r = space.ref(k.method, k.checkpointing, k.micro_batch, batch)
                    hit = busy_by[rkey] = (r.fixed_s, r.total_flops / (peak * _mfu(space, r, o)))
                wall = (hit[0] + hit[1] / n) * f
                cost = wall * rate
                if wall > deadline:
                    late += 1
                    late_wall = min(late_wall, wall)
                elif cost > budget:
                    dear += 1
                    dear_cost = min(dear_cost, cost)
                else:
                    queue.append((cost, wall, seq, oi, k))
                    seq += 1
        verdicts["does_not_fit"] += no_fit
        verdicts["near_limit"] += near
        verdicts["over_deadline"] += late
        verdicts["over_budget"] += dear
        if no_fit:
            tally.see("does_not_fit", math.inf, math.inf)
        if near:
            tally.see("near_limit", math.inf, math.inf)
        if late:
            tally.see("over_deadline", math.inf, late_wall)
        if dear:
            tally.see("over_budget", dear_cost, math.inf)

    # Step 3: run the estimate for the candidates the front does not already beat.
    queue.sort()
    front = Front()
    options: list[PlanOption] = []
    plans: dict[tuple[object, ...], Plan] = {}
    # Per offer, its cheapest candidate the bounds showed dominated: (cost, wall, front id).
    pruned: dict[int, tuple[float, float, int]] = {}
    n_pruned = 0
    # A run's time but its communication (and checkpoint writes, which follow the time) holds
    # for every sharding of the same GPU, method, checkpointing, micro-batch and count: a
    # tighter bound for the siblings of a candidate already run.
    # GRPO/PPO's rollouts may depend on the sharding: no sibling bound there.
    siblings: dict[tuple[object, ...], float] = {}
    rl = alignment.is_rl(inputs.objective)
    for cost_lb, wall_lb, _, oi, knobs in queue:
        o = offers[oi]
        skey = (o.facts, knobs.method, knobs.checkpointing, knobs.micro_batch, knobs.num_gpus)
        sib = siblings.get(skey)
        if sib is not None:
            price = _price(o, billing)
            assert price is not None
            wall_lb = max(wall_lb, sib)
            cost_lb = max(cost_lb, wall_lb * knobs.num_gpus * price / SECONDS_PER_HOUR)
            if wall_lb > deadline or cost_lb > budget:
                verdict_lb: Verdict = "over_deadline" if wall_lb > deadline else "over_budget"
                verdicts[verdict_lb] += 1
                tallies[oi].see(verdict_lb, cost_lb, wall_lb)
                continue
        beaten = front.beaten(cost_lb, wall_lb)
        if beaten is not None:
            n_pruned += 1
            if oi not in pruned:
                pruned[oi] = (cost_lb, wall_lb, beaten)
            continue
        cand = plan_inputs(inputs, o, knobs, billing)
        key = (o.facts, knobs)
        p = plans.get(key)
        if p is None:
            p = plans[key] = plan(cand)
            space.plans_run += 1
        p = p._replace(inputs=cand)
        cost, wall, base = _run_point(p, billing)
        held = p.time.rented_gpus + p.time.extra_gpus
        if not rl:
            siblings.setdefault(skey, base)
        verdict: Verdict
        beaten_by = None
        m = p.memory
        if not m.fits:
            verdict = "does_not_fit"
        elif memory_status(m.fits, m.headroom_bytes, m.usable_bytes, margin) == "near_limit":
            verdict = "near_limit"
        elif held > max_held:
            verdict = "too_many_gpus"
        elif wall > deadline:
            verdict = "over_deadline"
        elif cost > budget:
            verdict = "over_budget"
        else:
            beaten_by = front.beaten(cost, wall)
            verdict = "dominated" if beaten_by is not None else "front"
        ident = len(options)
        option = PlanOption(
            ident, o, oi, knobs, billing, cand, p, cost, wall, held, p.memory.fits, verdict,
            beaten_by,
        )  # fmt: skip
        options.append(option)
        if verdict == "front":
            for gone in front.add(cost, wall, ident):
                options[gone] = replace(options[gone], verdict="dominated", beaten_by=ident)
    ranked = rank_front([options[i] for i in front.ids], c.cost_weight)
    options = finish_front(options, ranked)
    verdicts["dominated"] += n_pruned
    for oi, (cost_lb, wall_lb, _) in pruned.items():
        tallies[oi].see("dominated", cost_lb, wall_lb)
    for o_ in options:
        verdicts[o_.verdict] += 1
        tallies[o_.offer_index].see(o_.verdict, o_.cost_usd, o_.wall_s)
    resolved = {oi: (c_, w_, resolve(options, by)) for oi, (c_, w_, by) in pruned.items()}
    gpus = gpu_verdicts(tallies, options, ranked, resolved)
    return PlanSearch(
        inputs=inputs, constraints=c, batch=batch, options=tuple(options), ranked=tuple(ranked),
        verdicts=verdicts, gpus=gpus, offers=offers, current=current, candidates=candidates,
        plans_run=space.plans_run, seconds=time.perf_counter() - started,
    )  # fmt: skip


def _run_point(p: Plan, billing: str) -> tuple[float, float, float]:
    """(cost of one run at the billing, wall-clock) as ``finish`` prices the plan, and the
    wall-clock without communication and checkpoint writes (the siblings' bound)."""
    gpu = p.inputs.hardware.gpu
    rt = run_time(p.time, p.time.mfu.mfu, gpu.on_demand_usd_per_hour)
    base = rt.held_wall_s - rt.comm_exposed_s * p.time.offload_slowdown - rt.checkpoint_writes_s
    if billing == "spot":
        f = spot_factor(p.inputs, p.nodes)
        assert gpu.spot_usd_per_hour is not None  # offers without a spot price were left out
        spot_usd = spot_run_usd(rt.held_gpu_hours, f, gpu.spot_usd_per_hour)
        return spot_usd, rt.held_wall_s * f, base * f
    return rt.on_demand_usd, rt.held_wall_s, base


def _scenario_point(p: Plan, billing: str) -> tuple[float, float] | None:
    if billing == "spot" and p.inputs.hardware.gpu.spot_usd_per_hour is None:
        return None
    return _run_point(p, billing)[:2]
