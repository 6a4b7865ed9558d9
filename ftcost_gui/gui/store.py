"""EstimateStore: the single source of live state for the window.

Holds the current (valid) inputs, the last result, the file path and the dirty flag. Every edit
goes through :meth:`EstimateStore.set_field` or :meth:`EstimateStore.set_inputs`; recomputation is
debounced on the GUI thread with a single-shot timer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QObject, QTimer, Signal

from ..core.estimate import estimate
from ..core.inputs import EstimateInputs
from ..core.results import EstimateResult
from .qt_compat import guard_refcount_leak

guard_refcount_leak()

DEBOUNCE_MS = 120


def describe_validation_error(err: ValidationError) -> str:
    """One line per pydantic error, 'Value error, ' prefixes dropped."""
    lines = []
    for e in err.errors():
        msg = str(e.get("msg", ""))
        msg = msg.removeprefix("Value error, ")
        lines.append(msg)
    return "; ".join(dict.fromkeys(lines))


def _with_change(inputs: EstimateInputs, section: str, name: str, value: Any) -> dict[str, Any]:
    """The nested dump of ``inputs`` with ``section.name`` replaced (section may be dotted)."""
    doc = inputs.model_dump()
    node = doc
    for part in section.split("."):
        node = node[part]
    node[name] = value
    return doc


class EstimateStore(QObject):
    """Current inputs, last result, path and dirty flag; validation and debounced recompute."""

    inputsChanged = Signal(object)  # EstimateInputs
    resultChanged = Signal(object)  # EstimateResult
    errorChanged = Signal(str)  # recompute failure ('' when cleared)
    fieldError = Signal(str, str, str)  # section, name, message
    fieldOk = Signal(str, str)  # section, name
    editCommitted = Signal(object, object, str)  # old inputs, new inputs, description
    dirtyChanged = Signal(bool)
    pathChanged = Signal(object)  # Path | None

    def __init__(self, inputs: EstimateInputs | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._inputs = inputs if inputs is not None else EstimateInputs()
        self._result: EstimateResult | None = None
        self._path: Path | None = None
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.recompute_now)

    # --- state --------------------------------------------------------------------------------
    @property
    def inputs(self) -> EstimateInputs:
        return self._inputs

    @property
    def result(self) -> EstimateResult | None:
        return self._result

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def dirty(self) -> bool:
        return self._dirty

    @property
    def pending(self) -> bool:
        """A recompute is scheduled but has not run yet."""
        return self._timer.isActive()

    def set_path(self, path: str | Path | None) -> None:
        self._path = Path(path) if path is not None else None
        self.pathChanged.emit(self._path)

    def set_dirty(self, dirty: bool) -> None:
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirtyChanged.emit(dirty)

    # --- edits --------------------------------------------------------------------------------
    def set_field(self, section: str, name: str, value: Any) -> bool:
        """Validate and apply one field; False (and ``fieldError``) when the value is rejected."""
        old = self._inputs
        try:
            new = EstimateInputs.model_validate(_with_change(old, section, name, value))
        except ValidationError as exc:
            self.fieldError.emit(section, name, describe_validation_error(exc))
            return False
        self.fieldOk.emit(section, name)
        if new == old:
            return True
        self._inputs = new
        self.inputsChanged.emit(new)
        self.editCommitted.emit(old, new, f"Edit {name.replace('_', ' ')}")
        self._timer.start()
        return True

    def set_inputs(
        self, inputs: EstimateInputs, *, record: bool = True, description: str = "Change inputs"
    ) -> None:
        """Replace everything at once: one ``inputsChanged``, one (debounced) recompute."""
        old = self._inputs
        self._inputs = inputs
        self.inputsChanged.emit(inputs)
        if record and inputs != old:
            self.editCommitted.emit(old, inputs, description)
        self._timer.start()

    def recompute_now(self) -> EstimateResult | None:
        """Run the estimate at once (flushes a pending debounce)."""
        self._timer.stop()
        try:
            result = estimate(self._inputs)
        except Exception as exc:  # the last valid result stays visible
            self.errorChanged.emit(f"Estimate failed: {exc}")
            return self._result
        self._result = result
        self.errorChanged.emit("")
        self.resultChanged.emit(result)
        return result
