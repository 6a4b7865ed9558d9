"""Method & training panel: recipe, LoRA, memory savers, batch and the parallel layout."""

from __future__ import annotations

from typing import ClassVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QWidget

from ...core.architecture import LORA_TARGETS, ModelSpec, count_params, effective_counts
from ...core.inputs import METHOD_LABELS, SHARDING_LABELS, EstimateInputs, TrainingSpec
from ...core.objective import (
    OBJECTIVE_LABELS,
    PLACEMENT_LABELS,
    REFERENCE_LABELS,
    ObjectiveSpec,
)
from ...present.text import fmt_count, fmt_exact, fmt_share
from ..binding import signals_blocked
from .form import FormPanel


class LoraTargetsEditor(QWidget):
    """One checkbox per adaptable projection, each with the parameters it adds; the value is
    the tuple of checked names. ``set_model`` refreshes the counts (rank or model changed)."""

    committed = Signal(object)
    COLUMNS = 2  # target pairs per row

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(2)
        self.boxes: dict[str, QCheckBox] = {}
        self.counts: dict[str, QLabel] = {}
        self._by_target: dict[str, tuple[float, float]] = {}
        self._model_total, self._rank, self._moe = 0.0, 0, False
        for i, name in enumerate(LORA_TARGETS):
            box = QCheckBox(name, self)
            box.setObjectName(f"lora_{name}")
            box.setToolTip(f"Adapt {name}")
            box.setAccessibleName(f"LoRA target {name}")
            box.toggled.connect(self._on_toggled)
            count = QLabel("", self)
            count.setObjectName(f"lora_count_{name}")
            count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            count.setMinimumWidth(count.fontMetrics().horizontalAdvance("+888M") + 2)
            row, col = divmod(i, self.COLUMNS)
            grid.addWidget(box, row, 3 * col)
            grid.addWidget(count, row, 3 * col + 1)
            self.boxes[name] = box
            self.counts[name] = count
        for col in range(self.COLUMNS - 1):
            grid.setColumnMinimumWidth(3 * col + 2, 14)  # a gap between the pairs
        grid.setColumnStretch(3 * self.COLUMNS - 1, 1)
        self.total = QLabel("", self)
        self.total.setObjectName("lora_total")
        self.total.setWordWrap(True)
        rows = -(-len(LORA_TARGETS) // self.COLUMNS)
        grid.addWidget(self.total, rows, 0, 1, 3 * self.COLUMNS)

    def _on_toggled(self, _checked: bool) -> None:
        self._update_total()
        self.committed.emit(self.field_value())

    def field_value(self) -> tuple[str, ...]:
        return tuple(n for n, b in self.boxes.items() if b.isChecked())

    def set_field_value(self, value: tuple[str, ...]) -> None:
        for n, b in self.boxes.items():
            with signals_blocked(b):
                b.setChecked(n in value)
        self._update_total()

    def setToolTip(self, text: str) -> None:
        super().setToolTip(text)
        for b in self.boxes.values():
            b.setToolTip(text)

    # --- counts ----------------------------------------------------------------------------------
    def set_model(self, model: ModelSpec, rank: int) -> None:
        """Show what each target adds at this rank (scaled like the estimate for a bare count)."""
        exact = count_params(model).total
        self._model_total = effective_counts(model).total
        scale = self._model_total / exact if exact else 1.0
        self._rank = rank
        self._moe = model.is_moe
        self._by_target = {
            t: (total * scale, active * scale)
            for t, (total, active) in model.lora_params_by_target(rank).items()
        }
        for name, label in self.counts.items():
            total, active = self._by_target[name]
            if total == 0:
                label.setText("n/a")
                tip = f"{name}: this model's MLP has no gate matrix; adapting it adds nothing."
            else:
                label.setText(f"+{fmt_count(total)}")
                tip = (
                    f"{name} at rank {rank}: {fmt_exact(total)} trainable parameters "
                    f"(r × (d_in + d_out) per matrix, {model.num_layers} layers)"
                )
                if model.is_moe and active != total:
                    tip += f"; {fmt_exact(active)} active per token"
            label.setToolTip(tip)
            self.boxes[name].setAccessibleDescription(f"adds {label.text()} trainable parameters")
        self._update_total()

    def _update_total(self) -> None:
        if not self._by_target:
            return
        picked = [self._by_target[t] for t in self.field_value()]
        total = sum(t for t, _ in picked)
        active = sum(a for _, a in picked)
        text = f"+{fmt_count(total)} trainable, {fmt_share(total, self._model_total)} of the model"
        if self._moe and active != total:
            text += f" ({fmt_count(active)} active per token)"
        self.total.setText(text)
        self.total.setToolTip(
            f"{fmt_exact(total)} adapter parameters at rank {self._rank} over "
            f"{fmt_exact(self._model_total)} model parameters"
        )


class TrainingPanel(FormPanel):
    GROUPS = (
        ("Method", "training", TrainingSpec, ("method", "lora_rank", "adapter_dtype")),
        (
            "Objective",
            "objective",
            ObjectiveSpec,
            (
                "objective",
                "dpo_reference",
                "kl_beta",
                "reward_model",
                "critic_size_ratio",
                "frozen_precision",
            ),
        ),
        (
            "Rollouts (GRPO / PPO)",
            "objective",
            ObjectiveSpec,
            (
                "prompts_per_step",
                "completions_per_prompt",
                "mean_prompt_tokens",
                "mean_completion_tokens",
                "kept_fraction",
                "policy_epochs",
                "rollout_placement",
                "rollout_memory_share",
                "rollout_gpus",
                "max_concurrent_sequences",
            ),
        ),
        (
            "Memory savers",
            "training",
            TrainingSpec,
            ("checkpointing", "attention", "loss", "cpu_offload_optimizer"),
        ),
        ("Batch", "training", TrainingSpec, ("micro_batch", "grad_accum")),
        (
            "GPUs and sharding",
            "training",
            TrainingSpec,
            ("auto_gpu_count", "num_gpus", "sharding"),
        ),
    )
    CHOICE_LABELS: ClassVar[dict[str, dict[str, str]]] = {
        "method": METHOD_LABELS,
        "sharding": SHARDING_LABELS,
        "objective": OBJECTIVE_LABELS,
        "dpo_reference": REFERENCE_LABELS,
        "rollout_placement": PLACEMENT_LABELS,
        "frozen_precision": {"bf16": "bf16 (2 B)", "fp8": "fp8 (1 B)", "nf4": "NF4 (≈0.52 B)"},
    }

    def add_group(self, title, section, model_cls, names):
        form = super().add_group(title, section, model_cls, names)
        if title == "Method":
            editor = LoraTargetsEditor(self)
            binding = self.add_row(form, "training", TrainingSpec, "lora_targets", editor)
            editor.setToolTip(binding.spec.tooltip)
            editor.setProperty("base_tooltip", binding.spec.tooltip)
            self.lora_targets = editor
        return form

    def update_applicability(self, inputs: EstimateInputs) -> None:
        tr = inputs.training
        adapters = tr.method in ("lora", "qlora")
        self.set_row_state("training", "lora_rank", visible=adapters)
        self.set_row_state("training", "adapter_dtype", visible=adapters)
        self.set_row_state("training", "lora_targets", visible=adapters)
        if adapters:
            self.lora_targets.set_model(inputs.model, tr.lora_rank)
        self.set_row_state("training", "num_gpus", enabled=not tr.auto_gpu_count)
        self._objective_applicability(inputs)

    def _objective_applicability(self, inputs: EstimateInputs) -> None:
        """Show only the fields the chosen objective and rollout placement use."""
        ob = inputs.objective
        rl = ob.objective in ("grpo", "ppo")
        dpo = ob.objective == "dpo"
        reward = rl and (ob.reward_model or ob.objective == "ppo")
        frozen = (dpo and ob.dpo_reference == "frozen_copy") or (rl and (ob.kl_beta > 0 or reward))
        rows = {
            "dpo_reference": dpo,
            "kl_beta": rl,
            "reward_model": rl,
            "critic_size_ratio": reward,
            "frozen_precision": frozen,
            "prompts_per_step": rl,
            "completions_per_prompt": rl,
            "mean_prompt_tokens": rl,
            "mean_completion_tokens": rl,
            "kept_fraction": rl,
            "policy_epochs": rl,
            "rollout_placement": rl,
            "rollout_memory_share": rl and ob.rollout_placement == "colocated",
            "rollout_gpus": rl and ob.rollout_placement == "separate",
            "max_concurrent_sequences": rl and ob.rollout_placement == "separate",
        }
        for name, visible in rows.items():
            # PPO always scores with a reward model: its box is shown, not to be unticked (set
            # once: enabled, then disabled again, sent both rows' widgets two changes an edit).
            enabled = ob.objective == "grpo" if name == "reward_model" else True
            self.set_row_state("objective", name, visible=visible, enabled=enabled)
        box = self._forms[("objective", "prompts_per_step")].parentWidget()
        box.setVisible(rl)
