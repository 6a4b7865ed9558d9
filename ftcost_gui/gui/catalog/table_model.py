"""The rows of one catalog as an editable Qt table model, cell by cell with validation.

Every column is a ``io.catalog_cells.Column``: the same text a CSV file holds, parsed the same way;
bounds come from the row model (``core.catalog.cell_error``). A refused value keeps the old one
and its reason is kept for the cell's tooltip. Column 0 says whether a row overrides a built-in
row (same id) or adds a GPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QComboBox, QStyledItemDelegate, QWidget

from ...core.catalog import CatalogGpu, cell_error, id_key
from ...io.catalog_cells import EDITOR_COLUMNS, CellError, Column
from ...io.names import plain
from ..rich_text import rich_text

ERROR_BG = QColor(255, 220, 220)
Index = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole
_EDIT = Qt.ItemDataRole.EditRole
_TIP = Qt.ItemDataRole.ToolTipRole
_CHECK = Qt.ItemDataRole.CheckStateRole


def column_header(c: Column) -> tuple[str, str]:
    """(header text with the unit, tooltip naming the CSV column) for a catalog column."""
    label = c.label
    if len(label) > 12 and " " in label:  # two short lines keep the columns narrow
        first, rest = label.rsplit(" ", 1)
        text = f"{first}\n{rest} ({c.unit})" if c.unit else f"{first}\n{rest}"
    else:
        text = f"{label}\n({c.unit})" if c.unit else label
    return text, f"{c.help}\nCSV column: {c.field}"


class CatalogTableModel(QAbstractTableModel):
    """The rows of one catalog, editable cell by cell with validation; column 0 says 'overrides'."""

    cellRefused = Signal(int, str, str)  # row, field, reason
    cellAccepted = Signal(int, str)
    rowsEdited = Signal()

    def __init__(self, builtin_ids: set[str], parent: Any = None):
        super().__init__(parent)
        self.columns: tuple[Column, ...] = EDITOR_COLUMNS
        self.fields: tuple[str, ...] = tuple(c.field for c in self.columns)
        self.builtin_ids = builtin_ids
        self.rows: list[CatalogGpu] = []
        self.read_only = True
        self.errors: dict[tuple[int, str], tuple[str, str]] = {}  # (row, field): (reason, text)
        self._headers = [column_header(c) for c in self.columns]

    # --- content -------------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[CatalogGpu], read_only: bool) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.read_only = read_only
        self.errors.clear()
        self.endResetModel()

    def column_at(self, column: int) -> Column | None:
        return self.columns[column - 1] if column >= 1 else None

    def field_at(self, column: int) -> str | None:
        return self.fields[column - 1] if column >= 1 else None

    def column_of(self, field: str) -> int:
        return self.fields.index(field) + 1

    def overrides(self, row: int) -> bool:
        return id_key(self.rows[row].id) in self.builtin_ids

    def unique_id(self, base: str) -> str:
        taken = {id_key(g.id) for g in self.rows}
        cand, n = base, 2
        while id_key(cand) in taken:
            cand, n = f"{base}-{n}", n + 1
        return cand

    def add_row(self, gpu: CatalogGpu | None = None, at: int | None = None) -> int:
        """Insert a row (a new GPU with the editor's defaults when ``gpu`` is None)."""
        if gpu is None:
            gpu = CatalogGpu(
                id=self.unique_id("new-gpu"),
                name="New GPU",
                vendor="",
                price_as_of="",
                price_source="",
            )
        at = len(self.rows) if at is None else at
        self.beginInsertRows(QModelIndex(), at, at)
        self.rows.insert(at, gpu)
        self._shift_errors(at, +1)
        self.endInsertRows()
        self.rowsEdited.emit()
        return at

    def duplicate_row(self, row: int) -> int:
        g = self.rows[row]
        copy = g.model_copy(update={"id": self.unique_id(f"{g.id}-copy"), "name": f"{g.name} copy"})
        return self.add_row(copy, row + 1)

    def row_of(self, gpu_id: str) -> int | None:
        k = id_key(gpu_id)
        return next((i for i, g in enumerate(self.rows) if id_key(g.id) == k), None)

    def remove_rows(self, rows: Sequence[int]) -> None:
        for r in sorted(set(rows), reverse=True):
            self.beginRemoveRows(QModelIndex(), r, r)
            del self.rows[r]
            self.errors = {k: v for k, v in self.errors.items() if k[0] != r}
            self._shift_errors(r + 1, -1)
            self.endRemoveRows()
        self.rowsEdited.emit()

    def _shift_errors(self, start: int, by: int) -> None:
        self.errors = {((r + by if r >= start else r), f): v for (r, f), v in self.errors.items()}

    def merge_rows(self, gpus: Sequence[CatalogGpu]) -> tuple[int, int]:
        """Imported rows: an id already here is replaced in place, a new id appended."""
        replaced = added = 0
        self.beginResetModel()
        where = {id_key(g.id): i for i, g in enumerate(self.rows)}
        for g in gpus:
            hit = where.get(id_key(g.id))
            if hit is None:
                where[id_key(g.id)] = len(self.rows)
                self.rows.append(g)
                added += 1
            else:
                self.rows[hit] = g
                replaced += 1
        self.errors.clear()
        self.endResetModel()
        self.rowsEdited.emit()
        return replaced, added

    # --- Qt model --------------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns) + 1

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if orientation == Qt.Orientation.Vertical:
            return str(section + 1) if role == _DISPLAY else None
        if section == 0:
            if role == _DISPLAY:
                return "Built-in\nrow"
            if role == _TIP:
                return "'overrides': this row replaces the built-in row with the same id"
            return None
        text, tip = self._headers[section - 1]
        if role == _DISPLAY:
            return text
        if role == _TIP:
            return tip
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
        c = self.column_at(index.column())
        if self.read_only or c is None:
            return base
        if c.kind == "yes_no":
            return base | Qt.ItemFlag.ItemIsUserCheckable
        return base | Qt.ItemFlag.ItemIsEditable

    def _overrides_data(self, r: int, role: int) -> Any:
        if self.read_only:
            return "built-in" if role == _DISPLAY else None
        over = self.overrides(r)
        if role == _DISPLAY:
            return "overrides" if over else "new"
        if role == _TIP:
            return (
                "Replaces the built-in row with this id"
                if over
                else "A GPU the built-in catalog does not have"
            )
        if role == Qt.ItemDataRole.FontRole and over:
            f = QFont()
            f.setBold(True)
            return f
        return None

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not index.isValid():
            return None
        r, c = index.row(), self.column_at(index.column())
        if c is None:
            return self._overrides_data(r, role)
        value = getattr(self.rows[r], c.field)
        err = self.errors.get((r, c.field))
        # Shown texts from catalog files are data: no control or bidi characters, and a
        # tooltip that looks like HTML shows as written (the edited text stays as stored).
        if role == _DISPLAY:
            return plain(c.format(value))
        if role == _EDIT:
            return c.format(value) if c.kind != "yes_no" else value
        if role == _CHECK and c.kind == "yes_no":
            return Qt.CheckState.Checked if value else Qt.CheckState.Unchecked
        if role == _TIP:
            if err is not None:
                return rich_text(plain(f"Refused {err[1]!r}: {err[0]}. The old value is kept."))
            return rich_text(plain(c.format(value))) if c.long_text and value else None
        if role == Qt.ItemDataRole.BackgroundRole and err is not None:
            return QBrush(ERROR_BG)
        if role == Qt.ItemDataRole.TextAlignmentRole and c.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def setData(self, index: Index, value: Any, role: int = _EDIT) -> bool:
        if not index.isValid() or self.read_only:
            return False
        field = self.field_at(index.column())
        if field is None:
            return False
        if role == _CHECK:
            value = Qt.CheckState(value) == Qt.CheckState.Checked
        elif role != _EDIT:
            return False
        return self.set_cell(index.row(), field, value)

    def set_cell(self, r: int, field: str, value: Any) -> bool:
        """Validate and apply one cell; False (old value kept, reason recorded) if refused."""
        c = self.columns[self.fields.index(field)]
        text = value if isinstance(value, str) else c.format(value)
        reason: str | None = None
        parsed: Any = value
        if isinstance(value, str):
            try:
                parsed = c.parse(value)
            except CellError as exc:
                reason = str(exc)
        row = self.rows[r]
        if reason is None:
            reason = cell_error(row, field, parsed)
        if reason is None and field == "id":
            other = self.row_of(parsed)
            if other is not None and other != r:
                reason = f"the id {parsed!r} is already used on row {other + 1}"
        col = self.column_of(field)
        first, last = self.index(r, 0), self.index(r, col)
        if reason is not None:
            self.errors[(r, field)] = (reason, text)
            self.dataChanged.emit(last, last)
            self.cellRefused.emit(r, field, reason)
            return False
        self.errors.pop((r, field), None)
        new = CatalogGpu.model_validate({**row.model_dump(), field: parsed})
        if new != row:
            self.rows[r] = new
            self.rowsEdited.emit()
        self.dataChanged.emit(first, last)
        self.cellAccepted.emit(r, field)
        return True


class ChoiceDelegate(QStyledItemDelegate):
    """A combo box for the columns with fixed choices (interconnect, counting, pricing tier)."""

    def __init__(self, model: CatalogTableModel, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = model

    def _choices(self, index: Index) -> tuple[str, ...]:
        c = self.model.column_at(index.column())
        return c.choices if c is not None else ()

    def createEditor(self, parent: QWidget, option: Any, index: Index) -> QWidget:
        choices = self._choices(index)
        if not choices:
            return super().createEditor(parent, option, index)
        combo = QComboBox(parent)
        combo.addItems(choices)
        return combo

    def setEditorData(self, editor: QWidget, index: Index) -> None:
        if isinstance(editor, QComboBox):
            editor.setCurrentText(str(index.data(_EDIT)))
        else:
            super().setEditorData(editor, index)

    def setModelData(self, editor: QWidget, model: Any, index: Index) -> None:
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentText(), _EDIT)
        else:
            super().setModelData(editor, model, index)
