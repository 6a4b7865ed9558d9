"""Help → Keyboard Shortcuts: every bound key of the window, generated from its action table."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..services import ActionSpec

GUIDE_KEYS = (  # the user guide window's own keys (not actions of the main window)
    ("User guide", "Back", QKeySequence.StandardKey.Back),
    ("User guide", "Forward", QKeySequence.StandardKey.Forward),
    ("User guide", "Find in page", QKeySequence.StandardKey.Find),
)


# Dedicated keyboard keys ("New", "Save", "Back" …) Qt binds beside the usual combinations:
# the list shows the combinations people type.
_DEVICE_KEYS = {
    Qt.Key.Key_New, Qt.Key.Key_Open, Qt.Key.Key_Save, Qt.Key.Key_Close, Qt.Key.Key_Undo,
    Qt.Key.Key_Redo, Qt.Key.Key_Find, Qt.Key.Key_Help, Qt.Key.Key_Back, Qt.Key.Key_Forward,
    Qt.Key.Key_Copy, Qt.Key.Key_Cut, Qt.Key.Key_Paste, Qt.Key.Key_Reload, Qt.Key.Key_Refresh,
    Qt.Key.Key_Print, Qt.Key.Key_F14,
}  # fmt: skip


def _typed(seq: QKeySequence) -> bool:
    return seq.count() > 0 and seq[0].key() not in _DEVICE_KEYS


def native(seqs: Iterable[QKeySequence]) -> str:
    """Key sequences in this platform's notation (Ctrl+Q, ⌘Q), device keys left out."""
    return ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in seqs if _typed(s))


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").rstrip()


def shortcut_rows(
    rows: Iterable[tuple[ActionSpec, QAction]], menu_titles: dict[str, str]
) -> list[tuple[str, str, str]]:
    """(menu, command, keys) of every action with a key, keys in this platform's notation."""
    out = []
    for spec, action in rows:
        text = native(action.shortcuts())
        if not text:
            continue
        menu = _plain(menu_titles.get(spec.menu, "")) or "Window"
        out.append((menu, _plain(action.text() or spec.text), text))
    for where, what, key in GUIDE_KEYS:
        text = native(QKeySequence.keyBindings(key))
        if text:
            out.append((where, what, text))
    return out


class ShortcutsDialog(QDialog):
    def __init__(self, rows: list[tuple[str, str, str]], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("shortcuts")
        self.setWindowTitle("ftcost — Keyboard Shortcuts")
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setObjectName("shortcuts_table")
        self.table.setHorizontalHeaderLabels(["Menu", "Command", "Keys"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for i, cells in enumerate(rows):
            for j, text in enumerate(cells):
                self.table.setItem(i, j, QTableWidgetItem(text))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        lay.addWidget(buttons)
        self.resize(560, min(720, 80 + 26 * len(rows)))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def rows(self) -> list[tuple[str, str, str]]:
        return [
            tuple(self.table.item(i, j).text() for j in range(3))  # type: ignore[misc]
            for i in range(self.table.rowCount())
        ]
