"""``ftcost plan``'s output: the text (recommendation, ranked front, why each GPU lost, what
fits) and the JSON document (docs/cli.md). Words come from ``present.plan_texts``."""

from __future__ import annotations

from typing import Any

from ..core.plan_front import PlanOption, PlanSearch
from ..core.plan_space import describe
from ..core.what_fits import WhatFits
from ..io.names import for_terminal as term
from ..present.blocks import inline_text
from ..present.plan_texts import (
    BILLING_TEXT,
    OBJECTIVE_TEXT,
    PLAN_HEADER,
    VERDICT_LABELS,
    fits_rows,
    gpu_verdict_text,
    hours,
    plan_cells,
    recommendation,
    verdict_counts_text,
    why_on_front,
)
from ..present.text import fmt_cost
from .tables import table

PLAN_FORMAT = "ftcost-plan"
PLAN_VERSION = 1


def _constraints_line(search: PlanSearch, catalog: str) -> str:
    c = search.constraints
    parts = [
        f"deadline {hours(c.deadline_s)}" if c.deadline_s is not None else "no deadline",
        f"budget {fmt_cost(c.budget_usd)}/run" if c.budget_usd is not None else "no budget",
        f"at most {c.max_gpus} GPUs" if c.max_gpus is not None else "any GPU count",
        f"{search.inputs.hardware.near_limit_fraction:.0%} of each GPU's memory left free"
        if c.memory_margin
        else "no memory margin",
        BILLING_TEXT[c.billing],
        OBJECTIVE_TEXT.get(c.objective, f"{c.cost_weight:.0%} weight on cost"),
    ]
    return (
        f"Plan for {term(search.inputs.model.name)} over catalog '{term(catalog)}': "
        + ", ".join(parts)
        + f"; effective batch {search.batch} sequences."
    )


def format_plan(
    search: PlanSearch, fits: WhatFits, best_fits: WhatFits | None, catalog: str, top: int
) -> str:
    out = [_constraints_line(search, catalog), ""]
    out.append(term(inline_text(recommendation(search, best_fits))))
    out.append("")
    cells = plan_cells(search)
    if cells:
        out.append(f"Plans on the front ({len(cells)}; best first):")
        rows = [
            [c.rank, inline_text(c.gpu), c.how, c.cost, c.wall, c.gpus, c.memory, c.mfu, c.why]
            for c in cells[:top]
        ]
        right = [True, False, False, True, True, True, True, True, False]
        out.append(table([h.upper() for h in PLAN_HEADER], rows, right).rstrip("\n"))
        if len(cells) > top:
            out.append(f"… {len(cells) - top} more (--top N, or --json for all)")
        out.append("")
    out.append("Why each GPU won or lost:")
    out += ["  " + term(inline_text(gpu_verdict_text(search, g))) for g in search.gpus]
    out.append("")
    out.append(verdict_counts_text(search) + f"; {search.plans_run:,} estimates run.")
    out.append("")
    gpu = term(fits.gpus[0].name)
    out.append(
        f"What fits on {fits.num_gpus} × {gpu} (the scenario's GPUs, checkpointing "
        f"{'on' if fits.checkpointing else 'off'}): longest sequence at micro-batch "
        f"{fits.micro_batch}, largest micro-batch at {fits.seq_len:,} tokens"
    )
    headers = ["GPU", "METHOD", "LONGEST SEQUENCE", "LARGEST MICRO-BATCH"]
    rows = [list(r) for r in fits_rows(fits)]
    out.append(table(headers, rows, [False, False, True, True]).rstrip("\n"))
    out.append(
        "Costs are per run (start-up, checkpoints and evaluation included); wall-clock is held "
        "time. A GPU's figures after '≥' are bounds its best plan cannot beat."
    )
    return "\n".join(out) + "\n"


def option_document(search: PlanSearch, o: PlanOption, rank: int | None) -> dict[str, Any]:
    r = o.result
    mem = o.plan.memory
    return {
        "rank": rank,
        "gpu_id": o.offer.spec.id,
        "gpu_name": o.offer.spec.name,
        "origin": o.offer.origin,
        "provider": o.offer.provider,
        "region": o.offer.region,
        "billing": o.billing,
        **describe(o.knobs),
        "held_gpus": o.held_gpus,
        "cost_usd": o.cost_usd,
        "wall_clock_s": o.wall_s,
        "memory_per_gpu_bytes": mem.total_bytes,
        "usable_bytes": mem.usable_bytes,
        "mfu": r.time.mfu if r is not None else o.plan.time.mfu.mfu,
        "verdict": o.verdict,
        "why": why_on_front(search, o) if o.verdict == "front" else VERDICT_LABELS[o.verdict],
    }


def fits_document(w: WhatFits) -> dict[str, Any]:
    return {
        "method": w.method,
        "num_gpus": w.num_gpus,
        "checkpointing": w.checkpointing,
        "seq_len": w.seq_len,
        "micro_batch": w.micro_batch,
        "gpus": [
            {
                "gpu_id": g.gpu_id,
                "name": g.name,
                "usable_gib": g.usable_gib,
                "total_gib": g.total_gib,
            }
            for g in w.gpus
        ],
        "by_seq_len": {c.method: {"x": list(c.x), "gib": list(c.gib)} for c in w.by_seq_len},
        "by_micro_batch": {
            c.method: {"x": list(c.x), "gib": list(c.gib)} for c in w.by_micro_batch
        },
        "figures": [
            {
                "gpu_id": f.gpu_id,
                "method": f.method,
                "longest_seq_len": f.longest_seq_len,
                "longest_seq_len_capped": f.seq_len_capped,
                "largest_micro_batch": f.largest_micro_batch,
                "largest_micro_batch_capped": f.micro_batch_capped,
            }
            for f in w.figures
        ],
    }


def plan_document(
    search: PlanSearch, fits: WhatFits, best_fits: WhatFits | None, catalog: str
) -> dict[str, Any]:
    """``ftcost plan --json`` (docs/cli.md)."""
    cur = search.current
    return {
        "format": PLAN_FORMAT,
        "version": PLAN_VERSION,
        "catalog": catalog,
        "constraints": search.constraints.model_dump(mode="json"),
        "effective_batch": search.batch,
        "candidates": search.candidates,
        "estimates_run": search.plans_run,
        "verdicts": dict(search.verdicts),
        "recommendation": inline_text(recommendation(search, best_fits)),
        "front": [option_document(search, o, rank) for rank, o in enumerate(search.front, 1)],
        "gpus": [
            {
                "gpu_id": search.offers[g.offer_index].spec.id,
                "gpu_name": search.offers[g.offer_index].spec.name,
                "verdict": g.verdict,
                "why": inline_text(gpu_verdict_text(search, g)),
                "cost_usd_at_least": g.cost_usd,
                "wall_clock_s_at_least": g.wall_s,
            }
            for g in search.gpus
        ],
        "scenario": None if cur is None else {"cost_usd": cur[0], "wall_clock_s": cur[1]},
        "inputs": search.inputs.model_dump(mode="json"),
        "what_fits": fits_document(fits),
        "best_plan_fits": None if best_fits is None else fits_document(best_fits),
    }
