"""EstimateStore: the single source of live state for the window.

Holds the document (named scenarios, one of them selected), the selected scenario's inputs (what
the forms edit), the last outcomes (core/series.py: the result and every plotted series, cached per
input set), the file path and the dirty flag. Every edit goes through
:meth:`EstimateStore.set_field` or :meth:`EstimateStore.set_inputs` (the selected scenario) or
:meth:`EstimateStore.set_document` (scenario operations, which core/document.py defines: add,
duplicate, rename, delete, reorder, select); recomputation after typing is debounced on the GUI
thread with a single-shot timer, a choice or a check box recomputes at once (``at_once``). Every
recorded change is announced as ``documentCommitted(old, new, description)`` so one undo stack
covers field edits and scenario operations alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QObject, QTimer, Signal

from ..core.defaults import PRICE_FIELDS, mark_typed_price
from ..core.document import EstimateDocument, compare_methods
from ..core.inputs import EstimateInputs
from ..core.results import EstimateResult
from ..core.series import Outcome, Outcomes, ScenarioSeries, scenario_series
from ..qt_compat import guard_refcount_leak

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


def _with_change(inputs: EstimateInputs, section: str, name: str, value: object) -> dict[str, Any]:
    """``inputs`` as a dict with ``section.name`` replaced (section may be dotted): the edited
    section dumped, every other section the same object (validated as it is, and still the same
    object in the new inputs, so views can tell at once what an edit left alone)."""
    top, *below = section.split(".")
    doc: dict[str, Any] = {key: getattr(inputs, key) for key in type(inputs).model_fields}
    node = doc[top] = doc[top].model_dump()
    for part in below:
        node = node[part]
    node[name] = value
    if section == "hardware.gpu" and name in PRICE_FIELDS:
        mark_typed_price(doc["hardware"])  # the user's price, no longer the catalog's sheet
    return doc


class EstimateStore(QObject):
    """Document, selected inputs, last outcomes, path and dirty flag; validation and recompute."""

    inputsChanged = Signal(object)  # EstimateInputs of the selected scenario
    resultChanged = Signal(object)  # EstimateResult of the selected scenario (each recompute)
    resultsChanged = Signal(object)  # list[EstimateResult | None], one per scenario
    outcomeChanged = Signal(object)  # Outcome of the selected scenario, only when it changed
    documentChanged = Signal(object)  # EstimateDocument (any change: names, order, inputs)
    documentCommitted = Signal(object, object, str)  # old doc, new doc, description (undoable)
    errorChanged = Signal(str)  # recompute failure ('' when cleared)
    fieldError = Signal(str, str, str)  # section, name, message
    fieldOk = Signal(str, str)  # section, name
    editCommitted = Signal(object, object, str)  # old inputs, new inputs, description
    dirtyChanged = Signal(bool)
    activeScenarioChanged = Signal(int)  # the forms now edit another scenario
    pathChanged = Signal(object)  # Path | None
    recomputed = Signal()  # after every view was told: the moment to paint once (charts settle)

    def __init__(
        self, inputs: EstimateInputs | EstimateDocument | None = None, parent: QObject | None = None
    ):
        super().__init__(parent)
        if isinstance(inputs, EstimateDocument):
            self._doc = inputs
        else:
            self._doc = EstimateDocument.single(inputs if inputs is not None else EstimateInputs())
        self._result: EstimateResult | None = None
        self._outcome: Outcome | None = None
        self._outcomes: list[Outcome | None] = []
        self._series: ScenarioSeries | None = None
        self._series_key: object = None
        self._cache = Outcomes()
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
        return [o.result if o is not None else None for o in self._outcomes]

    @property
    def outcome(self) -> Outcome | None:
        """The selected scenario's last outcome: its result and every plotted series."""
        return self._outcome

    @property
    def outcomes(self) -> list[Outcome | None]:
        """One outcome per scenario, as of the last recompute (None where it failed)."""
        return list(self._outcomes)

    @property
    def scenario_series(self) -> ScenarioSeries | None:
        """Every scenario's bar and curve; None while an estimate fails. Built when asked (the
        'all scenarios' plots while on screen, a report), once per recompute."""
        key = (self._doc, tuple(map(id, self._outcomes)))
        old = self._series_key
        if not (isinstance(old, tuple) and old[0] is key[0] and old[1] == key[1]):
            outcomes = self._outcomes
            series = None
            if outcomes and all(o is not None for o in outcomes):
                names = [s.name for s in self._doc.scenarios]
                series = scenario_series(names, outcomes, self._doc.active)  # type: ignore[arg-type]
            self._series, self._series_key = series, key
        return self._series

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
    def set_field(self, section: str, name: str, value: object, *, at_once: bool = False) -> bool:
        """Validate and apply one field; False (and ``fieldError``) when the value is rejected.

        ``at_once``: recompute now (a choice or a check box) instead of after the typing pause.
        """
        old = self.inputs
        try:
            new = EstimateInputs.model_validate(_with_change(old, section, name, value))
        except ValidationError as exc:
            self.fieldError.emit(section, name, describe_validation_error(exc))
            return False
        self.fieldOk.emit(section, name)
        if new == old:
            return True
        self._replace_inputs(new, True, f"Edit {name.replace('_', ' ')}", at_once)
        return True

    def set_inputs(
        self,
        inputs: EstimateInputs,
        *,
        record: bool = True,
        description: str = "Change inputs",
        at_once: bool = False,
    ) -> None:
        """Replace the selected scenario's inputs at once: one ``inputsChanged``, one recompute
        (now with ``at_once``: a pick from a list, not typing)."""
        self._replace_inputs(inputs, record, description, at_once)

    def _replace_inputs(
        self, inputs: EstimateInputs, record: bool, description: str, at_once: bool = False
    ) -> None:
        old, old_doc = self.inputs, self._doc
        self._doc = self._doc.with_inputs(inputs)
        self.inputsChanged.emit(inputs)
        self.documentChanged.emit(self._doc)
        if record and inputs != old:
            self.editCommitted.emit(old, inputs, description)
            self.documentCommitted.emit(old_doc, self._doc, description)
        if at_once:
            self.recompute_now()
        else:
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
        self.set_document(self._doc.selected(index), record=False)
        self.activeScenarioChanged.emit(index)

    def add_scenario(self, inputs: EstimateInputs, name: str = "Scenario") -> int:
        """Append a scenario (a free name derived from ``name``) and select it; its index."""
        new = self._doc.added(inputs, name)
        self.set_document(new, description=f"Add scenario {new.current.name}")
        return new.active

    def duplicate_scenario(self, index: int | None = None) -> int:
        """Copy a scenario (default: the selected one) right after it and select the copy."""
        i = self._doc.active if index is None else index
        src = self._doc.scenarios[i].name
        self.set_document(self._doc.duplicated(i), description=f"Duplicate scenario {src}")
        return i + 1

    def rename_scenario(self, index: int, name: str) -> str:
        """'' when renamed (or unchanged), else why not, in one line."""
        doc = self._doc
        problem = doc.rename_problem(index, name)
        if problem:
            return problem
        new = doc.renamed(index, name)
        old, name = doc.scenarios[index].name, new.scenarios[index].name
        if name != old:
            self.set_document(new, description=f"Rename scenario {old} to {name}")
        return ""

    def delete_scenario(self, index: int) -> bool:
        """Remove a scenario; the last one cannot be removed."""
        new = self._doc.deleted(index)
        if new is None:
            return False
        self.set_document(new, description=f"Delete scenario {self._doc.scenarios[index].name}")
        return True

    def move_scenario(self, index: int, to: int) -> bool:
        """Reorder: the scenario at ``index`` ends at ``to``; the selection follows its scenario."""
        new = self._doc.moved(index, to)
        if new is None:
            return False
        self.set_document(new, description=f"Move scenario {self._doc.scenarios[index].name}")
        return True

    def compare_methods(self) -> None:
        """Append full / LoRA / QLoRA copies of the selected scenario (one undo step)."""
        self.set_document(compare_methods(self._doc), description="Compare methods")

    # --- results --------------------------------------------------------------------------------
    def recompute_now(self) -> EstimateResult | None:
        """Estimate every scenario at once (flushes a pending debounce); the selected result.

        Each input set is estimated once (``Outcomes``; the scenarios an edit left alone cost a
        lookup each); ``outcomeChanged`` is emitted only when the selected outcome changed.
        """
        self._timer.stop()
        doc = self._doc
        outcomes: list[Outcome | None] = []
        error = ""
        for i, scenario in enumerate(doc.scenarios):
            try:
                o = self._cache.get(scenario.inputs)
            except Exception as exc:  # the last valid result stays visible
                if i == doc.active:
                    error = f"Estimate failed: {exc}"
                elif not error:
                    error = f"Estimate of {scenario.name} failed: {exc}"
                outcomes.append(None)
                continue
            outcomes.append(o)
        self._cache.keep([s.inputs for s in doc.scenarios])
        self._outcomes = outcomes
        current = outcomes[doc.active]
        self.errorChanged.emit(error)
        if current is not None:
            self._result = current.result
            if current is not self._outcome and current != self._outcome:
                self._outcome = current
                self.outcomeChanged.emit(current)
            self.resultChanged.emit(current.result)
        self.resultsChanged.emit(self.results)
        self.recomputed.emit()
        return self._result
