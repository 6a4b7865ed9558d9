"""FormPanel: a scrollable column of group boxes whose rows come from field metadata.

Row order is data: each group is a tuple of field names of one section; labels, units, ranges,
steps and tooltips come from ``core.fields.field_spec`` (the pydantic ``Field``).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from ...core.fields import FieldSpec, field_spec
from ...core.inputs import EstimateInputs
from ..binding import FieldBinding, widget_for
from ..store import EstimateStore


class FormPanel(QWidget):
    """Base panel: builds rows, keeps the bindings, reflects store errors on the fields."""

    #: (group title, section path, model class, field names) per group; set by subclasses.
    GROUPS: tuple[tuple[str, str, type[BaseModel], tuple[str, ...]], ...] = ()
    #: Choice labels and special ("none") texts per field name.
    CHOICE_LABELS: ClassVar[dict[str, dict[str, str]]] = {}
    SPECIAL_TEXT: ClassVar[dict[str, str]] = {}

    def __init__(self, store: EstimateStore, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.bindings: dict[tuple[str, str], FieldBinding] = {}
        self._forms: dict[tuple[str, str], QFormLayout] = {}
        self._labels: dict[tuple[str, str], QLabel] = {}
        self._sections: dict[str, object] = {}  # the section objects the rows show
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(6, 6, 6, 6)
        self.column.setSpacing(8)
        self.build_header()
        for title, section, model_cls, names in self.GROUPS:
            self.add_group(title, section, model_cls, names)
        self.column.addStretch(1)
        for b in self.bindings.values():
            b.connect()
        store.inputsChanged.connect(self._on_store_inputs)
        store.fieldError.connect(self._on_store_field_error)
        store.fieldOk.connect(self._on_store_field_ok)
        self._on_store_inputs(store.inputs)

    # --- building -------------------------------------------------------------------------------
    def build_header(self) -> None:
        """Hook for rows above the generated groups (preset and GPU pickers)."""

    def new_form(self, title: str) -> QFormLayout:
        box = QGroupBox(title, self)
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.column.addWidget(box)
        return form

    def add_group(
        self, title: str, section: str, model_cls: type[BaseModel], names: tuple[str, ...]
    ) -> QFormLayout:
        form = self.new_form(title)
        for name in names:
            self.add_row(form, section, model_cls, name)
        return form

    def add_row(
        self,
        form: QFormLayout,
        section: str,
        model_cls: type[BaseModel],
        name: str,
        widget: QWidget | None = None,
    ) -> FieldBinding:
        spec = field_spec(model_cls, name)
        if widget is None:
            widget = widget_for(
                spec, self.CHOICE_LABELS.get(name), self.SPECIAL_TEXT.get(name, "auto")
            )
        label = QLabel(f"{spec.label}:", self)
        label.setBuddy(widget)
        label.setToolTip(widget.toolTip() or spec.tooltip)
        form.addRow(label, widget)
        binding = FieldBinding(self.store, section, spec, widget)
        self.bindings[(section, name)] = binding
        self._forms[(section, name)] = form
        self._labels[(section, name)] = label
        return binding

    # --- applicability --------------------------------------------------------------------------
    def set_row_state(self, section: str, name: str, *, visible: bool = True, enabled: bool = True):
        """Hide rows that do not apply; disable ones that apply but are derived."""
        form = self._forms[(section, name)]
        widget = self.bindings[(section, name)].widget
        form.setRowVisible(widget, visible)
        widget.setEnabled(enabled)
        self._labels[(section, name)].setEnabled(enabled)

    def update_applicability(self, inputs: EstimateInputs) -> None:
        """Hook: enable/hide rows from the current inputs."""

    def field_rows(self) -> list[tuple[str, FieldSpec, QLabel, QWidget]]:
        """(section, field spec, label, editor) of every generated row (help, tests)."""
        return [
            (section, b.spec, self._labels[(section, name)], b.widget)
            for (section, name), b in self.bindings.items()
            if (section, name) in self._labels
        ]

    def editor(self, section: str, name: str) -> QWidget:
        return self.bindings[(section, name)].widget

    # --- store → view ---------------------------------------------------------------------------
    def _on_store_inputs(self, inputs: EstimateInputs) -> None:
        # A section the edit left alone is the same object (gui/store.py): its rows stay as they
        # are, unless one shows a refused value to put back.
        sections = self._sections
        for b in self.bindings.values():
            node = b.section_of(inputs)
            if b.error or sections.get(b.section) is not node:
                b.update_widget(inputs)
        self._sections = {b.section: b.section_of(inputs) for b in self.bindings.values()}
        self.update_applicability(inputs)

    def _on_store_field_error(self, section: str, name: str, message: str) -> None:
        b = self.bindings.get((section, name))
        if b is not None:
            b.mark_error(message)

    def _on_store_field_ok(self, section: str, name: str) -> None:
        b = self.bindings.get((section, name))
        if b is not None:
            b.clear_error()

    def disconnect_all(self) -> None:
        for b in self.bindings.values():
            b.disconnect()
