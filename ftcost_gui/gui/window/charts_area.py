"""The Charts tab: the memory and cost plots, built lazily, in two modes, fed by the store.

'Selected scenario, by method' shows the selected scenario's memory bars and cost curve; 'All
scenarios' one bar and one curve per scenario (built when first shown). The plots import
pyqtgraph, so they are built after the window's first paint (``ensure_plots``), not with it; they
follow the store while on screen and catch up when shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ...io.names import plain
from ...present.time_texts import price_word
from ..store import EstimateStore

if TYPE_CHECKING:  # pragma: no cover - the plots import pyqtgraph, loaded on first use
    from ...charts import CostPlot, MemoryPlot, ScenarioCostPlot, ScenarioMemoryPlot

LAYOUT_DEPTH = 12
CHART_MODES = (("method", "Selected scenario, by method"), ("scenarios", "All scenarios"))


class ChartsArea(QWidget):
    """Mode picker above a stack of two plot pairs; ``exportRequested(which, fmt)`` from a plot."""

    exportRequested = Signal(str, str)
    plotsBuilt = Signal()  # both plots exist (built after the window's first paint)

    def __init__(self, store: EstimateStore, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("charts")
        self.store = store
        self.memory_plot: MemoryPlot | None = None
        self.cost_plot: CostPlot | None = None
        self.scenario_plots: tuple[ScenarioMemoryPlot, ScenarioCostPlot] | None = None
        self.plots_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.plots_splitter.setObjectName("plots")
        self._placeholder = QLabel("Preparing plots…")
        self._placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.plots_splitter.addWidget(self._placeholder)
        self.scenario_plots_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.scenario_plots_splitter.setObjectName("scenario_plots")
        # While a scenario cannot be estimated the overlay would show its last curve: say why not.
        self.scenarios_failed = QLabel()
        self.scenarios_failed.setObjectName("scenarios_failed")
        self.scenarios_failed.setTextFormat(Qt.TextFormat.PlainText)
        self.scenarios_failed.setWordWrap(True)
        self.scenarios_failed.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.charts_stack = QStackedWidget()
        self.charts_stack.addWidget(self.plots_splitter)
        self.charts_stack.addWidget(self.scenario_plots_splitter)
        self.charts_stack.addWidget(self.scenarios_failed)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 4, 0, 0)
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
        mode_label = QLabel("Charts show:")  # every letter of it is a menu's or a tab's
        mode_label.setBuddy(self.chart_mode)
        mode_row.addWidget(mode_label)
        mode_row.addWidget(self.chart_mode)
        mode_row.addStretch(1)
        lay.addLayout(mode_row)
        lay.addWidget(self.charts_stack, 1)
        self.chart_mode.currentIndexChanged.connect(self._on_mode)
        self._due = False  # the store's outcomes changed since the plots were last drawn
        store.outcomeChanged.connect(self._on_outcome)
        store.resultsChanged.connect(self._on_results)
        store.recomputed.connect(self._settle)
        store.documentChanged.connect(self._build_scenario_plots_soon)
        self.plotsBuilt.connect(self._build_scenario_plots_soon)

    # --- modes ----------------------------------------------------------------------------------
    def mode(self) -> str:
        return str(self.chart_mode.currentData())

    def set_mode(self, mode: str) -> None:
        self.chart_mode.setCurrentIndex(max(0, self.chart_mode.findData(mode)))

    def _on_mode(self, _index: int) -> None:
        if self.mode() == "scenarios":
            self.ensure_scenario_plots()
        self._show_mode()
        self._refresh()

    def _show_mode(self) -> None:
        if self.mode() != "scenarios":
            self.charts_stack.setCurrentWidget(self.plots_splitter)
            return
        failed = [
            plain(s.name)
            for s, r in zip(self.store.document.scenarios, self.store.results, strict=False)
            if r is None
        ]
        if failed:
            self.scenarios_failed.setText(
                f"All scenarios are drawn once each can be estimated; {', '.join(failed)} "
                "cannot be now (the status bar says why)."
            )
            self.charts_stack.setCurrentWidget(self.scenarios_failed)
        else:
            self.charts_stack.setCurrentWidget(self.scenario_plots_splitter)

    def visible_plot(self, which: str) -> MemoryPlot | CostPlot:
        """The memory or cost plot shown now (by method or all scenarios)."""
        memory, cost = self.ensure_plots()
        if self.mode() == "scenarios":
            memory, cost = self.ensure_scenario_plots()
        self._refresh(shown=False)  # an export draws what the tab would show, even from elsewhere
        return memory if which == "memory" else cost

    # --- building -------------------------------------------------------------------------------
    def ensure_plots(self) -> tuple[MemoryPlot, CostPlot]:
        """Import pyqtgraph and build both plots (once)."""
        if self.memory_plot is None or self.cost_plot is None:
            from ...charts import CostPlot, MemoryPlot

            self.memory_plot, self.cost_plot = MemoryPlot(), CostPlot()
            self._adopt(self.plots_splitter, self.memory_plot, "memory_plot", "memory")
            self._adopt(self.plots_splitter, self.cost_plot, "cost_plot", "cost")
            self._placeholder.hide()
            self._placeholder.setParent(None)
            self.plots_splitter.setSizes([1, 1])
            self._draw_outcome()
            self.plotsBuilt.emit()
        return self.memory_plot, self.cost_plot

    def ensure_scenario_plots(self) -> tuple[ScenarioMemoryPlot, ScenarioCostPlot]:
        """Build the 'All scenarios' plots (once, when first shown)."""
        if self.scenario_plots is None:
            self.ensure_plots()
            from ...charts import ScenarioCostPlot, ScenarioMemoryPlot

            memory, cost = ScenarioMemoryPlot(), ScenarioCostPlot()
            self._adopt(self.scenario_plots_splitter, memory, "scenario_memory_plot", "memory")
            self._adopt(self.scenario_plots_splitter, cost, "scenario_cost_plot", "cost")
            self.scenario_plots_splitter.setSizes([1, 1])
            self.scenario_plots = (memory, cost)
        return self.scenario_plots

    # A document of several scenarios may well be looked at 'All scenarios': its plots are built
    # and given the scenarios once the event loop is idle (after the window's first paint and
    # the plots'), so that opening the mode only paints them and redraws the scenarios edited
    # since (building both and their curves and legend was ~55 % of opening it at 200 scenarios;
    # issue 17). Once per window: while hidden they follow no edit.
    def _build_scenario_plots_soon(self, *_args: object) -> None:
        if self.scenario_plots is None and self._several():
            QTimer.singleShot(0, self._build_scenario_plots_now)

    def _build_scenario_plots_now(self) -> None:
        if self.scenario_plots is None and self._several():
            self.ensure_scenario_plots()
            # The scenarios in a second step (each blocks the loop for a short while only);
            # once: the mode, opened, redraws what changed since.
            QTimer.singleShot(0, self._draw_hidden_scenario_plots)

    def _draw_hidden_scenario_plots(self) -> None:
        self._update_scenario_plots()
        if self.scenario_plots is not None and not self.scenario_plots[1].isVisible():
            self.scenario_plots[1].curve_set.prepare()  # the paths too: the first paint strokes

    def _several(self) -> bool:
        return self.memory_plot is not None and len(self.store.document.scenarios) > 1

    def _adopt(
        self, splitter: QSplitter, plot: MemoryPlot | CostPlot, name: str, which: str
    ) -> None:
        plot.setObjectName(name)
        plot.exportRequested.connect(lambda fmt: self.exportRequested.emit(which, fmt))
        splitter.addWidget(plot)

    # --- store → plots --------------------------------------------------------------------------
    # Only the plots on screen follow an edit: hidden ones are drawn when they are shown (the
    # tab, the mode) or exported, from the store's latest outcomes.
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._refresh()

    # An edit draws the plots once, when every view has its figures (``_settle``): the selected
    # outcome and the scenarios' results arrive as two signals of one recompute.
    def _on_outcome(self, _outcome: object) -> None:
        self._due = True

    def _on_results(self, _results: object) -> None:
        self._show_mode()
        if self.mode() == "scenarios":  # every scenario's figures; by method: the outcome's
            self._due = True

    def _refresh(self, *_args: object, shown: bool = True) -> None:
        if shown and not self.isVisible():
            return
        if self.mode() == "scenarios":
            self._update_scenario_plots()
        else:
            self._draw_outcome()

    def _draw_outcome(self) -> None:
        outcome = self.store.outcome
        if self.memory_plot is not None and self.cost_plot is not None and outcome is not None:
            self.memory_plot.set_bars(outcome.memory_by_method)
            self.cost_plot.set_series(
                outcome.cost_curve,
                outcome.cost_now,
                price_word(outcome.inputs.hardware.gpu.pricing_tier),
            )

    def _settle(self) -> None:
        """Once every view has its new figures: each plot's changes reach the screen in one
        paint, together with the headline's (charts/base.PlotView.settle)."""
        if self._due:
            self._due = False
            self._refresh()
        # Layouts first: a label whose text changed re-lays its card out, and a layout activated
        # after the paint would paint those labels a second time. Each round settles one level
        # of widgets (a changed size hint asks the parent next); the window is not deeper.
        for _ in range(LAYOUT_DEPTH):
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
        plots = (self.memory_plot, self.cost_plot, *(self.scenario_plots or ()))
        shown = [plot for plot in plots if plot is not None and plot.isVisible()]
        if not shown:
            return
        # Each plot's scene, once its changed items are processed, sends the window's pending
        # update request at once (QGraphicsView dispatches it): the window would paint with the
        # other plot's items not yet processed, and that plot (resized when the headline
        # changed height) would paint again after its own. The request is held until every
        # plot is settled, then the window paints once.
        window = self.window()
        QCoreApplication.removePostedEvents(window, QEvent.Type.UpdateRequest.value)
        try:
            for plot in shown:
                plot.settle()
        finally:
            QCoreApplication.sendEvent(window, QEvent(QEvent.Type.UpdateRequest))

    def _update_scenario_plots(self) -> None:
        series = self.store.scenario_series
        if self.scenario_plots is None or series is None:
            return
        for plot in self.scenario_plots:
            plot.set_scenarios(series)
