"""The plan search's space: the ways one job can be run, and the constraints a plan must meet.

A plan is the scenario (model, data, objective, overheads, project) run another way: on one GPU
offer of the catalog, with a training method the user allows, on a GPU count that can be
rented as such (``layout.rented``: single GPUs, rental units, whole nodes beyond one node), with
the effective batch split into micro-batch × accumulation × GPUs, checkpointing on or off and a
sharding. The effective batch (sequences per optimizer step) is kept: it is a training
hyper-parameter, not a speed knob, so a count that cannot split it evenly is not a plan.
Pure: no Qt, no files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ._field import fld
from .compare import Offer
from .defaults import with_spec
from .inputs import Billing, EstimateInputs, GpuSpec, Method, Sharding
from .layout import rented

# The methods the issue names: full (mixed-precision AdamW), 8-bit Adam, LoRA, QLoRA.
DEFAULT_METHODS: tuple[Method, ...] = ("full_amp_adamw", "full_adamw_8bit", "lora", "qlora")
SHARDINGS: tuple[Sharding, ...] = ("none", "zero1", "zero2", "zero3")
# Micro-batches tried: every divisor of the batch per GPU up to this many sequences. Beyond it
# the fixed cost per micro-batch is long amortised (throughput.FIXED_S_PER_MICROBATCH).
MAX_MICRO_BATCH = 64
MAX_GRAD_ACCUM = 65536  # TrainingSpec.grad_accum's bound
MAX_SEARCH_GPUS = 4096  # counts beyond are not enumerated (no catalog rents more to one job)
PlanObjective = Literal["cheapest", "fastest"]


class PlanConstraints(BaseModel):
    """What a plan must meet, and what 'best' means."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    deadline_h: float | None = fld(
        None,
        "Deadline",
        "Longest wall-clock of one run, start-up, checkpoint writes and evaluation included "
        "(on spot: with the expected interruptions). Empty: none.",
        "h",
        ge=0.01,
        le=1e6,
        step=1,
        decimals=2,
    )
    budget_usd: float | None = fld(
        None,
        "Budget per run",
        "Most one run may cost at the chosen billing. Empty: none.",
        "$",
        ge=0,
        le=1e9,
        step=10,
        decimals=2,
    )
    max_gpus: int | None = fld(
        None,
        "Max GPUs",
        "Most GPUs the job may hold (rented ones and any rollout GPUs). Empty: any count that "
        "splits the effective batch.",
        "",
        ge=1,
        le=MAX_SEARCH_GPUS,
    )
    billing: Billing = fld(
        "on_demand",
        "Billing",
        "on_demand: each offer's on-demand (or committed) price. spot: its spot price, with "
        "the interruptions' extra time (article 001: F = 1 + λ(T/2 + R)); offers without one "
        "are left out.",
    )
    methods: tuple[Method, ...] = Field(
        DEFAULT_METHODS,
        title="Methods",
        description="The training methods a plan may use.",
        min_length=1,
        json_schema_extra={"unit": ""},
    )
    cost_weight: float = fld(
        1.0,
        "Weight on cost",
        "What 'best' means: 1 the cheapest plan, 0 the fastest, between them the plan with the "
        "least weight × cost ÷ cheapest + (1 − weight) × wall-clock ÷ fastest.",
        "",
        ge=0,
        le=1,
        step=0.1,
        decimals=2,
    )
    effective_batch: int | None = fld(
        None,
        "Effective batch",
        "Sequences per optimizer step (micro-batch × accumulation × GPUs), kept by every plan. "
        "Empty: the scenario's.",
        "seqs",
        ge=1,
        le=10**6,
    )

    memory_margin: bool = fld(
        True,
        "Keep the memory margin",
        "On: a plan must leave the scenario's near-limit margin of each GPU's memory free "
        "(Hardware → Near-limit margin, 5% by default), since allocator fragmentation or a "
        "longer batch can tip a fuller GPU over. Off: any plan that fits.",
    )

    @field_validator("methods")
    @classmethod
    def _distinct(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v))

    @property
    def objective(self) -> str:
        """'cheapest', 'fastest' or 'weighted'."""
        if self.cost_weight >= 1.0:
            return "cheapest"
        if self.cost_weight <= 0.0:
            return "fastest"
        return "weighted"

    @property
    def deadline_s(self) -> float | None:
        return None if self.deadline_h is None else self.deadline_h * 3600.0


def objective_weight(objective: str | float) -> float:
    """The cost weight of 'cheapest' (1), 'fastest' (0) or a number in [0, 1]."""
    if objective == "cheapest":
        return 1.0
    if objective == "fastest":
        return 0.0
    return float(objective)


@dataclass(frozen=True, slots=True)
class Knobs:
    """How the job runs on its GPUs."""

    method: str
    num_gpus: int  # GPUs rented and trained on (a rentable count)
    micro_batch: int
    grad_accum: int
    checkpointing: bool
    sharding: str


def with_knobs(inputs: EstimateInputs, k: Knobs) -> EstimateInputs:
    """The inputs run with ``k`` (an unvalidated copy: every knob is within its field's bounds)."""
    training = inputs.training.model_copy(
        update={
            "method": k.method,
            "num_gpus": k.num_gpus,
            "auto_gpu_count": False,
            "micro_batch": k.micro_batch,
            "grad_accum": k.grad_accum,
            "checkpointing": "full" if k.checkpointing else "none",
            "sharding": k.sharding,
        }
    )
    return inputs.model_copy(update={"training": training})


def plan_inputs(inputs: EstimateInputs, o: Offer, k: Knobs, billing: str) -> EstimateInputs:
    """The scenario on offer ``o`` (its spec and prices, crediting its catalog), run with ``k``
    and its project billed at ``billing``; unvalidated (see ``adopted``)."""
    on_gpu = with_spec(with_knobs(inputs, k), o.spec, o.origin)
    if on_gpu.project.billing == billing:
        return on_gpu
    project = on_gpu.project.model_copy(update={"billing": billing})
    return on_gpu.model_copy(update={"project": project})


def adopted(inputs: EstimateInputs) -> EstimateInputs:
    """A plan's inputs validated as a file would be (what 'use this plan' puts in the scenario)."""
    return EstimateInputs.model_validate(inputs.model_dump())


# What a plan sets, reset to one value (search_key).
_NO_KNOBS = Knobs("full_amp_adamw", 1, 1, 1, False, "zero3")
_NO_OFFER = Offer(GpuSpec(id="", name=""))


def search_key(inputs: EstimateInputs) -> EstimateInputs:
    """The scenario as the search sees it: every setting a plan chooses (method, GPU count,
    batch split, checkpointing, sharding, GPU and prices, billing) reset to one value. Searching
    the key gives the plans of the scenario (its effective batch given in the constraints), so
    adopting a plan, or editing what a plan chooses anyway, needs no new search."""
    return plan_inputs(inputs, _NO_OFFER, _NO_KNOBS, "on_demand")


def effective_batch(inputs: EstimateInputs, num_gpus: int) -> int:
    """Sequences per optimizer step of the scenario on ``num_gpus`` GPUs."""
    tr = inputs.training
    return tr.micro_batch * tr.grad_accum * num_gpus


def node_size(inputs: EstimateInputs, o: Offer) -> int:
    """GPUs per node of the offer: the scenario's value, else the catalog row's (as plan())."""
    return inputs.hardware.gpus_per_node or o.spec.gpus_per_node


def rentable_counts(
    inputs: EstimateInputs, o: Offer, batch: int, max_gpus: int | None
) -> list[int]:
    """GPU counts a job of ``batch`` sequences per step can use on offer ``o``: a count that can
    be rented as it is (``layout.rented`` rents no more than it) and divides the batch."""
    node = node_size(inputs, o)
    whole = inputs.hardware.rent_whole_units
    limit = min(batch, max_gpus or MAX_SEARCH_GPUS, MAX_SEARCH_GPUS)
    return [
        c
        for c in range(1, limit + 1)
        if batch % c == 0 and rented(c, node, o.spec.rent_unit_gpus, whole).gpus == c
    ]


def batch_splits(batch: int, num_gpus: int) -> list[tuple[int, int]]:
    """(micro-batch, accumulation) pairs with micro-batch × accumulation × GPUs = ``batch``."""
    if batch % num_gpus:
        return []
    per_gpu = batch // num_gpus
    return [
        (mb, per_gpu // mb)
        for mb in range(1, min(per_gpu, MAX_MICRO_BATCH) + 1)
        if per_gpu % mb == 0 and per_gpu // mb <= MAX_GRAD_ACCUM
    ]


def shardings_for(num_gpus: int, scenario: str) -> tuple[str, ...]:
    """On one GPU sharding changes nothing: the scenario's own is kept (nothing to adopt)."""
    return (scenario,) if num_gpus == 1 else SHARDINGS


def describe(k: Knobs) -> dict[str, Any]:
    """The knobs as JSON values (the CLI's and the report's)."""
    return {
        "method": k.method,
        "num_gpus": k.num_gpus,
        "micro_batch": k.micro_batch,
        "grad_accum": k.grad_accum,
        "checkpointing": k.checkpointing,
        "sharding": k.sharding,
    }
