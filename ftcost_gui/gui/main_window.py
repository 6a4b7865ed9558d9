"""The main window: forms on the left, results, plots and the explanation on the right.

Wires store ↔ panels ↔ views, owns menus, undo stack, file actions and settings. File dialogs sit
behind ``_ask_open_path`` / ``_ask_save_path`` (tests monkeypatch them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, Qt, QTimer
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
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..core.inputs import METHOD_LABELS, EstimateInputs
from ..core.results import EstimateResult
from ..core.units import fmt_gib, fmt_usd
from ..io.estimate_file import SUFFIX, EstimateFileError, load_estimate, save_estimate
from ..io.resources import resource_path
from .defaults import first_launch_inputs
from .explain import explain_html
from .panels import AdvancedPanel, DataPanel, HardwarePanel, ModelPanel, TrainingPanel
from .results_view import BreakdownTable, HeadlineView
from .settings import add_recent, clear_recent, open_settings, recent_files
from .store import EstimateStore

APP_TITLE = "ftcost"
FILE_FILTER = f"ftcost estimates (*{SUFFIX});;All files (*)"


class EditCommand(QUndoCommand):
    """One committed edit: undo/redo re-apply whole inputs through the store."""

    def __init__(self, store: EstimateStore, old: EstimateInputs, new: EstimateInputs, text: str):
        super().__init__(text)
        self.store, self.old, self.new = store, old, new
        self._applied = True  # pushed after the store already applied it

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        self.store.set_inputs(self.new, record=False)

    def undo(self) -> None:
        self.store.set_inputs(self.old, record=False)


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
        self.result_tabs.addTab(self.plots_splitter, "&Charts")
        self.breakdown = BreakdownTable()
        self.result_tabs.addTab(self.breakdown, "&Breakdown")
        self.explain = QTextBrowser()
        self.explain.setObjectName("explain")
        self.explain.setOpenExternalLinks(False)
        self.explain.setAccessibleName("How this is computed")
        self.result_tabs.addTab(self.explain, "How this is &computed")
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
        help_menu = mb.addMenu("&Help")
        about = help_menu.addAction("&About ftcost")
        about.setMenuRole(QAction.MenuRole.AboutRole)
        about.triggered.connect(self._show_about)

    def _connect(self) -> None:
        s = self.store
        s.editCommitted.connect(self._on_store_edit_committed)
        s.resultChanged.connect(self._on_store_result)
        s.errorChanged.connect(self._on_store_error)
        s.fieldError.connect(self._on_store_field_error)
        # Bound methods (not lambdas): Qt drops them when the window is destroyed.
        s.dirtyChanged.connect(self._on_store_dirty)
        s.pathChanged.connect(self._on_store_path)
        self.undo_stack.cleanChanged.connect(self._on_undo_clean)
        self.result_tabs.currentChanged.connect(self._on_result_tab)

    def _on_store_dirty(self, _dirty: bool) -> None:
        self._update_title()

    def _on_store_path(self, _path: object) -> None:
        self._update_title()

    def _on_undo_clean(self, clean: bool) -> None:
        self.store.set_dirty(not clean)

    def _on_result_tab(self, _index: int) -> None:
        self._refresh_explain()

    # --- plots (built after the first paint) -------------------------------------------------
    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.memory_plot is None:
            QTimer.singleShot(0, self.ensure_plots)

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
    def _on_store_edit_committed(self, old: EstimateInputs, new: EstimateInputs, text: str) -> None:
        self.undo_stack.push(EditCommand(self.store, old, new, text))

    def _on_store_result(self, result: EstimateResult) -> None:
        inputs = self.store.inputs
        self.headline.set_result(inputs, result)
        self.breakdown.set_result(inputs, result)
        if self.memory_plot is not None and self.cost_plot is not None:
            self.memory_plot.set_result(inputs, result)
            self.cost_plot.set_result(inputs, result)
        self._explain_stale = True
        self._refresh_explain()
        self.summary_label.setText(self.summary_text(inputs, result))

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

    def _reset_document(self, inputs: EstimateInputs, path: Path | None) -> None:
        self.store.set_inputs(inputs, record=False)
        self.store.set_path(path)
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self.store.set_dirty(False)
        self._update_title()
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
            inputs = load_estimate(p)
        except EstimateFileError as exc:
            QMessageBox.warning(self, APP_TITLE, f"Could not open {p.name}.\n\n{exc}")
            return False
        is_example = self._is_example(p)
        self._reset_document(inputs, None if is_example else p)
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
            save_estimate(path, self.store.inputs)
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
    def export_plot(self, which: str, fmt: str, path: str | None = None) -> bool:
        self.ensure_plots()
        from .plots import export_png, export_svg

        plot = self.memory_plot if which == "memory" else self.cost_plot
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
