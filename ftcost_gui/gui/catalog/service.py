"""The window's GPU catalogs: the effective catalog every view uses, reloaded after changes."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from ...core.catalog import BUILTIN_NAME, CatalogGpu, EffectiveRow, id_key, merge_catalogs
from ...core.compare import Offer, offer
from ...io.catalog_store import CatalogError, CatalogProblem, CatalogStore


class CatalogService(QObject):
    """The effective GPU catalog of the window (the active user catalog over the built-in one).

    ``reload`` reads the folder (one scan) and emits ``changed``. ``offers`` holds each row's
    spec, validated once here, for the comparison (never per edit). ``problems`` is every
    problem with catalog files seen this session, each once; ``problemsFound(list)`` carries the
    new ones of a reload, for whoever tells them.
    """

    changed = Signal()
    problemsFound = Signal(list)

    def __init__(self, store: CatalogStore | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.store = store if store is not None else CatalogStore()
        self.rows: list[EffectiveRow] = []
        self.offers: list[Offer] = []
        self.active_name: str = BUILTIN_NAME
        self.user_names: list[str] = []
        self.problems: list[CatalogProblem] = []
        self._seen: set[tuple[str, str]] = set()
        self._offers: dict[tuple[CatalogGpu, str], Offer] = {}
        self.editor: QWidget | None = None  # the manager dialog, once opened
        self.reload(emit=False)

    def reload(self, emit: bool = True) -> list[CatalogProblem]:
        """Read the catalogs folder again; returns the problems not seen before (also emitted)."""
        try:
            scan = self.store.scan()
        except CatalogError as exc:  # the config folder itself is unreadable
            rows, active, names = merge_catalogs(self.store.builtin), None, []
            # not store.active_path: it needs the very folder that just failed
            found = [CatalogProblem(Path("catalogs"), None, str(exc))]
        else:
            rows = merge_catalogs(self.store.builtin, scan.user_catalog())
            active, names, found = scan.active, scan.names(), list(scan.problems)
        # Each row's spec is validated once: a row seen before keeps its offer.
        known = self._offers
        self._offers = {(r.gpu, r.origin): known.get((r.gpu, r.origin)) or offer(r) for r in rows}
        self.rows = rows
        self.offers = [self._offers[(r.gpu, r.origin)] for r in rows]
        self.active_name = active if active is not None else BUILTIN_NAME
        self.user_names = names
        new = [p for p in found if (str(p.path), p.message) not in self._seen]
        self._seen.update((str(p.path), p.message) for p in new)
        self.problems += new
        if new and emit:
            self.problemsFound.emit(new)
        if emit:
            self.changed.emit()
        return new

    def set_active(self, name: str | None) -> None:
        """Make a catalog active (None or 'Built-in': the built-in one); CatalogError if not."""
        self.store.set_active(name)
        self.reload()

    def row_for(self, gpu_id: str) -> EffectiveRow | None:
        k = id_key(gpu_id)
        for r in self.rows:
            if id_key(r.gpu.id) == k:
                return r
        return None
