"""Spot interruptions and the project around the runs: the inputs' billing and budget sections.

Split from core/inputs.py (one module, one responsibility); ``core.inputs`` re-exports them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from ._field import fld

Billing = Literal["on_demand", "spot"]
_FROZEN = ConfigDict(frozen=True, extra="forbid")


class SpotSpec(BaseModel):
    """Interruptible capacity: F = 1 + λ(T/2 + R), λ for the job (article 001)."""

    model_config = _FROZEN

    interruptions_per_node_hour: float = fld(
        0.05,
        "Interruptions per node-hour",
        "Preemption rate of one node.",
        "/h",
        ge=0,
        le=100,
        step=0.01,
        decimals=3,
    )
    restart_overhead_min: float = fld(
        9.0,
        "Restart overhead (R)",
        "Re-acquire, reload, resume.",
        "min",
        ge=0,
        le=10_000,
        decimals=1,
    )


class ProjectSpec(BaseModel):
    """The budget around the run (articles 000, 001, 004)."""

    model_config = _FROZEN

    planned_runs: int = fld(
        4,
        "Planned runs",
        "Sweep points and the final run (004: 3 HPO + 1 final).",
        "",
        ge=1,
        le=100_000,
    )
    failed_runs: int = fld(
        2,
        "Failed-run allowance",
        "Runs that fail before one you keep (001: budget two to three).",
        "",
        ge=0,
        le=100_000,
    )
    billing: Billing = fld(
        "on_demand", "Project billed at", "Price the project's runs on-demand or spot."
    )
    checkpoints_retained: int = fld(
        5, "Checkpoints kept", "Resumable checkpoints kept in storage.", "", ge=0, le=100_000
    )
    storage_usd_per_gb_month: float = fld(
        0.023,
        "Storage price",
        "Object storage per GB-month.",
        "$/GB-mo",
        ge=0,
        le=100,
        step=0.001,
        decimals=3,
    )
    storage_months: float = fld(
        3.0, "Storage months", "How long they are kept.", "months", ge=0, le=1200, decimals=1
    )
    engineering_hours: float = fld(
        20.0,
        "Engineering hours",
        "Pipeline, evaluation harness, analysis.",
        "h",
        ge=0,
        le=10**6,
        decimals=1,
    )
    data_prep_hours: float = fld(
        20.0,
        "Data-preparation hours",
        "004: 20–40 h for a 10k-sample dataset from raw logs.",
        "h",
        ge=0,
        le=10**6,
        decimals=1,
    )
    hourly_rate_usd: float = fld(
        150.0,
        "Hourly rate",
        "Fully loaded engineering rate (004: $150/h).",
        "$/h",
        ge=0,
        le=10_000,
        decimals=2,
    )
