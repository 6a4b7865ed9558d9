"""Method & training panel: recipe, LoRA, memory savers, batch and the parallel layout."""

from __future__ import annotations

from typing import ClassVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QWidget

from ...core.architecture import LORA_TARGETS
from ...core.inputs import METHOD_LABELS, SHARDING_LABELS, EstimateInputs, TrainingSpec
from ..binding import signals_blocked
from .form import FormPanel


class LoraTargetsEditor(QWidget):
    """One checkbox per adaptable projection; the value is the tuple of checked names."""

    committed = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(2)
        self.boxes: dict[str, QCheckBox] = {}
        for i, name in enumerate(LORA_TARGETS):
            box = QCheckBox(name.removesuffix("_proj"), self)
            box.setObjectName(f"lora_{name}")
            box.setToolTip(f"Adapt {name}")
            box.setAccessibleName(f"LoRA target {name}")
            box.toggled.connect(self._on_toggled)
            grid.addWidget(box, i // 4, i % 4)
            self.boxes[name] = box

    def _on_toggled(self, _checked: bool) -> None:
        self.committed.emit(self.field_value())

    def field_value(self) -> tuple[str, ...]:
        return tuple(n for n, b in self.boxes.items() if b.isChecked())

    def set_field_value(self, value: tuple[str, ...]) -> None:
        for n, b in self.boxes.items():
            with signals_blocked(b):
                b.setChecked(n in value)

    def setToolTip(self, text: str) -> None:
        super().setToolTip(text)
        for b in self.boxes.values():
            b.setToolTip(text)


class TrainingPanel(FormPanel):
    GROUPS = (
        ("Method", "training", TrainingSpec, ("method", "lora_rank")),
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
    }

    def add_group(self, title, section, model_cls, names):
        form = super().add_group(title, section, model_cls, names)
        if title == "Method":
            editor = LoraTargetsEditor(self)
            binding = self.add_row(form, "training", TrainingSpec, "lora_targets", editor)
            editor.setToolTip(binding.spec.tooltip)
            editor.setProperty("base_tooltip", binding.spec.tooltip)
        return form

    def update_applicability(self, inputs: EstimateInputs) -> None:
        tr = inputs.training
        adapters = tr.method in ("lora", "qlora")
        self.set_row_state("training", "lora_rank", visible=adapters)
        self.set_row_state("training", "lora_targets", visible=adapters)
        self.set_row_state("training", "num_gpus", enabled=not tr.auto_gpu_count)
