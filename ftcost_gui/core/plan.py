"""What ``estimate.plan`` computes before the MFU is known: the ``Plan`` and its ``Layout``s.

Data only, in their own module so that the steps that read a plan (``rl_summary``) need not
import the orchestration that makes it (``estimate``).
"""

from __future__ import annotations

from typing import NamedTuple

from . import rollout
from .alignment import ExtraFlops, RlShape
from .architecture import ParamCounts
from .inputs import EstimateInputs
from .layout import Rented
from .memory_step import MemoryStep
from .results import FlopBreakdown, MemoryBreakdown, ParamSummary, TokenSummary
from .time_cost import Checkpoint, TimePlan


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
