"""The scenario bar: one tab per scenario of the document, and the scenario operations.

The tabs follow the document (names, order, selection) without echoing back; a click selects, a
drag reorders, a double-click renames, the close button deletes (Undo brings it back), the right
button offers the rest. The name prompt sits behind ``_ask_scenario_name`` (tests monkeypatch it).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QInputDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QTabBar,
    QToolBar,
)

from ...core.document import EstimateDocument
from ...io.names import plain
from ..defaults import first_launch_inputs
from ..rich_text import menu_text, rich_text
from ..store import EstimateStore

APP_TITLE = "ftcost"
TOOLBAR_ACTIONS = ("add_scenario", "duplicate_scenario", "compare_methods")
CONTEXT_ACTIONS = (
    "rename_scenario",
    "duplicate_scenario",
    "delete_scenario",
    "move_scenario_left",
    "move_scenario_right",
)


#: The least a tab keeps of its name, in average characters: "Scenario 12" whole, with room to
#: spare in a wider font (it is ~11.8 in DejaVu Sans).
LEAST_NAME_CHARS = 14


class ScenarioTabs(QTabBar):
    """Tabs that keep a readable part of each name when many don't fit. Qt shrinks eliding tabs
    to two letters and "..." before it scrolls: every "Scenario N" read "S…" at 1024 px. Here a
    tab gives up at most the part of its name past ``LEAST_NAME_CHARS``; the rest scrolls."""

    def minimumTabSizeHint(self, index: int) -> QSize:
        whole = self.tabSizeHint(index)
        metrics = self.fontMetrics()
        name = self.tabText(index).replace("&&", "&")
        spare_px = metrics.horizontalAdvance(name) - LEAST_NAME_CHARS * metrics.averageCharWidth()
        return whole if spare_px <= 0 else QSize(whole.width() - spare_px, whole.height())


class ScenarioBar(QToolBar):
    """'Scenarios: [tab][tab]…' above the forms, with Add / Duplicate / Compare Methods."""

    methodsCompared = Signal()  # copies by method were added: show them side by side

    def __init__(self, store: EstimateStore, window: QMainWindow):
        super().__init__("Scenarios", window)
        self.store, self.window = store, window
        self._action: Callable[[str], QAction] | None = None
        self.setObjectName("scenario_toolbar")
        self.setMovable(False)
        self.setFloatable(False)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.addWidget(QLabel(" Scenarios: "))
        tabs = self.tabs = ScenarioTabs()
        tabs.setObjectName("scenario_tabs")
        tabs.setAccessibleName("Scenarios")
        tabs.setMovable(True)
        tabs.setDocumentMode(True)
        # No base line: in a toolbar it drew an empty tab-shaped box beside the last tab.
        tabs.setDrawBase(False)
        tabs.setExpanding(False)
        tabs.setUsesScrollButtons(True)
        tabs.setElideMode(Qt.TextElideMode.ElideRight)
        tabs.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        tabs.setToolTip(
            "The scenario the forms edit. Drag to reorder, double-click to rename, right-click "
            "for more."
        )
        self.addWidget(tabs)
        tabs.currentChanged.connect(self.store.select_scenario)
        tabs.tabMoved.connect(self.store.move_scenario)
        tabs.tabCloseRequested.connect(self.delete)
        tabs.tabBarDoubleClicked.connect(self._on_double_clicked)
        tabs.customContextMenuRequested.connect(self._on_context_menu)
        store.documentChanged.connect(self._on_document)

    def _status(self, message: str, timeout_ms: int = 4000) -> None:
        self.window.statusBar().showMessage(message, timeout_ms)

    def set_actions(self, action: Callable[[str], QAction]) -> None:
        """The scenario actions by id (from the window's table): toolbar, menu, enabled state."""
        self._action = action
        self.addSeparator()
        for action_id in TOOLBAR_ACTIONS:
            self.addAction(action(action_id))
        self._on_document(self.store.document)

    # --- document → tabs ------------------------------------------------------------------------
    def _on_document(self, doc: EstimateDocument) -> None:
        tabs = self.tabs
        # Names are data: no control or bidi characters, and '&' is not a mnemonic.
        names = [menu_text(s.name) for s in doc.scenarios]
        tabs.blockSignals(True)
        try:
            if [tabs.tabText(i) for i in range(tabs.count())] != names:
                while tabs.count():
                    tabs.removeTab(tabs.count() - 1)
                for i, name in enumerate(names):
                    tabs.addTab(name)
                    tip = rich_text(plain(doc.scenarios[i].name))
                    tabs.setTabToolTip(i, tip)
            tabs.setTabsClosable(len(names) > 1)
            tabs.setCurrentIndex(doc.active)
        finally:
            tabs.blockSignals(False)
        if self._action is None:
            return
        n, active = len(names), doc.active
        self._action("delete_scenario").setEnabled(n > 1)
        for action_id, enabled in (
            ("move_scenario_left", active > 0),
            ("previous_scenario", active > 0),
            ("move_scenario_right", active < n - 1),
            ("next_scenario", active < n - 1),
        ):
            self._action(action_id).setEnabled(enabled)

    def _on_double_clicked(self, index: int) -> None:
        if index >= 0:
            self.rename(index)

    def _on_context_menu(self, pos: QPoint) -> None:
        index = self.tabs.tabAt(pos)
        if index < 0 or self._action is None:
            return
        self.store.select_scenario(index)
        menu = QMenu(self)
        for action_id in CONTEXT_ACTIONS:
            menu.addAction(self._action(action_id))
        menu.popup(self.tabs.mapToGlobal(pos))

    # --- operations -------------------------------------------------------------------------------
    def _ask_scenario_name(self, title: str, current: str) -> str | None:
        text, ok = QInputDialog.getText(self.window, title, "Scenario name:", text=current)
        return text if ok else None

    def add(self) -> int:
        name = f"Scenario {len(self.store.document.scenarios) + 1}"
        index = self.store.add_scenario(first_launch_inputs(), name)
        self._status(f"Added {plain(self.store.document.current.name)}")
        return index

    def duplicate(self, index: int | None = None) -> int:
        return self.store.duplicate_scenario(index)

    def rename(self, index: int | None = None, name: str | None = None) -> bool:
        doc = self.store.document
        i = doc.active if index is None else index
        if name is None:
            name = self._ask_scenario_name("Rename scenario", doc.scenarios[i].name)
            if name is None:
                return False
        problem = self.store.rename_scenario(i, name)
        if problem:
            QMessageBox.warning(self.window, APP_TITLE, rich_text(plain(problem)))
            return False
        return True

    def delete(self, index: int | None = None) -> bool:
        doc = self.store.document
        i = doc.active if index is None else index
        name = doc.scenarios[i].name
        if not self.store.delete_scenario(i):
            self._status("The last scenario cannot be deleted.")
            return False
        self._status(f"Deleted {plain(name)} (Undo brings it back)", 6000)
        return True

    def move(self, step: int) -> bool:
        doc = self.store.document
        return self.store.move_scenario(doc.active, doc.active + step)

    def step(self, step: int) -> None:
        self.store.select_scenario(self.store.document.active + step)

    def compare_methods(self) -> None:
        """Full FT / LoRA / QLoRA copies of the selected scenario, shown side by side."""
        self.store.compare_methods()
        self.methodsCompared.emit()
        self._status("Added Full FT, LoRA and QLoRA scenarios")
