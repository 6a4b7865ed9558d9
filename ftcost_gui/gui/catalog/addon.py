"""GPU catalogs in the window, given only ``WindowServices``: two actions, the price check, the
"Which GPU" tab, problems with catalog files told once, and a close guard for unsaved edits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMessageBox, QWidget

from ...io.catalog_store import CatalogProblem
from ..services import ActionSpec, WindowServices
from .prices import PriceBar, PriceCheck
from .service import CatalogService
from .text import APP_TITLE, problems_status, problems_text
from .which_gpu_tab import WhichGpuTab

if TYPE_CHECKING:  # the manager dialog's modules load when it first opens (start-up: issue 17)
    from .editor import CatalogEditor


class CatalogUi(QObject):
    """Everything catalog-related the window shows; ``catalogs`` is the hardware panel's."""

    def __init__(self, services: WindowServices, catalogs: CatalogService):
        super().__init__(services.dialog_parent())
        self.services, self.service = services, catalogs
        self.catalogs_action = services.add_action(
            ActionSpec(
                "gpu_catalogs",
                "GPU &Catalogs…",
                self.open_editor,
                tip="Create, edit, import and choose GPU price catalogs",
                menu="edit",
                section="catalogs",
            )
        )
        self.compare_action = services.add_action(
            ActionSpec(
                "which_gpu",
                "&Which GPU for This Job",
                self.show_compare,
                tip="Compare every GPU of the catalog for this estimate",
                menu="edit",
                section="catalogs",
            )
        )
        self.prices = PriceCheck(services, catalogs)
        self.which_gpu = WhichGpuTab(services, catalogs)
        catalogs.problemsFound.connect(self._schedule_tell)
        self._schedule_tell(list(catalogs.problems))  # found before this was installed
        services.add_close_guard(self._close_guard)

    # --- the manager ------------------------------------------------------------------------------
    def open_editor(self) -> CatalogEditor:
        from .editor import open_catalog_editor

        return open_catalog_editor(self.service, self.services.dialog_parent())

    def _close_guard(self) -> bool:
        """Closing the window first offers to save a catalog being edited (Cancel keeps both)."""
        editor = self.service.editor
        if editor is None:  # never opened: its module may not even be loaded
            return True
        from .editor import CatalogEditor

        return not isinstance(editor, CatalogEditor) or editor.close_guard()

    # --- problems with catalog files --------------------------------------------------------------
    def _schedule_tell(self, problems: Sequence[CatalogProblem]) -> None:
        # After the current event: never a message box in the middle of building the window.
        if problems:
            found = list(problems)
            QTimer.singleShot(0, self, lambda: self.tell(found))

    def tell(self, problems: Sequence[CatalogProblem]) -> None:
        editor = self.service.editor
        parent: QWidget = (
            editor
            if isinstance(editor, QWidget) and editor.isVisible()
            else self.services.dialog_parent()
        )
        self.services.show_status(problems_status(problems), 15000)
        QMessageBox.warning(parent, f"{APP_TITLE} — GPU catalogs", problems_text(problems))

    # --- what tests and other add-ons reach -------------------------------------------------------
    @property
    def price_bar(self) -> PriceBar:
        return self.prices.bar

    def keep_prices(self) -> None:
        self.prices.keep_prices()

    def show_compare(self) -> None:
        self.which_gpu.show()
