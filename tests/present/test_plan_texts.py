"""The plan search in words: the recommendation paragraph, why each plan is on the front, why
each GPU lost; the numbers in the text are the search's."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from ftcost_gui.core.compare import offer
from ftcost_gui.core.plan_space import PlanConstraints
from ftcost_gui.core.units import fmt_gib, fmt_usd
from ftcost_gui.io.resources import builtin_catalog
from ftcost_gui.present.blocks import inline_text
from ftcost_gui.present.plan_texts import (
    figures_text,
    gpu_verdict_text,
    hours,
    main_risk,
    plan_cells,
    recommendation,
    why_on_front,
)
from ftcost_gui.report.content import plan_section

from ..core.helpers import make


@cache
def section(deadline: float | None = 24.0):
    cat = builtin_catalog()
    offers = [offer(cat.find(g).to_spec()) for g in ("h100-sxm", "a100-80gb-sxm", "l4", "rtx-4090")]
    inputs = make(
        "llama-3.1-8b", data__mode="tokens", data__total_tokens=2e8, training__method="lora",
        training__micro_batch=4, training__grad_accum=4, training__auto_gpu_count=False,
        training__num_gpus=2,
    )  # fmt: skip
    c = PlanConstraints(methods=("lora", "qlora"), deadline_h=deadline)
    return plan_section(inputs, offers, c, "Built-in")


def test_recommendation_names_the_best_plan_the_alternative_and_a_risk():
    p = section()
    s, best = p.search, p.search.best
    text = inline_text(recommendation(s, p.best_fits))
    k = best.knobs
    assert text.startswith(f"Rent {k.num_gpus} × {best.offer.spec.name} on-demand")
    assert figures_text(best) in text  # the same money and hours as the table
    assert fmt_usd(best.cost_usd) in text and hours(best.wall_s) in text
    assert "finishes within the 24.00 h deadline" in text
    alt = s.runner_up  # the best is the cheapest: the runner-up is the alternative
    assert alt is not None and f"The runner-up: {alt.knobs.num_gpus} × " in text
    assert "fits sequences up to" in text  # what fits on the recommended GPUs
    assert text.endswith(f"Main risk: {main_risk(s, best)}.")


def test_why_each_front_plan_is_there():
    s = section().search
    by_cost = sorted(s.front, key=lambda o: o.cost_usd)
    assert why_on_front(s, by_cost[0]) == "the cheapest plan that meets the constraints"
    second = why_on_front(s, by_cost[1])
    assert second.endswith("than the next cheaper plan") and "sooner" in second
    assert why_on_front(s, by_cost[-1]).startswith("the fastest plan: ")


def test_why_each_gpu_lost():
    s = section(deadline=3.0).search
    texts = {s.offers[g.offer_index].spec.id: inline_text(gpu_verdict_text(s, g)) for g in s.gpus}
    verdicts = {s.offers[g.offer_index].spec.id: g.verdict for g in s.gpus}
    for gpu_id, verdict in verdicts.items():
        if verdict == "over_deadline":
            assert "over the deadline — its fastest plan takes ≥" in texts[gpu_id]
            assert "(deadline 3.00 h)" in texts[gpu_id]
        if verdict == "front":
            assert ": #" in texts[gpu_id]


def test_a_gpu_that_fits_only_within_the_memory_margin():
    s = section().search
    g = replace(s.gpus[0], verdict="near_limit", most_gpus=8)
    text = inline_text(gpu_verdict_text(s, g))
    assert text == (
        f"{s.offers[0].spec.name}: fits on up to 8 GPUs only within the 5% near-limit memory "
        "margin, which the constraints keep free"
    )


def test_no_plan_meets_the_constraints():
    s = section(deadline=0.05).search
    assert s.best is None
    text = inline_text(recommendation(s))
    assert text.startswith("No plan meets the constraints: ")


def test_memory_cell_and_risk_compare_the_device_total_with_the_gpus_memory():
    s = section().search
    o = s.front[0]
    mem = o.plan.memory
    assert plan_cells(s)[0].memory == f"{fmt_gib(mem.total_bytes)} of {fmt_gib(mem.capacity_bytes)}"
    r = o.result
    assert r is not None
    near = r.model_copy(
        update={"layout": r.layout.model_copy(update={"memory_status": "near_limit"})}
    )
    risk = main_risk(s, replace(o, result=near))
    cap = fmt_gib(r.memory.capacity_bytes)
    assert risk.startswith(
        f"memory — the device total leaves only {fmt_gib(r.memory.headroom_bytes)}"
    )
    assert f"of the GPU's {cap} free" in risk and "usable" not in risk
