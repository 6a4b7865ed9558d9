"""The plan search in words: each plan's title and settings, why it is on the front, why each GPU
lost, the recommendation paragraph, and the what-fits figures.

Worded once for the window's Plan tab, ``ftcost plan`` and the report. GPU and provider names are
``Name`` parts (``blocks``), escaped by each renderer.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.plan_front import VERDICT_RANK, GpuVerdict, PlanOption, PlanSearch
from ..core.plan_space import Knobs
from ..core.units import SECONDS_PER_HOUR, fmt_gib, fmt_hours, fmt_usd
from ..core.what_fits import MIN_SEQ_LEN, FitFigures, WhatFits
from ..io.names import plain
from .blocks import Inline, Name, Part, inline_text
from .text import fmt_cost

METHOD_SHORT = {
    "full_amp_adamw": "Full",
    "full_adamw_8bit": "8-bit Adam",
    "full_bf16_adamw": "bf16 full",
    "lora": "LoRA",
    "qlora": "QLoRA",
}
SHARDING_SHORT = {"none": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3"}
BILLING_TEXT = {"on_demand": "on-demand", "spot": "spot"}
VERDICT_LABELS = {
    "front": "on the front",
    "dominated": "dominated",
    "over_deadline": "over the deadline",
    "over_budget": "over the budget",
    "too_many_gpus": "too many GPUs",
    "near_limit": "within the memory margin",
    "does_not_fit": "does not fit",
    "no_split": "cannot split the batch",
    "no_price": "no price",
}
OBJECTIVE_TEXT = {"cheapest": "the cheapest", "fastest": "the fastest"}


def hours(seconds: float) -> str:
    return fmt_hours(seconds / SECONDS_PER_HOUR)


def gpu_title(o: PlanOption) -> Inline:
    """'8 × H100 SXM' (and the provider and region when the catalog states them)."""
    where = ", ".join(x for x in (o.offer.provider, o.offer.region) if x)
    tail: Inline = (" (", Name(where), ")") if where else ()
    return (f"{o.knobs.num_gpus} × ", Name(o.offer.spec.name), *tail)


def how_text(k: Knobs) -> str:
    """'LoRA, micro-batch 4 × 4 accumulation, ZeRO-3, checkpointing off'."""
    parts = [METHOD_SHORT.get(k.method, k.method), f"micro-batch {k.micro_batch} × {k.grad_accum}"]
    if k.num_gpus > 1:
        parts.append(SHARDING_SHORT[k.sharding])
    parts.append("checkpointing " + ("on" if k.checkpointing else "off"))
    return ", ".join(parts)


def plan_title(o: PlanOption) -> Inline:
    """'8 × H100 SXM · LoRA, micro-batch 4 × 4, ZeRO-3, checkpointing off'."""
    return (*gpu_title(o), " · ", how_text(o.knobs))


def figures_text(o: PlanOption) -> str:
    """'$123 per run on-demand, 5.20 h'."""
    return f"{fmt_cost(o.cost_usd)} per run {BILLING_TEXT[o.billing]}, {hours(o.wall_s)}"


def _delta(a: PlanOption, b: PlanOption) -> str:
    """How a compares with b, e.g. '+$12, 3.10 h sooner'."""
    dc, dw = a.cost_usd - b.cost_usd, a.wall_s - b.wall_s
    cost = f"+{fmt_usd(dc)}" if dc >= 0 else f"−{fmt_usd(-dc)}"
    wall = f"{hours(-dw)} sooner" if dw < 0 else f"{hours(dw)} later"
    return f"{cost}, {wall}"


def why_on_front(search: PlanSearch, o: PlanOption) -> str:
    """Why a front plan is there: the cheapest, the fastest, or what its extra money buys."""
    cheapest, fastest = search.cheapest(), search.fastest()
    if o is cheapest and o is fastest:
        return "the cheapest and the fastest plan"
    if o is cheapest:
        return "the cheapest plan that meets the constraints"
    by_cost = sorted(search.front, key=lambda x: (x.cost_usd, x.wall_s))
    cheaper = by_cost[by_cost.index(o) - 1]
    text = f"{_delta(o, cheaper)} than the next cheaper plan"
    return ("the fastest plan: " if o is fastest else "") + text


@dataclass(frozen=True, slots=True)
class PlanCells:
    """One front plan as table cells (units in the headers)."""

    rank: str
    gpu: Inline
    how: str
    cost: str
    wall: str
    gpus: str  # held (rented + rollout GPUs)
    memory: str  # per GPU: device total of the GPU's memory (present/memory_texts.py)
    mfu: str
    why: str


PLAN_HEADER = ("#", "GPUs", "How", "Cost / run", "Wall-clock", "GPUs held", "Memory / GPU",
               "MFU", "Why it is here")  # fmt: skip


def plan_cells(search: PlanSearch) -> list[PlanCells]:
    out = []
    for rank, o in enumerate(search.front, 1):
        r = o.result
        mem = o.plan.memory
        mfu = f"{r.time.mfu:.1%}" if r is not None else "-"
        out.append(
            PlanCells(
                rank=str(rank),
                gpu=gpu_title(o),
                how=how_text(o.knobs),
                cost=fmt_cost(o.cost_usd),
                wall=hours(o.wall_s),
                gpus=str(o.held_gpus),
                memory=f"{fmt_gib(mem.total_bytes)} of {fmt_gib(mem.capacity_bytes)}",
                mfu=mfu,
                why=why_on_front(search, o),
            )
        )
    return out


def hover_text(search: PlanSearch, i: int) -> str:
    """The plot's tooltip for one plan (plain text)."""
    o = search.options[i]
    lines = [inline_text(plan_title(o)), figures_text(o)]
    if o.verdict == "front":
        lines.append(f"#{search.ranked.index(i) + 1}: {why_on_front(search, o)}")
    elif o.verdict == "dominated" and o.beaten_by is not None:
        b = search.options[o.beaten_by]
        lines.append(f"dominated by #{search.ranked.index(b.index) + 1}: {_delta(o, b)}")
    else:
        lines.append(VERDICT_LABELS[o.verdict])
    lines.append(f"memory {fmt_gib(o.plan.memory.total_bytes)} / GPU")
    return "\n".join(lines)


def gpu_verdict_text(search: PlanSearch, g: GpuVerdict) -> Inline:
    """One GPU offer: why it won or lost."""
    o = search.offers[g.offer_index]
    name: Inline = (Name(o.spec.name),)
    if o.provider or o.region:
        name = (*name, " (", Name(", ".join(x for x in (o.provider, o.region) if x)), ")")
    c = search.constraints
    if g.verdict == "front" and g.option is not None:
        rank = search.ranked.index(g.option) + 1
        return (*name, f": #{rank} — ", figures_text(search.options[g.option]))
    if g.verdict == "dominated":
        tail = ""
        if g.beaten_by is not None:
            b = search.options[g.beaten_by]
            rank = search.ranked.index(b.index) + 1
            tail = f"; #{rank} ({figures_text(b)}) costs no more and finishes no later"
        if g.option is not None:
            own = f"its cheapest plan {figures_text(search.options[g.option])}"
        else:
            own = f"its cheapest plan ≥ {fmt_cost(g.cost_usd)} per run (≥ {hours(g.wall_s or 0.0)})"
        return (*name, f": dominated — {own}{tail}")
    if g.verdict == "over_deadline":
        return (
            *name,
            f": over the deadline — its fastest plan takes ≥ {hours(g.wall_s or 0.0)} "
            f"(deadline {fmt_hours(c.deadline_h or 0.0)})",
        )
    if g.verdict == "over_budget":
        return (
            *name,
            f": over the budget — its cheapest plan costs ≥ {fmt_cost(g.cost_usd)} "
            f"(budget {fmt_cost(c.budget_usd)})",
        )
    if g.verdict == "too_many_gpus":
        return (*name, f": needs more than the {c.max_gpus} GPUs allowed (rollout GPUs count)")
    if g.verdict == "near_limit":
        margin = search.inputs.hardware.near_limit_fraction
        return (
            *name,
            f": fits on up to {g.most_gpus} GPUs only within the {margin:.0%} near-limit memory "
            "margin, which the constraints keep free",
        )
    if g.verdict == "does_not_fit":
        return (*name, f": does not fit on up to {g.most_gpus} GPUs with any allowed method")
    if g.verdict == "no_split":
        return (
            *name,
            f": no count it rents splits the effective batch of {search.batch} sequences "
            f"(rented in units of {o.spec.rent_unit_gpus}, {o.spec.gpus_per_node} per node)",
        )
    why = "no spot price" if c.billing == "spot" else "a spot-only offer"
    return (*name, f": {why}")


def verdict_counts_text(search: PlanSearch) -> str:
    """'32,736 plans judged: 18 on the front, 17,121 dominated, …' (non-zero counts only)."""
    parts = [f"{n:,} {VERDICT_LABELS[v]}" for v, n in search.verdicts.items() if n]
    return f"{search.candidates:,} plans judged: " + ", ".join(parts)


# --- the recommendation ----------------------------------------------------------------------


def _why_chosen(search: PlanSearch) -> str:
    c = search.constraints
    limits = []
    if c.deadline_h is not None:
        limits.append(f"finishes within the {fmt_hours(c.deadline_h)} deadline")
    if c.budget_usd is not None:
        limits.append(f"stays within the {fmt_cost(c.budget_usd)} budget")
    if c.max_gpus is not None:
        limits.append(f"holds at most {c.max_gpus} GPUs")
    what = OBJECTIVE_TEXT.get(c.objective)
    if what is None:
        what = f"the best balance at {c.cost_weight:.0%} weight on cost"
    met = " that " + " and ".join(limits) if limits else ""
    return f"{what} plan{met}"


def main_risk(search: PlanSearch, o: PlanOption) -> str:
    """The first of: memory near its limit, the deadline or budget at the MFU band's low end,
    spot interruptions, else the MFU band itself."""
    r = o.result
    if r is None:
        return "not estimated in full"
    c = search.constraints
    if r.layout.memory_status == "near_limit":
        free = r.memory.headroom_bytes
        return (
            f"memory — the device total leaves only {fmt_gib(free)} of the GPU's "
            f"{fmt_gib(r.memory.capacity_bytes)} free: a longer batch or allocator fragmentation "
            "can run out of memory"
        )
    od = r.cost.on_demand_usd
    slow = r.cost.high_usd / od if od > 0 else 1.0  # the low MFU's factor on time and cost
    band = f"at the low end of the MFU band (MFU −{o.inputs.efficiency.mfu_band:.0%})"
    if c.deadline_h is not None and o.wall_s * slow > c.deadline_h * SECONDS_PER_HOUR:
        return f"the deadline — {band} the run takes {hours(o.wall_s * slow)}"
    if c.budget_usd is not None and o.cost_usd * slow > c.budget_usd:
        return f"the budget — {band} the run costs {fmt_cost(o.cost_usd * slow)}"
    if o.billing == "spot":
        lam = r.cost.job_interruptions_per_hour
        return (
            f"spot interruptions — about {lam * o.wall_s / SECONDS_PER_HOUR:.1f} expected over "
            "the run, each costing a restart and the work since the last checkpoint"
        )
    return f"the MFU — {band} the run costs {fmt_cost(o.cost_usd * slow)} and takes " + hours(
        o.wall_s * slow
    )


def recommendation(search: PlanSearch, fits: WhatFits | None = None) -> Inline:
    """One paragraph: the chosen plan and why, the cheapest alternative, the main risk."""
    best = search.best
    if best is None:
        return ("No plan meets the constraints: " + _nothing_text(search),)
    k = best.knobs
    parts: list[Part] = [
        f"Rent {k.num_gpus} × ",
        Name(best.offer.spec.name),
        f" {BILLING_TEXT[best.billing]}",
    ]
    where = ", ".join(x for x in (best.offer.provider, best.offer.region) if x)
    if where:
        parts += [" from ", Name(where)]
    parts.append(f" and train with {how_text(k)}: {figures_text(best)} — {_why_chosen(search)}. ")
    cheapest = search.cheapest()
    alt = cheapest if cheapest is not None and cheapest is not best else search.runner_up
    if alt is not None:
        label = "The cheapest alternative" if alt is cheapest else "The runner-up"
        parts += [f"{label}: ", *plan_title(alt), f", {figures_text(alt)} ({_delta(alt, best)}). "]
    else:
        parts.append("No other plan meets the constraints. ")
    if fits is not None:
        f = fits.figure(k.method) if fits.method == k.method else None
        if f is not None:
            parts.append(fits_sentence(fits, f) + " ")
    parts.append(f"Main risk: {main_risk(search, best)}.")
    return tuple(parts)


def _nothing_text(search: PlanSearch) -> str:
    closest = sorted(search.gpus, key=lambda g: (VERDICT_RANK[g.verdict], g.wall_s or 0.0))
    if not closest:
        return "the catalog is empty."
    return plain(inline_text(gpu_verdict_text(search, closest[0]))) + "."


# --- what fits -------------------------------------------------------------------------------


def seq_len_text(f: FitFigures) -> str:
    if f.longest_seq_len is None:
        return "none"
    return f"{f.longest_seq_len:,} tokens" + (" or more" if f.seq_len_capped else "")


def micro_batch_text(f: FitFigures) -> str:
    if f.largest_micro_batch is None:
        return "none"
    return f"{f.largest_micro_batch:,}" + (" or more" if f.micro_batch_capped else "")


def fits_sentence(w: WhatFits, f: FitFigures) -> str:
    """'On 8 × H100 SXM, LoRA fits sequences up to 5,390 tokens at micro-batch 4, and micro-batches
    up to 10 at 2,048 tokens.' (plain text; the GPU name is the catalog's)"""
    gpu = next(g for g in w.gpus if g.gpu_id == f.gpu_id)
    method = METHOD_SHORT.get(f.method, f.method)
    on = f"On {w.num_gpus} × {plain(gpu.name)}, {method}"
    if f.longest_seq_len is None:
        return f"{on} does not fit even {MIN_SEQ_LEN} tokens per row."
    return (
        f"{on} fits sequences up to {seq_len_text(f)} at micro-batch {w.micro_batch}, and "
        f"micro-batches up to {micro_batch_text(f)} at {w.seq_len:,} tokens."
    )


def fits_rows(w: WhatFits) -> list[tuple[str, str, str, str]]:
    """(GPU, method, longest sequence, largest micro-batch) per figure."""
    names = {g.gpu_id: plain(g.name) for g in w.gpus}
    return [
        (names[f.gpu_id], METHOD_SHORT.get(f.method, f.method), seq_len_text(f),
         micro_batch_text(f))
        for f in w.figures
    ]  # fmt: skip
