"""The "Which GPU" results tab: compares only while it is on screen, in slices, only what changed.

- Hidden, it does nothing but note that its table is stale; shown, it refreshes.
- ``core.compare.GpuComparer`` keeps the rows of the current inputs: adopting a GPU or editing
  one catalog row estimates only the new offers; offers of the same GPU share one plan.
- Catalog rows are validated once, when the catalog is read (``CatalogService.offers``).
- A small catalog (up to ``SMALL_CATALOG`` rows to compare) is compared at once. A larger one in
  slices of ``SLICE_UNITS`` of work between events (a row is one unit, a plan ``PLAN_UNITS``
  more; a slice is ~10 ms on a slow, loaded core; the first, in the edit itself, is
  ``FIRST_SLICE_UNITS``), so an edit never waits for thousands of estimates; the table shows
  the new ranking when all are done. Slices count work, not time: the same on every machine and
  in every test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ValidationError
from PySide6.QtCore import QEvent, QObject, QSize, QTimer
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QWidget

from ...core.compare import GpuComparer, Offer
from ...core.inputs import EstimateInputs
from ..services import WindowServices
from .prices import apply_gpu
from .service import CatalogService

if TYPE_CHECKING:  # the view imports pyqtgraph: built when first shown
    from ...core.inputs import GpuSpec
    from .which_gpu_view import GpuCompareView

SMALL_CATALOG = 64  # rows to compare at once, in the edit itself (the built-in catalog: 36)
SLICE_UNITS = 384  # work per event-loop turn for larger catalogs (see GpuComparer.compare_some)
FIRST_SLICE_UNITS = 48  # the slice run in the edit itself: the edit path stays ~1-2 ms longer
_PROGRESS_EVERY = 32  # slices between two progress texts (~3 a second on a slow core)


@dataclass(slots=True)
class _Job:
    """One refresh: what to compare, and how far the slices got."""

    inputs: EstimateInputs
    offers: Sequence[Offer]
    catalog: str
    missing: list[Offer]
    done: int = 0
    slices: int = 0


class _Page(QWidget):
    """The tab's page: its view fills it, without a layout.

    A layout tells its parents of every change inside the view (a label's new text, the
    table's columns, a filter shown): Qt passes each layout change up to the window, and the
    tab widget repaints all of itself for each (QTabWidget::setUpLayout) — five to ten repaints
    of the whole tab, chart included, per first show of a large catalog. The page tells its
    parent only when what a parent's layout reads of it changed (``_hints``)."""

    def __init__(self) -> None:
        super().__init__()
        self.view: QWidget | None = None
        self._told: tuple[object, ...] | None = None

    def hold(self, view: QWidget) -> None:
        self.view = view
        view.setGeometry(self.rect())
        if self.isVisible():
            view.show()
        self._tell()

    def _hints(self, view: QWidget) -> tuple[object, ...]:
        hfw = view.hasHeightForWidth()
        at_width = view.heightForWidth(self.width()) if hfw else -1
        return view.sizeHint(), view.minimumSizeHint(), hfw, at_width

    def _tell(self) -> None:
        """``updateGeometry`` when the view's hints changed since the parent was last told."""
        if self.view is not None:
            hints = self._hints(self.view)
            if hints != self._told:
                self._told = hints
                self.updateGeometry()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:  # the view's geometry changed (posted)
            self._tell()
        return super().event(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._tell()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.view is not None:
            self.view.setGeometry(self.rect())

    # What a layout reads of the page: the view's (a layout with no margins gave the same).
    def sizeHint(self) -> QSize:
        return super().sizeHint() if self.view is None else self.view.sizeHint()

    def minimumSizeHint(self) -> QSize:
        return super().minimumSizeHint() if self.view is None else self.view.minimumSizeHint()

    def hasHeightForWidth(self) -> bool:
        return super().hasHeightForWidth() if self.view is None else self.view.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:
        v = self.view
        return super().heightForWidth(width) if v is None else v.heightForWidth(width)


class WhichGpuTab(QObject):
    """The tab's page, its view (built when first shown) and when it is recomputed."""

    def __init__(self, services: WindowServices, catalogs: CatalogService):
        super().__init__(services.dialog_parent())
        self.services, self.catalogs = services, catalogs
        self.comparer = GpuComparer()
        self.view: GpuCompareView | None = None
        self.stale = True
        self._job: _Job | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._run_slice)
        self.page = _Page()
        self.page.setObjectName("which_gpu")
        services.add_result_tab(
            self.page, "&Which GPU", "This estimate on every GPU of the catalog: cost per run, time"
        )
        services.store.resultChanged.connect(self._on_change)
        services.resultTabChanged.connect(self._on_tab)
        catalogs.changed.connect(self._on_change)

    def visible(self) -> bool:
        return self.services.result_tab_shown(self.page)

    def show(self) -> None:
        self.ensure_view()  # before the page shows: laid out with it, painted once
        self.services.show_result_tab(self.page)

    def ensure_view(self) -> GpuCompareView:
        """Build the view (imports pyqtgraph) once."""
        if self.view is None:
            from .which_gpu_view import GpuCompareView

            self.view = GpuCompareView(self.page)
            self.page.hold(self.view)
            self.view.adoptRequested.connect(self.adopt_gpu)
            self.stale = True
        return self.view

    # --- when -----------------------------------------------------------------------------------
    def _on_tab(self, _index: int) -> None:
        if self.visible():
            self.ensure_view()
            if self.stale:
                self.refresh()

    def _on_change(self, *_args: object) -> None:
        self.stale = True
        if self.visible():
            self.refresh()

    # --- what -----------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Compare for the current inputs and catalog: a first slice now, the rest after events."""
        self.ensure_view()
        inputs, offers = self.services.store.inputs, self.catalogs.offers
        missing = self.comparer.missing(inputs, offers)  # once per refresh, not per slice
        self._job = _Job(inputs, offers, self.catalogs.active_name, missing)
        self._run_slice()

    def refresh_now(self) -> None:
        """Compare every row now (tests and benchmarks)."""
        self.refresh()
        while self._job is not None:
            self._run_slice(all_rows=True)

    def _run_slice(self, all_rows: bool = False) -> None:
        job = self._job
        if job is None:
            return
        view = self.ensure_view()
        try:
            at_once = all_rows or len(job.missing) <= SMALL_CATALOG
            rest = job.missing[job.done :]
            units = FIRST_SLICE_UNITS if job.slices == 0 else SLICE_UNITS
            job.done += self.comparer.compare_some(job.inputs, rest, None if at_once else units)
            if job.done < len(job.missing):
                job.slices += 1
                if job.slices % _PROGRESS_EVERY == 1:  # a text repaints the summary
                    skipped = len(job.offers) - len(job.missing)
                    view.set_progress(skipped + job.done, len(job.offers))
                self._timer.start()
                return
            rows = self.comparer.rows(job.inputs, job.offers)
        except (ValidationError, ValueError, ArithmeticError) as exc:
            view.set_error(f"The comparison failed: {exc}")
        else:
            view.set_comparisons(rows, job.catalog)
        self._job = None
        self.stale = False

    def adopt_gpu(self, spec: GpuSpec) -> None:
        current = self.services.store.inputs.hardware.gpu
        if spec == current:
            return
        if apply_gpu(self.services, spec, f"Use GPU {spec.name}"):
            self.services.show_status(f"Now estimating on {spec.name}", 4000)
