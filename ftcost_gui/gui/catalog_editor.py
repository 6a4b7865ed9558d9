"""The GPU catalog manager: list, create, duplicate, rename, delete, activate, edit, import, export.

A non-modal ``QDialog`` (shown with ``show()``, never ``exec()``). The left column lists the
built-in catalog (read-only) and the user catalogs; the right side edits the selected catalog's
rows in a table whose columns are the CSV columns (units in the headers). Every cell edit is
checked with ``core.catalog.cell_error``: a refused value keeps the old one, and the reason is shown
in the status line and the cell's tooltip. Save writes the catalog atomically
(``CatalogStore.save``). The "Effective catalog" tab shows the rows the estimate would use with
the selected catalog active: where each comes from, and which override built-in rows.

Dialogs sit behind ``_ask_name``, ``_ask_open_path``, ``_ask_save_path`` and ``_confirm`` (tests
monkeypatch them or the static ``QMessageBox`` helpers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QCloseEvent, QColor, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStyledItemDelegate,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..core.catalog import (
    BUILTIN_NAME,
    CatalogGpu,
    EffectiveRow,
    GpuCatalog,
    cell_error,
    id_key,
    merge_catalogs,
)
from ..core.fields import field_spec
from ..io.catalog_csv import COLUMNS, export_csv, import_csv
from ..io.catalog_store import CatalogError, slugify
from .binding import signals_blocked
from .catalog_ui import CatalogService, fmt_price, origin_label, tell_problems

TITLE = "GPU catalogs"
CSV_FILTER = "CSV files (*.csv);;All files (*)"
ERROR_BG = QColor(255, 220, 220)

# Labels and units of the catalog-only fields (the GpuSpec ones come from field metadata).
_EXTRA_HEADERS: dict[str, tuple[str, str]] = {
    "memory_vendor_gb": ("Vendor memory", "GB"),
    "counting": ("Counting", ""),
    "tdp_w": ("TDP", "W"),
    "year": ("Year", ""),
    "spec_source": ("Spec source", ""),
    "notes": ("Notes", ""),
}
_EXTRA_TIPS: dict[str, str] = {
    "memory_vendor_gb": "The vendor's memory label (decimal GB); empty: none.",
    "counting": "per_gpu: one row is one GPU; per_gcd: one module die (seen as one GPU).",
    "tdp_w": "Board power; empty: none.",
    "year": "Launch year; empty: none.",
    "spec_source": "Where the specs come from.",
    "notes": "Anything else.",
}
_WIDE = frozenset({"price_source", "spec_source", "notes"})


def _spec(field: str):
    return field_spec(CatalogGpu, field)


def column_label(field: str) -> str:
    return _EXTRA_HEADERS[field][0] if field in _EXTRA_HEADERS else _spec(field).label


def column_header(field: str) -> tuple[str, str]:
    """(header text with the unit, tooltip naming the CSV column) for a catalog field."""
    if field in _EXTRA_HEADERS:
        label, unit = _EXTRA_HEADERS[field]
        tip = _EXTRA_TIPS[field]
    else:
        s = _spec(field)
        label, unit, tip = s.label, s.unit, s.tooltip
    if len(label) > 12 and " " in label:  # two short lines keep the columns narrow
        first, rest = label.rsplit(" ", 1)
        text = f"{first}\n{rest} ({unit})" if unit else f"{first}\n{rest}"
    else:
        text = f"{label}\n({unit})" if unit else label
    return text, f"{tip}\nCSV column: {field}"


def format_value(value: Any) -> str:
    """A cell's text: exact (an edit that changes nothing keeps the value bit for bit)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def parse_cell(field: str, text: Any) -> tuple[Any, str | None]:
    """(value, None) or (None, reason) for a typed cell."""
    s = _spec(field)
    if isinstance(text, bool) or not isinstance(text, str):
        return text, None
    raw = text.strip()
    if s.kind == "bool":
        low = raw.lower()
        if low in {"yes", "true", "1", "y"}:
            return True, None
        if low in {"no", "false", "0", "n"}:
            return False, None
        return None, "not a yes/no value"
    if s.kind in ("float", "int"):
        if not raw:
            return (None, None) if s.optional else (None, "required: enter a number")
        try:
            number = float(raw.replace("_", ""))
        except ValueError:
            return None, "not a number"
        if s.kind == "int":
            if not number.is_integer():
                return None, "not a whole number"
            return int(number), None
        return number, None
    if s.kind == "choice":
        if raw not in s.choices:
            return None, f"must be one of {', '.join(s.choices)}"
        return raw, None
    return (raw if field == "id" else text), None


class CatalogTableModel(QAbstractTableModel):
    """The rows of one catalog, editable cell by cell with validation; column 0 says 'overrides'."""

    cellRefused = Signal(int, str, str)  # row, field, reason
    cellAccepted = Signal(int, str)
    rowsEdited = Signal()

    def __init__(self, builtin_ids: set[str], parent: Any = None):
        super().__init__(parent)
        self.fields: tuple[str, ...] = COLUMNS
        self.builtin_ids = builtin_ids
        self.rows: list[CatalogGpu] = []
        self.read_only = True
        self.errors: dict[tuple[int, str], tuple[str, str]] = {}  # (row, field): (reason, text)
        self._headers = [column_header(f) for f in self.fields]

    # --- content -------------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[CatalogGpu], read_only: bool) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.read_only = read_only
        self.errors.clear()
        self.endResetModel()

    def field_at(self, column: int) -> str | None:
        return self.fields[column - 1] if column >= 1 else None

    def column_of(self, field: str) -> int:
        return self.fields.index(field) + 1

    def overrides(self, row: int) -> bool:
        return id_key(self.rows[row].id) in self.builtin_ids

    def _unique_id(self, base: str) -> str:
        taken = {id_key(g.id) for g in self.rows}
        cand, n = base, 2
        while id_key(cand) in taken:
            cand, n = f"{base}-{n}", n + 1
        return cand

    def add_row(self, gpu: CatalogGpu | None = None, at: int | None = None) -> int:
        if gpu is None:
            gpu = CatalogGpu(
                id=self._unique_id("new-gpu"),
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
        copy = g.model_copy(
            update={"id": self._unique_id(f"{g.id}-copy"), "name": f"{g.name} copy"}
        )
        return self.add_row(copy, row + 1)

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
        for g in gpus:
            k = id_key(g.id)
            hit = next((i for i, x in enumerate(self.rows) if id_key(x.id) == k), None)
            if hit is None:
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
    def rowCount(self, parent: Any = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self.rows)

    def columnCount(self, parent: Any = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self.fields) + 1

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation == Qt.Orientation.Vertical:
            return str(section + 1) if role == Qt.ItemDataRole.DisplayRole else None
        if section == 0:
            if role == Qt.ItemDataRole.DisplayRole:
                return "Built-in\nrow"
            if role == Qt.ItemDataRole.ToolTipRole:
                return "'overrides': this row replaces the built-in row with the same id"
            return None
        text, tip = self._headers[section - 1]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == Qt.ItemDataRole.ToolTipRole:
            return tip
        return None

    def flags(self, index: Any) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
        field = self.field_at(index.column())
        if self.read_only or field is None:
            return base
        if _spec(field).kind == "bool":
            return base | Qt.ItemFlag.ItemIsUserCheckable
        return base | Qt.ItemFlag.ItemIsEditable

    def data(self, index: Any, role: int = 0) -> Any:
        if not index.isValid():
            return None
        r, field = index.row(), self.field_at(index.column())
        if field is None:
            if self.read_only:
                return "built-in" if role == Qt.ItemDataRole.DisplayRole else None
            over = self.overrides(r)
            if role == Qt.ItemDataRole.DisplayRole:
                return "overrides" if over else "new"
            if role == Qt.ItemDataRole.ToolTipRole:
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
        value = getattr(self.rows[r], field)
        err = self.errors.get((r, field))
        kind = _spec(field).kind
        if role == Qt.ItemDataRole.DisplayRole:
            return format_value(value)
        if role == Qt.ItemDataRole.EditRole:
            return format_value(value) if kind != "bool" else value
        if role == Qt.ItemDataRole.CheckStateRole and kind == "bool":
            return Qt.CheckState.Checked if value else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            if err is not None:
                return f"Refused {err[1]!r}: {err[0]}. The old value is kept."
            return format_value(value) if field in _WIDE and value else None
        if role == Qt.ItemDataRole.BackgroundRole and err is not None:
            return QBrush(ERROR_BG)
        if role == Qt.ItemDataRole.TextAlignmentRole and kind in ("float", "int"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def setData(self, index: Any, value: Any, role: int = 2) -> bool:
        if not index.isValid() or self.read_only:
            return False
        r, field = index.row(), self.field_at(index.column())
        if field is None:
            return False
        if role == Qt.ItemDataRole.CheckStateRole:
            value = Qt.CheckState(value) == Qt.CheckState.Checked
        elif role != Qt.ItemDataRole.EditRole:
            return False
        return self.set_cell(r, field, value)

    def set_cell(self, r: int, field: str, value: Any) -> bool:
        """Validate and apply one cell; False (old value kept, reason recorded) if refused."""
        text = value if isinstance(value, str) else format_value(value)
        parsed, reason = parse_cell(field, value)
        row = self.rows[r]
        if reason is None:
            reason = cell_error(row, field, parsed)
        if reason is None and field == "id":
            k = id_key(parsed)
            other = next((i for i, g in enumerate(self.rows) if i != r and id_key(g.id) == k), None)
            if other is not None:
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
    """A combo box for the fields with fixed choices (interconnect, counting)."""

    def __init__(self, model: CatalogTableModel, parent: Any = None):
        super().__init__(parent)
        self.model = model

    def _choices(self, index) -> tuple[str, ...]:
        field = self.model.field_at(index.column())
        return _spec(field).choices if field is not None else ()

    def createEditor(self, parent, option, index):
        choices = self._choices(index)
        if not choices:
            return super().createEditor(parent, option, index)
        combo = QComboBox(parent)
        combo.addItems(choices)
        return combo

    def setEditorData(self, editor, index):
        if isinstance(editor, QComboBox):
            editor.setCurrentText(str(index.data(Qt.ItemDataRole.EditRole)))
        else:
            super().setEditorData(editor, index)

    def setModelData(self, editor, model, index):
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)
        else:
            super().setModelData(editor, model, index)


EFFECTIVE_COLUMNS = (
    ("Origin", "Where the row comes from: built-in, or a user catalog"),
    ("Overrides", "▲: this user row replaces the built-in row with the same id"),
    ("GPU", ""),
    ("Id", ""),
    ("Memory\n(GiB)", ""),
    ("Dense BF16\n(TFLOPS)", ""),
    ("On-demand\n($/GPU-h)", ""),
    ("Spot\n($/GPU-h)", ""),
    ("Prices as of", ""),
)


class CatalogEditor(QDialog):
    """Manage user GPU catalogs; non-modal, driven by tests without ``exec()``."""

    saved = Signal(str)  # catalog name

    def __init__(self, service: CatalogService, parent: QWidget | None = None):
        super().__init__(parent)
        self.service = service
        self.store = service.store
        self.setObjectName("catalog_editor")
        self.setWindowTitle(f"{TITLE}[*]")
        self.setModal(False)
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        self.resize(1280, 760)
        self.current: str = ""  # nothing shown yet: the first select_catalog loads
        self._saved_rows: tuple[CatalogGpu, ...] = ()
        self._saved_description = ""
        builtin_ids = {id_key(g.id) for g in self.store.builtin.gpus}
        self.model = CatalogTableModel(builtin_ids, self)
        self._build()
        self.model.rowsEdited.connect(self._on_rows_edited)
        self.model.cellRefused.connect(self._on_cell_refused)
        self.model.cellAccepted.connect(self._on_cell_accepted)
        self.service.changed.connect(self._on_service_changed)
        self.refresh_catalogs()
        self.select_catalog(self.service.active_name)

    # --- layout ----------------------------------------------------------------------------------
    def _build(self) -> None:
        left = QWidget(self)
        llay = QVBoxLayout(left)
        llay.setContentsMargins(0, 0, 0, 0)
        cat_label = QLabel("&Catalogs:", left)
        self.catalog_list = QListWidget(left)
        self.catalog_list.setObjectName("catalog_list")
        self.catalog_list.setAccessibleName("Catalogs")
        cat_label.setBuddy(self.catalog_list)
        llay.addWidget(cat_label)
        llay.addWidget(self.catalog_list, 1)
        grid = QGridLayout()
        self.new_button = QPushButton("&New…", left)
        self.new_button.setToolTip("A new, empty user catalog")
        self.duplicate_button = QPushButton("D&uplicate…", left)
        self.duplicate_button.setToolTip("A copy of the selected catalog (built-in included)")
        self.rename_button = QPushButton("Rena&me…", left)
        self.delete_button = QPushButton("De&lete", left)
        self.active_button = QPushButton("Set &active", left)
        self.active_button.setToolTip("Estimates use this catalog's rows over the built-in ones")
        grid.addWidget(self.new_button, 0, 0)
        grid.addWidget(self.duplicate_button, 0, 1)
        grid.addWidget(self.rename_button, 1, 0)
        grid.addWidget(self.delete_button, 1, 1)
        grid.addWidget(self.active_button, 2, 0, 1, 2)
        llay.addLayout(grid)
        self.active_label = QLabel(left)
        self.active_label.setObjectName("active_label")
        self.active_label.setWordWrap(True)
        llay.addWidget(self.active_label)
        left.setMinimumWidth(220)

        right = QWidget(self)
        rlay = QVBoxLayout(right)
        rlay.setContentsMargins(0, 0, 0, 0)
        self.heading = QLabel(right)
        self.heading.setObjectName("catalog_heading")
        f = QFont(self.heading.font())
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * 1.2)
        self.heading.setFont(f)
        self.heading.setWordWrap(True)
        rlay.addWidget(self.heading)
        meta = QFormLayout()
        self.description_edit = QLineEdit(right)
        self.description_edit.setObjectName("description")
        self.description_edit.setPlaceholderText("e.g. negotiated rates, 2026-Q4")
        meta.addRow("&Description:", self.description_edit)
        rlay.addLayout(meta)

        self.tabs = QTabWidget(right)
        rows_page = QWidget()
        plan = QVBoxLayout(rows_page)
        plan.setContentsMargins(4, 4, 4, 4)
        bar = QHBoxLayout()
        self.add_row_button = QPushButton("&Add row", rows_page)
        self.duplicate_row_button = QPushButton("Duplicate &row", rows_page)
        self.remove_row_button = QPushButton("Remo&ve rows", rows_page)
        self.import_button = QPushButton("&Import CSV…", rows_page)
        self.import_button.setToolTip(
            "Rows of a CSV file: an id this catalog has is replaced, a new id is added; refused "
            "rows are listed below"
        )
        self.export_button = QPushButton("&Export CSV…", rows_page)
        for b in (self.add_row_button, self.duplicate_row_button, self.remove_row_button):
            bar.addWidget(b)
        bar.addStretch(1)
        bar.addWidget(self.import_button)
        bar.addWidget(self.export_button)
        plan.addLayout(bar)
        self.table = QTableView(rows_page)
        self.table.setObjectName("catalog_table")
        self.table.setAccessibleName("Catalog rows")
        self.table.setModel(self.model)
        self.table.setItemDelegate(ChoiceDelegate(self.model, self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        hh = self.table.horizontalHeader()
        hh.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        hh.setMinimumSectionSize(48)
        self.table.verticalHeader().setDefaultSectionSize(24)
        plan.addWidget(self.table, 1)
        self.import_errors_label = QLabel(rows_page)
        self.import_errors_label.setObjectName("import_errors_label")
        self.import_errors_label.setWordWrap(True)
        self.import_errors = QListWidget(rows_page)
        self.import_errors.setObjectName("import_errors")
        self.import_errors.setAccessibleName("Rows not imported")
        self.import_errors.setMaximumHeight(110)
        self.import_errors_label.hide()
        self.import_errors.hide()
        plan.addWidget(self.import_errors_label)
        plan.addWidget(self.import_errors)
        self.tabs.addTab(rows_page, "Rows of this catalog")

        eff_page = QWidget()
        elay = QVBoxLayout(eff_page)
        elay.setContentsMargins(4, 4, 4, 4)
        self.effective_note = QLabel(eff_page)
        self.effective_note.setWordWrap(True)
        elay.addWidget(self.effective_note)
        self.effective_table = QTableWidget(0, len(EFFECTIVE_COLUMNS), eff_page)
        self.effective_table.setObjectName("effective_table")
        self.effective_table.setAccessibleName("Effective catalog")
        for i, (text, tip) in enumerate(EFFECTIVE_COLUMNS):
            item = QTableWidgetItem(text)
            if tip:
                item.setToolTip(tip)
            self.effective_table.setHorizontalHeaderItem(i, item)
        self.effective_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.effective_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.effective_table.setAlternatingRowColors(True)
        self.effective_table.verticalHeader().setDefaultSectionSize(24)
        self.effective_table.horizontalHeader().setDefaultAlignment(
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        )
        self.effective_table.horizontalHeader().setStretchLastSection(True)
        elay.addWidget(self.effective_table, 1)
        self.tabs.addTab(eff_page, "E&ffective catalog")
        rlay.addWidget(self.tabs, 1)

        self.status = QLabel(right)
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setMinimumHeight(self.status.fontMetrics().height() * 2 + 4)
        rlay.addWidget(self.status)

        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([240, 1000])
        splitter.setChildrenCollapsible(False)

        self.buttons = QDialogButtonBox(self)
        self.save_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Save)
        self.revert_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Reset)
        self.revert_button.setText("&Revert")
        self.revert_button.setToolTip("Drop the unsaved edits of this catalog")
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        lay = QVBoxLayout(self)
        lay.addWidget(splitter, 1)
        lay.addWidget(self.buttons)
        for b in self.findChildren(QPushButton):
            b.setAutoDefault(False)  # Enter in the table or a field never clicks a button

        self.catalog_list.currentItemChanged.connect(self._on_list_current)
        self.new_button.clicked.connect(self.new_catalog)
        self.duplicate_button.clicked.connect(self.duplicate_catalog)
        self.rename_button.clicked.connect(self.rename_catalog)
        self.delete_button.clicked.connect(self.delete_catalog)
        self.active_button.clicked.connect(self.set_active)
        self.add_row_button.clicked.connect(self.add_row)
        self.duplicate_row_button.clicked.connect(self.duplicate_row)
        self.remove_row_button.clicked.connect(self.remove_rows)
        self.import_button.clicked.connect(self.import_csv)
        self.export_button.clicked.connect(self.export_csv)
        self.save_button.clicked.connect(self.save)
        self.revert_button.clicked.connect(self.revert)
        self.close_button.clicked.connect(self.close)
        self.description_edit.textEdited.connect(self._on_rows_edited)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Save), self, self.save)

    # --- dialogs (tests monkeypatch these) -------------------------------------------------------
    def _ask_name(self, title: str, label: str, text: str = "") -> str:
        name, ok = QInputDialog.getText(self, title, label, QLineEdit.EchoMode.Normal, text)
        return name if ok else ""

    def _ask_open_path(self) -> str:
        path, _ = QFileDialog.getOpenFileName(self, "Import GPU catalog CSV", "", CSV_FILTER)
        return path

    def _ask_save_path(self) -> str:
        start = f"{slugify(self.current)}.csv"
        path, _ = QFileDialog.getSaveFileName(self, "Export GPU catalog CSV", start, CSV_FILTER)
        if path and not Path(path).suffix:
            path += ".csv"
        return path

    def _confirm(self, text: str) -> bool:
        buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
        answer = QMessageBox.question(self, TITLE, text, buttons, QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    # --- state -----------------------------------------------------------------------------------
    @property
    def read_only(self) -> bool:
        return self.current.casefold() == BUILTIN_NAME.casefold()

    @property
    def dirty(self) -> bool:
        if self.read_only:
            return False
        return (
            tuple(self.model.rows) != self._saved_rows
            or self.description_edit.text() != self._saved_description
        )

    def catalog(self) -> GpuCatalog:
        """The selected catalog as edited (not necessarily saved)."""
        return GpuCatalog(
            name=self.current,
            description=self.description_edit.text(),
            gpus=tuple(self.model.rows),
        )

    def show_status(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #a00000;" if error else "")

    def _fail(self, what: str, exc: Exception) -> None:
        self.show_status(f"{what}: {exc}", error=True)
        QMessageBox.warning(self, TITLE, f"{what}.\n\n{exc}")

    # --- the list of catalogs --------------------------------------------------------------------
    def refresh_catalogs(self) -> None:
        """Read the folder again and rebuild the list (new problems are told once)."""
        problems = self.service.reload(emit=False)
        self._fill_list(self.service.user_names)
        if problems:
            self.show_status(problems[0].message, error=True)
            tell_problems(self, problems)

    def _fill_list(self, names: list[str]) -> None:
        active = self.service.active_name
        lst = self.catalog_list
        previous = lst.blockSignals(True)
        lst.clear()
        for name in [BUILTIN_NAME, *names]:
            is_builtin = name == BUILTIN_NAME
            text = f"{name} (read-only)" if is_builtin else name
            if name.casefold() == active.casefold():
                text += "  — active"
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, name)
            if name.casefold() == active.casefold():
                f = item.font()
                f.setBold(True)
                item.setFont(f)
            lst.addItem(item)
            if name.casefold() == self.current.casefold():
                lst.setCurrentItem(item)
        lst.blockSignals(previous)
        self.active_label.setText(f"Active: <b>{active}</b>")
        self._update_buttons()

    def names(self) -> list[str]:
        lst = self.catalog_list
        return [lst.item(i).data(Qt.ItemDataRole.UserRole) for i in range(lst.count())]

    def _item_for(self, name: str) -> QListWidgetItem | None:
        lst = self.catalog_list
        for i in range(lst.count()):
            item = lst.item(i)
            if str(item.data(Qt.ItemDataRole.UserRole)).casefold() == name.casefold():
                return item
        return None

    def _on_service_changed(self) -> None:
        self._fill_list(self.service.user_names)

    def _on_list_current(self, item: QListWidgetItem | None, previous: Any) -> None:
        if item is None:
            return
        name = item.data(Qt.ItemDataRole.UserRole)
        if name == self.current:
            return
        if not self.maybe_save():
            with signals_blocked(self.catalog_list):
                self.catalog_list.setCurrentItem(self._item_for(self.current))
            return
        self._load(name)

    def select_catalog(self, name: str) -> bool:
        """Show a catalog (as clicking it in the list); False if it is not listed."""
        item = self._item_for(name)
        if item is None:
            return False
        if name.casefold() == self.current.casefold():
            with signals_blocked(self.catalog_list):
                self.catalog_list.setCurrentItem(item)
            return True
        self.catalog_list.setCurrentItem(item)
        return self.current.casefold() == name.casefold()

    def _load(self, name: str) -> None:
        try:
            cat = self.store.load(name)
        except CatalogError as exc:
            self._fail(f"Could not open catalog '{name}'", exc)
            self.refresh_catalogs()
            return
        self.current = cat.name if name != BUILTIN_NAME else BUILTIN_NAME
        self._saved_rows = tuple(cat.gpus)
        self._saved_description = cat.description
        self.model.set_rows(cat.gpus, read_only=self.read_only)
        self.description_edit.setText(cat.description)
        self.description_edit.setCursorPosition(0)
        self.description_edit.setReadOnly(self.read_only)
        self._size_columns()
        self._clear_import_errors()
        if self.read_only:
            self.heading.setText(f"{BUILTIN_NAME} catalog — {len(cat.gpus)} GPUs (read-only)")
            self.show_status(
                "The built-in catalog cannot be edited: Duplicate it to keep your own prices."
            )
        else:
            self.heading.setText(f"{cat.name} — {len(cat.gpus)} GPUs")
            self.show_status("")
        self._after_edit()

    def _size_columns(self) -> None:
        self.table.resizeColumnsToContents()
        hh = self.table.horizontalHeader()
        for field in _WIDE:
            col = self.model.column_of(field)
            hh.resizeSection(col, min(max(hh.sectionSize(col), 120), 220))
        for col in range(self.model.columnCount()):
            if hh.sectionSize(col) > 240:
                hh.resizeSection(col, 240)

    # --- catalog operations ----------------------------------------------------------------------
    def _after_disk_change(self, select: str | None = None) -> None:
        self.service.reload()
        self.refresh_catalogs()
        if select is not None:
            self.select_catalog(select)

    def new_catalog(self) -> str | None:
        if not self.maybe_save():
            return None
        name = self._ask_name("New catalog", "Name of the new catalog:", "My prices")
        if not name:
            return None
        try:
            cat = self.store.create(name)
        except CatalogError as exc:
            self._fail("Could not create the catalog", exc)
            return None
        self._after_disk_change(cat.name)
        self.show_status(f"Created '{cat.name}'. Add rows, or import a CSV file.")
        return cat.name

    def duplicate_catalog(self) -> str | None:
        if not self.maybe_save():
            return None
        src = self.current
        base = "My prices" if self.read_only else f"{src} copy"
        name = self._ask_name("Duplicate catalog", f"Name of the copy of '{src}':", base)
        if not name:
            return None
        try:
            cat = self.store.duplicate(src, name)
        except CatalogError as exc:
            self._fail("Could not duplicate the catalog", exc)
            return None
        self._after_disk_change(cat.name)
        self.show_status(f"'{cat.name}' is a copy of '{src}' ({len(cat.gpus)} GPUs).")
        return cat.name

    def rename_catalog(self) -> str | None:
        if self.read_only:
            return None
        old = self.current
        name = self._ask_name("Rename catalog", f"New name for '{old}':", old)
        if not name or name == old:
            return None
        try:
            cat = self.store.rename(old, name)
        except CatalogError as exc:
            self._fail("Could not rename the catalog", exc)
            return None
        self.current = cat.name  # unsaved edits stay, under the new name
        self._after_disk_change(cat.name)
        self.heading.setText(f"{cat.name} — {len(self.model.rows)} GPUs")
        self.show_status(f"Renamed '{old}' to '{cat.name}'.")
        return cat.name

    def delete_catalog(self) -> bool:
        if self.read_only:
            return False
        name = self.current
        if not self._confirm(
            f"Delete the catalog '{name}'? Its file is removed; this cannot be undone."
        ):
            return False
        try:
            self.store.delete(name)
        except CatalogError as exc:
            self._fail("Could not delete the catalog", exc)
            return False
        self.current = BUILTIN_NAME
        self._after_disk_change(BUILTIN_NAME)
        self._load(BUILTIN_NAME)
        self.show_status(f"Deleted '{name}'.")
        return True

    def set_active(self) -> bool:
        if self.dirty and not self.maybe_save():
            return False
        try:
            self.service.set_active(self.current)
        except CatalogError as exc:
            self._fail("Could not make the catalog active", exc)
            return False
        self.show_status(f"'{self.current}' is now the active catalog.")
        return True

    # --- rows ------------------------------------------------------------------------------------
    def _selected_rows(self) -> list[int]:
        sel = self.table.selectionModel()
        rows = {i.row() for i in sel.selectedIndexes()}
        cur = self.table.currentIndex()
        if not rows and cur.isValid():
            rows.add(cur.row())
        return sorted(rows)

    def add_row(self) -> int:
        r = self.model.add_row()
        self.table.setCurrentIndex(self.model.index(r, self.model.column_of("id")))
        self.table.scrollTo(self.model.index(r, 0))
        return r

    def duplicate_row(self) -> int | None:
        rows = self._selected_rows()
        if not rows or self.read_only:
            return None
        r = self.model.duplicate_row(rows[0])
        self.table.setCurrentIndex(self.model.index(r, self.model.column_of("id")))
        return r

    def remove_rows(self) -> int:
        rows = self._selected_rows()
        if not rows or self.read_only:
            return 0
        self.model.remove_rows(rows)
        return len(rows)

    def _on_cell_refused(self, row: int, field: str, reason: str) -> None:
        text = self.model.errors.get((row, field), ("", ""))[1]
        self.show_status(
            f"Row {row + 1}, {column_label(field)} ({field}): {reason} "
            f"(got {text!r}) — not applied, the old value is kept.",
            error=True,
        )

    def _on_cell_accepted(self, _row: int, _field: str) -> None:
        if self.status.styleSheet():
            self.show_status("")

    def _on_rows_edited(self, *_args: Any) -> None:
        if not self.read_only:
            self.heading.setText(f"{self.current} — {len(self.model.rows)} GPUs")
        self._after_edit()

    def _after_edit(self) -> None:
        self.setWindowModified(self.dirty)
        self._fill_effective()
        self._update_buttons()

    def _update_buttons(self, *_args: Any) -> None:
        editable = not self.read_only
        has_rows = bool(self._selected_rows()) if editable else False
        for b in (self.rename_button, self.delete_button, self.add_row_button, self.import_button):
            b.setEnabled(editable)
        self.duplicate_row_button.setEnabled(has_rows)
        self.remove_row_button.setEnabled(has_rows)
        self.save_button.setEnabled(self.dirty)
        self.revert_button.setEnabled(self.dirty)
        self.active_button.setEnabled(
            self.current.casefold() != self.service.active_name.casefold()
        )

    # --- effective view --------------------------------------------------------------------------
    def effective_rows(self) -> list[EffectiveRow]:
        user = None if self.read_only else self.catalog()
        return merge_catalogs(self.store.builtin, user)

    def _fill_effective(self) -> None:
        rows = self.effective_rows()
        t = self.effective_table
        t.setRowCount(len(rows))
        bold = QFont(t.font())
        bold.setBold(True)
        n_over = 0
        for i, r in enumerate(rows):
            g = r.gpu
            over = ""
            if r.overrides_builtin and r.builtin is not None:
                over = f"▲ built-in ({fmt_price(r.builtin.on_demand_usd_per_hour)})"
                n_over += 1
            cells = (
                origin_label(r.origin),
                over,
                g.name,
                g.id,
                format_value(g.memory_gib),
                f"{g.bf16_tflops:,.1f}",
                fmt_price(g.on_demand_usd_per_hour),
                fmt_price(g.spot_usd_per_hour) if g.spot_usd_per_hour is not None else "—",
                g.price_as_of,
            )
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if r.overrides_builtin:
                    item.setFont(bold)
                    if j == 1 and r.builtin is not None:
                        item.setToolTip(
                            f"Replaces the built-in row {r.builtin.name}: built-in on-demand "
                            f"{fmt_price(r.builtin.on_demand_usd_per_hour)}"
                        )
                if 4 <= j <= 7:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                t.setItem(i, j, item)
        t.resizeColumnsToContents()
        if self.read_only:
            note = f"The built-in catalog alone: {len(rows)} GPUs."
        else:
            added = sum(1 for r in rows if r.is_user and not r.overrides_builtin)
            note = (
                f"What estimates use while '{self.current}' is active (unsaved edits included): "
                f"{len(rows)} GPUs — {n_over} built-in rows overridden (▲, bold), {added} added."
            )
        self.effective_note.setText(note)

    # --- save / revert / close -------------------------------------------------------------------
    def save(self) -> bool:
        if self.read_only or not self.dirty:
            return True
        try:
            path = self.store.save(self.catalog())
        except CatalogError as exc:
            self._fail(f"Could not save '{self.current}'", exc)
            return False
        self._saved_rows = tuple(self.model.rows)
        self._saved_description = self.description_edit.text()
        self.model.errors.clear()
        self._after_edit()
        self.service.reload()
        self.show_status(f"Saved '{self.current}' to {path}.")
        self.saved.emit(self.current)
        return True

    def revert(self) -> None:
        if not self.read_only:
            self._load(self.current)

    def maybe_save(self) -> bool:
        """True when the selected catalog's edits may be dropped (saved, discarded or none)."""
        if not self.dirty:
            return True
        buttons = (
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel
        )
        answer = QMessageBox.question(
            self,
            TITLE,
            f"Save the changes to the catalog '{self.current}'?",
            buttons,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        if answer == QMessageBox.StandardButton.Discard:
            self.model.set_rows(self._saved_rows, read_only=self.read_only)
            self.description_edit.setText(self._saved_description)
            self._after_edit()
            return True
        return False

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        event.accept()

    def reject(self) -> None:
        if self.maybe_save():
            super().reject()

    # --- CSV -------------------------------------------------------------------------------------
    def _clear_import_errors(self) -> None:
        self.import_errors.clear()
        self.import_errors.hide()
        self.import_errors_label.hide()

    def import_csv(self, path: str | None = None) -> tuple[int, int] | None:
        """Import rows from a CSV file into the selected user catalog (unsaved until Save)."""
        if self.read_only:
            return None
        path = path or self._ask_open_path()
        if not path:
            return None
        name = Path(path).name
        self._clear_import_errors()
        try:
            gpus, errors = import_csv(path)
        except CatalogError as exc:
            self.show_status(f"Nothing imported: {exc}", error=True)
            self.import_errors_label.setText(f"{name} was not imported:")
            self.import_errors.addItem(str(exc))
            self.import_errors_label.show()
            self.import_errors.show()
            return None
        replaced, added = self.model.merge_rows(gpus)
        self._size_columns()
        msg = f"Imported {len(gpus)} rows from {name} ({replaced} replaced, {added} added)"
        if errors:
            bad_lines = len({e.line for e in errors})
            self.import_errors_label.setText(
                f"{bad_lines} row(s) of {name} were not imported — fix them in the file and import "
                "again:"
            )
            for e in errors:
                self.import_errors.addItem(str(e))
            self.import_errors_label.show()
            self.import_errors.show()
            msg += f"; {bad_lines} row(s) refused (listed below)"
        self.show_status(msg + ". Save to keep them.", error=bool(errors))
        return len(gpus), len(errors)

    def export_csv(self, path: str | None = None) -> str | None:
        path = path or self._ask_save_path()
        if not path:
            return None
        try:
            export_csv(self.model.rows, path)
        except CatalogError as exc:
            self._fail("Could not export the catalog", exc)
            return None
        self.show_status(f"Exported {len(self.model.rows)} rows to {path}.")
        return path
