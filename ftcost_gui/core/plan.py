"""What ``estimate.plan`` computes before the MFU is known: the ``Plan`` and its ``Layout``s.

Data only, in their own module so that the steps that read a plan (``rl_summary``) need not
import the orchestration that makes it (``estimate``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import rollout
from .alignment import ExtraFlops, RlShape
from .architecture import ModelSpec, ParamCounts
from .inputs import DataSpec, EstimateInputs, TrainingSpec
from .layout import Rented
from .memory_step import Fit, MemoryInputs, MemoryStep
from .objective import ObjectiveSpec
from .params import Adapters
from .results import FlopBreakdown, MemoryBreakdown, ParamSummary, TokenSummary
from .time_cost import Checkpoint, TimePlan


class PlanMemo(dict[str, Any]):
    """What is computed once per plan and kept with it; not part of the plan's value (two plans
    of equal figures are equal whatever their memos hold)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlanMemo)

    def __ne__(self, other: object) -> bool:
        return not isinstance(other, PlanMemo)

    __hash__ = None


class JobFlops(NamedTuple):
    flops: FlopBreakdown  # total_flops: the update's epochs and the extra forwards included
    policy_flops: float
    extra: ExtraFlops


class Job(NamedTuple):
    """What ``estimate.plan`` computes that no GPU changes: parameters, adapters, tokens, the RL
    shape, the resumable checkpoint, the ranges' longest row and, per checkpointing setting, the
    FLOPs (issue 17: "Which GPU" plans the same job on every GPU of a catalog, 5,000 of them,
    each with its own memory and rates)."""

    # The model, data, training and objective sections it was made from: the plan's memory
    # inputs hold these, so that the memory memos (core/remembered.py) compare them by identity
    # when an edit brings equal sections again.
    sections: tuple[ModelSpec, DataSpec, TrainingSpec, ObjectiveSpec]
    counts: ParamCounts
    adapters: Adapters
    tokens: TokenSummary
    token_warnings: tuple[str, ...]
    shape: RlShape | None
    checkpoint: Checkpoint
    params: ParamSummary
    flops: dict[bool, JobFlops]  # by checkpointing, filled as the layouts ask
    longest_row: float  # ranges.longest_row of the inputs (data and objective)


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
    layout: Layout
    alternative: Layout | None  # checkpointing "auto": the other setting, for comparison
    job: Job
    memory_inputs: MemoryInputs  # of the inputs, with the job's sections
    # What the finish computes once per plan (core/finishing.py: the figures no MFU or price
    # changes); the plans estimate._at_mfu makes of a remembered plan share it.
    memo: PlanMemo


class Layout(NamedTuple):
    """One way to run the job: checkpointing or not, and what follows from it."""

    checkpointing: bool
    step: MemoryStep  # memory on the training GPUs
    near_limit: bool
    gpus_needed: int | None
    rent: Rented
    flops: FlopBreakdown
    time: TimePlan
    reason: str
    policy_flops: float
    extra_flops: ExtraFlops
    engines: rollout.Engines | None


class RowPlan(NamedTuple):
    """What a "Which GPU" row reads of a plan (``row_plans.row_plan``; compare.offer_row): the
    memory step's fit (its breakdown's figures) instead of the breakdown, no layouts."""

    inputs: EstimateInputs
    tokens: TokenSummary
    flops: FlopBreakdown
    memory: Fit  # on the GPUs that train
    time: TimePlan
    nodes: int
    warnings: tuple[str, ...]
