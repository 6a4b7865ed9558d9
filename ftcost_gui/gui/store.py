"""EstimateStore: the single source of live state for the window.

Holds the document (named scenarios, one of them selected), the selected scenario's inputs (what
the forms edit), the last results, the file path and the dirty flag. Every edit goes through
:meth:`EstimateStore.set_field` or :meth:`EstimateStore.set_inputs` (the selected scenario) or
:meth:`EstimateStore.set_document` (scenario operations: add, duplicate, rename, delete, reorder,
select); recomputation is debounced on the GUI thread with a single-shot timer. Every recorded
change is announced as ``documentCommitted(old, new, description)`` so one undo stack covers field
edits and scenario operations alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QObject, QTimer, Signal

from ..core.document import EstimateDocument, Scenario
from ..core.estimate import estimate
from ..core.inputs import EstimateInputs
from ..core.results import EstimateResult
from ..core.scenarios import compare_methods
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
    """Document, selected inputs, last results, path and dirty flag; validation and recompute."""

    inputsChanged = Signal(object)  # EstimateInputs of the selected scenario
    resultChanged = Signal(object)  # EstimateResult of the selected scenario
    resultsChanged = Signal(object)  # list[EstimateResult | None], one per scenario
    documentChanged = Signal(object)  # EstimateDocument (any change: names, order, inputs)
    documentCommitted = Signal(object, object, str)  # old doc, new doc, description (undoable)
    errorChanged = Signal(str)  # recompute failure ('' when cleared)
    fieldError = Signal(str, str, str)  # section, name, message
    fieldOk = Signal(str, str)  # section, name
    editCommitted = Signal(object, object, str)  # old inputs, new inputs, description
    dirtyChanged = Signal(bool)
    activeScenarioChanged = Signal(int)  # the forms now edit another scenario
    pathChanged = Signal(object)  # Path | None

    def __init__(
        self, inputs: EstimateInputs | EstimateDocument | None = None, parent: QObject | None = None
    ):
        super().__init__(parent)
        if isinstance(inputs, EstimateDocument):
            self._doc = inputs
        else:
            self._doc = EstimateDocument.single(inputs if inputs is not None else EstimateInputs())
        self._result: EstimateResult | None = None
        self._results: list[EstimateResult | None] = []
        self._cache: dict[EstimateInputs, EstimateResult] = {}
        self._path: Path | None = None
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.recompute_now)

    # --- state --------------------------------------------------------------------------------
    @property
    def inputs(self) -> EstimateInputs:
        """The selected scenario's inputs (what the forms show and edit)."""
        return self._doc.current.inputs

    @property
    def document(self) -> EstimateDocument:
        return self._doc

    @property
    def active(self) -> int:
        return self._doc.active

    @property
    def result(self) -> EstimateResult | None:
        """The selected scenario's last result."""
        return self._result

    @property
    def results(self) -> list[EstimateResult | None]:
        """One result per scenario, as of the last recompute (None where it failed)."""
        return list(self._results)

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
    def _with_current(self, inputs: EstimateInputs) -> EstimateDocument:
        doc = self._doc
        scenarios = list(doc.scenarios)
        scenarios[doc.active] = Scenario(name=doc.current.name, inputs=inputs)
        return EstimateDocument(scenarios=tuple(scenarios), active=doc.active)

    def set_field(self, section: str, name: str, value: Any) -> bool:
        """Validate and apply one field; False (and ``fieldError``) when the value is rejected."""
        old = self.inputs
        try:
            new = EstimateInputs.model_validate(_with_change(old, section, name, value))
        except ValidationError as exc:
            self.fieldError.emit(section, name, describe_validation_error(exc))
            return False
        self.fieldOk.emit(section, name)
        if new == old:
            return True
        self._replace_inputs(new, True, f"Edit {name.replace('_', ' ')}")
        return True

    def set_inputs(
        self, inputs: EstimateInputs, *, record: bool = True, description: str = "Change inputs"
    ) -> None:
        """Replace the selected scenario's inputs at once: one ``inputsChanged``, one recompute."""
        self._replace_inputs(inputs, record, description)

    def _replace_inputs(self, inputs: EstimateInputs, record: bool, description: str) -> None:
        old, old_doc = self.inputs, self._doc
        self._doc = self._with_current(inputs)
        self.inputsChanged.emit(inputs)
        self.documentChanged.emit(self._doc)
        if record and inputs != old:
            self.editCommitted.emit(old, inputs, description)
            self.documentCommitted.emit(old_doc, self._doc, description)
        self._timer.start()

    # --- scenarios ------------------------------------------------------------------------------
    def set_document(
        self,
        document: EstimateDocument,
        *,
        record: bool = True,
        description: str = "Change scenarios",
    ) -> None:
        """Replace the whole document (one batch update) and recompute at once."""
        old = self._doc
        if document == old:
            return
        self._doc = document
        self.documentChanged.emit(document)
        if old.active != document.active or old.current.inputs != document.current.inputs:
            self.inputsChanged.emit(document.current.inputs)
        if record:
            self.documentCommitted.emit(old, document, description)
        self.recompute_now()

    def select_scenario(self, index: int) -> None:
        """Make another scenario the one the forms edit (not an undo step, not a change)."""
        if index == self._doc.active or not 0 <= index < len(self._doc.scenarios):
            return
        doc = EstimateDocument(scenarios=self._doc.scenarios, active=index)
        self.set_document(doc, record=False)
        self.activeScenarioChanged.emit(index)

    def add_scenario(self, inputs: EstimateInputs, name: str = "Scenario") -> int:
        """Append a scenario (a free name derived from ``name``) and select it; its index."""
        doc = self._doc
        scenario = Scenario(name=doc.unique_name(name), inputs=inputs)
        new = EstimateDocument(scenarios=(*doc.scenarios, scenario), active=len(doc.scenarios))
        self.set_document(new, description=f"Add scenario {scenario.name}")
        return new.active

    def duplicate_scenario(self, index: int | None = None) -> int:
        """Copy a scenario (default: the selected one) right after it and select the copy."""
        doc = self._doc
        i = doc.active if index is None else index
        src = doc.scenarios[i]
        copy = Scenario(name=doc.unique_name(src.name), inputs=src.inputs)
        scenarios = (*doc.scenarios[: i + 1], copy, *doc.scenarios[i + 1 :])
        self.set_document(
            EstimateDocument(scenarios=scenarios, active=i + 1),
            description=f"Duplicate scenario {src.name}",
        )
        return i + 1

    def rename_scenario(self, index: int, name: str) -> str:
        """'' when renamed (or unchanged), else why not, in one line."""
        doc = self._doc
        name = " ".join(name.split())
        old = doc.scenarios[index].name
        if name == old:
            return ""
        if not name:
            return "A scenario needs a name."
        if len(name) > 200:
            return "Scenario names are at most 200 characters."
        if any(s.name == name for s in doc.scenarios):
            return f"There is already a scenario named {name!r}."
        scenarios = list(doc.scenarios)
        scenarios[index] = Scenario(name=name, inputs=scenarios[index].inputs)
        self.set_document(
            EstimateDocument(scenarios=tuple(scenarios), active=doc.active),
            description=f"Rename scenario {old} to {name}",
        )
        return ""

    def delete_scenario(self, index: int) -> bool:
        """Remove a scenario; the last one cannot be removed."""
        doc = self._doc
        n = len(doc.scenarios)
        if n <= 1 or not 0 <= index < n:
            return False
        scenarios = doc.scenarios[:index] + doc.scenarios[index + 1 :]
        active = doc.active
        if index < active or (index == active and active == n - 1):
            active -= 1
        self.set_document(
            EstimateDocument(scenarios=scenarios, active=active),
            description=f"Delete scenario {doc.scenarios[index].name}",
        )
        return True

    def move_scenario(self, index: int, to: int) -> bool:
        """Reorder: the scenario at ``index`` ends at ``to``; the selection follows its scenario."""
        doc = self._doc
        n = len(doc.scenarios)
        if index == to or not (0 <= index < n and 0 <= to < n):
            return False
        order = list(range(n))
        order.insert(to, order.pop(index))
        scenarios = tuple(doc.scenarios[i] for i in order)
        self.set_document(
            EstimateDocument(scenarios=scenarios, active=order.index(doc.active)),
            description=f"Move scenario {doc.scenarios[index].name}",
        )
        return True

    def compare_methods(self) -> None:
        """Append full / LoRA / QLoRA copies of the selected scenario (one undo step)."""
        self.set_document(compare_methods(self._doc), description="Compare methods")

    # --- results --------------------------------------------------------------------------------
    def _estimate(self, inputs: EstimateInputs) -> EstimateResult:
        result = self._cache.get(inputs)
        if result is None:
            result = estimate(inputs)
        return result

    def recompute_now(self) -> EstimateResult | None:
        """Estimate every scenario at once (flushes a pending debounce); the selected result."""
        self._timer.stop()
        results: list[EstimateResult | None] = []
        cache: dict[EstimateInputs, EstimateResult] = {}
        error = ""
        for i, scenario in enumerate(self._doc.scenarios):
            try:
                r = self._estimate(scenario.inputs)
            except Exception as exc:  # the last valid result stays visible
                if i == self._doc.active:
                    error = f"Estimate failed: {exc}"
                elif not error:
                    error = f"Estimate of {scenario.name} failed: {exc}"
                results.append(None)
                continue
            cache[scenario.inputs] = r
            results.append(r)
        self._cache = cache
        self._results = results
        current = results[self._doc.active]
        self.errorChanged.emit(error)
        if current is not None:
            self._result = current
            self.resultChanged.emit(current)
        self.resultsChanged.emit(list(results))
        return self._result
