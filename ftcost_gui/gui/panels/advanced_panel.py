"""Advanced panel: time overheads, spot interruptions, and the project budget."""

from __future__ import annotations

from typing import ClassVar

from ...core.inputs import EstimateInputs, OverheadSpec, ProjectSpec, SpotSpec
from ...core.objective import GENERATION_RATE_LABELS, ObjectiveSpec
from .form import FormPanel


class AdvancedPanel(FormPanel):
    GROUPS = (
        (
            "Time the GPUs are held without training",
            "overheads",
            OverheadSpec,
            (
                "provisioning_min",
                "weights_cached",
                "download_gb_per_s",
                "warmup_min",
                "nccl_init_min",
                "checkpoint_interval_min",
                "checkpoint_write_gb_per_s",
                "idle_hours_per_run",
            ),
        ),
        (
            "Evaluation and generation",
            "overheads",
            OverheadSpec,
            (
                "eval_passes_per_run",
                "eval_examples",
                "eval_output_tokens",
                "generation_mfu",
            ),
        ),
        (
            "Generation speed",
            "objective",
            ObjectiveSpec,
            ("generation_rate", "decode_bandwidth_efficiency", "eval_batch_size"),
        ),
        (
            "Spot interruptions",
            "spot",
            SpotSpec,
            ("interruptions_per_node_hour", "restart_overhead_min"),
        ),
        (
            "Project",
            "project",
            ProjectSpec,
            (
                "planned_runs",
                "failed_runs",
                "billing",
                "checkpoints_retained",
                "storage_usd_per_gb_month",
                "storage_months",
                "engineering_hours",
                "data_prep_hours",
                "hourly_rate_usd",
            ),
        ),
    )
    CHOICE_LABELS: ClassVar[dict[str, dict[str, str]]] = {
        "billing": {"on_demand": "on-demand", "spot": "spot"},
        "generation_rate": GENERATION_RATE_LABELS,
    }

    def update_applicability(self, inputs: EstimateInputs) -> None:
        rule = inputs.objective.generation_rate == "mfu"
        self.set_row_state("overheads", "generation_mfu", enabled=rule)
        self.set_row_state("objective", "decode_bandwidth_efficiency", enabled=not rule)
        self.set_row_state("objective", "eval_batch_size", enabled=not rule)
