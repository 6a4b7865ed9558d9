"""Hardware panel: the GPU picker (effective catalog), the GPU's facts and prices, efficiency.

The picker lists the effective catalog: the active user catalog's rows over the built-in ones,
each with where it comes from. Choosing a row copies its spec and prices into the estimate (one
undoable edit). A "(custom)" entry stands for an estimate GPU that is not in the catalog, or whose
facts or prices were edited. "Edit catalogs…" opens the catalog manager.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QWidget,
)

from ...core.catalog import BUILTIN_NAME, TIER_LABELS, EffectiveRow, id_key
from ...core.compare import inputs_with_gpu
from ...core.defaults import with_spec
from ...core.fields import field_spec
from ...core.inputs import EfficiencySpec, EstimateInputs, GpuSpec, HardwareSpec
from ...core.results import EstimateResult
from ...io.catalog_store import CatalogError
from ...io.names import plain
from ...present.time_texts import mfu_text, price_label, price_word
from ..binding import signals_blocked
from ..catalog.service import CatalogService
from ..catalog.text import fmt_price, origin_label
from ..muted_label import MutedLabel
from ..rich_text import rich_text
from ..store import EstimateStore, describe_validation_error
from .form import FormPanel

CUSTOM_ROLE = Qt.ItemDataRole.UserRole + 1  # True on the "(custom)" entry
_FACTS = (
    "memory_gib",
    "bf16_tflops",
    "bf16_supported",
    "memory_bandwidth_gb_s",
    "interconnect",
    "interconnect_gb_s",
)
_PRICES = ("on_demand_usd_per_hour", "spot_usd_per_hour", "pricing_tier")


def same_facts(a: GpuSpec, b: GpuSpec) -> bool:
    return all(getattr(a, f) == getattr(b, f) for f in _FACTS)


def same_prices(a: GpuSpec, b: GpuSpec) -> bool:
    return all(getattr(a, f) == getattr(b, f) for f in _PRICES)


def picker_text(row: EffectiveRow) -> str:
    g = row.gpu
    over = ", overrides built-in" if row.overrides_builtin else ""
    return (
        f"{plain(g.name)} — {origin_label(row.origin)}{over} · {g.memory_gib:g} GiB · "
        f"{g.bf16_tflops:,.0f} TFLOPS · {fmt_price(g.on_demand_usd_per_hour)}"
    )


class HardwarePanel(FormPanel):
    GROUPS = (
        (
            "GPU facts and your prices",
            "hardware.gpu",
            GpuSpec,
            (
                "memory_gib",
                "bf16_tflops",
                "achievable_fraction",
                "interconnect",
                "interconnect_gb_s",
                "network_gbit_s",
                "rent_unit_gpus",
                "on_demand_usd_per_hour",
                "spot_usd_per_hour",
                "pricing_tier",
            ),
        ),
        (
            "Cluster",
            "hardware",
            HardwareSpec,
            (
                "gpus_per_node",
                "rent_whole_units",
                "usable_memory_fraction",
                "framework_overhead_gib",
                "near_limit_fraction",
            ),
        ),
        (
            "Efficiency",
            "efficiency",
            EfficiencySpec,
            (
                "mfu",
                "stack_efficiency",
                "mfu_band",
                "communication",
                "comm_overlap",
                "comm_overhead",
                "qlora_slowdown",
                "offload_slowdown",
                "measured_tokens_per_s",
                "step_time_s",
            ),
        ),
    )
    CHOICE_LABELS: ClassVar[dict[str, dict[str, str]]] = {"pricing_tier": TIER_LABELS}
    SPECIAL_TEXT: ClassVar[dict[str, str]] = {
        "spot_usd_per_hour": "none",
        "comm_overhead": "auto",
        "mfu": "default",
        "stack_efficiency": "default",
        "qlora_slowdown": "from bandwidth",
        "measured_tokens_per_s": "none",
        "step_time_s": "none",
    }

    def __init__(
        self,
        store: EstimateStore,
        parent: QWidget | None = None,
        catalog: CatalogService | None = None,
    ):
        # The window's catalogs exist before this panel is built (gui/panels/form_tabs.py).
        self._given_catalog = catalog
        super().__init__(store, parent)

    def build_header(self) -> None:
        form = self.new_form("Accelerator")
        given = self._given_catalog
        self.catalog = given if given is not None else CatalogService(parent=self)
        self.catalog_combo = QComboBox(self)
        self.catalog_combo.setObjectName("active_catalog")
        self.catalog_combo.setAccessibleName("Active GPU catalog")
        self.catalog_combo.setToolTip(
            "The active price catalog: its rows replace built-in rows of the same id and add new "
            "GPUs. Built-in: the example prices shipped with ftcost."
        )
        self.catalog_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.catalog_combo.setMinimumContentsLength(10)
        self.edit_catalogs_button = QPushButton("Edit catalogs…", self)
        self.edit_catalogs_button.setObjectName("edit_catalogs")
        self.edit_catalogs_button.setToolTip("Create, edit, import and export GPU price catalogs")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.catalog_combo, 1)
        row.addWidget(self.edit_catalogs_button)
        cat_label = QLabel("Cata&log:", self)
        cat_label.setBuddy(self.catalog_combo)
        form.addRow(cat_label, row)

        self.gpu_combo = QComboBox(self)
        self.gpu_combo.setObjectName("gpu")
        self.gpu_combo.setAccessibleName("GPU model")
        self.gpu_combo.setMaxVisibleItems(20)
        self.gpu_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.gpu_combo.setMinimumContentsLength(18)
        self.gpu_combo.setToolTip(
            "GPUs of the active catalog over the built-in one (dense BF16 peak, reported memory, "
            "prices). Picking one copies its facts and prices into this estimate; edit the prices "
            "below, or keep your own in a catalog (Edit catalogs…)."
        )
        label = QLabel("&GPU:", self)
        label.setBuddy(self.gpu_combo)
        form.addRow(label, self.gpu_combo)
        self.price_note = MutedLabel("", self)
        self.price_note.setObjectName("price_note")
        self.price_note.setTextFormat(Qt.TextFormat.PlainText)  # "as of" is a file's free text
        self.price_note.setWordWrap(True)
        form.addRow(self.price_note)
        self.gpu_combo.activated.connect(self._on_gpu_activated)
        self.catalog_combo.activated.connect(self._on_catalog_activated)
        self.edit_catalogs_button.clicked.connect(self.open_catalog_editor)
        self.catalog.changed.connect(self._on_catalog_changed)
        self.store.resultChanged.connect(self.show_defaults)
        self._fill_catalog_combo()
        self._fill_gpu_combo()

    # --- catalog -----------------------------------------------------------------------------
    @property
    def rows(self) -> list[EffectiveRow]:
        return self.catalog.rows

    def open_catalog_editor(self):
        from ..catalog.editor import open_catalog_editor  # loaded when first opened

        return open_catalog_editor(self.catalog, self.window())

    def _fill_catalog_combo(self) -> None:
        with signals_blocked(self.catalog_combo):
            self.catalog_combo.clear()
            self.catalog_combo.addItem(f"{BUILTIN_NAME} (shipped with ftcost)", BUILTIN_NAME)
            for name in self.catalog.user_names:
                self.catalog_combo.addItem(name, name)
            idx = self.catalog_combo.findData(self.catalog.active_name)
            self.catalog_combo.setCurrentIndex(max(idx, 0))

    def _on_catalog_activated(self, index: int) -> None:
        name = self.catalog_combo.itemData(index)
        if name == self.catalog.active_name:
            return
        try:
            self.catalog.set_active(name)
        except CatalogError as exc:
            QMessageBox.warning(self, "ftcost — GPU catalogs", str(exc))
            self.catalog.reload()

    def _on_catalog_changed(self) -> None:
        self._fill_catalog_combo()
        self._fill_gpu_combo()

    # --- GPU picker ----------------------------------------------------------------------------
    def _fill_gpu_combo(self) -> None:
        combo = self.gpu_combo
        with signals_blocked(combo):
            combo.clear()
            for r in self.rows:
                combo.addItem(picker_text(r), r.gpu.id)
                g = r.gpu
                as_of = f", as of {plain(g.price_as_of)}" if g.price_as_of else ""
                combo.setItemData(
                    combo.count() - 1,
                    rich_text(  # a tooltip guesses rich text: the names are data
                        f"{plain(g.name)} ({plain(g.id)}) from {origin_label(r.origin)}"
                        f"{' (overrides the built-in row)' if r.overrides_builtin else ''}: "
                        f"{price_word(g.pricing_tier)} {fmt_price(g.on_demand_usd_per_hour)}, "
                        f"spot {fmt_price(g.spot_usd_per_hour)}{as_of}"
                    ),
                    Qt.ItemDataRole.ToolTipRole,
                )
        view = combo.view()
        view.setMinimumWidth(min(view.sizeHintForColumn(0) + 32, 900))
        self._sync_picker(self.store.inputs)

    def _catalog_index(self, gpu_id: str) -> int:
        k = id_key(gpu_id)
        for i, r in enumerate(self.rows):
            if id_key(r.gpu.id) == k:
                return i
        return -1

    def _on_gpu_activated(self, index: int) -> None:
        if index < 0 or index >= len(self.rows) or self.gpu_combo.itemData(index, CUSTOM_ROLE):
            return
        row = self.rows[index]
        spec = row.gpu.to_spec()
        if spec == self.store.inputs.hardware.gpu:
            return
        try:
            inputs = inputs_with_gpu(self.store.inputs, spec)
        except ValidationError as exc:
            self.store.fieldError.emit("hardware", "gpu", describe_validation_error(exc))
            return
        inputs = with_spec(inputs, inputs.hardware.gpu, row.origin)  # credit its catalog
        self.store.set_inputs(inputs, description=f"Use GPU {row.gpu.name}", at_once=True)

    def select_gpu(self, gpu_id: str) -> None:
        """Pick a catalog GPU by id, as the user would."""
        idx = self._catalog_index(gpu_id)
        if idx < 0:
            raise KeyError(gpu_id)
        self.gpu_combo.setCurrentIndex(idx)
        self._on_gpu_activated(idx)

    def _set_custom(self, text: str | None, gpu_id: str = "") -> int:
        """Add, update or remove the trailing "(custom)" entry; its index or -1."""
        combo = self.gpu_combo
        last = combo.count() - 1
        has = last >= 0 and bool(combo.itemData(last, CUSTOM_ROLE))
        if text is None:
            if has:
                combo.removeItem(last)
            return -1
        if not has:
            combo.addItem(text, gpu_id)
            last = combo.count() - 1
            combo.setItemData(last, True, CUSTOM_ROLE)
        combo.setItemText(last, text)
        combo.setItemData(last, gpu_id)
        combo.setItemData(
            last,
            "This estimate's own GPU: not in the catalog as it is (pick a catalog GPU to replace "
            "it).",
            Qt.ItemDataRole.ToolTipRole,
        )
        return last

    def _sync_picker(self, inputs: EstimateInputs) -> None:
        """Select the catalog row the estimate's GPU is, or the "(custom)" entry."""
        gpu = inputs.hardware.gpu
        idx = self._catalog_index(gpu.id)
        row = self.rows[idx] if idx >= 0 else None
        with signals_blocked(self.gpu_combo):
            if row is not None and same_facts(row.gpu, gpu) and same_prices(row.gpu, gpu):
                self._set_custom(None)
                self.gpu_combo.setCurrentIndex(idx)
                src = origin_label(row.origin)
                when = f", as of {plain(gpu.price_as_of)}" if gpu.price_as_of else ""
                note = f"Prices from the catalog ({src}{when}). Set them to what you pay."
            elif row is not None and same_facts(row.gpu, gpu):
                self.gpu_combo.setCurrentIndex(
                    self._set_custom(f"{plain(gpu.name)} — your prices (custom)", gpu.id)
                )
                cat = origin_label(row.origin)
                note = (
                    f"Your prices: the catalog ({cat}) says "
                    f"{fmt_price(row.gpu.on_demand_usd_per_hour)} "
                    f"{price_word(row.gpu.pricing_tier)}, "
                    f"{fmt_price(row.gpu.spot_usd_per_hour)} spot."
                )
            else:
                custom = self._set_custom(f"{plain(gpu.name)} (custom)", gpu.id)
                self.gpu_combo.setCurrentIndex(custom)
                why = "its facts differ from the catalog row" if row else "not in the catalog"
                note = f"Custom GPU ({why}). Prices: your own."
        self.price_note.setText(note)

    def show_defaults(self, result: EstimateResult | None) -> None:
        """The derived values an empty MFU or stack efficiency stands for, in the field itself
        ('default 32%') and its tooltip ('default for LoRA on H100 SXM: 32%')."""
        if result is None:
            return
        t, gpu = result.time, self.store.inputs.hardware.gpu.name
        for name, short, full in (
            ("mfu", f"default {t.mfu_default:.0%}", mfu_text(t, gpu)),
            (
                "stack_efficiency",
                f"default {t.mfu_default / t.achievable_fraction:.2f}",
                f"default stack efficiency: {t.stack_method:.2f} × data shape {t.shape_factor:.2f}",
            ),
        ):
            editor = self.editor("efficiency", name)
            editor.setSpecialValueText(short)
            spec_help = field_spec(EfficiencySpec, name).tooltip
            # the GPU name is data: never read as rich text
            editor.setToolTip(rich_text(f"{full}\n\n{spec_help}"))

    def _word_price_label(self, tier: str) -> None:
        """The first price's label says how it is billed: a 1-year rate is not 'On-demand'."""
        label = self._labels[("hardware.gpu", "on_demand_usd_per_hour")]
        label.setText(f"{price_label(tier)}:")

    def update_applicability(self, inputs: EstimateInputs) -> None:
        self._sync_picker(inputs)
        self._word_price_label(inputs.hardware.gpu.pricing_tier)
        tr = inputs.training
        links = inputs.efficiency.communication == "links"
        self.set_row_state("efficiency", "comm_overlap", enabled=links)
        self.show_defaults(self.store.result)
        self.set_row_state("efficiency", "qlora_slowdown", enabled=tr.method == "qlora")
        self.set_row_state("efficiency", "offload_slowdown", enabled=tr.cpu_offload_optimizer)
