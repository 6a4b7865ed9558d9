"""The catalog manager's left side: the list of catalogs and what is done to them.

New, duplicate, rename, delete, set active, and loading the selected catalog into the rows
table. ``CatalogEditor`` (editor.py) adds the rows, the effective view, saving and CSV.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidgetItem, QMessageBox

from ...core.catalog import BUILTIN_NAME, CatalogGpu
from ...io.catalog_store import CatalogError, CatalogProblem, CatalogStore
from ...io.names import for_html
from ..binding import signals_blocked
from .editor_layout import EditorLayout
from .service import CatalogService
from .text import APP_TITLE, problems_text

_LONG_TEXT_MAX_PX = 360
_SAMPLED_ROWS = 400  # columns are sized to the content of this many rows (a 5,000-row catalog)


class CatalogsPart(EditorLayout):
    """The list of catalogs and the operations on whole catalogs."""

    service: CatalogService
    store: CatalogStore
    current: str
    _saved_rows: tuple[CatalogGpu, ...]
    _saved_description: str

    # Provided by CatalogEditor.
    def _ask_name(self, title: str, label: str, text: str = "") -> str:
        raise NotImplementedError

    def _confirm(self, text: str) -> bool:
        raise NotImplementedError

    def maybe_save(self) -> bool:
        raise NotImplementedError

    @property
    def read_only(self) -> bool:
        return self.current.casefold() == BUILTIN_NAME.casefold()

    @property
    def dirty(self) -> bool:
        raise NotImplementedError

    def show_status(self, text: str, error: bool = False) -> None:
        raise NotImplementedError

    def _fail(self, what: str, exc: Exception) -> None:
        raise NotImplementedError

    def _clear_import_errors(self) -> None:
        raise NotImplementedError

    def _after_edit(self) -> None:
        raise NotImplementedError

    def _update_buttons(self, *_args: Any) -> None:
        raise NotImplementedError

    # --- the list of catalogs --------------------------------------------------------------------
    def refresh_catalogs(self) -> None:
        """Read the folder again and rebuild the list (new problems are told once, here)."""
        problems = self.service.reload(emit=False)
        self._fill_list(self.service.user_names)
        self._on_problems(problems)
        if problems:
            QMessageBox.warning(self, f"{APP_TITLE} — GPU catalogs", problems_text(problems))

    def _on_problems(self, problems: list[CatalogProblem]) -> None:
        if problems:
            self.show_status(problems[0].message, error=True)

    def _fill_list(self, names: list[str]) -> None:
        active = self.service.active_name
        lst = self.catalog_list
        with signals_blocked(lst):
            lst.clear()
            for name in [BUILTIN_NAME, *names]:
                text = f"{name} (read-only)" if name == BUILTIN_NAME else name
                is_active = name.casefold() == active.casefold()
                item = QListWidgetItem(text + ("  — active" if is_active else ""))
                item.setData(Qt.ItemDataRole.UserRole, name)
                if is_active:
                    f = item.font()
                    f.setBold(True)
                    item.setFont(f)
                lst.addItem(item)
                if name.casefold() == self.current.casefold():
                    lst.setCurrentItem(item)
        self.active_label.setText(f"Active: <b>{for_html(active)}</b>")  # (a name is data)
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

    def _on_list_current(self, item: QListWidgetItem | None, _previous: Any) -> None:
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
        self.size_columns()
        self._clear_import_errors()
        self._set_heading()
        if self.read_only:
            self.show_status(
                "The built-in catalog cannot be edited: Override a built-in GPU… puts your own "
                "price in a catalog of yours, or Duplicate it whole."
            )
        else:
            self.show_status("")
        self._after_edit()

    def _set_heading(self) -> None:
        n = len(self.model.rows)
        if self.read_only:
            self.heading.setText(f"{BUILTIN_NAME} catalog — {n} GPUs (read-only)")
        else:
            self.heading.setText(f"{self.current} — {n} GPUs")

    def size_columns(self) -> None:
        """Every column as wide as its header and content; free text capped (tooltips show it)."""
        t, hh = self.table, self.table.horizontalHeader()
        hh.setResizeContentsPrecision(_SAMPLED_ROWS)
        t.resizeColumnsToContents()
        for i, c in enumerate(self.model.columns, start=1):
            if c.long_text and hh.sectionSize(i) > _LONG_TEXT_MAX_PX:
                hh.resizeSection(i, _LONG_TEXT_MAX_PX)

    # --- catalog operations ----------------------------------------------------------------------
    def _after_disk_change(self, select: str | None = None) -> None:
        self.service.reload()
        self.refresh_catalogs()
        if select is not None:
            self.select_catalog(select)

    def new_catalog(self, name: str = "") -> str | None:
        if not self.maybe_save():
            return None
        name = name or self._ask_name("New catalog", "Name of the new catalog:", "My prices")
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
        self._set_heading()
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
