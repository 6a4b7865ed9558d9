"""One undo stack for field edits and scenario operations: a command per committed document."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QUndoCommand, QUndoStack

from ...core.document import EstimateDocument
from ..rich_text import menu_text
from ..store import EstimateStore


class DocumentCommand(QUndoCommand):
    """One committed change (a field edit or a scenario operation): undo/redo re-apply the whole
    document through the store. Selecting a scenario is not a change, so consecutive snapshots
    differ only in what was edited and restoring one never loses another scenario's edits."""

    def __init__(
        self, store: EstimateStore, old: EstimateDocument, new: EstimateDocument, text: str
    ):
        # Its text ends the Edit menu's "Undo …" and names scenarios, GPUs and models (data):
        # no bidi marks, and an '&' in a name is shown, not taken as a keyboard mnemonic.
        super().__init__(menu_text(text))
        self.store, self.old, self.new = store, old, new
        self._applied = True  # pushed after the store already applied it

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        self.store.set_document(self.new, record=False)

    def undo(self) -> None:
        self.store.set_document(self.old, record=False)


class DocumentHistory(QUndoStack):
    """The undo stack of one store: every committed change becomes a command; clean = saved."""

    def __init__(self, store: EstimateStore, parent: QObject | None = None):
        super().__init__(parent)
        self.store = store
        store.documentCommitted.connect(self._on_committed)
        self.cleanChanged.connect(self._on_clean)

    def _on_committed(self, old: EstimateDocument, new: EstimateDocument, text: str) -> None:
        self.push(DocumentCommand(self.store, old, new, text))

    def _on_clean(self, clean: bool) -> None:
        self.store.set_dirty(not clean)
