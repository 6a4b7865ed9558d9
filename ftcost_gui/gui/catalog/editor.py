"""The GPU catalog manager: list, create, duplicate, rename, delete, activate, edit, import, export.

A non-modal dialog (shown with ``show()``, never ``exec()``); its widgets are built by
``EditorLayout``. The left column lists the built-in catalog (read-only) and the user catalogs;
the right side edits the selected catalog's rows (``CatalogTableModel``: one column per catalog
field, the cells of ``io/catalog_cells.py``). "Override a built-in GPU…" copies a built-in row
whole, so a price of your own needs no spec retyped. Save writes the catalog atomically
(``CatalogStore.save``). The "Effective catalog" tab shows the rows estimates would use with the
selected catalog active (filled when shown).

Dialogs sit behind ``_ask_name``, ``_ask_builtin_gpu``, ``_ask_open_path``, ``_ask_save_path``
and ``_confirm`` (tests monkeypatch them or the static ``QMessageBox`` helpers).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QLineEdit,
    QMessageBox,
    QWidget,
)

from ...core.catalog import BUILTIN_NAME, CatalogGpu, EffectiveRow, GpuCatalog, id_key
from ...core.catalog import merge_catalogs as merge
from ...io.catalog_csv import export_csv, import_csv
from ...io.catalog_store import CatalogError, slugify
from ..rich_text import rich_text
from .editor_catalogs import CatalogsPart
from .editor_layout import TITLE
from .effective_view import fill_effective
from .service import CatalogService
from .table_model import CatalogTableModel

CSV_FILTER = "CSV files (*.csv);;All files (*)"


def open_catalog_editor(service: CatalogService, parent: QWidget | None = None) -> CatalogEditor:
    """Show the (one, non-modal) catalog manager, creating it on first use."""
    editor = service.editor
    if not isinstance(editor, CatalogEditor):
        editor = CatalogEditor(service, parent)
        service.editor = editor
    else:
        editor.refresh_catalogs()
    editor.show()
    editor.raise_()
    return editor


class CatalogEditor(CatalogsPart):
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
        self._effective_stale = True
        self.model = CatalogTableModel({id_key(g.id) for g in self.store.builtin.gpus}, self)
        self._build()
        self._connect()
        self.refresh_catalogs()
        self.select_catalog(self.service.active_name)

    def _connect(self) -> None:
        self.model.rowsEdited.connect(self._on_rows_edited)
        self.model.cellRefused.connect(self._on_cell_refused)
        self.model.cellAccepted.connect(self._on_cell_accepted)
        self.service.changed.connect(self._on_service_changed)
        self.service.problemsFound.connect(self._on_problems)
        self.catalog_list.currentItemChanged.connect(self._on_list_current)
        self.new_button.clicked.connect(self.new_catalog)
        self.duplicate_button.clicked.connect(self.duplicate_catalog)
        self.rename_button.clicked.connect(self.rename_catalog)
        self.delete_button.clicked.connect(self.delete_catalog)
        self.active_button.clicked.connect(self.set_active)
        self.override_button.clicked.connect(lambda: self.override_builtin())
        self.add_row_button.clicked.connect(self.add_row)
        self.duplicate_row_button.clicked.connect(self.duplicate_row)
        self.remove_row_button.clicked.connect(self.remove_rows)
        self.import_button.clicked.connect(lambda: self.import_csv())
        self.export_button.clicked.connect(lambda: self.export_csv())
        self.save_button.clicked.connect(self.save)
        self.revert_button.clicked.connect(self.revert)
        self.close_button.clicked.connect(self.close)
        self.description_edit.textEdited.connect(self._on_rows_edited)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)
        self.tabs.currentChanged.connect(self._on_tab)
        self.effective_table.cellDoubleClicked.connect(self._on_effective_double_click)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Save), self, self.save)

    # --- dialogs (tests monkeypatch these) -------------------------------------------------------
    def _ask_name(self, title: str, label: str, text: str = "") -> str:
        label = rich_text(label)  # it quotes a catalog name: data
        name, ok = QInputDialog.getText(self, title, label, QLineEdit.EchoMode.Normal, text)
        return name if ok else ""

    def _ask_builtin_gpu(self, choices: list[tuple[str, str]]) -> str:
        """The id of the built-in GPU to override ('' if cancelled); choices: (label, id)."""
        labels = [label for label, _ in choices]
        label, ok = QInputDialog.getItem(
            self, "Override a built-in GPU", "Your own price for:", labels, 0, False
        )
        return dict(choices).get(label, "") if ok else ""

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
        no = QMessageBox.StandardButton.No
        answer = QMessageBox.question(self, TITLE, rich_text(text), buttons, no)
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
            name=self.current, description=self.description_edit.text(), gpus=tuple(self.model.rows)
        )

    def show_status(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #a00000;" if error else "")

    def _fail(self, what: str, exc: Exception) -> None:
        self.show_status(f"{what}: {exc}", error=True)
        QMessageBox.warning(self, TITLE, rich_text(f"{what}.\n\n{exc}"))

    # --- rows ------------------------------------------------------------------------------------
    def _selected_rows(self) -> list[int]:
        rows = {i.row() for i in self.table.selectionModel().selectedIndexes()}
        cur = self.table.currentIndex()
        if not rows and cur.isValid():
            rows.add(cur.row())
        return sorted(rows)

    def _go_to(self, row: int, field: str, edit: bool = False) -> None:
        index = self.model.index(row, self.model.column_of(field))
        self.table.setCurrentIndex(index)
        self.table.scrollTo(index)
        if edit:
            self.table.edit(index)

    def add_row(self) -> int:
        r = self.model.add_row()
        self._go_to(r, "id")
        return r

    def override_builtin(self, gpu_id: str = "") -> int | None:
        """Your own price for a built-in GPU: its row copied whole (same id, so it overrides).

        On the built-in catalog, first asks for a new catalog to keep the price in. If this
        catalog overrides that GPU already, its row is shown instead. Returns the row.
        """
        builtin = self.store.builtin
        if not gpu_id:
            mine = {id_key(g.id) for g in self.model.rows} if not self.read_only else set()
            choices = [
                (f"{g.name} ({g.id}) — built-in {g.on_demand_usd_per_hour:,.2f} $/GPU-h", g.id)
                for g in builtin.gpus
                if id_key(g.id) not in mine
            ]
            gpu_id = self._ask_builtin_gpu(choices)
        row = builtin.find(gpu_id) if gpu_id else None
        if row is None or row.id.casefold() != gpu_id.strip().casefold():
            return None
        if self.read_only and self.new_catalog() is None:
            return None
        have = self.model.row_of(row.id)
        if have is not None:
            self._go_to(have, "on_demand_usd_per_hour")
            self.show_status(f"This catalog already overrides {row.name}: edit its row.")
            return have
        r = self.model.add_row(row)
        self._go_to(r, "on_demand_usd_per_hour", edit=self.isVisible())
        self.show_status(
            f"{row.name} copied from the built-in catalog with every spec: change its price and "
            "anything else that differs (provider, region, tier), then Save. It replaces the "
            "built-in row while this catalog is active."
        )
        return r

    def duplicate_row(self) -> int | None:
        rows = self._selected_rows()
        if not rows or self.read_only:
            return None
        r = self.model.duplicate_row(rows[0])
        self._go_to(r, "id")
        return r

    def remove_rows(self) -> int:
        rows = self._selected_rows()
        if not rows or self.read_only:
            return 0
        self.model.remove_rows(rows)
        return len(rows)

    def _on_cell_refused(self, row: int, field: str, reason: str) -> None:
        text = self.model.errors.get((row, field), ("", ""))[1]
        label = self.model.columns[self.model.fields.index(field)].label
        self.show_status(
            f"Row {row + 1}, {label} ({field}): {reason} (got {text!r}) — not applied, the old "
            "value is kept.",
            error=True,
        )

    def _on_cell_accepted(self, _row: int, _field: str) -> None:
        if self.status.styleSheet():
            self.show_status("")

    def _on_rows_edited(self, *_args: Any) -> None:
        self._set_heading()
        self._after_edit()

    def _after_edit(self) -> None:
        self.setWindowModified(self.dirty)
        self._effective_stale = True
        if self.tabs.currentIndex() == 1:
            self.refresh_effective()
        self._update_buttons()

    def _update_buttons(self, *_args: QItemSelection) -> None:
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
        return merge(self.store.builtin, None if self.read_only else self.catalog())

    def _on_tab(self, index: int) -> None:
        if index == 1 and self._effective_stale:
            self.refresh_effective()

    def refresh_effective(self) -> None:
        """Fill the Effective catalog tab (done when it is shown, not on every edit)."""
        rows = self.effective_rows()
        n_over = fill_effective(self.effective_table, rows)
        self._effective_stale = False
        if self.read_only:
            note = f"The built-in catalog alone: {len(rows)} GPUs."
        else:
            added = sum(1 for r in rows if r.is_user and not r.overrides_builtin)
            note = (
                f"What estimates use while '{self.current}' is active (unsaved edits included): "
                f"{len(rows)} GPUs — {n_over} built-in rows overridden (▲, bold), {added} added. "
                "Double-click a built-in row to put your own price on it."
            )
        self.effective_note.setText(note)

    def _on_effective_double_click(self, row: int, _column: int) -> None:
        rows = self.effective_rows()
        if (
            0 <= row < len(rows)
            and not rows[row].is_user
            and self.override_builtin(rows[row].gpu.id) is not None
        ):
            self.tabs.setCurrentIndex(0)

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
            rich_text(f"Save the changes to the catalog '{self.current}'?"),
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

    def close_guard(self) -> bool:
        """For the window's close: True unless the user keeps an unsaved catalog open."""
        return not self.isVisible() or self.maybe_save()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.size_columns()

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

    def _list_import_errors(self, label: str, lines: list[str]) -> None:
        self.import_errors_label.setText(label)
        self.import_errors.addItems(lines)
        self.import_errors_label.show()
        self.import_errors.show()

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
            self._list_import_errors(f"{name} was not imported:", [str(exc)])
            return None
        replaced, added = self.model.merge_rows(gpus)
        self.size_columns()
        msg = f"Imported {len(gpus)} rows from {name} ({replaced} replaced, {added} added)"
        if errors:
            bad_lines = len({e.line for e in errors})
            self._list_import_errors(
                f"{bad_lines} row(s) of {name} were not imported — fix them in the file and "
                "import again:",
                [str(e) for e in errors],
            )
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
