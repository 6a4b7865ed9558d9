"""Model panel: a preset picker plus the architecture fields."""

from __future__ import annotations

from typing import ClassVar

from PySide6.QtWidgets import QComboBox, QLabel

from ...core.architecture import ModelSpec
from ...core.inputs import EstimateInputs
from ...io.resources import builtin_presets
from ..binding import signals_blocked
from .form import FormPanel

CUSTOM = "__custom__"


class ModelPanel(FormPanel):
    GROUPS = (
        (
            "Architecture",
            "model",
            ModelSpec,
            (
                "name",
                "param_count_override",
                "num_layers",
                "hidden_size",
                "num_attention_heads",
                "num_kv_heads",
                "head_dim",
                "intermediate_size",
                "mlp_kind",
                "vocab_size",
                "tied_embeddings",
                "max_context",
            ),
        ),
        (
            "Details (biases, norms, positions)",
            "model",
            ModelSpec,
            (
                "attention_qkv_bias",
                "attention_out_bias",
                "mlp_bias",
                "norm_kind",
                "norms_per_layer",
                "qk_norm",
                "position_embeddings",
            ),
        ),
        (
            "Mixture of experts",
            "model",
            ModelSpec,
            (
                "num_experts",
                "experts_per_token",
                "num_shared_experts",
                "expert_intermediate_size",
                "shared_expert_intermediate_size",
                "shared_expert_gate",
            ),
        ),
    )
    SPECIAL_TEXT: ClassVar[dict[str, str]] = {"param_count_override": "from the architecture"}

    def build_header(self) -> None:
        form = self.new_form("Preset")
        self.preset_combo = QComboBox(self)
        self.preset_combo.setObjectName("preset")
        self.preset_combo.setAccessibleName("Model preset")
        self._presets = {p.id: p for p in builtin_presets().models}
        for p in self._presets.values():
            self.preset_combo.addItem(f"{p.spec.name}  ({p.size})", p.id)
        self.preset_combo.addItem("Custom", CUSTOM)
        self.preset_combo.setToolTip(
            "Built-in model shapes from the models' config.json. Picking one replaces every "
            "architecture field below; editing a field makes it 'Custom'."
        )
        label = QLabel("&Preset:", self)
        label.setBuddy(self.preset_combo)
        form.addRow(label, self.preset_combo)
        self.preset_combo.activated.connect(self._on_preset_activated)

    def _on_preset_activated(self, index: int) -> None:
        pid = self.preset_combo.itemData(index)
        if pid == CUSTOM or pid not in self._presets:
            return
        preset = self._presets[pid]
        doc = self.store.inputs.model_dump()
        doc["model"] = preset.spec.model_dump()
        new = EstimateInputs.model_validate(doc)
        self.store.set_inputs(new, description=f"Preset {preset.spec.name}")

    def select_preset(self, preset_id: str) -> None:
        """Pick a preset as a user would (used by tests and the File → New example)."""
        idx = self.preset_combo.findData(preset_id)
        self.preset_combo.setCurrentIndex(idx)
        self._on_preset_activated(idx)

    def update_applicability(self, inputs: EstimateInputs) -> None:
        pid = CUSTOM
        for p in self._presets.values():
            if p.spec == inputs.model:
                pid = p.id
                break
        with signals_blocked(self.preset_combo):
            self.preset_combo.setCurrentIndex(self.preset_combo.findData(pid))
        moe = inputs.model.num_experts > 0
        for name in (
            "experts_per_token",
            "num_shared_experts",
            "expert_intermediate_size",
            "shared_expert_intermediate_size",
            "shared_expert_gate",
        ):
            self.set_row_state("model", name, enabled=moe)
