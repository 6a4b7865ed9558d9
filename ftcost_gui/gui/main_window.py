"""The main window: forms on the left, results, plots and the explanation on the right.

Wires store ↔ panels ↔ views, owns menus, undo stack, file actions and settings. The document
holds named scenarios: a tab bar above the forms picks the one they edit; the Compare tab and the
'All scenarios' chart mode show them side by side. File dialogs sit behind ``_ask_open_path`` /
``_ask_save_path`` / ``_ask_export_file`` / ``_ask_report_path`` and the scenario name prompt behind
``_ask_scenario_name`` (tests monkeypatch them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QPoint, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
    QUndoCommand,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabBar,
    QTabWidget,
    QTextBrowser,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from ..core.document import EstimateDocument
from ..core.inputs import METHOD_LABELS, EstimateInputs
from ..core.results import EstimateResult
from ..core.units import fmt_gib, fmt_usd
from ..io.estimate_file import SUFFIX, EstimateFileError, load_document, save_document
from ..io.export_csv import write_results_csv
from ..io.resources import resource_path
from .catalog_ui import install_catalog_ui
from .compare_view import ComparisonView
from .defaults import first_launch_inputs
from .explain import explain_html
from .model_ui import install_model_ui
from .panels import AdvancedPanel, DataPanel, HardwarePanel, ModelPanel, TrainingPanel
from .results_view import BreakdownTable, HeadlineView
from .settings import add_recent, clear_recent, open_settings, recent_files
from .store import EstimateStore

APP_TITLE = "ftcost"
FILE_FILTER = f"ftcost estimates (*{SUFFIX});;All files (*)"


class DocumentCommand(QUndoCommand):
    """One committed change (a field edit or a scenario operation): undo/redo re-apply the whole
    document through the store. Selecting a scenario is not a change, so consecutive snapshots
    differ only in what was edited and restoring one never loses another scenario's edits."""

    def __init__(
        self, store: EstimateStore, old: EstimateDocument, new: EstimateDocument, text: str
    ):
        super().__init__(text)
        self.store, self.old, self.new = store, old, new
        self._applied = True  # pushed after the store already applied it

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        self.store.set_document(self.new, record=False)

    def undo(self) -> None:
        self.store.set_document(self.old, record=False)


REPORT_FILTERS = {
    "pdf": "PDF report (*.pdf)",
    "html": "HTML report, one self-contained file (*.html)",
    "md": "Markdown report, images next to it (*.md)",
}
CHART_MODES = (("method", "Selected scenario, by method"), ("scenarios", "All scenarios"))


def _scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


class MainWindow(QMainWindow):
    def __init__(
        self,
        store: EstimateStore | None = None,
        settings: Any = None,
        *,
        build_plots_now: bool = False,
    ):
        super().__init__()
        self.store = store or EstimateStore(first_launch_inputs(), self)
        self.settings = settings if settings is not None else open_settings()
        self.undo_stack = QUndoStack(self)
        self.memory_plot = None
        self.cost_plot = None
        self._explain_stale = True
        self._compare_stale = True
        self._plots_due = False
        self.setAcceptDrops(True)
        self.setObjectName("MainWindow")
        self._build_ui()
        self._build_actions()
        self._connect()
        self._update_title()
        geometry = self.settings.value("window/geometry", QByteArray(), type=QByteArray)
        if geometry is None or geometry.isEmpty() or not self.restoreGeometry(geometry):
            self.resize(1440, 900)
        if build_plots_now:
            self.ensure_plots()
        self.store.recompute_now()
        install_model_ui(self)
        install_catalog_ui(self)

    # --- construction -------------------------------------------------------------------------
    def _build_ui(self) -> None:
        self.panels = {
            "model": ModelPanel(self.store),
            "data": DataPanel(self.store),
            "training": TrainingPanel(self.store),
            "hardware": HardwarePanel(self.store),
            "advanced": AdvancedPanel(self.store),
        }
        self.form_tabs = QTabWidget()
        self.form_tabs.setObjectName("form_tabs")
        self.form_tabs.setDocumentMode(True)
        self.form_tabs.setUsesScrollButtons(False)
        for key, title in (
            ("model", "&Model"),
            ("data", "&Data"),
            ("training", "&Training"),
            ("hardware", "&Hardware"),
            ("advanced", "Ad&vanced"),
        ):
            self.form_tabs.addTab(_scrolled(self.panels[key]), title)
        self.form_tabs.setMinimumWidth(360)

        right = QWidget()
        rlay = QVBoxLayout(right)
        rlay.setContentsMargins(4, 4, 4, 4)
        self.headline = HeadlineView()
        rlay.addWidget(self.headline)
        self.result_tabs = QTabWidget()
        self.result_tabs.setObjectName("result_tabs")
        self.plots_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.plots_splitter.setObjectName("plots")
        self._plot_placeholder = QLabel("Preparing plots…")
        self._plot_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.plots_splitter.addWidget(self._plot_placeholder)
        self.scenario_plots_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.scenario_plots_splitter.setObjectName("scenario_plots")
        self.charts_stack = QStackedWidget()
        self.charts_stack.addWidget(self.plots_splitter)
        self.charts_stack.addWidget(self.scenario_plots_splitter)
        charts = QWidget()
        charts.setObjectName("charts")
        clay = QVBoxLayout(charts)
        clay.setContentsMargins(0, 4, 0, 0)
        mode_row = QHBoxLayout()
        self.chart_mode = QComboBox()
        self.chart_mode.setObjectName("chart_mode")
        self.chart_mode.setAccessibleName("Charts show")
        for key, label in CHART_MODES:
            self.chart_mode.addItem(label, key)
        self.chart_mode.setToolTip(
            "By method: the selected scenario as full / 8-bit / LoRA / QLoRA. All scenarios: one "
            "memory bar and one cost curve per scenario."
        )
        mode_label = QLabel("Charts &show:")
        mode_label.setBuddy(self.chart_mode)
        mode_row.addWidget(mode_label)
        mode_row.addWidget(self.chart_mode)
        mode_row.addStretch(1)
        clay.addLayout(mode_row)
        clay.addWidget(self.charts_stack, 1)
        self.result_tabs.addTab(charts, "&Charts")
        self.breakdown = BreakdownTable()
        self.result_tabs.addTab(self.breakdown, "&Breakdown")
        self.explain = QTextBrowser()
        self.explain.setObjectName("explain")
        self.explain.setOpenExternalLinks(False)
        self.explain.setAccessibleName("How this is computed")
        self.result_tabs.addTab(self.explain, "How this is &computed")
        self.compare = ComparisonView()
        self.result_tabs.addTab(self.compare, "Com&pare")
        rlay.addWidget(self.result_tabs, 1)

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
        self.statusBar().addWidget(self.summary_label, 1)
        self.scenario_plots: tuple | None = None  # (ScenarioMemoryPlot, ScenarioCostPlot)
        self._build_scenario_bar()

    def _build_scenario_bar(self) -> None:
        """A toolbar with one tab per scenario (drag to reorder, double-click to rename)."""
        bar = QToolBar("Scenarios", self)
        bar.setObjectName("scenario_toolbar")
        bar.setMovable(False)
        bar.setFloatable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        label = QLabel(" Scenarios: ")
        bar.addWidget(label)
        self.scenario_tabs = QTabBar()
        self.scenario_tabs.setObjectName("scenario_tabs")
        self.scenario_tabs.setAccessibleName("Scenarios")
        self.scenario_tabs.setMovable(True)
        self.scenario_tabs.setDocumentMode(True)
        self.scenario_tabs.setExpanding(False)
        self.scenario_tabs.setUsesScrollButtons(True)
        self.scenario_tabs.setElideMode(Qt.TextElideMode.ElideRight)
        self.scenario_tabs.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.scenario_tabs.setToolTip(
            "The scenario the forms edit. Drag to reorder, double-click to rename, right-click "
            "for more."
        )
        bar.addWidget(self.scenario_tabs)
        self.scenario_toolbar = bar
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)

    def _action(self, text: str, slot, keys=None, tip: str = "") -> QAction:
        act = QAction(text, self)
        if keys is not None:
            seqs = keys if isinstance(keys, list) else [keys]
            act.setShortcuts([QKeySequence(k) for k in seqs])
        if tip:
            act.setStatusTip(tip)
            act.setToolTip(tip)
        act.triggered.connect(slot)
        self.addAction(act)
        return act

    def _build_actions(self) -> None:
        sk = QKeySequence.StandardKey
        self.new_action = self._action(
            "&New", self.file_new, sk.New, "Start from the example estimate"
        )
        self.open_action = self._action("&Open…", self.file_open, sk.Open, "Open an estimate file")
        self.save_action = self._action("&Save", self.file_save, sk.Save, "Save the estimate")
        self.save_as_action = self._action(
            "Save &As…", self.file_save_as, sk.SaveAs, "Save the estimate under a new name"
        )
        self.export_results_action = self._action(
            "Export &Results…",
            lambda: self.export_results(),
            None,
            "Write every scenario's results as CSV",
        )
        self.export_report_action = self._action(
            "Export Re&port…",
            lambda: self.export_report(),
            None,
            "Write a PDF, HTML or Markdown report of every scenario",
        )
        self.add_scenario_action = self._action(
            "&Add Scenario", self.add_scenario, "Ctrl+T", "Add a scenario from the example"
        )
        self.duplicate_scenario_action = self._action(
            "&Duplicate Scenario",
            lambda: self.duplicate_scenario(),
            "Ctrl+D",
            "Copy the selected scenario",
        )
        self.rename_scenario_action = self._action(
            "&Rename Scenario…", lambda: self.rename_scenario(), "F2", "Rename the scenario"
        )
        self.delete_scenario_action = self._action(
            "De&lete Scenario",
            lambda: self.delete_scenario(),
            None,
            "Remove the selected scenario (Undo brings it back)",
        )
        self.move_left_action = self._action(
            "Move &Left", lambda: self.move_scenario(-1), "Ctrl+Shift+PgUp", "Move the tab left"
        )
        self.move_right_action = self._action(
            "Move Ri&ght", lambda: self.move_scenario(1), "Ctrl+Shift+PgDown", "Move the tab right"
        )
        self.next_scenario_action = self._action(
            "&Next Scenario", lambda: self.step_scenario(1), "Ctrl+PgDown", "Edit the next one"
        )
        self.prev_scenario_action = self._action(
            "&Previous Scenario", lambda: self.step_scenario(-1), "Ctrl+PgUp", "Edit the one before"
        )
        self.compare_methods_action = self._action(
            "Compare &Methods",
            self.compare_methods,
            "Ctrl+M",
            "Add Full FT, LoRA and QLoRA copies of the selected scenario and compare them",
        )
        self.quit_action = self._action("&Quit", self.close, [sk.Quit, "Ctrl+Q"], "Quit ftcost")
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcuts([QKeySequence(sk.Undo)])
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        redo_keys = [QKeySequence(sk.Redo)]
        if QKeySequence("Ctrl+Shift+Z") not in redo_keys:
            redo_keys.append(QKeySequence("Ctrl+Shift+Z"))
        self.redo_action.setShortcuts(redo_keys)
        self.addActions([self.undo_action, self.redo_action])

        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        file_menu.addAction(self.new_action)
        file_menu.addAction(self.open_action)
        self.examples_menu = file_menu.addMenu("Open &Example")
        for path in self.example_paths():
            act = self.examples_menu.addAction(path.stem)
            act.setData(str(path))
            act.triggered.connect(lambda _=False, p=path: self.open_file(p))
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._rebuild_recent_menu)
        self._rebuild_recent_menu()
        file_menu.addSeparator()
        file_menu.addAction(self.save_action)
        file_menu.addAction(self.save_as_action)
        file_menu.addSeparator()
        file_menu.addAction(self.export_report_action)
        file_menu.addAction(self.export_results_action)
        export_menu = file_menu.addMenu("E&xport Plot")
        for plot, label in (("memory", "Memory plot"), ("cost", "Cost plot")):
            for fmt in ("png", "svg"):
                act = export_menu.addAction(f"{label} as {fmt.upper()}…")
                act.triggered.connect(lambda _=False, p=plot, f=fmt: self.export_plot(p, f))
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        edit_menu = mb.addMenu("&Edit")
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.redo_action)
        self.scenario_menu = mb.addMenu("&Scenario")
        for act in (
            self.add_scenario_action,
            self.duplicate_scenario_action,
            self.rename_scenario_action,
            self.delete_scenario_action,
            None,
            self.move_left_action,
            self.move_right_action,
            self.prev_scenario_action,
            self.next_scenario_action,
            None,
            self.compare_methods_action,
        ):
            if act is None:
                self.scenario_menu.addSeparator()
            else:
                self.scenario_menu.addAction(act)
        bar = self.scenario_toolbar
        bar.addSeparator()
        bar.addAction(self.add_scenario_action)
        bar.addAction(self.duplicate_scenario_action)
        bar.addAction(self.compare_methods_action)
        help_menu = mb.addMenu("&Help")
        about = help_menu.addAction("&About ftcost")
        about.setMenuRole(QAction.MenuRole.AboutRole)
        about.triggered.connect(self._show_about)

    def _connect(self) -> None:
        s = self.store
        s.documentCommitted.connect(self._on_store_document_committed)
        s.documentChanged.connect(self._on_store_document)
        s.resultsChanged.connect(self._on_store_results)
        s.resultChanged.connect(self._on_store_result)
        s.errorChanged.connect(self._on_store_error)
        s.fieldError.connect(self._on_store_field_error)
        # Bound methods (not lambdas): Qt drops them when the window is destroyed.
        s.dirtyChanged.connect(self._on_store_dirty)
        s.pathChanged.connect(self._on_store_path)
        self.undo_stack.cleanChanged.connect(self._on_undo_clean)
        self.result_tabs.currentChanged.connect(self._on_result_tab)
        tabs = self.scenario_tabs
        tabs.currentChanged.connect(self._on_scenario_tab_selected)
        tabs.tabMoved.connect(self._on_scenario_tab_moved)
        tabs.tabCloseRequested.connect(self._on_scenario_tab_close)
        tabs.tabBarDoubleClicked.connect(self._on_scenario_tab_double_clicked)
        tabs.customContextMenuRequested.connect(self._on_scenario_tab_menu)
        self.chart_mode.currentIndexChanged.connect(self._on_chart_mode)
        self.compare.baselineChanged.connect(self._on_baseline_changed)
        self._on_store_document(s.document)

    def _on_store_dirty(self, _dirty: bool) -> None:
        self._update_title()

    def _on_store_path(self, _path: object) -> None:
        self._update_title()

    def _on_undo_clean(self, clean: bool) -> None:
        self.store.set_dirty(not clean)

    def _on_result_tab(self, _index: int) -> None:
        self._refresh_explain()
        self._refresh_compare()

    def _refresh_compare(self) -> None:
        if self._compare_stale and self.result_tabs.currentWidget() is self.compare:
            names = [s.name for s in self.store.document.scenarios]
            self.compare.set_scenarios(names, self.store.results)
            self._compare_stale = False

    # --- plots (built after the first paint) -------------------------------------------------
    def event(self, event) -> bool:
        # Build the plots (and import pyqtgraph, ~0.3 s) only after the forms are on screen:
        # the first paint is followed by a zero timer, so the window is visible first.
        if event.type() == QEvent.Type.Paint and self.memory_plot is None and not self._plots_due:
            self._plots_due = True
            QTimer.singleShot(0, self.ensure_plots)
        return super().event(event)

    def ensure_plots(self) -> None:
        """Import pyqtgraph and build both plots (once)."""
        if self.memory_plot is not None:
            return
        import pyqtgraph as pg

        pg.setConfigOptions(background="w", foreground="k", antialias=True)
        from .plots import CostPlot, MemoryPlot

        self.memory_plot = MemoryPlot()
        self.memory_plot.setObjectName("memory_plot")
        self.cost_plot = CostPlot()
        self.cost_plot.setObjectName("cost_plot")
        self.memory_plot.exportRequested.connect(lambda fmt: self.export_plot("memory", fmt))
        self.cost_plot.exportRequested.connect(lambda fmt: self.export_plot("cost", fmt))
        self._plot_placeholder.hide()
        self._plot_placeholder.setParent(None)
        self.plots_splitter.addWidget(self.memory_plot)
        self.plots_splitter.addWidget(self.cost_plot)
        self.plots_splitter.setSizes([1, 1])
        if self.store.result is not None:
            self.memory_plot.set_result(self.store.inputs, self.store.result)
            self.cost_plot.set_result(self.store.inputs, self.store.result)

    # --- store → views --------------------------------------------------------------------------
    def _on_store_document_committed(
        self, old: EstimateDocument, new: EstimateDocument, text: str
    ) -> None:
        self.undo_stack.push(DocumentCommand(self.store, old, new, text))

    def _on_store_result(self, result: EstimateResult) -> None:
        inputs = self.store.inputs
        self.headline.set_result(inputs, result)
        self.breakdown.set_result(inputs, result)
        if self.memory_plot is not None and self.cost_plot is not None:
            self.memory_plot.set_result(inputs, result)
            self.cost_plot.set_result(inputs, result)
        self._explain_stale = True
        self._refresh_explain()
        summary = self.summary_text(inputs, result)
        doc = self.store.document
        if len(doc.scenarios) > 1:
            summary = f"{doc.current.name}: {summary}"
        self.summary_label.setText(summary)

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

    @staticmethod
    def summary_text(inputs: EstimateInputs, r: EstimateResult) -> str:
        method = METHOD_LABELS[inputs.training.method].split(" (")[0]
        spot = f" · {fmt_usd(r.cost.spot_usd)} spot" if r.cost.spot_usd is not None else ""
        return (
            f"{inputs.model.name} · {method} · {r.time.num_gpus} × {inputs.hardware.gpu.name} · "
            f"{fmt_gib(r.memory.total_bytes)} / {fmt_gib(r.memory.usable_bytes)} per GPU"
            f"{'' if r.memory.fits else ' (does not fit)'} · {r.time.compute_gpu_hours:,.1f} "
            f"GPU-h · {fmt_usd(r.cost.on_demand_usd)} per run{spot} · project "
            f"{fmt_usd(r.project.total_usd)}"
        )

    def _on_store_error(self, message: str) -> None:
        if message:
            self.statusBar().showMessage(message, 8000)

    def _on_store_field_error(self, section: str, name: str, message: str) -> None:
        self.statusBar().showMessage(f"Not applied ({name.replace('_', ' ')}): {message}", 8000)

    # --- title / dirty ------------------------------------------------------------------------
    def _update_title(self) -> None:
        name = self.store.path.name if self.store.path else "Untitled"
        self.setWindowTitle(f"{name}[*] — {APP_TITLE}")
        self.setWindowModified(self.store.dirty)

    # --- file actions ---------------------------------------------------------------------------
    def _ask_open_path(self) -> str:
        start = str(self.store.path.parent) if self.store.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open estimate", start, FILE_FILTER)
        return path

    def _ask_save_path(self) -> str:
        start = str(self.store.path) if self.store.path else f"estimate{SUFFIX}"
        path, _ = QFileDialog.getSaveFileName(self, "Save estimate", start, FILE_FILTER)
        if path and not Path(path).suffix:
            path += SUFFIX
        return path

    def _ask_export_path(self, fmt: str) -> str:
        name = f"ftcost-plot.{fmt}"
        path, _ = QFileDialog.getSaveFileName(
            self, f"Export plot as {fmt.upper()}", name, f"{fmt.upper()} (*.{fmt})"
        )
        return path

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current document (saved, discarded or clean)."""
        if not self.store.dirty:
            return True
        buttons = (
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel
        )
        name = self.store.path.name if self.store.path else "Untitled"
        answer = QMessageBox.question(
            self,
            APP_TITLE,
            f"Save changes to {name} before closing it?",
            buttons,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.file_save()
        return answer == QMessageBox.StandardButton.Discard

    def _reset_document(
        self, document: EstimateDocument | EstimateInputs, path: Path | None
    ) -> None:
        if isinstance(document, EstimateInputs):
            document = EstimateDocument.single(document)
        self.store.set_document(document, record=False)
        self.store.set_path(path)
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self.store.set_dirty(False)
        self._update_title()
        self.compare.set_baseline(0)
        self.set_chart_mode("scenarios" if len(document.scenarios) > 1 else "method")
        self.store.recompute_now()

    def file_new(self) -> bool:
        if not self.maybe_save():
            return False
        self._reset_document(first_launch_inputs(), None)
        return True

    def file_open(self) -> bool:
        if not self.maybe_save():
            return False
        path = self._ask_open_path()
        if not path:
            return False
        return self.load_path(path)

    def open_file(self, path: str | Path) -> bool:
        """Open a path after the usual save prompt (examples, recent files, drops)."""
        if not self.maybe_save():
            return False
        return self.load_path(path)

    def load_path(self, path: str | Path) -> bool:
        """Load without prompting; a bad file leaves the open document untouched."""
        p = Path(path)
        try:
            document = load_document(p)  # version 1 files migrate to one scenario
        except EstimateFileError as exc:
            QMessageBox.warning(self, APP_TITLE, f"Could not open {p.name}.\n\n{exc}")
            return False
        is_example = self._is_example(p)
        self._reset_document(document, None if is_example else p)
        if not is_example:
            add_recent(self.settings, p)
        self.statusBar().showMessage(f"Opened {p.name}", 4000)
        return True

    def file_save(self) -> bool:
        if self.store.path is None:
            return self.file_save_as()
        return self._write(self.store.path)

    def file_save_as(self) -> bool:
        path = self._ask_save_path()
        if not path:
            return False
        return self._write(Path(path))

    def _write(self, path: Path) -> bool:
        try:
            save_document(path, self.store.document)
        except OSError as exc:
            QMessageBox.critical(self, APP_TITLE, f"Could not save {path.name}.\n\n{exc}")
            return False
        self.store.set_path(path)
        self.undo_stack.setClean()
        self.store.set_dirty(False)
        add_recent(self.settings, path)
        self._update_title()
        self.statusBar().showMessage(f"Saved {path.name}", 4000)
        return True

    @staticmethod
    def example_paths() -> list[Path]:
        try:
            folder = resource_path("examples")
        except FileNotFoundError:
            return []
        return sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []

    def _is_example(self, path: Path) -> bool:
        try:
            return path.resolve().parent == resource_path("examples").resolve()
        except FileNotFoundError:
            return False

    def _rebuild_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        items = [p for p in recent_files(self.settings) if Path(p).exists()]
        for p in items:
            act = menu.addAction(Path(p).name)
            act.setToolTip(p)
            act.setStatusTip(p)
            act.setData(p)
            act.triggered.connect(lambda _=False, path=p: self.open_file(path))
        if not items:
            empty = menu.addAction("(none)")
            empty.setEnabled(False)
        menu.addSeparator()
        clear = menu.addAction("&Clear Menu")
        clear.triggered.connect(self._clear_recent)

    def _clear_recent(self) -> None:
        clear_recent(self.settings)
        self._rebuild_recent_menu()

    # --- export ----------------------------------------------------------------------------------
    def visible_plot(self, which: str):
        """The memory or cost plot the Charts tab shows now (by method or all scenarios)."""
        self.ensure_plots()
        if self.chart_mode.currentData() == "scenarios":
            memory, cost = self.ensure_scenario_plots()
            return memory if which == "memory" else cost
        return self.memory_plot if which == "memory" else self.cost_plot

    def export_plot(self, which: str, fmt: str, path: str | None = None) -> bool:
        """Export the plot as shown (the 'All scenarios' overlay when that mode is on)."""
        from .plots import export_png, export_svg

        plot = self.visible_plot(which)
        path = path or self._ask_export_path(fmt)
        if not path:
            return False
        try:
            if fmt == "png":
                export_png(plot.plot_widget, plot.export_item, path)
            else:
                export_svg(plot.plot_widget, plot.export_item, path, title=f"ftcost {which} plot")
        except OSError as exc:
            QMessageBox.critical(self, APP_TITLE, f"Could not export the plot.\n\n{exc}")
            return False
        self.statusBar().showMessage(f"Exported {Path(path).name}", 4000)
        return True

    def _ask_export_file(self, title: str, suggested: str, file_filter: str) -> str:
        start = str(self.store.path.with_name(suggested)) if self.store.path else suggested
        path, _ = QFileDialog.getSaveFileName(self, title, start, file_filter)
        return path

    def _ask_report_path(self) -> str:
        stem = self.store.path.stem if self.store.path else "ftcost-report"
        start = str(self.store.path.with_name(f"{stem}.pdf")) if self.store.path else f"{stem}.pdf"
        path, chosen = QFileDialog.getSaveFileName(
            self, "Export report", start, ";;".join(REPORT_FILTERS.values())
        )
        if path and not Path(path).suffix:
            fmt = next((k for k, v in REPORT_FILTERS.items() if v == chosen), "pdf")
            path += f".{fmt}"
        return path

    @staticmethod
    def report_format(path: str | Path) -> str:
        suffix = Path(path).suffix.lower()
        return {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}.get(suffix, "pdf")

    def _named_results(self) -> list[tuple[str, EstimateResult]]:
        self.store.recompute_now()
        return [
            (s.name, r)
            for s, r in zip(self.store.document.scenarios, self.store.results, strict=True)
            if r is not None
        ]

    def export_results(self, path: str | None = None) -> bool:
        """Every scenario's results as CSV (scenario, section, key, value, unit)."""
        path = path or self._ask_export_file(
            "Export results as CSV", "ftcost-results.csv", "CSV (*.csv);;All files (*)"
        )
        if not path:
            return False
        try:
            write_results_csv(path, self._named_results())
        except OSError as exc:
            QMessageBox.critical(self, APP_TITLE, f"Could not export the results.\n\n{exc}")
            return False
        self.statusBar().showMessage(f"Exported {Path(path).name}", 4000)
        return True

    def export_report(self, path: str | None = None) -> bool:
        """A PDF, HTML or Markdown report of every scenario (the format from the suffix)."""
        from ..report import Report
        from ..report.render import export_report

        path = path or self._ask_report_path()
        if not path:
            return False
        fmt = self.report_format(path)
        named = self._named_results()
        if len(named) != len(self.store.document.scenarios):
            QMessageBox.warning(self, APP_TITLE, "A scenario could not be estimated; fix it first.")
            return False
        report = Report(
            document=self.store.document,
            results=[r for _, r in named],
            title=self.store.path.stem if self.store.path else "Untitled estimate",
            baseline=self.compare.baseline,
        )
        replace = False
        if fmt == "md":
            from ..report.content import existing_markdown_images

            clashes = existing_markdown_images(path)
            if clashes:
                names = ", ".join(c.name for c in clashes)
                answer = QMessageBox.question(
                    self, APP_TITLE, f"Replace {names} next to {Path(path).name}?"
                )
                if answer != QMessageBox.StandardButton.Yes:
                    return False
                replace = True
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            export_report(report, **{fmt: path}, replace_images=replace)
        except OSError as exc:
            QMessageBox.critical(self, APP_TITLE, f"Could not export the report.\n\n{exc}")
            return False
        finally:
            QApplication.restoreOverrideCursor()
        self.statusBar().showMessage(f"Exported {Path(path).name}", 4000)
        return True

    # --- scenarios --------------------------------------------------------------------------------
    def _ask_scenario_name(self, title: str, current: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, "Scenario name:", text=current)
        return text if ok else None

    def _on_store_document(self, doc: EstimateDocument) -> None:
        """Tabs follow the document (names, order, selection) without echoing back."""
        tabs = self.scenario_tabs
        names = [s.name for s in doc.scenarios]
        tabs.blockSignals(True)
        try:
            if [tabs.tabText(i) for i in range(tabs.count())] != names:
                while tabs.count():
                    tabs.removeTab(tabs.count() - 1)
                for i, name in enumerate(names):
                    tabs.addTab(name)
                    tabs.setTabToolTip(i, name)
            tabs.setTabsClosable(len(names) > 1)
            tabs.setCurrentIndex(doc.active)
        finally:
            tabs.blockSignals(False)
        n = len(names)
        self.delete_scenario_action.setEnabled(n > 1)
        self.move_left_action.setEnabled(doc.active > 0)
        self.move_right_action.setEnabled(doc.active < n - 1)
        self.prev_scenario_action.setEnabled(doc.active > 0)
        self.next_scenario_action.setEnabled(doc.active < n - 1)

    def _on_store_results(self, results: list) -> None:
        # Like the explanation, the comparison table is rebuilt only while it is on screen.
        self._compare_stale = True
        self._refresh_compare()
        if self.scenario_plots is not None and self.chart_mode.currentData() == "scenarios":
            self._update_scenario_plots()

    def _on_scenario_tab_selected(self, index: int) -> None:
        self.store.select_scenario(index)

    def _on_scenario_tab_moved(self, src: int, dst: int) -> None:
        self.store.move_scenario(src, dst)

    def _on_scenario_tab_close(self, index: int) -> None:
        self.delete_scenario(index)

    def _on_scenario_tab_double_clicked(self, index: int) -> None:
        if index >= 0:
            self.rename_scenario(index)

    def _on_scenario_tab_menu(self, pos: QPoint) -> None:
        index = self.scenario_tabs.tabAt(pos)
        if index < 0:
            return
        self.store.select_scenario(index)
        menu = QMenu(self)
        for act in (
            self.rename_scenario_action,
            self.duplicate_scenario_action,
            self.delete_scenario_action,
            self.move_left_action,
            self.move_right_action,
        ):
            menu.addAction(act)
        menu.popup(self.scenario_tabs.mapToGlobal(pos))

    def add_scenario(self) -> int:
        name = f"Scenario {self._scenario_count() + 1}"
        index = self.store.add_scenario(first_launch_inputs(), name)
        self.statusBar().showMessage(f"Added {self.store.document.current.name}", 4000)
        return index

    def _scenario_count(self) -> int:
        return len(self.store.document.scenarios)

    def duplicate_scenario(self, index: int | None = None) -> int:
        return self.store.duplicate_scenario(index)

    def rename_scenario(self, index: int | None = None, name: str | None = None) -> bool:
        doc = self.store.document
        i = doc.active if index is None else index
        if name is None:
            name = self._ask_scenario_name("Rename scenario", doc.scenarios[i].name)
            if name is None:
                return False
        problem = self.store.rename_scenario(i, name)
        if problem:
            QMessageBox.warning(self, APP_TITLE, problem)
            return False
        return True

    def delete_scenario(self, index: int | None = None) -> bool:
        doc = self.store.document
        i = doc.active if index is None else index
        name = doc.scenarios[i].name
        if not self.store.delete_scenario(i):
            self.statusBar().showMessage("The last scenario cannot be deleted.", 4000)
            return False
        self.statusBar().showMessage(f"Deleted {name} (Undo brings it back)", 6000)
        return True

    def move_scenario(self, step: int) -> bool:
        doc = self.store.document
        return self.store.move_scenario(doc.active, doc.active + step)

    def step_scenario(self, step: int) -> None:
        self.store.select_scenario(self.store.document.active + step)

    def compare_methods(self) -> None:
        """Full FT / LoRA / QLoRA copies of the selected scenario, shown side by side."""
        self.store.compare_methods()
        self.set_chart_mode("scenarios")
        self.result_tabs.setCurrentWidget(self.compare)
        self.statusBar().showMessage("Added Full FT, LoRA and QLoRA scenarios", 4000)

    def _on_baseline_changed(self, index: int) -> None:
        doc = self.store.document
        if 0 <= index < len(doc.scenarios):
            self.statusBar().showMessage(f"Differences now to {doc.scenarios[index].name}", 3000)

    # --- chart modes ------------------------------------------------------------------------------
    def set_chart_mode(self, mode: str) -> None:
        self.chart_mode.setCurrentIndex(max(0, self.chart_mode.findData(mode)))

    def _on_chart_mode(self, _index: int) -> None:
        if self.chart_mode.currentData() == "scenarios":
            self.ensure_scenario_plots()
            self.charts_stack.setCurrentWidget(self.scenario_plots_splitter)
            self._update_scenario_plots()
        else:
            self.charts_stack.setCurrentWidget(self.plots_splitter)

    def ensure_scenario_plots(self) -> tuple:
        """Build the 'All scenarios' plots (once, when first shown)."""
        if self.scenario_plots is None:
            self.ensure_plots()
            from .plots import ScenarioCostPlot, ScenarioMemoryPlot

            memory, cost = ScenarioMemoryPlot(), ScenarioCostPlot()
            memory.setObjectName("scenario_memory_plot")
            cost.setObjectName("scenario_cost_plot")
            memory.exportRequested.connect(lambda fmt: self.export_plot("memory", fmt))
            cost.exportRequested.connect(lambda fmt: self.export_plot("cost", fmt))
            self.scenario_plots_splitter.addWidget(memory)
            self.scenario_plots_splitter.addWidget(cost)
            self.scenario_plots_splitter.setSizes([1, 1])
            self.scenario_plots = (memory, cost)
            self._update_scenario_plots()
        return self.scenario_plots

    def _update_scenario_plots(self) -> None:
        if self.scenario_plots is None:
            return
        doc, results = self.store.document, self.store.results
        if len(results) != len(doc.scenarios) or any(r is None for r in results):
            return
        names = [s.name for s in doc.scenarios]
        inputs = [s.inputs for s in doc.scenarios]
        for plot in self.scenario_plots:
            plot.set_scenarios(names, inputs, results, doc.active)

    # --- drag and drop --------------------------------------------------------------------------
    @staticmethod
    def _dropped_path(mime) -> Path | None:
        if not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile() and url.toLocalFile().lower().endswith(SUFFIX):
                return Path(url.toLocalFile())
        return None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_path(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = self._dropped_path(event.mimeData())
        if path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.open_file(path)

    # --- closing ----------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.sync()
        for panel in self.panels.values():
            panel.disconnect_all()
        event.accept()

    def _show_about(self) -> None:
        from .about import show_about

        show_about(self)
