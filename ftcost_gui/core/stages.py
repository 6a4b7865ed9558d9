"""A project as stages: the scenarios of one document run one after the other (SFT → DPO → RL).

Article 000 'Worked example: compute budget for a project': the project's compute is the sum of
its stages' runs; generation-heavy work (evaluation and RL) is a share of it. Each stage counts
its runs (planned + failed) × the GPU-hours one run holds; generation GPU-hours are the
evaluation passes of every stage and the rollouts of the RL stages. A whole RL stage counts as
'generation-heavy' in the article's share, so the share is given both ways.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .alignment import RL_OBJECTIVES
from .results import EstimateResult
from .units import SECONDS_PER_HOUR


@dataclass(frozen=True, slots=True)
class Stage:
    name: str
    objective: str
    runs: int
    gpu_hours: float  # all runs, held
    generation_gpu_hours: float  # evaluation + rollouts, all runs
    on_demand_usd: float  # all runs at the stage's own price


@dataclass(frozen=True, slots=True)
class StageBudget:
    stages: tuple[Stage, ...]
    gpu_hours: float
    generation_gpu_hours: float
    rl_and_eval_gpu_hours: float  # whole RL stages + the other stages' evaluation
    on_demand_usd: float

    @property
    def generation_share(self) -> float:
        return self.generation_gpu_hours / self.gpu_hours if self.gpu_hours else 0.0

    @property
    def rl_and_eval_share(self) -> float:
        """Article 000: 'evaluation and RL, both generation-heavy, account for 21%'."""
        return self.rl_and_eval_gpu_hours / self.gpu_hours if self.gpu_hours else 0.0

    def usd_at(self, usd_per_gpu_hour: float) -> float:
        return self.gpu_hours * usd_per_gpu_hour


def stage(name: str, r: EstimateResult) -> Stage:
    """One scenario as a stage: its runs (planned + failed) × what one run holds."""
    runs = r.project.runs
    held_gpus = r.time.held_gpu_hours / (r.time.held_wall_s / SECONDS_PER_HOUR or 1.0)
    gen_s = r.time.eval_s + r.time.rl_generation_s
    return Stage(
        name=name,
        objective=r.alignment.objective,
        runs=runs,
        gpu_hours=runs * r.time.held_gpu_hours,
        generation_gpu_hours=runs * held_gpus * gen_s / SECONDS_PER_HOUR,
        on_demand_usd=runs * r.cost.on_demand_usd,
    )


def budget(stages: Sequence[Stage]) -> StageBudget:
    """The stages run one after the other: their sums, in stage order."""
    stages = tuple(stages)
    eval_only = sum(s.generation_gpu_hours for s in stages if s.objective not in RL_OBJECTIVES)
    rl = sum(s.gpu_hours for s in stages if s.objective in RL_OBJECTIVES)
    return StageBudget(
        stages=stages,
        gpu_hours=sum(s.gpu_hours for s in stages),
        generation_gpu_hours=sum(s.generation_gpu_hours for s in stages),
        rl_and_eval_gpu_hours=rl + eval_only,
        on_demand_usd=sum(s.on_demand_usd for s in stages),
    )


def stage_budget(names: Sequence[str], results: Sequence[EstimateResult]) -> StageBudget:
    return budget([stage(name, r) for name, r in zip(names, results, strict=True)])
