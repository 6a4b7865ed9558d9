"""Hardware panel: a GPU picker from the catalog, the GPU's facts and prices, efficiency."""

from __future__ import annotations

from typing import ClassVar

from PySide6.QtWidgets import QComboBox, QLabel

from ...core.inputs import EfficiencySpec, EstimateInputs, GpuSpec, HardwareSpec
from ...io.resources import builtin_catalog
from ..binding import signals_blocked
from .form import FormPanel

CUSTOM = "__custom__"
_FACTS = ("memory_gib", "bf16_tflops", "interconnect")


class HardwarePanel(FormPanel):
    GROUPS = (
        (
            "GPU facts and your prices",
            "hardware.gpu",
            GpuSpec,
            (
                "memory_gib",
                "bf16_tflops",
                "interconnect",
                "on_demand_usd_per_hour",
                "spot_usd_per_hour",
            ),
        ),
        (
            "Cluster",
            "hardware",
            HardwareSpec,
            ("gpus_per_node", "usable_memory_fraction", "framework_overhead_gib"),
        ),
        (
            "Efficiency",
            "efficiency",
            EfficiencySpec,
            (
                "mfu",
                "mfu_band",
                "comm_overhead",
                "qlora_slowdown",
                "offload_slowdown",
                "measured_tokens_per_s",
                "step_time_s",
            ),
        ),
    )
    SPECIAL_TEXT: ClassVar[dict[str, str]] = {
        "spot_usd_per_hour": "none",
        "comm_overhead": "auto",
        "measured_tokens_per_s": "none",
        "step_time_s": "none",
    }

    def build_header(self) -> None:
        form = self.new_form("Accelerator")
        self.gpu_combo = QComboBox(self)
        self.gpu_combo.setObjectName("gpu")
        self.gpu_combo.setAccessibleName("GPU model")
        self._catalog = {g.id: g for g in builtin_catalog().gpus}
        for g in self._catalog.values():
            self.gpu_combo.addItem(
                f"{g.name}  ({g.memory_gib:g} GiB, {g.bf16_tflops:,.0f} TFLOPS)", g.id
            )
        self.gpu_combo.addItem("Custom", CUSTOM)
        self.gpu_combo.setMaxVisibleItems(20)
        self.gpu_combo.setToolTip(
            "Built-in GPU catalog (dense BF16 peak, reported memory, example prices). Picking one "
            "copies its facts and default prices into this estimate; edit the prices below."
        )
        label = QLabel("&GPU:", self)
        label.setBuddy(self.gpu_combo)
        form.addRow(label, self.gpu_combo)
        self.price_note = QLabel(self)
        self.price_note.setWordWrap(True)
        self.price_note.setStyleSheet("color: palette(mid);")
        form.addRow(self.price_note)
        self.gpu_combo.activated.connect(self._on_gpu_activated)

    def _on_gpu_activated(self, index: int) -> None:
        gid = self.gpu_combo.itemData(index)
        if gid not in self._catalog:
            return
        self.store.set_field("hardware", "gpu", self._catalog[gid].to_spec().model_dump())

    def select_gpu(self, gpu_id: str) -> None:
        idx = self.gpu_combo.findData(gpu_id)
        self.gpu_combo.setCurrentIndex(idx)
        self._on_gpu_activated(idx)

    def update_applicability(self, inputs: EstimateInputs) -> None:
        gpu = inputs.hardware.gpu
        cat = self._catalog.get(gpu.id)
        same = cat is not None and all(getattr(cat, f) == getattr(gpu, f) for f in _FACTS)
        gid = gpu.id if same else CUSTOM
        with signals_blocked(self.gpu_combo):
            self.gpu_combo.setCurrentIndex(self.gpu_combo.findData(gid))
        note = f"Prices as of {gpu.price_as_of}" if gpu.price_as_of else "Prices: your own"
        self.price_note.setText(f"{note}. Set them to what you pay.")
        tr = inputs.training
        self.set_row_state("efficiency", "qlora_slowdown", enabled=tr.method == "qlora")
        self.set_row_state("efficiency", "offload_slowdown", enabled=tr.cpu_offload_optimizer)
