"""Editors built from field metadata, and the binding between one editor and one store field.

``widget_for(spec)`` is magicgui's type → widget table reduced to what ftcost needs: int →
QSpinBox, float → QDoubleSpinBox (optional floats get a "none/auto" special value at the
minimum), large-range numbers → a line edit that reads ``6e7``/``60M``, bool → QCheckBox,
choice → QComboBox, str → QLineEdit. Every editor has ``value()``, ``setValue()`` and a
``committed(object)`` signal that fires once per finished edit.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Iterator

from PySide6.QtCore import QObject, QRegularExpression, Qt, Signal
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from ..core.fields import FieldSpec
from ..core.inputs import EstimateInputs
from .store import EstimateStore

INT32_MAX = 2**31 - 1
BIG_FLOAT = 1e9  # floats whose range reaches this get the scientific-notation editor
INVALID_STYLE = "border: 2px solid #c62828; border-radius: 3px;"

_SUFFIXES = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_NUMBER_RE = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([kKmMbBgGtT]?)\s*$")


@contextlib.contextmanager
def signals_blocked(obj: QObject) -> Iterator[None]:
    """Block a QObject's signals for a programmatic update (napari ``qt_signals_blocked``)."""
    previous = obj.blockSignals(True)
    try:
        yield
    finally:
        obj.blockSignals(previous)


def parse_number(text: str) -> float | None:
    """Read ``6e7``, ``60M``, ``1.2B``, ``60,000,000`` or ``60_000_000``; None if unreadable."""
    cleaned = text.replace(",", "").replace("_", "").replace(" ", "")
    m = _NUMBER_RE.match(cleaned)
    if not m:
        return None
    value = float(m.group(1)) * _SUFFIXES.get(m.group(2).lower(), 1.0)
    return value if math.isfinite(value) else None


def format_number(value: float) -> str:
    """Compact, lossless-enough text for the large-number editor: 60M, 6.61B, 1e+15."""
    a = abs(value)
    if a >= 1e15:
        return f"{value:.6g}"
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if a >= div:
            return f"{value / div:.6g}{suffix}"
    if float(value).is_integer():
        return f"{int(value)}"
    return f"{value:.6g}"


class _NoWheelMixin:
    """Spin boxes and combos in a scroll area must not eat the wheel unless focused."""

    def wheelEvent(self, event):
        if self.hasFocus():  # type: ignore[attr-defined]
            super().wheelEvent(event)  # type: ignore[misc]
        else:
            event.ignore()


class IntEditor(_NoWheelMixin, QSpinBox):
    committed = Signal(object)

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None):
        super().__init__(parent)
        self.setKeyboardTracking(False)  # valueChanged on Enter / focus-out / arrows only
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        lo = spec.minimum if spec.minimum is not None else 0
        if spec.exclusive_min:
            lo += 1
        hi = spec.maximum if spec.maximum is not None else INT32_MAX
        self.setRange(int(lo), int(min(hi, INT32_MAX)))
        self.setSingleStep(int(spec.step or 1))
        self.setGroupSeparatorShown(True)
        if spec.zero_text and lo == 0:
            self.setSpecialValueText(spec.zero_text)  # 0 means "derived", say so
        if spec.unit:
            self.setSuffix(f" {spec.unit}")
        self.valueChanged.connect(lambda v: self.committed.emit(int(v)))


class FloatEditor(_NoWheelMixin, QDoubleSpinBox):
    """A bounded float; for ``float | None`` the minimum shows ``special`` and means None."""

    committed = Signal(object)

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None, special: str = "auto"):
        super().__init__(parent)
        self.setKeyboardTracking(False)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._optional = spec.optional
        decimals = spec.decimals if spec.decimals is not None else 2
        step = spec.step if spec.step is not None else (1.0 if decimals <= 1 else 10.0**-decimals)
        self.setDecimals(decimals)
        self.setSingleStep(step)
        lo = spec.minimum if spec.minimum is not None else 0.0
        if spec.exclusive_min and not spec.optional:
            lo += 10.0**-decimals
        hi = spec.maximum if spec.maximum is not None else 1e9
        if spec.optional:
            # One step below the smallest valid value stands for None.
            self._sentinel = lo if spec.exclusive_min else lo - step
            self.setRange(self._sentinel, hi)
            self.setSpecialValueText(special)
        else:
            self._sentinel = None
            self.setRange(lo, hi)
        self.setGroupSeparatorShown(True)
        if spec.unit:
            self.setSuffix(f" {spec.unit}")
        self.valueChanged.connect(lambda _v: self.committed.emit(self.field_value()))

    def field_value(self) -> float | None:
        v = float(super().value())
        if self._optional and self._sentinel is not None and v <= self._sentinel + 1e-12:
            return None
        return v

    def set_field_value(self, value: float | None) -> None:
        if value is None:
            self.setValue(self.minimum())
        else:
            self.setValue(float(value))


class NumberEdit(QLineEdit):
    """Large-range numbers: accepts scientific notation and k/M/B/T suffixes; empty = None."""

    committed = Signal(object)

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None, special: str = "auto"):
        super().__init__(parent)
        self._spec = spec
        self._is_int = spec.kind == "int"
        self.setValidator(
            QRegularExpressionValidator(QRegularExpression(r"[0-9.,_ eE+\-kKmMbBgGtT]*"), self)
        )
        hint = "e.g. 6e7, 60M, 1.2B"
        self.setPlaceholderText(special if spec.optional else hint)
        self._unit = spec.unit
        self.editingFinished.connect(self._on_editing_finished)

    def _on_editing_finished(self) -> None:
        text = self.text().strip()
        if not text and self._spec.optional:
            self.committed.emit(None)
            return
        value = parse_number(text)
        if value is None:
            self.committed.emit(text)  # the store rejects it and the field is marked
            return
        self.committed.emit(round(value) if self._is_int else value)

    def field_value(self) -> float | int | None:
        text = self.text().strip()
        if not text:
            return None
        v = parse_number(text)
        if v is None:
            return None
        return round(v) if self._is_int else v

    def set_field_value(self, value: float | None) -> None:
        self.setText("" if value is None else format_number(value))


class ChoiceEditor(_NoWheelMixin, QComboBox):
    committed = Signal(object)

    def __init__(
        self, spec: FieldSpec, labels: dict[str, str] | None = None, parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        labels = labels or {}
        for choice in spec.choices:
            self.addItem(labels.get(choice, choice.replace("_", " ")), choice)
        self.currentIndexChanged.connect(lambda _i: self.committed.emit(self.currentData()))

    def field_value(self) -> str:
        return self.currentData()

    def set_field_value(self, value: str) -> None:
        idx = self.findData(value)
        if idx >= 0:
            self.setCurrentIndex(idx)


class BoolEditor(QCheckBox):
    committed = Signal(object)

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None):
        super().__init__(parent)
        self.toggled.connect(lambda v: self.committed.emit(bool(v)))

    def field_value(self) -> bool:
        return self.isChecked()

    def set_field_value(self, value: bool) -> None:
        self.setChecked(bool(value))


class TextEditor(QLineEdit):
    committed = Signal(object)

    def __init__(self, spec: FieldSpec, parent: QWidget | None = None):
        super().__init__(parent)
        self.editingFinished.connect(lambda: self.committed.emit(self.text()))

    def field_value(self) -> str:
        return self.text()

    def set_field_value(self, value: str) -> None:
        self.setText(str(value))


def _int_field_value(self: IntEditor) -> int:
    return int(self.value())


def _int_set_field_value(self: IntEditor, value: int) -> None:
    self.setValue(int(value))


IntEditor.field_value = _int_field_value  # type: ignore[attr-defined]
IntEditor.set_field_value = _int_set_field_value  # type: ignore[attr-defined]


def needs_number_edit(spec: FieldSpec) -> bool:
    """Ranges a spin box handles badly: ints past int32, floats reaching 1e9 without a step."""
    hi = spec.maximum if spec.maximum is not None else math.inf
    if spec.kind == "int":
        return hi > INT32_MAX
    return spec.kind == "float" and hi >= BIG_FLOAT and spec.step is None and not spec.decimals


def widget_for(
    spec: FieldSpec, labels: dict[str, str] | None = None, special: str = "auto"
) -> QWidget:
    """The editor for one field, configured from its metadata (the form sets label/tooltip)."""
    if spec.kind in ("int", "float") and needs_number_edit(spec):
        w: QWidget = NumberEdit(spec, special=special)
    elif spec.kind == "int":
        w = IntEditor(spec)
    elif spec.kind == "float":
        w = FloatEditor(spec, special=special)
    elif spec.kind == "bool":
        w = BoolEditor(spec)
    elif spec.kind == "choice":
        w = ChoiceEditor(spec, labels)
    elif spec.kind == "str":
        w = TextEditor(spec)
    else:
        raise TypeError(f"no editor for field {spec.name!r} of kind {spec.kind!r}")
    tip = spec.tooltip
    if spec.unit:
        tip = f"{tip}\nUnit: {spec.unit}"
    if spec.minimum is not None or spec.maximum is not None:
        lo = (
            "" if spec.minimum is None else f"{'>' if spec.exclusive_min else '≥'} {spec.minimum:g}"
        )
        hi = "" if spec.maximum is None else f"≤ {spec.maximum:g}"
        tip = f"{tip}\nRange: {' and '.join(x for x in (lo, hi) if x)}"
    w.setToolTip(tip)
    w.setWhatsThis(spec.tooltip)
    w.setAccessibleName(spec.label)
    w.setAccessibleDescription(spec.tooltip)
    w.setObjectName(spec.name)
    w.setProperty("base_tooltip", tip)
    return w


class FieldBinding:
    """Connects one editor to ``store.set_field(section, name, value)`` and back.

    Model → view writes compare first and run with the editor's signals blocked, so updating the
    form never re-enters the store (echo ``qt/connect.py``, napari ``attr_to_settr``).
    """

    def __init__(self, store: EstimateStore, section: str, spec: FieldSpec, widget: QWidget):
        self.store = store
        self.section = section
        self.spec = spec
        self.widget = widget
        self._slot: Callable[[object], None] | None = None
        self.error: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.section, self.spec.name)

    def connect(self) -> None:
        def _slot(value: object) -> None:
            self.update_model(value)

        self._slot = _slot
        self.widget.committed.connect(_slot)  # type: ignore[attr-defined]

    def disconnect(self) -> None:
        if self._slot is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                self.widget.committed.disconnect(self._slot)  # type: ignore[attr-defined]
            self._slot = None

    def update_model(self, value: object) -> bool:
        # A choice or a check box is one finished edit: its figures follow at once. Typed
        # numbers wait for the store's typing pause (arrows held down repeat).
        at_once = isinstance(self.widget, ChoiceEditor | BoolEditor)
        return self.store.set_field(self.section, self.spec.name, value, at_once=at_once)

    def section_of(self, inputs: EstimateInputs) -> object:
        node: object = inputs
        for part in self.section.split("."):
            node = getattr(node, part)
        return node

    def model_value(self, inputs: EstimateInputs) -> object:
        return getattr(self.section_of(inputs), self.spec.name)

    def update_widget(self, inputs: EstimateInputs) -> None:
        value = self.model_value(inputs)
        w = self.widget
        current = w.field_value()  # type: ignore[attr-defined]
        stale_text = isinstance(w, NumberEdit) and w.text() != (
            "" if value is None else format_number(value)
        )
        if self.error or stale_text or current != value:
            with signals_blocked(w):
                w.set_field_value(value)  # type: ignore[attr-defined]
        if self.error:
            self.clear_error()

    def mark_error(self, message: str) -> None:
        self.error = message
        self.widget.setStyleSheet(INVALID_STYLE)
        self.widget.setToolTip(f"Not applied: {message}\n\n{self.widget.property('base_tooltip')}")
        self.widget.setProperty("invalid", True)

    def clear_error(self) -> None:
        if not self.error:
            return
        self.error = ""
        self.widget.setStyleSheet("")
        self.widget.setToolTip(self.widget.property("base_tooltip"))
        self.widget.setProperty("invalid", False)
