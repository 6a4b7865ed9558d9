"""The main window: forms on the left, results on the right, wired to one store.

The window lays out and connects its collaborators, each given what it needs when it is made:
``FileController`` (files), ``Exports``, ``ScenarioBar``, ``ChartsArea``, the action table
(``actions.py``) and the add-ons (model import, GPU catalogs), which see the window only as
``WindowServices``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, QEvent, QSettings, Qt, QTimer, SignalInstance
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ...core.results import EstimateResult
from ...io.names import path_name, plain
from ...present.explain import explain_html
from ...present.figures import summary_text
from ..catalog.addon import CatalogUi
from ..compare_view import ComparisonView
from ..defaults import first_launch_inputs
from ..model_import import ModelImportActions
from ..panels import FormTabs
from ..results_view import BreakdownTable, HeadlineView
from ..settings import open_settings
from ..store import EstimateStore
from .actions import ActionSpec, ActionTable, window_actions
from .charts_area import ChartsArea
from .exports import Exports
from .failed_page import EstimateFailedPage
from .files import FileController, dropped_path
from .scenario_bar import ScenarioBar
from .undo import DocumentHistory

APP_TITLE = "ftcost"


class MainWindow(QMainWindow):
    """The estimate window; implements ``WindowServices`` for its add-ons."""

    def __init__(
        self,
        store: EstimateStore | None = None,
        settings: QSettings | None = None,
        *,
        build_plots_now: bool = False,
    ):
        super().__init__()
        self.store = store or EstimateStore(first_launch_inputs(), self)
        self.settings = settings if settings is not None else open_settings()
        self.undo_stack = DocumentHistory(self.store, self)
        self._close_guards: list[Callable[[], bool]] = []
        self._explain_stale = self._compare_stale = True
        self._plots_due = False
        self._error = ""
        self.setAcceptDrops(True)
        self.setObjectName("MainWindow")
        self._build_ui()
        self.files = FileController(self.store, self.undo_stack, self.settings, self)
        self.scenarios = ScenarioBar(self.store, self)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.scenarios)
        self.exports = Exports(self.store, self, self.charts.visible_plot, self._baseline)
        self._build_actions()
        self._connect()
        self._update_title()
        geometry = self.settings.value("window/geometry", QByteArray(), type=QByteArray)
        if geometry is None or geometry.isEmpty() or not self.restoreGeometry(geometry):
            self.resize(1440, 900)
        if build_plots_now:
            self.charts.ensure_plots()
        self.store.recompute_now()
        problem = str(self.settings.property("problem") or "")  # the config folder is unusable
        if problem:
            told = problem[:1].upper() + problem[1:]
            QTimer.singleShot(0, self, lambda: self.show_status(told, 15000))
        self.model_import = ModelImportActions(self, self.form_tabs.model_panel)
        self.catalog_ui = CatalogUi(self, self.form_tabs.hardware_panel.catalog)

    # --- construction -------------------------------------------------------------------------
    def _build_ui(self) -> None:
        self.form_tabs = FormTabs(self.store)
        self.panels = self.form_tabs.panels

        self.headline = HeadlineView()
        self.result_tabs = QTabWidget()
        self.result_tabs.setObjectName("result_tabs")
        self.charts = ChartsArea(self.store)
        self.result_tabs.addTab(self.charts, "&Charts")
        self.breakdown = BreakdownTable()
        self.result_tabs.addTab(self.breakdown, "&Breakdown")
        self.explain = QTextBrowser()
        self.explain.setObjectName("explain")
        self.explain.setOpenExternalLinks(False)
        self.explain.setAccessibleName("How this is computed")
        self.result_tabs.addTab(self.explain, "How this is &computed")
        self.compare = ComparisonView()
        self.result_tabs.addTab(self.compare, "Com&pare")
        self.results_page = QWidget()
        page = QVBoxLayout(self.results_page)
        page.setContentsMargins(0, 0, 0, 0)
        page.addWidget(self.headline)
        page.addWidget(self.result_tabs, 1)
        self.failed_page = EstimateFailedPage()
        self.results_stack = QStackedWidget()
        self.results_stack.addWidget(self.results_page)
        self.results_stack.addWidget(self.failed_page)
        right = QWidget()
        self._right = QVBoxLayout(right)  # banners (add_banner) above the results
        self._right.setContentsMargins(4, 4, 4, 4)
        self._right.addWidget(self.results_stack, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.form_tabs)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([420, 1020])
        self.setCentralWidget(self.splitter)
        self.summary_label = QLabel()
        self.summary_label.setObjectName("summary")
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)  # names are data
        self.statusBar().addWidget(self.summary_label, 1)

    def _build_actions(self) -> None:
        self.action_table = table = ActionTable(self)
        adopted = {
            "undo": self.undo_stack.createUndoAction(self, "&Undo"),
            "redo": self.undo_stack.createRedoAction(self, "&Redo"),
        }
        rows = window_actions(self.files, self.exports, self.scenarios, self.close, self._about)
        for spec in rows:
            table.add(spec, adopted.get(spec.id))
        self.files.set_menus(table.submenu("examples"), table.submenu("recent"))
        self.exports.fill_plot_menu(table.submenu("export_plot"))
        self.scenarios.set_actions(table.__getitem__)

    def _connect(self) -> None:
        s = self.store
        # Bound methods (not lambdas): Qt drops them when the window is destroyed.
        s.resultsChanged.connect(self._on_store_results)
        s.resultChanged.connect(self._on_store_result)
        s.errorChanged.connect(self._on_store_error)
        s.fieldError.connect(self._on_store_field_error)
        s.dirtyChanged.connect(self._update_title)
        s.pathChanged.connect(self._update_title)
        self.result_tabs.currentChanged.connect(self._on_result_tab)
        self.charts.exportRequested.connect(self.exports.export_plot)
        self.compare.baselineChanged.connect(self._on_baseline_changed)
        self.files.documentReset.connect(self._on_document_reset)
        self.scenarios.methodsCompared.connect(self._on_methods_compared)

    # --- store → views --------------------------------------------------------------------------
    def event(self, event: QEvent) -> bool:
        # Build the plots (and import pyqtgraph, ~0.3 s) only after the forms are on screen:
        # the first paint is followed by a zero timer, so the window is visible first.
        due = event.type() == QEvent.Type.Paint and self.charts.memory_plot is None
        if due and not self._plots_due:
            self._plots_due = True
            QTimer.singleShot(0, self.charts.ensure_plots)
        return super().event(event)

    def _on_store_result(self, result: EstimateResult) -> None:
        inputs = self.store.inputs
        self.headline.set_result(inputs, result)
        self.breakdown.set_result(inputs, result)
        self._explain_stale = True
        self._refresh_explain()
        summary = summary_text(inputs, result)
        doc = self.store.document
        if len(doc.scenarios) > 1:
            summary = f"{plain(doc.current.name)}: {summary}"
        self.summary_label.setText(summary)

    def _on_store_results(self, results: list[EstimateResult | None]) -> None:
        # Like the explanation, the comparison table is rebuilt only while it is on screen.
        self._compare_stale = True
        self._refresh_compare()
        doc = self.store.document
        if len(results) == len(doc.scenarios) and results[doc.active] is None:
            # No figures of other inputs beside these: the failure replaces the results.
            self.failed_page.set_message(
                doc.current.name, self._error.removeprefix("Estimate failed: ")
            )
            self.results_stack.setCurrentWidget(self.failed_page)
            self.summary_label.setText(f"{plain(doc.current.name)}: the estimate failed")
        else:
            self.results_stack.setCurrentWidget(self.results_page)

    def _on_result_tab(self, _index: int) -> None:
        self._refresh_explain()
        self._refresh_compare()

    def _refresh_explain(self) -> None:
        """The explanation is rebuilt when visible (or asked for), not on every keystroke."""
        if self._explain_stale and self.result_tabs.currentWidget() is self.explain:
            self.update_explain()

    def update_explain(self) -> str:
        r = self.store.result
        if r is None:
            return ""
        html = explain_html(self.store.inputs, r)
        bar = self.explain.verticalScrollBar()
        pos = bar.value()
        self.explain.setHtml(html)
        bar.setValue(pos)
        self._explain_stale = False
        return html

    def _refresh_compare(self) -> None:
        if self._compare_stale and self.result_tabs.currentWidget() is self.compare:
            names = [s.name for s in self.store.document.scenarios]
            self.compare.set_scenarios(names, self.store.results)
            self._compare_stale = False

    def _on_store_error(self, message: str) -> None:
        self._error = message
        if message:
            self.statusBar().showMessage(message, 8000)

    def _on_store_field_error(self, section: str, name: str, message: str) -> None:
        self.statusBar().showMessage(f"Not applied ({name.replace('_', ' ')}): {message}", 8000)

    def _update_title(self) -> None:
        name = path_name(self.store.path) if self.store.path else "Untitled"
        self.setWindowTitle(f"{name}[*] — {APP_TITLE}")
        self.setWindowModified(self.store.dirty)

    # --- collaborators → layout -----------------------------------------------------------------
    def _on_document_reset(self) -> None:
        self.compare.set_baseline(0)
        several = len(self.store.document.scenarios) > 1
        self.charts.set_mode("scenarios" if several else "method")

    def _on_methods_compared(self) -> None:
        self.charts.set_mode("scenarios")
        self.result_tabs.setCurrentWidget(self.compare)

    def _baseline(self) -> int:
        return self.compare.baseline

    def _on_baseline_changed(self, index: int) -> None:
        doc = self.store.document
        if 0 <= index < len(doc.scenarios):
            self.show_status(f"Differences now to {plain(doc.scenarios[index].name)}", 3000)

    def _about(self) -> None:
        from ..about import show_about

        show_about(self)

    # --- WindowServices -------------------------------------------------------------------------
    @property
    def documentOpened(self) -> SignalInstance:
        return self.files.documentOpened

    @property
    def resultTabChanged(self) -> SignalInstance:
        return self.result_tabs.currentChanged

    def dialog_parent(self) -> QWidget:
        return self

    def show_status(self, message: str, timeout_ms: int = 4000) -> None:
        self.statusBar().showMessage(message, timeout_ms)

    def action(self, action_id: str) -> QAction:
        return self.action_table[action_id]

    def add_action(self, spec: ActionSpec) -> QAction:
        return self.action_table.add(spec)

    def add_result_tab(self, page: QWidget, title: str, tip: str = "") -> None:
        index = self.result_tabs.addTab(page, title)
        if tip:
            self.result_tabs.setTabToolTip(index, tip)

    def show_result_tab(self, page: QWidget) -> None:
        self.result_tabs.setCurrentWidget(page)

    def result_tab_shown(self, page: QWidget) -> bool:
        return self.result_tabs.currentWidget() is page

    def show_panel(self, panel: QWidget) -> None:
        self.form_tabs.show_panel(panel)

    def add_banner(self, banner: QWidget) -> None:
        self._right.insertWidget(self._right.count() - 1, banner)

    def add_close_guard(self, guard: Callable[[], bool]) -> None:
        self._close_guards.append(guard)

    # --- drops and closing ----------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_path(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = dropped_path(event.mimeData())
        if path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.files.open_file(path)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not all(guard() for guard in self._close_guards) or not self.files.maybe_save():
            event.ignore()
            return
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.sync()
        self.form_tabs.disconnect_all()
        event.accept()
