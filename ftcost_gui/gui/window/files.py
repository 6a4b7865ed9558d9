"""FileController: new, open, save, recent files, examples and drops, for one window.

Every way of opening a file (the dialog, an example, a recent file, a drop, the command line, the
desktop) ends in :meth:`FileController.load_path`, which emits ``documentOpened(Path)`` after a
file was opened; a file that cannot be read leaves the open document untouched. The file dialogs
sit behind ``_ask_open_path`` / ``_ask_save_path`` (tests monkeypatch them).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QObject, QSettings, Signal
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu, QMessageBox

from ...core.document import EstimateDocument
from ...io.estimate_file import SUFFIX, EstimateFileError, load_document, save_document
from ...io.names import path_name
from ...io.resources import resource_path
from ..defaults import first_launch_inputs
from ..rich_text import menu_text, rich_text
from ..settings import add_recent, clear_recent, recent_files
from ..store import EstimateStore

APP_TITLE = "ftcost"
FILE_FILTER = f"ftcost estimates (*{SUFFIX});;All files (*)"


def example_paths() -> list[Path]:
    """The example estimates shipped with ftcost, by name."""
    try:
        folder = resource_path("examples")
    except FileNotFoundError:
        return []
    return sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []


def is_example(path: Path) -> bool:
    try:
        return path.resolve().parent == resource_path("examples").resolve()
    except FileNotFoundError:
        return False


def dropped_path(mime: QMimeData) -> Path | None:
    """The first local estimate file among dropped URLs, if any."""
    if not mime.hasUrls():
        return None
    for url in mime.urls():
        if url.isLocalFile() and url.toLocalFile().lower().endswith(SUFFIX):
            return Path(url.toLocalFile())
    return None


class FileController(QObject):
    """The document's life in files: replace it, read it, write it, remember where."""

    documentOpened = Signal(object)  # Path: a file was opened (examples, recent files, drops too)
    documentReset = Signal()  # a new or opened document replaced the previous one

    def __init__(
        self,
        store: EstimateStore,
        undo_stack: QUndoStack,
        settings: QSettings,
        window: QMainWindow,
    ):
        super().__init__(window)
        self.store, self.undo_stack, self.settings = store, undo_stack, settings
        self.window = window
        self.recent_menu: QMenu | None = None
        self.examples_menu: QMenu | None = None

    def _status(self, message: str, timeout_ms: int = 4000) -> None:
        self.window.statusBar().showMessage(message, timeout_ms)

    # --- menus ----------------------------------------------------------------------------------
    def set_menus(self, examples: QMenu, recent: QMenu) -> None:
        """Fill File → Open Example (once) and File → Open Recent (each time it opens)."""
        self.examples_menu, self.recent_menu = examples, recent
        for path in example_paths():
            act = examples.addAction(path.stem)
            act.setData(str(path))
            act.triggered.connect(lambda _=False, p=path: self.open_file(p))
        recent.aboutToShow.connect(self.rebuild_recent_menu)
        self.rebuild_recent_menu()

    def rebuild_recent_menu(self) -> None:
        menu = self.recent_menu
        if menu is None:
            return
        menu.clear()
        items = [p for p in recent_files(self.settings) if Path(p).exists()]
        for p in items:
            # A file's name is data: no bidi marks, and its '&' is not a keyboard mnemonic.
            act = menu.addAction(menu_text(path_name(p)))
            act.setToolTip(p)
            act.setStatusTip(p)
            act.setData(p)
            act.triggered.connect(lambda _=False, path=p: self.open_file(path))
        if not items:
            empty = menu.addAction("(none)")
            empty.setEnabled(False)
        menu.addSeparator()
        clear = menu.addAction("&Clear Menu")
        clear.triggered.connect(self._clear_recent)

    def _clear_recent(self) -> None:
        clear_recent(self.settings)
        self.rebuild_recent_menu()

    # --- dialogs ----------------------------------------------------------------------------------
    def _ask_open_path(self) -> str:
        start = str(self.store.path.parent) if self.store.path else ""
        path, _ = QFileDialog.getOpenFileName(self.window, "Open estimate", start, FILE_FILTER)
        return path

    def _ask_save_path(self) -> str:
        start = str(self.store.path) if self.store.path else f"estimate{SUFFIX}"
        path, _ = QFileDialog.getSaveFileName(self.window, "Save estimate", start, FILE_FILTER)
        if path and not Path(path).suffix:
            path += SUFFIX
        return path

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current document (saved, discarded or clean)."""
        if not self.store.dirty:
            return True
        buttons = (
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel
        )
        name = path_name(self.store.path) if self.store.path else "Untitled"
        answer = QMessageBox.question(
            self.window,
            APP_TITLE,
            rich_text(f"Save changes to {name} before closing it?"),
            buttons,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    # --- replacing the document ---------------------------------------------------------------
    def _reset_document(self, document: EstimateDocument, path: Path | None) -> None:
        self.store.set_document(document, record=False)
        self.store.set_path(path)
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self.store.set_dirty(False)
        self.documentReset.emit()
        self.store.recompute_now()

    def new(self) -> bool:
        if not self.maybe_save():
            return False
        self._reset_document(EstimateDocument.single(first_launch_inputs()), None)
        return True

    def open(self) -> bool:
        if not self.maybe_save():
            return False
        path = self._ask_open_path()
        if not path:
            return False
        return self.load_path(path)

    def open_file(self, path: str | Path) -> bool:
        """Open a path after the usual save prompt (examples, recent files, drops)."""
        if not self.maybe_save():
            return False
        return self.load_path(path)

    def load_path(self, path: str | Path) -> bool:
        """Load without prompting; a bad file leaves the open document untouched."""
        p = Path(path)
        try:
            document = load_document(p)  # older versions migrate
        except EstimateFileError as exc:
            message = f"Could not open {path_name(p)}.\n\n{exc}"
            QMessageBox.warning(self.window, APP_TITLE, rich_text(message))
            return False
        example = is_example(p)
        self._reset_document(document, None if example else p)
        if not example:
            add_recent(self.settings, p)
        self._status(f"Opened {path_name(p)}")
        self.documentOpened.emit(p)
        return True

    # --- writing --------------------------------------------------------------------------------
    def save(self) -> bool:
        if self.store.path is None:
            return self.save_as()
        return self.write(self.store.path)

    def save_as(self) -> bool:
        path = self._ask_save_path()
        if not path:
            return False
        return self.write(Path(path))

    def write(self, path: Path) -> bool:
        try:
            save_document(path, self.store.document)
        except OSError as exc:
            message = f"Could not save {path_name(path)}.\n\n{exc}"
            QMessageBox.critical(self.window, APP_TITLE, rich_text(message))
            return False
        self.store.set_path(path)
        self.undo_stack.setClean()
        self.store.set_dirty(False)
        add_recent(self.settings, path)
        self._status(f"Saved {path_name(path)}")
        return True
