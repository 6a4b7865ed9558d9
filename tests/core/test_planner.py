"""The plan search against brute force: every candidate estimated by ``estimate()`` on inputs
validated as a file would be, the constraints and the Pareto front written out here."""

from __future__ import annotations

import itertools
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ftcost_gui.core.compare import Offer, offer
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.core.plan_space import PlanConstraints, adopted
from ftcost_gui.core.planner import search_plans
from ftcost_gui.io.resources import builtin_catalog

from .helpers import make

GPUS = ("rtx-4090", "a100-80gb-sxm", "h100-sxm", "l4")  # all rented singly, 8 per node
METHODS = ("lora", "qlora", "full_amp_adamw")
SHARDINGS = ("none", "zero1", "zero2", "zero3")
BATCH = 8  # micro-batch 2 × accumulation 4 × 1 GPU
MARGIN = 0.05  # hardware.near_limit_fraction's default: free memory a plan keeps by default


def scenario(**edits) -> EstimateInputs:
    base = dict(
        data__mode="tokens",
        data__total_tokens=2e7,
        data__max_seq_len=2048,
        training__method="lora",
        training__micro_batch=2,
        training__grad_accum=4,
        training__auto_gpu_count=False,
        training__num_gpus=1,
    )
    base.update(edits)
    return make("llama-3.1-8b", **base)


@cache
def offers() -> tuple[Offer, ...]:
    cat = builtin_catalog()
    return tuple(offer(cat.find(g).to_spec()) for g in GPUS)  # type: ignore[union-attr]


@cache
def brute(billing: str = "on_demand") -> list[tuple[str, tuple, float, float, int, bool, bool]]:
    """(gpu id, knobs, cost, wall, GPUs held, fits leaving the margin free, fits) of every
    candidate, by estimate()."""
    base = scenario()
    rows = []
    for o in offers():
        for method, n in itertools.product(METHODS, (1, 2, 4, 8)):  # counts ≤ 8 dividing 8
            per_gpu = BATCH // n
            for mb in (d for d in range(1, per_gpu + 1) if per_gpu % d == 0):
                for ckpt, sharding in itertools.product(
                    (False, True), ("none",) if n == 1 else SHARDINGS
                ):
                    doc = base.model_dump()
                    doc["hardware"]["gpu"] = o.spec.model_dump()
                    doc["project"]["billing"] = billing
                    doc["training"].update(
                        method=method, num_gpus=n, auto_gpu_count=False, micro_batch=mb,
                        grad_accum=per_gpu // mb, checkpointing="full" if ckpt else "none",
                        sharding=sharding,
                    )  # fmt: skip
                    r = estimate(EstimateInputs.model_validate(doc))
                    if billing == "spot":
                        cost, wall = r.cost.spot_usd, r.time.held_wall_s * r.cost.spot_factor
                    else:
                        cost, wall = r.cost.on_demand_usd, r.time.held_wall_s
                    knobs = (method, n, mb, per_gpu // mb, ckpt, sharding)
                    m = r.memory
                    roomy = m.fits and m.usable_bytes - m.total_bytes >= MARGIN * m.usable_bytes
                    rows.append((o.spec.id, knobs, cost, wall, r.time.rented_gpus, roomy, m.fits))
    return rows


def feasible(
    rows, deadline_h=None, budget_usd=None, max_gpus=None, methods=METHODS, memory_margin=True
):
    return [
        r
        for r in rows
        if r[5 if memory_margin else 6]
        and r[1][0] in methods
        and (deadline_h is None or r[3] <= deadline_h * 3600)
        and (budget_usd is None or r[2] <= budget_usd)
        and (max_gpus is None or r[4] <= max_gpus)
    ]


def pareto(rows):
    """Points no other row beats: at most as dear and as long, better on one."""
    pts = {(round(r[2], 6), round(r[3], 3)) for r in rows}
    return {p for p in pts if not any(q != p and q[0] <= p[0] and q[1] <= p[1] for q in pts)}


def points(search):
    return {(round(o.cost_usd, 6), round(o.wall_s, 3)) for o in search.front}


def run(**constraints):
    c = PlanConstraints(methods=METHODS, **constraints)
    return search_plans(scenario(), offers(), c)


CASES = [
    {},
    {"deadline_h": 6.0},
    {"deadline_h": 2.0, "budget_usd": 60.0},
    {"budget_usd": 15.0},
    {"max_gpus": 2},
    {"deadline_h": 0.5},  # nothing meets it
    {"memory_margin": False},
    {"memory_margin": False, "deadline_h": 2.0},
]


@pytest.mark.parametrize("case", CASES)
def test_front_and_optimum_equal_brute_force(case):
    s = run(**case)
    rows = feasible(brute(), **case)
    assert points(s) == pareto(rows)
    if not rows:
        assert s.best is None and not s.front
        return
    best = s.best
    assert best is not None
    assert best.cost_usd == pytest.approx(min(r[2] for r in rows), rel=1e-12)
    fastest = s.fastest()
    assert fastest is not None
    assert fastest.wall_s == pytest.approx(min(r[3] for r in rows), rel=1e-12)
    # every candidate got a verdict (counts above the most GPUs allowed are not candidates)
    limit = case.get("max_gpus") or BATCH
    assert s.candidates == sum(1 for r in brute() if r[1][1] <= limit)
    assert sum(s.verdicts.values()) == s.candidates


def test_fastest_and_weighted_objectives_equal_brute_force():
    rows = feasible(brute(), deadline_h=10.0)
    s = run(deadline_h=10.0, cost_weight=0.0)
    assert s.best is not None
    assert s.best.wall_s == pytest.approx(min(r[3] for r in rows), rel=1e-12)
    # weight 0.5: 0.5 × cost ÷ cheapest + 0.5 × wall ÷ fastest, over the feasible rows
    c0, t0 = min(r[2] for r in rows), min(r[3] for r in rows)
    want = min(0.5 * r[2] / c0 + 0.5 * r[3] / t0 for r in rows)
    w = run(deadline_h=10.0, cost_weight=0.5).best
    assert w is not None
    assert 0.5 * w.cost_usd / c0 + 0.5 * w.wall_s / t0 == pytest.approx(want, rel=1e-12)


def test_spot_billing_equals_brute_force():
    s = search_plans(scenario(), offers(), PlanConstraints(methods=METHODS, billing="spot"))
    priced = [r for r in brute("spot") if r[0] in ("a100-80gb-sxm", "h100-sxm")]  # spot prices
    assert points(s) == pareto(feasible(priced))
    assert s.verdicts["no_price"] > 0  # the RTX 4090 and L4 have no spot price
    by_gpu = {s.offers[g.offer_index].spec.id: g.verdict for g in s.gpus}
    assert by_gpu["rtx-4090"] == by_gpu["l4"] == "no_price"


@pytest.mark.parametrize("case", CASES)
def test_no_plan_misses_a_constraint(case):
    """Every front plan, estimated again from inputs validated as a file would be, fits and
    meets every constraint; so does its full result."""
    s = run(**case)
    for o in s.front:
        r = estimate(adopted(o.inputs))
        assert r == o.result
        assert r.memory.fits
        if case.get("memory_margin", True):
            m = r.memory
            assert m.usable_bytes - m.total_bytes >= MARGIN * m.usable_bytes
            assert r.layout.memory_status == "fits"
        assert r.cost.on_demand_usd == pytest.approx(o.cost_usd, rel=1e-12)
        assert r.time.held_wall_s == pytest.approx(o.wall_s, rel=1e-12)
        if "deadline_h" in case:
            assert r.time.held_wall_s <= case["deadline_h"] * 3600
        if "budget_usd" in case:
            assert r.cost.on_demand_usd <= case["budget_usd"]
        if "max_gpus" in case:
            assert r.time.rented_gpus <= case["max_gpus"]


def test_every_dominated_plan_is_beaten_by_a_front_plan():
    s = run(deadline_h=8.0)
    front = set(s.ranked)
    for o in s.options:
        if o.verdict == "dominated":
            assert o.beaten_by in front
            b = s.options[o.beaten_by]
            assert b.cost_usd <= o.cost_usd and b.wall_s <= o.wall_s
    for g in s.gpus:
        if g.verdict == "dominated":
            assert g.beaten_by in front


def test_gpu_verdicts_say_why():
    s = run(deadline_h=3.0)
    by_gpu = {s.offers[g.offer_index].spec.id: g for g in s.gpus}
    rows = brute()
    for gpu_id, g in by_gpu.items():
        mine = [r for r in rows if r[0] == gpu_id]
        fits = [r for r in mine if r[5]]
        if g.verdict == "does_not_fit":
            assert not fits and not any(r[6] for r in mine)
        if g.verdict == "near_limit":
            assert not fits and any(r[6] for r in mine)
        if g.verdict == "over_deadline":
            assert fits and min(r[3] for r in fits) > 3 * 3600
            assert g.wall_s is not None and g.wall_s <= min(r[3] for r in fits)  # a bound
        if g.verdict == "front":
            assert g.option in s.ranked


def test_the_memory_margin_leaves_out_full_gpus():
    """By default a plan leaves the near-limit margin free; without it, plans that fit only
    within the margin compete too (and the best plan can only get cheaper)."""
    rows = brute()
    tight = [r for r in rows if r[6] and not r[5]]
    assert tight  # the grid has plans that fit only within the margin
    kept, loose = run(), run(memory_margin=False)
    assert kept.verdicts["near_limit"] == len(tight)
    assert loose.verdicts["near_limit"] == 0
    assert kept.best is not None and loose.best is not None
    assert loose.best.cost_usd <= kept.best.cost_usd


def test_the_effective_batch_is_kept():
    s = run()
    for o in s.options:
        k = o.knobs
        assert k.micro_batch * k.grad_accum * k.num_gpus == BATCH == s.batch


def test_whole_nodes_and_rental_units():
    """A GPU rented only as whole 8-GPU machines (Gaudi 3) is planned on 8 or 16 GPUs."""
    cat = builtin_catalog()
    gaudi = offer(cat.find("gaudi3").to_spec())  # type: ignore[union-attr]
    s = search_plans(
        scenario(training__grad_accum=8), (gaudi,), PlanConstraints(methods=("lora",))
    )  # fmt: skip
    assert s.batch == 16
    assert {o.knobs.num_gpus for o in s.options} <= {8, 16}
    assert s.front


def test_no_count_splits_the_batch():
    cat = builtin_catalog()
    gaudi = offer(cat.find("gaudi3").to_spec())  # type: ignore[union-attr]
    s = search_plans(scenario(), (gaudi,), PlanConstraints(methods=("lora",), effective_batch=4))
    assert s.gpus[0].verdict == "no_split"
    assert s.best is None


# --- monotone in the constraints (hypothesis) -------------------------------------------------

MONO = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_hours = st.floats(0.2, 40.0, allow_nan=False)
_usd = st.floats(1.0, 300.0, allow_nan=False)


def _small(**c):
    s = search_plans(scenario(), offers()[:2], PlanConstraints(methods=("lora", "qlora"), **c))
    return s


@MONO
@given(_hours, _hours)
def test_a_looser_deadline_never_costs_more(a, b):
    tight, loose = sorted((a, b))
    t, lo = _small(deadline_h=tight).best, _small(deadline_h=loose).best
    if t is not None:
        assert lo is not None and lo.cost_usd <= t.cost_usd


@MONO
@given(_usd, _usd)
def test_a_bigger_budget_is_never_slower(a, b):
    small, big = sorted((a, b))
    s = _small(budget_usd=small, cost_weight=0.0).best
    g = _small(budget_usd=big, cost_weight=0.0).best
    if s is not None:
        assert g is not None and g.wall_s <= s.wall_s


@MONO
@given(_usd, _usd, _hours)
def test_a_bigger_budget_never_costs_more(a, b, deadline):
    small, big = sorted((a, b))
    s = _small(budget_usd=small, deadline_h=deadline).best
    g = _small(budget_usd=big, deadline_h=deadline).best
    if s is not None:
        assert g is not None and g.cost_usd <= s.cost_usd


def test_bounds_spare_most_estimates():
    """Work is counted, not timed: the bounds decide most candidates without an estimate."""
    s = run()
    assert s.plans_run < s.candidates / 4
    assert len(s.options) <= s.plans_run
