"""The main window: forms on the left, results on the right, wired to one store.

The window lays out and connects its collaborators, each given what it needs when it is made:
``FormTabs``, ``ResultsArea`` (with ``ChartsArea``), ``FileController``, ``Exports``,
``ScenarioBar`` and the action table (``actions.py``). It knows no add-on: ``gui/app.py`` builds
the window and hands it, as ``WindowServices``, to each add-on (model import, GPU catalogs).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt, QTimer, SignalInstance
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QMainWindow, QSplitter, QWidget

from ...core.results import EstimateResult
from ...io.names import path_name, plain
from ...present.figures import summary_text
from ..defaults import first_launch_inputs
from ..panels import FormTabs
from ..services import ActionSpec
from ..settings import open_settings
from ..store import EstimateStore
from .actions import ActionTable, window_actions
from .exports import Exports
from .files import FileController, dropped_path
from .geometry import place_window
from .results_area import ResultsArea
from .scenario_bar import ScenarioBar
from .status_line import SummaryLine
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
        self.addons: dict[str, QObject] = {}  # filled by whoever installs them (gui/app.py)
        self._plots_due = False
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
        place_window(self, self.settings.value("window/geometry", QByteArray(), type=QByteArray))
        self._share_width()
        if build_plots_now:
            self.charts.ensure_plots()
        self.store.recompute_now()
        problem = str(self.settings.property("problem") or "")  # the config folder is unusable
        if problem:
            told = problem[:1].upper() + problem[1:]
            QTimer.singleShot(0, self, lambda: self.show_status(told, 15000))

    # --- construction -------------------------------------------------------------------------
    def _build_ui(self) -> None:
        self.form_tabs = FormTabs(self.store)
        self.panels = self.form_tabs.panels

        self.results = ResultsArea(self.store)
        self.charts = self.results.charts

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.form_tabs)
        self.splitter.addWidget(self.results)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([420, 1020])
        self.setCentralWidget(self.splitter)
        self.summary_label = SummaryLine()
        self.summary_label.setObjectName("summary")
        self.statusBar().addWidget(self.summary_label, 1)
        self.summary_label.follow(self.statusBar())

    def _share_width(self) -> None:
        """Forms take ~30 % of the window (420 px at most, their minimum at least): a 1024-px
        window leaves the results the room their headline and two plots need."""
        width = self.width()
        forms = max(self.form_tabs.minimumSizeHint().width(), min(420, round(width * 0.3)))
        self.splitter.setSizes([forms, max(1, width - forms)])

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
        s.resultChanged.connect(self._on_store_result)
        s.resultsChanged.connect(self._on_store_results)
        s.errorChanged.connect(self._on_store_error)
        s.fieldError.connect(self._on_store_field_error)
        s.dirtyChanged.connect(self._update_title)
        s.pathChanged.connect(self._update_title)
        self.charts.exportRequested.connect(self.exports.export_plot)
        self.results.baselineChanged.connect(self._on_baseline_changed)
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
        summary = summary_text(self.store.inputs, result)
        doc = self.store.document
        if len(doc.scenarios) > 1:
            summary = f"{plain(doc.current.name)}: {summary}"
        self.summary_label.setText(summary)

    def _on_store_results(self, _results: list[EstimateResult | None]) -> None:
        if self.results.failed:  # the results area shows the failure; so does the summary
            self.summary_label.setText(
                f"{plain(self.store.document.current.name)}: the estimate failed"
            )

    def _on_store_error(self, message: str) -> None:
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
        self.results.set_compare_baseline(0)
        several = len(self.store.document.scenarios) > 1
        self.charts.set_mode("scenarios" if several else "method")

    def _on_methods_compared(self) -> None:
        self.charts.set_mode("scenarios")
        self.results.show_tab(self.results.compare)

    def _baseline(self) -> int:
        return self.results.compare_baseline

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
        return self.results.tabShown

    def dialog_parent(self) -> QWidget:
        return self

    def show_status(self, message: str, timeout_ms: int = 4000) -> None:
        self.statusBar().showMessage(message, timeout_ms)

    def action(self, action_id: str) -> QAction:
        return self.action_table[action_id]

    def add_action(self, spec: ActionSpec) -> QAction:
        return self.action_table.add(spec)

    def add_result_tab(self, page: QWidget, title: str, tip: str = "") -> None:
        self.results.add_tab(page, title, tip)

    def show_result_tab(self, page: QWidget) -> None:
        self.results.show_tab(page)

    def result_tab_shown(self, page: QWidget) -> bool:
        return self.results.tab_shown(page)

    def show_panel(self, panel: QWidget) -> None:
        self.form_tabs.show_panel(panel)

    def add_banner(self, banner: QWidget) -> None:
        self.results.add_banner(banner)

    def add_close_guard(self, guard: Callable[[], bool]) -> None:
        self._close_guards.append(guard)

    def set_report_plan(self, provider: Callable[[], object]) -> None:
        self.exports.report_plan = provider

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
