"""The catalog manager's widgets and layout (``CatalogEditor`` adds the behaviour).

Left: the list of catalogs and what to do with them. Right: the selected catalog's rows (one
column per catalog field), its effective catalog, a status line. Buttons never default: Enter in
the table or a field never clicks one.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from .table_model import CatalogTableModel, ChoiceDelegate

TITLE = "GPU catalogs"
EFFECTIVE_COLUMNS = (
    ("Origin", "Where the row comes from: built-in, or a user catalog"),
    ("Overrides", "▲: this user row replaces the built-in row with the same id"),
    ("GPU", ""),
    ("Id", ""),
    ("Provider", "Who rents it out (empty: not stated)"),
    ("Tier", "How the row is billed"),
    ("Memory\n(GiB)", ""),
    ("Dense BF16\n(TFLOPS)", ""),
    ("On-demand\n($/GPU-h)", ""),
    ("Spot\n($/GPU-h)", ""),
    ("Prices as of", ""),
)


class EditorLayout(QDialog):
    """The manager's widgets; ``model`` is the rows table's model."""

    model: CatalogTableModel

    def _build_left(self) -> QWidget:
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
        left.setMinimumWidth(200)
        return left

    def _build_rows_page(self) -> QWidget:
        page = QWidget()
        plan = QVBoxLayout(page)
        plan.setContentsMargins(4, 4, 4, 4)
        bar = QHBoxLayout()
        self.override_button = QPushButton("&Override a built-in GPU…", page)
        self.override_button.setObjectName("override_builtin")
        self.override_button.setToolTip(
            "Your own price for a GPU the built-in catalog has: its row is copied with every "
            "spec, so you change only what differs (the price, the provider, …)"
        )
        self.add_row_button = QPushButton("Add &new GPU", page)
        self.add_row_button.setToolTip("A GPU the built-in catalog does not have: type its specs")
        self.duplicate_row_button = QPushButton("Duplicate &row", page)
        self.duplicate_row_button.setToolTip(
            "A copy of the selected row under a new id (another provider, region or tier)"
        )
        self.remove_row_button = QPushButton("Remo&ve rows", page)
        self.import_button = QPushButton("&Import CSV…", page)
        self.import_button.setToolTip(
            "Rows of a CSV file: an id this catalog has is replaced, a new id is added; refused "
            "rows are listed below"
        )
        self.export_button = QPushButton("&Export CSV…", page)
        for b in (
            self.override_button,
            self.add_row_button,
            self.duplicate_row_button,
            self.remove_row_button,
        ):
            bar.addWidget(b)
        bar.addStretch(1)
        bar.addWidget(self.import_button)
        bar.addWidget(self.export_button)
        plan.addLayout(bar)
        self.table = QTableView(page)
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
        hh.setMinimumSectionSize(40)
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.verticalHeader().setResizeContentsPrecision(400)  # rows sampled per column
        plan.addWidget(self.table, 1)
        self.import_errors_label = QLabel(page)
        self.import_errors_label.setTextFormat(Qt.TextFormat.PlainText)  # names are data
        self.import_errors_label.setObjectName("import_errors_label")
        self.import_errors_label.setWordWrap(True)
        self.import_errors = QListWidget(page)
        self.import_errors.setObjectName("import_errors")
        self.import_errors.setAccessibleName("Rows not imported")
        self.import_errors.setMaximumHeight(110)
        self.import_errors_label.hide()
        self.import_errors.hide()
        plan.addWidget(self.import_errors_label)
        plan.addWidget(self.import_errors)
        return page

    def _build_effective_page(self) -> QWidget:
        page = QWidget()
        elay = QVBoxLayout(page)
        elay.setContentsMargins(4, 4, 4, 4)
        self.effective_note = QLabel(page)
        self.effective_note.setTextFormat(Qt.TextFormat.PlainText)  # names are data
        self.effective_note.setWordWrap(True)
        elay.addWidget(self.effective_note)
        t = self.effective_table = QTableWidget(0, len(EFFECTIVE_COLUMNS), page)
        t.setObjectName("effective_table")
        t.setAccessibleName("Effective catalog")
        for i, (text, tip) in enumerate(EFFECTIVE_COLUMNS):
            item = QTableWidgetItem(text)
            if tip:
                item.setToolTip(tip)
            t.setHorizontalHeaderItem(i, item)
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setAlternatingRowColors(True)
        t.setWordWrap(False)
        t.verticalHeader().setDefaultSectionSize(24)
        t.horizontalHeader().setDefaultAlignment(
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        )
        t.horizontalHeader().setStretchLastSection(True)
        elay.addWidget(t, 1)
        return page

    def _build(self) -> None:
        left = self._build_left()
        right = QWidget(self)
        rlay = QVBoxLayout(right)
        rlay.setContentsMargins(0, 0, 0, 0)
        self.heading = QLabel(right)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)  # names are data
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
        self.tabs.addTab(self._build_rows_page(), "Rows of this catalog")
        self.tabs.addTab(self._build_effective_page(), "E&ffective catalog")
        rlay.addWidget(self.tabs, 1)
        self.status = QLabel(right)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # names are data
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setMinimumHeight(self.status.fontMetrics().height() * 2 + 4)
        rlay.addWidget(self.status)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([220, 1000])
        self.splitter.setChildrenCollapsible(False)

        self.buttons = QDialogButtonBox(self)
        self.save_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Save)
        self.revert_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Reset)
        self.revert_button.setText("&Revert")
        self.revert_button.setToolTip("Drop the unsaved edits of this catalog")
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.splitter, 1)
        lay.addWidget(self.buttons)
        for b in self.findChildren(QPushButton):
            b.setAutoDefault(False)  # Enter in the table or a field never clicks a button
