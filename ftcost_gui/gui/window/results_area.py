"""The right-hand side: banners, the headline figures and the result tabs, fed by the store.

Tabs: Charts (``ChartsArea``), Breakdown, Arithmetic (how this is computed), Compare, add-ons'.
The breakdown, the explanation and the comparison are rebuilt only while on screen; the
comparison's view is built when its tab is first shown (or ``compare`` is first asked for).
While the selected scenario cannot be estimated the failure replaces headline and tabs, so no
figure of other inputs (the previous file's, or the last edit that worked) stands beside these
inputs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, Signal
from PySide6.QtWidgets import QStackedWidget, QTabWidget, QTextBrowser, QVBoxLayout, QWidget

from ...charts.theme import theme_for
from ...core.results import EstimateResult
from ..results_view import BreakdownTable, HeadlineView
from ..store import EstimateStore
from .charts_area import ChartsArea
from .failed_page import EstimateFailedPage

if TYPE_CHECKING:  # the Compare tab's view loads when the tab is first shown (start-up: issue 17)
    from ..compare_view import ComparisonView


# Layout requests climb one level a round: a page's view, the page, the tab widget, the window.
_LAYOUT_LEVELS = 4


def _deliver_show_updates() -> None:
    """Deliver now the updates and layout requests that showing a page posted: each widget shown
    posts an update of itself (``QWidgetPrivate::show_sys``) behind the paint the tab switch
    asked for, and their layouts tell their parents level by level. Delivered later, they painted
    the page a second time, the tab widget a third (Which GPU, 5,036 rows: ~30 ms; issue 17)."""
    for _ in range(_LAYOUT_LEVELS):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.UpdateLater)


class ResultsArea(QWidget):
    baselineChanged = Signal(int)  # the Compare tab's baseline, picked by the user
    # A result tab was shown and this area filled its own pages; the add-ons fill theirs on it
    # (WindowServices.resultTabChanged), then the page is painted once.
    tabShown = Signal(int)

    def __init__(self, store: EstimateStore, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self._explain_stale = self._compare_stale = self._breakdown_stale = True
        self._error = ""
        self.headline = HeadlineView()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("result_tabs")
        self.charts = ChartsArea(store)
        self.tabs.addTab(self.charts, "&Charts")
        self.breakdown = BreakdownTable()
        self.tabs.addTab(self.breakdown, "&Breakdown")
        self.explain = QTextBrowser()
        self.explain.setObjectName("explain")
        self.explain.setOpenExternalLinks(False)
        self.explain.setAccessibleName("How this is computed")
        # A short title: at 1024 px the tab bar must hold the add-ons' tabs too (Which GPU,
        # Plan, What Fits) without scroll arrows hiding the last one.
        index = self.tabs.addTab(self.explain, "&Arithmetic")
        self.tabs.setTabToolTip(
            index, "How this is computed: each figure's arithmetic, your numbers"
        )
        # The comparison's view (its table, model and texts: ~60M instructions, ~3 % of the start
        # to the first paint, callgrind) is built into this page when the tab is first shown;
        # until then its baseline is the first scenario's, as a view never shown has.
        self.compare_page = QWidget()
        self.compare_page.setObjectName("compare_page")
        self._compare_layout = QVBoxLayout(self.compare_page)
        self._compare_layout.setContentsMargins(0, 0, 0, 0)
        self._compare: ComparisonView | None = None
        self.tabs.addTab(self.compare_page, "Com&pare")
        self.results_page = QWidget()
        page = QVBoxLayout(self.results_page)
        page.setContentsMargins(0, 0, 0, 0)
        page.addWidget(self.headline)
        page.addWidget(self.tabs, 1)
        self.failed_page = EstimateFailedPage()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.results_page)
        self.stack.addWidget(self.failed_page)
        self._column = QVBoxLayout(self)  # banners (add_banner) above the results
        self._column.setContentsMargins(4, 4, 4, 4)
        self._column.addWidget(self.stack, 1)
        store.errorChanged.connect(self._on_error)
        store.resultChanged.connect(self._on_result)
        store.resultsChanged.connect(self._on_results)
        self.tabs.currentChanged.connect(self._on_tab)

    # --- what the window and its add-ons place here ---------------------------------------------
    def add_banner(self, banner: QWidget) -> None:
        self._column.insertWidget(self._column.count() - 1, banner)

    def add_tab(self, page: QWidget, title: str, tip: str = "") -> None:
        index = self.tabs.addTab(page, title)
        if tip:
            self.tabs.setTabToolTip(index, tip)

    def show_tab(self, page: QWidget) -> None:
        self.tabs.setCurrentWidget(self.compare_page if page is self._compare else page)

    def tab_shown(self, page: QWidget) -> bool:
        shown = self.tabs.currentWidget()
        return shown is page or (page is self._compare and shown is self.compare_page)

    # --- the Compare tab --------------------------------------------------------------------------
    @property
    def compare(self) -> ComparisonView:
        """The Compare tab's view, built now if it was not yet."""
        if self._compare is None:
            from ..compare_view import ComparisonView

            view = ComparisonView(self.compare_page)
            view.baselineChanged.connect(self.baselineChanged)
            self._compare_layout.addWidget(view)
            self._compare = view
            if self.compare_page.isVisible():  # shown and laid out now, not on the next event
                view.show()
                self._compare_layout.activate()
        return self._compare

    @property
    def compare_built(self) -> bool:
        return self._compare is not None

    @property
    def compare_baseline(self) -> int:
        """The scenario the comparison's differences are to (the first until the tab is shown)."""
        return self._compare.baseline if self._compare is not None else 0

    def set_compare_baseline(self, index: int) -> None:
        # A view not built yet has no scenarios: setting its baseline changed nothing.
        if self._compare is not None:
            self._compare.set_baseline(index)

    @property
    def failed(self) -> bool:
        """The selected scenario could not be estimated: its failure is shown, no figures."""
        return self.stack.currentWidget() is self.failed_page

    # --- store → views --------------------------------------------------------------------------
    def _on_error(self, message: str) -> None:
        self._error = message

    def _on_result(self, result: EstimateResult) -> None:
        self.headline.set_result(self.store.inputs, result)
        self._breakdown_stale = self._explain_stale = True
        self._refresh_breakdown()
        self._refresh_explain()

    def _on_results(self, results: list[EstimateResult | None]) -> None:
        self._compare_stale = True
        self._refresh_compare()
        doc = self.store.document
        if len(results) == len(doc.scenarios) and results[doc.active] is None:
            message = self._error.removeprefix("Estimate failed: ")
            self.failed_page.set_message(doc.current.name, message)
            self.stack.setCurrentWidget(self.failed_page)
        else:
            self.stack.setCurrentWidget(self.results_page)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # notes' colour follows a dark palette
            self._explain_stale = True
            self._refresh_explain()

    def _on_tab(self, index: int) -> None:
        self._refresh_breakdown()
        self._refresh_explain()
        self._refresh_compare()
        self.tabShown.emit(index)
        _deliver_show_updates()

    def _refresh_breakdown(self) -> None:
        """The breakdown table too is filled while on screen (or asked for)."""
        if self._breakdown_stale and self.tabs.currentWidget() is self.breakdown:
            self.update_breakdown()

    def update_breakdown(self) -> None:
        r = self.store.result
        if r is not None:
            self.breakdown.set_result(self.store.inputs, r)
            self._breakdown_stale = False

    def _refresh_explain(self) -> None:
        """The explanation is rebuilt when visible (or asked for), not on every keystroke."""
        if self._explain_stale and self.tabs.currentWidget() is self.explain:
            self.update_explain()

    def update_explain(self) -> str:
        r = self.store.result
        if r is None:
            return ""
        from ...present.explain import explain_html  # with the tab's first showing (start-up)

        html = explain_html(self.store.inputs, r, theme_for(self.explain.palette()).muted)
        bar = self.explain.verticalScrollBar()
        pos = bar.value()
        self.explain.setHtml(html)
        bar.setValue(pos)
        self._explain_stale = False
        return html

    def _refresh_compare(self) -> None:
        # Like the explanation, the comparison table is rebuilt only while it is on screen.
        if self._compare_stale and self.tabs.currentWidget() is self.compare_page:
            scenarios = self.store.document.scenarios
            tiers = [s.inputs.hardware.gpu.pricing_tier for s in scenarios]
            self.compare.set_scenarios([s.name for s in scenarios], self.store.results, tiers)
            self._compare_stale = False
