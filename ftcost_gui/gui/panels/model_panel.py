"""Model panel: a searchable preset picker, the derived parameter count, the architecture fields."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
)
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QWidget,
)

from ...core.architecture import ModelSpec
from ...core.catalog import ModelPreset
from ...core.inputs import EstimateInputs
from ...io.resources import builtin_presets
from ..binding import signals_blocked
from ..model_ui import (
    CUSTOM,
    apply_model,
    checkpoint_text,
    grouped_by_family,
    matching_preset,
    param_summary,
    preset_label,
    preset_search_text,
    same_architecture,
)
from ..rich_text import rich_text
from .form import FormPanel

if TYPE_CHECKING:  # the header reader loads with the first model import
    from ...io.safetensors_header import SafetensorsCount

__all__ = ["CUSTOM", "ModelPanel", "PresetPicker"]

SEARCH_ROLE = Qt.ItemDataRole.UserRole + 1


class PresetFilterModel(QSortFilterProxyModel):
    """Rows whose search text contains every typed word (any order, any case)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._words: list[str] = []

    def set_query(self, text: str) -> None:
        words = text.lower().split()
        if words == self._words:
            return
        if hasattr(self, "beginFilterChange"):  # Qt 6.9+
            self.beginFilterChange()
            self._words = words
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:  # pragma: no cover - older Qt
            self._words = words
            self.invalidateFilter()

    def filterAcceptsRow(
        self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex
    ) -> bool:
        index = self.sourceModel().index(source_row, 0, source_parent)
        text = index.data(SEARCH_ROLE)
        if not text:  # separators
            return False
        return all(w in text for w in self._words)


class PresetCompleter(QCompleter):
    """Shows the filtered rows unfiltered (the proxy filters); inserts the display text."""

    def pathFromIndex(self, index: QModelIndex) -> str:
        return str(index.data(Qt.ItemDataRole.DisplayRole) or "")


class PresetPicker(QComboBox):
    """An editable combo: type words ("qwen 7b", "apache", "128k") to filter the presets.

    Item data is the preset id, or ``CUSTOM``. ``activated(int)`` fires when a person picks an
    item, from the list, from the search popup or with Enter on a search.
    """

    def __init__(self, presets: tuple[ModelPreset, ...], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("preset")
        self.setAccessibleName("Model preset")
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMaxVisibleItems(20)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(24)
        for i, (_family, items) in enumerate(grouped_by_family(presets)):
            if i:
                self.insertSeparator(self.count())
            for p in items:
                self.addItem(preset_label(p), p.id)
                row = self.count() - 1
                self.setItemData(row, preset_search_text(p), SEARCH_ROLE)
                tip = f"{p.spec.name} — {p.hf_id or p.id}"
                if p.expected_total:
                    tip += f"\n{p.expected_total:,} parameters (published)"
                self.setItemData(row, tip, Qt.ItemDataRole.ToolTipRole)
        self.insertSeparator(self.count())
        self.addItem("Custom", CUSTOM)
        self.setItemData(self.count() - 1, "custom", SEARCH_ROLE)
        self.setItemData(
            self.count() - 1,
            "Your own architecture: edit the fields below, or import a config.json",
            Qt.ItemDataRole.ToolTipRole,
        )

        self.filter_model = PresetFilterModel(self)
        self.filter_model.setSourceModel(self.model())
        self.search = PresetCompleter(self.filter_model, self)
        self.search.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.search.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.search.setMaxVisibleItems(12)
        self.lineEdit().setCompleter(self.search)
        self.lineEdit().setPlaceholderText("Type to search: family, size, licence…")
        self.lineEdit().setClearButtonEnabled(False)
        self.search.activated[QModelIndex].connect(self._on_search_activated)
        self.lineEdit().textEdited.connect(self._on_text_edited)
        self.lineEdit().returnPressed.connect(self._on_return)
        self.lineEdit().editingFinished.connect(self.restore_text)
        # Lists as wide as their longest entry: the field itself may be narrower than a label.
        fm = self.fontMetrics()
        widest = max(fm.horizontalAdvance(self.itemText(i)) for i in range(self.count()))
        scrollbar = self.style().pixelMetric(self.style().PixelMetric.PM_ScrollBarExtent)
        self.view().setMinimumWidth(widest + scrollbar + 24)
        self.search.popup().setMinimumWidth(widest + scrollbar + 24)
        self.currentIndexChanged.connect(self._on_current_changed)

    def _on_current_changed(self, index: int) -> None:
        self._refresh_tip()
        self.lineEdit().setCursorPosition(0)

    def _refresh_tip(self) -> None:
        """The field shows the full label (it may be elided) above the picker's help."""
        current = self.itemText(self.currentIndex())
        self.lineEdit().setToolTip(f"{current}\n\n{self.toolTip()}" if self.toolTip() else current)

    # --- searching -------------------------------------------------------------------------------
    def _on_text_edited(self, text: str) -> None:
        self.filter_model.set_query(text)
        if text.strip():
            self.search.setCompletionPrefix(text)
            self.search.complete()
        else:
            self.search.popup().hide()

    def matches(self) -> list[str]:
        """Preset ids (or CUSTOM) the current search shows, in order."""
        src = self.filter_model
        return [src.data(src.index(r, 0), Qt.ItemDataRole.UserRole) for r in range(src.rowCount())]

    def _on_search_activated(self, index: QModelIndex) -> None:
        # The popup's index belongs to the completer's own proxy; the role data passes through.
        self.pick_row(self.findData(index.data(Qt.ItemDataRole.UserRole)))

    def _on_return(self) -> None:
        popup = self.search.popup()
        if popup.isVisible() and popup.currentIndex().isValid():
            return  # the completer picks the highlighted row itself
        text = self.lineEdit().text()
        if text == self.itemText(self.currentIndex()):
            return
        ids = self.matches()
        if ids:
            self.pick_row(self.findData(ids[0]))

    def pick_row(self, row: int) -> None:
        """Select a row as a person would: current index, then ``activated``."""
        if row < 0 or self.itemData(row) is None:
            return
        self.search.popup().hide()
        # Not now: other slots of the completer's signal still hold indexes of the filtered rows.
        QTimer.singleShot(0, self, self._clear_query)
        self.setCurrentIndex(row)
        self.lineEdit().setText(self.itemText(row))
        self.lineEdit().setCursorPosition(0)
        self.activated.emit(row)

    def _clear_query(self) -> None:
        self.filter_model.set_query("")

    def restore_text(self) -> None:
        """Leaving the field with an unfinished search shows the current item again."""
        if self.search.popup().isVisible():
            return
        text = self.itemText(self.currentIndex())
        if self.lineEdit().text() != text:
            self.lineEdit().setText(text)
        self.lineEdit().setCursorPosition(0)
        self.filter_model.set_query("")

    def set_current_id(self, preset_id: str) -> None:
        """Show a preset (or Custom) without emitting anything."""
        idx = self.findData(preset_id)
        with signals_blocked(self):
            self.setCurrentIndex(idx)
        self._refresh_tip()
        if self.lineEdit().text() != self.itemText(idx) and not self.lineEdit().hasFocus():
            self.lineEdit().setText(self.itemText(idx))
        if not self.lineEdit().hasFocus():
            self.lineEdit().setCursorPosition(0)


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
                "fused_qkv",
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
        # The group's title is the picker's label (Alt+L focuses it); every row spans the form
        # so the combo has room for "Llama 3.1 · 405B · 128k ctx · Llama 3.1 Community".
        form = self.new_form("Mode&l preset")
        self._presets = {p.id: p for p in builtin_presets().models}
        self.preset_combo = PresetPicker(tuple(self._presets.values()), self)
        self.preset_combo.setToolTip(
            "Built-in model shapes from each model's published config.json. Type to search "
            "(family, size, licence, context); picking one replaces every architecture field "
            "below in one undoable step. Editing a field makes it 'Custom'."
        )
        form.addRow(self.preset_combo)
        self.preset_combo.activated.connect(self._on_preset_activated)
        self.params_label = QLabel(self)
        self.params_label.setObjectName("param_count")
        self.params_label.setWordWrap(True)
        self.params_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.params_label.setAccessibleName("Parameter count")
        form.addRow(self.params_label)

        self.checkpoint_label = QLabel(self)
        self.checkpoint_label.setObjectName("checkpoint_count")
        # Plain text: a checkpoint's tensor names and file names are data (and its tooltip).
        self.checkpoint_label.setTextFormat(Qt.TextFormat.PlainText)
        self.checkpoint_label.setWordWrap(True)
        self.checkpoint_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.checkpoint_label.setAccessibleName("Checkpoint parameter count")
        form.addRow(self.checkpoint_label)
        self._checkpoint: tuple[ModelSpec, str, str] | None = None
        self._header_form = form
        form.setRowVisible(self.checkpoint_label, False)

        self.actions_row = QWidget(self)
        row = QHBoxLayout(self.actions_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addStretch(1)
        form.addRow(self.actions_row)
        form.setRowVisible(self.actions_row, False)

    # --- hooks for the import actions (gui/model_import.py) --------------------------------------
    def set_model_actions(self, actions: list[tuple[str, QAction]]) -> None:
        """Buttons under the picker for the window's import actions: (button text, QAction)."""
        row = self.actions_row.layout()
        for text, action in actions:
            button = QPushButton(text, self.actions_row)
            button.setObjectName(f"button_{action.objectName()}")
            button.setToolTip(action.toolTip())
            button.setAccessibleName(action.text().replace("&", ""))
            button.clicked.connect(action.trigger)
            row.insertWidget(row.count() - 1, button)
        self._header_form.setRowVisible(self.actions_row, bool(actions))

    def show_checkpoint(
        self, spec: ModelSpec, count: SafetensorsCount | None, error: str = ""
    ) -> None:
        """Show a safetensors header count next to the architecture's (while that model is on)."""
        text, tip = checkpoint_text(count, spec, error)
        self._checkpoint = (spec, text, tip) if text else None
        self._update_counts(self.store.inputs.model)

    # --- preset picking --------------------------------------------------------------------------
    def _on_preset_activated(self, index: int) -> None:
        pid = self.preset_combo.itemData(index)
        if pid == CUSTOM or pid not in self._presets:
            self._update_counts(self.store.inputs.model)
            self._sync_picker(self.store.inputs.model)
            return
        preset = self._presets[pid]
        apply_model(self.store, preset.spec, f"Preset {preset.spec.name}")

    def select_preset(self, preset_id: str) -> None:
        """Pick a preset as a user would (used by tests and the File → New example)."""
        self.preset_combo.pick_row(self.preset_combo.findData(preset_id))

    def current_preset(self, spec: ModelSpec | None = None) -> ModelPreset | None:
        spec = spec if spec is not None else self.store.inputs.model
        return matching_preset(spec, self._presets.values())

    def _sync_picker(self, spec: ModelSpec) -> None:
        preset = self.current_preset(spec)
        self.preset_combo.set_current_id(preset.id if preset is not None else CUSTOM)

    def _update_counts(self, spec: ModelSpec) -> None:
        text, tip = param_summary(spec, self.current_preset(spec))
        self.params_label.setText(text)
        self.params_label.setToolTip(tip)
        show = self._checkpoint is not None and same_architecture(self._checkpoint[0], spec)
        if show and self._checkpoint is not None:
            self.checkpoint_label.setText(self._checkpoint[1])
            self.checkpoint_label.setToolTip(rich_text(self._checkpoint[2]))
        self._header_form.setRowVisible(self.checkpoint_label, show)

    # The model section this panel's picker, counts and rows were last set from.
    _applied_model: ModelSpec | None = None

    def update_applicability(self, inputs: EstimateInputs) -> None:
        # All of it follows the model section alone (the checkpoint count has its own call), and
        # an edit of another section leaves that the same object (gui/store.py): matching it to
        # every preset and counting its parameters again was ~2.5 % of the instructions of a
        # training check box's edit (callgrind).
        if inputs.model is self._applied_model:
            return
        self._applied_model = inputs.model
        self._sync_picker(inputs.model)
        self._update_counts(inputs.model)
        moe = inputs.model.num_experts > 0
        for name in (
            "experts_per_token",
            "num_shared_experts",
            "expert_intermediate_size",
            "shared_expert_intermediate_size",
            "shared_expert_gate",
        ):
            self.set_row_state("model", name, enabled=moe)
