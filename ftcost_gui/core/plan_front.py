"""The plan search's answer: the plans run, the Pareto front ranked by the objective, and a
verdict for every candidate and every GPU offer (why it won or lost). Pure: no Qt, no files."""

from __future__ import annotations

import math
from bisect import bisect_right, insort
from dataclasses import dataclass, replace
from typing import Literal

from .compare import Offer
from .estimate import finish
from .inputs import EstimateInputs
from .plan import Plan
from .plan_space import Knobs, PlanConstraints
from .results import EstimateResult
from .units import SECONDS_PER_HOUR

Verdict = Literal[
    "front", "dominated", "over_deadline", "over_budget", "too_many_gpus", "near_limit",
    "does_not_fit", "no_split", "no_price",
]  # fmt: skip
# How close a verdict came to being chosen (a GPU's verdict is its closest candidate's).
VERDICT_ORDER: tuple[Verdict, ...] = (
    "front", "dominated", "over_budget", "over_deadline", "too_many_gpus", "near_limit",
    "does_not_fit", "no_split", "no_price",
)  # fmt: skip
VERDICT_RANK = {v: i for i, v in enumerate(VERDICT_ORDER)}


@dataclass(frozen=True, slots=True)
class PlanOption:
    """One candidate the estimate was run for, with its figures at the search's billing."""

    index: int  # in PlanSearch.options
    offer: Offer
    offer_index: int  # in the offers searched
    knobs: Knobs
    billing: str  # "on_demand" or "spot"
    inputs: EstimateInputs  # the scenario run this way (unvalidated: plan_space.adopted)
    plan: Plan
    cost_usd: float  # one run at the billing
    wall_s: float  # held wall-clock; on spot × the interruption factor
    held_gpus: int  # rented + any rollout GPUs
    fits: bool
    verdict: Verdict
    beaten_by: int | None  # the front plan that dominates it
    result: EstimateResult | None = None  # the full estimate (front plans)

    @property
    def wall_h(self) -> float:
        return self.wall_s / SECONDS_PER_HOUR

    @property
    def memory_bytes(self) -> float:
        return self.plan.memory.total_bytes


@dataclass(frozen=True, slots=True)
class GpuVerdict:
    """Why one offer won or lost: its closest candidate's verdict, with the figure that says why."""

    offer_index: int
    verdict: Verdict
    option: int | None  # front: its best-ranked plan; dominated: its dominated plan if run
    beaten_by: int | None  # dominated: the front plan that beats it
    cost_usd: float | None  # at least this (bounds) — the cheapest of its candidates in question
    wall_s: float | None  # at least this — the fastest of its candidates in question
    most_gpus: int  # the largest count tried (does not fit: not even on this many)


@dataclass(frozen=True)
class PlanSearch:
    """The search's answer. ``ranked`` orders the front by the objective (best first)."""

    inputs: EstimateInputs
    constraints: PlanConstraints
    batch: int  # the effective batch every plan keeps
    options: tuple[PlanOption, ...]
    ranked: tuple[int, ...]  # indices into options
    verdicts: dict[str, int]  # candidates per verdict
    gpus: tuple[GpuVerdict, ...]  # one per offer, in the offers' order
    offers: tuple[Offer, ...]
    current: tuple[float, float] | None  # the scenario's own (cost, wall) at the billing
    candidates: int
    plans_run: int  # core plan() calls
    seconds: float  # the search's own time (benchmarks print it; tests count instead)

    @property
    def front(self) -> list[PlanOption]:
        return [self.options[i] for i in self.ranked]

    @property
    def best(self) -> PlanOption | None:
        return self.options[self.ranked[0]] if self.ranked else None

    @property
    def runner_up(self) -> PlanOption | None:
        return self.options[self.ranked[1]] if len(self.ranked) > 1 else None

    def cheapest(self) -> PlanOption | None:
        front = self.front
        return min(front, key=lambda o: (o.cost_usd, o.wall_s)) if front else None

    def fastest(self) -> PlanOption | None:
        front = self.front
        return min(front, key=lambda o: (o.wall_s, o.cost_usd)) if front else None


@dataclass(slots=True)
class GpuTally:
    """The closest verdict one offer's candidates reached, and its best figures (bounds)."""

    rank: int = len(VERDICT_ORDER)
    cost: float = math.inf
    wall: float = math.inf
    most_gpus: int = 0

    def see(self, verdict: Verdict, cost: float, wall: float) -> None:
        r = VERDICT_RANK[verdict]
        if r < self.rank:
            self.rank, self.cost, self.wall = r, cost, wall
        elif r == self.rank:
            self.cost, self.wall = min(self.cost, cost), min(self.wall, wall)


class Front:
    """Feasible plans no other beats on both axes; sorted by cost (walls then fall)."""

    def __init__(self) -> None:
        self.costs: list[float] = []
        self.walls: list[float] = []
        self.ids: list[int] = []

    def beaten(self, cost: float, wall: float) -> int | None:
        """A front plan at most as dear and at most as long, if any."""
        i = bisect_right(self.costs, cost)
        if i and self.walls[i - 1] <= wall:
            return self.ids[i - 1]
        return None

    def add(self, cost: float, wall: float, ident: int) -> list[int]:
        """Insert a plan no front plan beats; the ids it now beats (removed)."""
        gone = [
            self.ids[j]
            for j in range(len(self.ids))
            if self.costs[j] >= cost and self.walls[j] >= wall
        ]
        if gone:
            keep = [j for j in range(len(self.ids)) if self.ids[j] not in gone]
            self.costs = [self.costs[j] for j in keep]
            self.walls = [self.walls[j] for j in keep]
            self.ids = [self.ids[j] for j in keep]
        i = bisect_right(self.costs, cost)
        insort(self.costs, cost)
        self.walls.insert(i, wall)
        self.ids.insert(i, ident)
        return gone


def resolve(options: list[PlanOption], ident: int) -> int:
    """The front plan at the end of a chain of 'beaten by' links."""
    seen = 0
    while options[ident].verdict != "front" and options[ident].beaten_by is not None:
        ident = options[ident].beaten_by  # type: ignore[assignment]
        seen += 1
        if seen > len(options):  # pragma: no cover - links only point to later front plans
            break
    return ident


def rank_front(front: list[PlanOption], weight: float) -> list[int]:
    """Front plans best first: by cost (1), by wall-clock (0), else by the weighted score."""
    if weight >= 1.0:
        return [o.index for o in sorted(front, key=lambda o: (o.cost_usd, o.wall_s))]
    if weight <= 0.0:
        return [o.index for o in sorted(front, key=lambda o: (o.wall_s, o.cost_usd))]
    cheapest = min(o.cost_usd for o in front)
    fastest = min(o.wall_s for o in front)

    def score(o: PlanOption) -> tuple[float, float, float]:
        cost = o.cost_usd / cheapest if cheapest > 0 else (0.0 if o.cost_usd == 0 else math.inf)
        wall = o.wall_s / fastest if fastest > 0 else 1.0
        return (weight * cost + (1 - weight) * wall, o.cost_usd, o.wall_s)

    return [o.index for o in sorted(front, key=score)]


def finish_front(options: list[PlanOption], ranked: list[int]) -> list[PlanOption]:
    """Front plans get their full estimate; every 'beaten by' points at a front plan."""
    out = list(options)
    for i in ranked:
        out[i] = replace(out[i], result=finish(out[i].plan))
    for i, o in enumerate(out):
        if o.verdict == "dominated" and o.beaten_by is not None:
            out[i] = replace(o, beaten_by=resolve(out, o.beaten_by))
    return out


def gpu_verdicts(
    tallies: list[GpuTally],
    options: list[PlanOption],
    ranked: list[int],
    pruned: dict[int, tuple[float, float, int]],
) -> tuple[GpuVerdict, ...]:
    """One verdict per offer. ``pruned``: per offer, its cheapest candidate the bounds showed
    dominated (cost and wall-clock bounds, the front plan that beats them)."""
    best_option: dict[int, int] = {}
    for i in ranked:  # the offer's best-ranked front plan
        best_option.setdefault(options[i].offer_index, i)
    dominated: dict[int, int] = {}
    for o in options:  # else its cheapest plan run and dominated
        if o.verdict == "dominated":
            known = dominated.get(o.offer_index)
            if known is None or options[known].cost_usd > o.cost_usd:
                dominated[o.offer_index] = o.index
    for oi, i in dominated.items():
        best_option.setdefault(oi, i)
    out = []
    for oi, t in enumerate(tallies):
        verdict = VERDICT_ORDER[min(t.rank, len(VERDICT_ORDER) - 1)]
        option = best_option.get(oi) if verdict in ("front", "dominated") else None
        by = None
        cost = None if math.isinf(t.cost) else t.cost
        wall = None if math.isinf(t.wall) else t.wall
        if verdict == "dominated":
            bound = pruned.get(oi)
            if bound is not None and (option is None or bound[0] < options[option].cost_usd):
                # its cheapest candidate was never run: its bounds, and the plan beating them
                option, cost, wall, by = None, bound[0], bound[1], bound[2]
            elif option is not None:
                o = options[option]
                cost, wall, by = o.cost_usd, o.wall_s, o.beaten_by
        out.append(GpuVerdict(oi, verdict, option, by, cost, wall, t.most_gpus))
    return tuple(out)


# --- the plan plot's series ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlanPoints:
    """Wall-clock against cost of the plans run: the front (by wall-clock, for its line), the
    feasible plans it dominates, and those over a limit; the chosen plan and the scenario."""

    front: tuple[int, ...]  # option indices, shortest wall-clock first
    dominated: tuple[int, ...]
    infeasible: tuple[int, ...]  # fit, but over the deadline, the budget or the GPUs allowed
    wall_h: dict[int, float]
    cost_usd: dict[int, float]
    best: int | None
    deadline_h: float | None
    budget_usd: float | None
    current: tuple[float, float] | None  # the scenario's (wall-clock h, cost)


def scenario_point(result: EstimateResult, billing: str) -> tuple[float, float] | None:
    """(wall-clock h, cost) of an estimate at a billing, as the search prices a plan: on spot
    the spot cost and the wall-clock × the interruption factor; None without a spot price."""
    t, c = result.time, result.cost
    if billing == "spot":
        if c.spot_usd is None:
            return None
        return t.held_wall_s * c.spot_factor / SECONDS_PER_HOUR, c.spot_usd
    return t.held_wall_s / SECONDS_PER_HOUR, c.on_demand_usd


def plan_points(search: PlanSearch) -> PlanPoints:
    opts = search.options
    front = tuple(sorted(search.ranked, key=lambda i: (opts[i].wall_s, opts[i].cost_usd)))
    dominated = tuple(o.index for o in opts if o.verdict == "dominated")
    infeasible = tuple(
        o.index for o in opts if o.fits and o.verdict not in ("front", "dominated")
    )  # fmt: skip
    shown = (*front, *dominated, *infeasible)
    c = search.constraints
    cur = search.current
    return PlanPoints(
        front=front,
        dominated=dominated,
        infeasible=infeasible,
        wall_h={i: opts[i].wall_h for i in shown},
        cost_usd={i: opts[i].cost_usd for i in shown},
        best=search.ranked[0] if search.ranked else None,
        deadline_h=c.deadline_h,
        budget_usd=c.budget_usd,
        current=None if cur is None else (cur[1] / SECONDS_PER_HOUR, cur[0]),
    )
