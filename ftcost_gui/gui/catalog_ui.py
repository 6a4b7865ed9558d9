"""GPU catalogs in the window: the shared catalog state, the price check, the 'Which GPU' tab.

``CatalogService`` holds the effective catalog (the active user catalog over the built-in one) for
every view of the window; the hardware panel owns it, the manager dialog and the comparison tab
use it. ``install_catalog_ui(window)`` adds the rest to a ``MainWindow`` through its public
attributes only (``store``, ``result_tabs``, ``menuBar()``, ``statusBar()``, ``documentOpened``):

- a menu action that opens the catalog manager (``gui/catalog_editor.py``);
- problems with catalog files (set aside at start-up) told once: status bar + a warning;
- after a file is opened, a bar above the results when its GPU prices differ from the catalog's,
  with "Update prices" (one undoable edit) and "Keep";
- the "Which GPU" tab (``gui/gpu_compare_view.py``, built when first shown), recomputed only
  while visible (or when it becomes visible) after the result changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QBoxLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from ..core.catalog import (
    BUILTIN_NAME,
    USER_ORIGIN_PREFIX,
    EffectiveRow,
    id_key,
    merge_catalogs,
    price_differences,
    with_catalog_prices,
)
from ..core.compare import inputs_with_gpu
from ..core.inputs import GpuSpec
from ..io.catalog_store import CatalogError, CatalogProblem, CatalogStore
from .store import describe_validation_error

APP_TITLE = "ftcost"


def origin_label(origin: str) -> str:
    """'built-in' or 'user: NAME' (how the picker and the tables show where a row came from)."""
    if origin.startswith(USER_ORIGIN_PREFIX):
        return f"user: {origin[len(USER_ORIGIN_PREFIX) :]}"
    return origin


def origin_catalog(origin: str) -> str:
    """The catalog name an origin stands for ('Built-in' for built-in rows)."""
    if origin.startswith(USER_ORIGIN_PREFIX):
        return origin[len(USER_ORIGIN_PREFIX) :]
    return BUILTIN_NAME


def fmt_price(value: float | None) -> str:
    return "no spot price" if value is None else f"${value:,.2f}/h"


def problems_text(problems: Sequence[CatalogProblem]) -> str:
    lines = "\n".join(f"• {p.message}" for p in problems)
    return (
        f"Some GPU catalog files could not be used:\n\n{lines}\n\n"
        "ftcost carries on with the other catalogs. Nothing was deleted: a file set aside keeps "
        "its contents under the new name."
    )


def tell_problems(parent: QWidget, problems: Sequence[CatalogProblem]) -> None:
    """Tell catalog problems once: a status-bar line (where there is one) and a warning box."""
    if not problems:
        return
    first = problems[0].message
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    status = getattr(parent, "statusBar", None)
    if callable(status):
        status().showMessage(f"GPU catalogs: {first}{more}", 15000)
    QMessageBox.warning(parent, f"{APP_TITLE} — GPU catalogs", problems_text(problems))


class CatalogService(QObject):
    """The effective GPU catalog of the window, reloaded after every catalog change.

    ``changed`` after a reload. ``problems`` is every problem with catalog files seen this
    session (each once, in the order found); ``problemsFound(list)`` carries the new ones of a
    reload, for whoever tells them.
    """

    changed = Signal()
    problemsFound = Signal(list)

    def __init__(self, store: CatalogStore | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.store = store if store is not None else CatalogStore()
        self.rows: list[EffectiveRow] = []
        self.active_name: str = BUILTIN_NAME
        self.user_names: list[str] = []
        self.problems: list[CatalogProblem] = []
        self._seen: set[tuple[str, str]] = set()
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
        self.rows = rows
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


def open_catalog_editor(service: CatalogService, parent: QWidget | None = None) -> QWidget:
    """Show the (one, non-modal) catalog manager, creating it on first use."""
    from .catalog_editor import CatalogEditor

    editor = service.editor
    if editor is None:
        editor = CatalogEditor(service, parent)
        service.editor = editor
    else:
        editor.refresh_catalogs()
    editor.show()
    editor.raise_()
    return editor


class PriceBar(QFrame):
    """'This estimate uses $X/h; your catalog 'NAME' says $Y/h' with Update prices / Keep."""

    updateRequested = Signal()
    keepRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("price_bar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            "QFrame#price_bar { background: #fff4d6; border: 1px solid #d9b44a; "
            "border-radius: 4px; } QFrame#price_bar QLabel { color: #3b2f00; }"
        )
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        icon = QLabel(self)
        icon.setPixmap(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxInformation).pixmap(20)
        )
        lay.addWidget(icon)
        self.text = QLabel(self)
        self.text.setObjectName("price_bar_text")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.text, 1)
        self.update_button = QPushButton("&Update prices", self)
        self.update_button.setToolTip(
            "Use the catalog's prices in this estimate (one undoable edit; the file changes only "
            "when you save)."
        )
        self.keep_button = QPushButton("&Keep", self)
        self.keep_button.setToolTip("Keep the prices saved in this estimate.")
        lay.addWidget(self.update_button)
        lay.addWidget(self.keep_button)
        self.update_button.clicked.connect(self.updateRequested)
        self.keep_button.clicked.connect(self.keepRequested)
        self.hide()


def price_message(spec: GpuSpec, row: EffectiveRow) -> str:
    catalog = origin_catalog(row.origin)
    g = row.gpu
    a, b = g.spot_usd_per_hour, spec.spot_usd_per_hour
    spot_differs = (a is None) != (b is None) or (a is not None and b is not None and a != b)
    uses = fmt_price(spec.on_demand_usd_per_hour)
    says = fmt_price(g.on_demand_usd_per_hour)
    if spot_differs:
        uses += f" on-demand, {fmt_price(b)} spot"
        says += f" on-demand, {fmt_price(a)} spot"
    return f"This estimate uses {uses}; your catalog '{catalog}' says {says} ({spec.name})."


class CatalogUi(QObject):
    """Everything catalog-related the window shows, wired through the window's public API."""

    def __init__(self, window: Any):
        super().__init__(window)
        self.window = window
        panel = getattr(window, "panels", {}).get("hardware")
        service = getattr(panel, "catalog", None)
        self.service: CatalogService = (
            service if isinstance(service, CatalogService) else CatalogService(parent=self)
        )
        self.compare_view: Any = None
        self._compare_stale = True
        self._bar_gpu: str | None = None
        self._kept: set[tuple[str, float, float | None]] = set()  # prices the user chose to keep
        self._build_menu()
        self._build_price_bar()
        self._build_compare_tab()
        self._hook_file_open()
        store = window.store
        store.resultChanged.connect(self._on_result)
        store.inputsChanged.connect(self._on_inputs)
        # Each scenario keeps its own GPU prices: check them when another one is selected.
        store.activeScenarioChanged.connect(lambda _i: self.check_prices())
        self.service.changed.connect(self._on_catalog_changed)
        self.service.problemsFound.connect(self._schedule_tell)
        self._schedule_tell(self.service.problems)  # found before this was installed
        window.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        """Closing the window first offers to save a catalog being edited (Cancel keeps both)."""
        if obj is self.window and event.type() == QEvent.Type.Close:
            editor = self.service.editor
            if editor is not None and editor.isVisible() and not editor.maybe_save():
                event.ignore()
                return True
        return False

    # --- menu ---------------------------------------------------------------------------------
    def _build_menu(self) -> None:
        w = self.window
        self.catalogs_action = QAction("GPU &Catalogs…", w)
        self.catalogs_action.setStatusTip("Create, edit, import and choose GPU price catalogs")
        self.catalogs_action.triggered.connect(self.open_editor)
        self.compare_action = QAction("&Which GPU for This Job", w)
        self.compare_action.setStatusTip("Compare every GPU of the catalog for this estimate")
        self.compare_action.triggered.connect(self.show_compare)
        menu = None
        for act in w.menuBar().actions():
            if act.menu() is not None and act.text().replace("&", "") == "Edit":
                menu = act.menu()
                break
        if menu is None:
            menu = w.menuBar().addMenu("&Catalogs")
        menu.addSeparator()
        menu.addAction(self.catalogs_action)
        menu.addAction(self.compare_action)

    def open_editor(self) -> QWidget:
        return open_catalog_editor(self.service, self.window)

    # --- problems with catalog files ----------------------------------------------------------
    def _schedule_tell(self, problems: list[CatalogProblem]) -> None:
        # After the current event: never a message box in the middle of building the window.
        if problems:
            QTimer.singleShot(0, self, lambda: self.tell(problems))

    def tell(self, problems: list[CatalogProblem]) -> None:
        editor = self.service.editor
        parent = editor if editor is not None and editor.isVisible() else self.window
        tell_problems(parent, problems)
        if parent is not self.window:
            self.window.statusBar().showMessage(f"GPU catalogs: {problems[0].message}", 15000)

    # --- price check when a file is opened ----------------------------------------------------
    def _build_price_bar(self) -> None:
        self.price_bar = PriceBar()
        tabs = self.window.result_tabs
        parent = tabs.parentWidget()
        lay = parent.layout() if parent is not None else None
        if isinstance(lay, QBoxLayout):
            headline = getattr(self.window, "headline", None)
            idx = lay.indexOf(headline) if headline is not None else -1
            if idx < 0:
                idx = lay.indexOf(tabs)
            lay.insertWidget(max(idx, 0), self.price_bar)
        else:  # an unexpected layout: the bar still exists, above the status bar
            self.window.statusBar().addPermanentWidget(self.price_bar)
        self.price_bar.updateRequested.connect(self.update_prices)
        self.price_bar.keepRequested.connect(self.keep_prices)

    def _hook_file_open(self) -> None:
        # Examples, recent files, drops and argv all end in the window's documentOpened.
        self.window.documentOpened.connect(self._on_document_opened)

    def _on_document_opened(self, _path: object) -> None:
        self._kept.clear()  # a new file: ask again
        self.check_prices()

    def check_prices(self) -> bool:
        """Show the bar if the estimate's GPU prices differ from the catalog's; True if shown."""
        spec = self.window.store.inputs.hardware.gpu
        update = price_differences(spec, self.service.rows)
        row = self.service.row_for(spec.id)
        if update is None or row is None or self._price_key(spec) in self._kept:
            self._hide_bar()
            return False
        self._bar_gpu = id_key(spec.id)
        self.price_bar.text.setText(price_message(spec, row))
        self.price_bar.show()
        return True

    def _hide_bar(self) -> None:
        self._bar_gpu = None
        self.price_bar.hide()

    def update_prices(self) -> None:
        store = self.window.store
        spec = store.inputs.hardware.gpu
        row = self.service.row_for(spec.id)
        self._hide_bar()
        if row is None:
            return
        new = with_catalog_prices(spec, row.gpu)
        catalog = origin_catalog(row.origin)
        self._apply_gpu(new, f"Update {spec.name} prices from catalog '{catalog}'")
        self.window.statusBar().showMessage(
            f"Prices of {spec.name} updated from catalog '{catalog}' (save to keep them)", 6000
        )

    def keep_prices(self) -> None:
        # 'Keep' holds for these prices while this file is open, in every scenario.
        self._kept.add(self._price_key(self.window.store.inputs.hardware.gpu))
        self._hide_bar()

    @staticmethod
    def _price_key(spec: GpuSpec) -> tuple[str, float, float | None]:
        return (id_key(spec.id), spec.on_demand_usd_per_hour, spec.spot_usd_per_hour)

    def _apply_gpu(self, spec: GpuSpec, description: str) -> bool:
        store = self.window.store
        try:
            inputs = inputs_with_gpu(store.inputs, spec)
        except ValidationError as exc:
            msg = describe_validation_error(exc)
            self.window.statusBar().showMessage(f"Not applied (GPU): {msg}", 8000)
            return False
        store.set_inputs(inputs, description=description)
        return True

    def _on_inputs(self, inputs: Any) -> None:
        if self._bar_gpu is None:
            return
        spec = inputs.hardware.gpu
        if id_key(spec.id) != self._bar_gpu or price_differences(spec, self.service.rows) is None:
            self._hide_bar()

    # --- the 'Which GPU' tab --------------------------------------------------------------------
    def _build_compare_tab(self) -> None:
        self.compare_page = QWidget()
        self.compare_page.setObjectName("which_gpu")
        lay = QVBoxLayout(self.compare_page)
        lay.setContentsMargins(0, 0, 0, 0)
        tabs = self.window.result_tabs
        self.compare_index = tabs.addTab(self.compare_page, "&Which GPU")
        tabs.setTabToolTip(
            self.compare_index, "This estimate on every GPU of the catalog: cost per run, time"
        )
        tabs.currentChanged.connect(self._on_tab)

    def ensure_compare_view(self) -> Any:
        """Build the comparison view (imports pyqtgraph) once."""
        if self.compare_view is None:
            from .gpu_compare_view import GpuCompareView

            self.compare_view = GpuCompareView(self.compare_page)
            self.compare_page.layout().addWidget(self.compare_view)
            if self.compare_page.isVisible():  # shown and laid out now, not on the next event
                self.compare_view.show()
                self.compare_page.layout().activate()
            self.compare_view.adoptRequested.connect(self.adopt_gpu)
            self._compare_stale = True
        return self.compare_view

    def compare_visible(self) -> bool:
        return self.window.result_tabs.currentWidget() is self.compare_page

    def show_compare(self) -> None:
        self.window.result_tabs.setCurrentWidget(self.compare_page)

    def _on_tab(self, _index: int) -> None:
        if self.compare_visible():
            self.ensure_compare_view()
            if self._compare_stale:
                self.refresh_compare()

    def _on_result(self, _result: Any) -> None:
        self._compare_stale = True
        if self.compare_visible():
            self.refresh_compare()

    def _on_catalog_changed(self) -> None:
        self._compare_stale = True
        if self.compare_visible():
            self.refresh_compare()

    def refresh_compare(self) -> None:
        from ..core.compare import compare_gpus

        view = self.ensure_compare_view()
        inputs = self.window.store.inputs
        try:
            rows = compare_gpus(inputs, self.service.rows)
        except (ValidationError, ValueError, ArithmeticError) as exc:
            view.set_error(f"The comparison failed: {exc}")
        else:
            view.set_comparisons(rows, self.service.active_name)
        self._compare_stale = False

    def adopt_gpu(self, spec: GpuSpec) -> None:
        if id_key(spec.id) == id_key(self.window.store.inputs.hardware.gpu.id) and (
            spec == self.window.store.inputs.hardware.gpu
        ):
            return
        if self._apply_gpu(spec, f"Use GPU {spec.name}"):
            self.window.statusBar().showMessage(f"Now estimating on {spec.name}", 4000)


def install_catalog_ui(window: Any) -> CatalogUi:
    """Add the catalog menu action, price bar, problems message and 'Which GPU' tab."""
    ui = CatalogUi(window)
    window.catalog_ui = ui
    return ui
