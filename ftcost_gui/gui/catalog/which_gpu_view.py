"""'Which GPU for this job': the estimate on every GPU of the effective catalog, ranked.

A thin view: ``set_comparisons(rows, catalog_name)`` shows what ``core.compare`` computed;
nothing is estimated here. The table ranks by cost per run (or by wall-clock), the GPUs that fit
first; the cheapest GPU that fits is bold and starred (★), the fastest marked (»). Provider and
tier filters appear when the catalog states providers or tiers; ranking, marks and the summary
follow the filter. A bar chart beside the table shows the cost per run of its first GPUs.
Double-click or Enter on a row (or "Use this GPU") emits ``adoptRequested(GpuSpec)``.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...core.catalog import BUILTIN_ORIGIN, TIER_LABELS
from ...core.compare import GpuComparison, ranking
from ...core.units import SECONDS_PER_HOUR, fmt_hours, fmt_usd
from ...io.names import for_html, plain
from ..muted_label import MutedLabel
from .cost_chart import CostBarChart, legend_html
from .which_gpu_model import COL_ORIGIN, COL_PROVIDER, COL_TIER, ComparisonModel
from .which_gpu_table import ComparisonTable

CHART_MIN_WIDTH = 230
CHART_MIN_SHARE = 0.4  # of the tab's width, when the table cannot have all it asks for
ALL = ""  # the filters' "all" entry
NOT_STATED = "\0none"  # the provider filter's entry for rows of no stated provider
QWIDGETSIZE_MAX = (1 << 24) - 1  # Qt's largest widget size
_SIZED_ROWS = 64  # columns are sized to the rows on screen and this many more (a catalog of
# up to ~100 rows is measured whole); which_gpu_table measures them from the model's texts


class GpuCompareView(QWidget):
    """The comparison table, its filters and the cost chart."""

    adoptRequested = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("gpu_compare")
        self.comparisons: list[GpuComparison] = []  # as given
        self.catalog_name = ""
        self.model = ComparisonModel(self)
        self._build()
        self._sized = False  # the splitter
        self._columns_sized = False
        self._progress_texts = 0  # of the comparison under way

    # --- layout -------------------------------------------------------------------------------
    def _combo(self, name: str, text: str, tip: str, bar: QHBoxLayout) -> QComboBox:
        label = QLabel(text, self)
        combo = QComboBox(self)
        combo.setObjectName(name)
        combo.setToolTip(tip)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        label.setBuddy(combo)
        bar.addWidget(label)
        bar.addWidget(combo)
        return combo

    def _build(self) -> None:
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.summary = QLabel(self)
        self.summary.setObjectName("compare_summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.summary)
        bar = QHBoxLayout()
        self.filters = QWidget(self)
        fbar = QHBoxLayout(self.filters)
        fbar.setContentsMargins(0, 0, 0, 0)
        self.provider_combo = self._combo(
            "provider_filter", "&Provider:", "Show the rows of one provider", fbar
        )
        self.tier_combo = self._combo(
            "tier_filter", "&Tier:", "Show the rows of one pricing tier", fbar
        )
        bar.addWidget(self.filters)
        bar.addStretch(1)
        self.rank_combo = self._combo(
            "rank_by", "Ran&k by:", "GPUs that fit come first either way", bar
        )
        self.rank_combo.addItem("Cost per run", "cost")
        self.rank_combo.addItem("Wall-clock", "wall_clock")
        self.use_button = QPushButton("&Use this GPU", self)
        self.use_button.setToolTip("Put the selected GPU and its prices into the estimate")
        bar.addWidget(self.use_button)
        lay.addLayout(bar)

        t = self.table = ComparisonTable(self.model, self)
        t.setObjectName("compare_table")
        t.setAccessibleName("GPUs compared for this job")
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        t.setAlternatingRowColors(True)
        t.setWordWrap(False)
        t.verticalHeader().hide()
        t.verticalHeader().setDefaultSectionSize(22)
        t.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        t.verticalHeader().setResizeContentsPrecision(_SIZED_ROWS)  # rows sampled per column
        hh = t.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setStretchLastSection(False)  # the splitter gives the table the width it needs
        hh.setResizeContentsPrecision(_SIZED_ROWS)
        chart_box = QWidget(self)
        clay = QVBoxLayout(chart_box)
        clay.setContentsMargins(0, 0, 0, 0)
        clay.setSpacing(2)
        self.legend = QLabel(legend_html(), chart_box)
        self.chart = CostBarChart(chart_box, self.legend)
        clay.addWidget(self.chart, 1)
        self.legend.setObjectName("chart_legend")
        self.legend.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.legend.setWordWrap(True)
        clay.addWidget(self.legend)
        chart_box.setMinimumWidth(CHART_MIN_WIDTH)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(t)
        self.splitter.addWidget(chart_box)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        lay.addWidget(self.splitter, 1)
        self.hint = MutedLabel(
            "Double-click a GPU (or select it and press Enter) to use it in this estimate. "
            "Each row is this estimate with only the GPU and its catalog prices changed.",
            self,
        )
        self.hint.setWordWrap(True)
        lay.addWidget(self.hint)

        self.rank_combo.currentIndexChanged.connect(self._fill)
        self.provider_combo.currentIndexChanged.connect(self._on_filter)
        self.tier_combo.currentIndexChanged.connect(self._on_filter)
        t.doubleClicked.connect(lambda index: self._adopt(index.row()))
        t.rowActivated.connect(self._adopt)
        self.use_button.clicked.connect(lambda: self._adopt(self.table.currentIndex().row()))

    # --- state --------------------------------------------------------------------------------
    @property
    def rows(self) -> list[GpuComparison]:
        """The rows shown, in table order."""
        return self.model.rows

    @property
    def cheapest(self) -> GpuComparison | None:
        return self.model.cheapest

    @property
    def fastest(self) -> GpuComparison | None:
        return self.model.fastest

    @property
    def ranked_by(self) -> str:
        return self.rank_combo.currentData()

    def set_ranked_by(self, key: str) -> None:
        self.rank_combo.setCurrentIndex(self.rank_combo.findData(key))

    def set_filter(self, provider: str | None = None, tier: str | None = None) -> None:
        """Show one provider's rows (``NOT_STATED``: rows of none) and/or one tier's ('': all)."""
        if provider is not None:
            self.provider_combo.setCurrentIndex(max(self.provider_combo.findData(provider), 0))
        if tier is not None:
            self.tier_combo.setCurrentIndex(max(self.tier_combo.findData(tier), 0))

    def set_error(self, message: str) -> None:
        self._unfix_summary()
        self.summary.setText(message)

    def set_progress(self, done: int, total: int) -> None:
        """While a large catalog is compared in slices: the old table stays, the summary says so.

        While it compares, the summary keeps the height its last text laid out (the result's;
        on the first show, the first progress text's): the table below does not move with each
        new text, and the view's size hints stay as they were, so that the tab's page tells no
        layout above it (which_gpu_tab._Page; each such layout repainted the whole tab)."""
        s = self.summary
        if (self._progress_texts or s.text()) and s.minimumHeight() != s.maximumHeight():
            s.setFixedHeight(s.height())
        self._progress_texts += 1
        s.setText(f"Comparing {total:,} GPUs for these settings… {done:,} done.")

    def _unfix_summary(self) -> None:
        if self._progress_texts:
            self._progress_texts = 0
            self.summary.setMinimumHeight(0)
            self.summary.setMaximumHeight(QWIDGETSIZE_MAX)

    def set_comparisons(self, rows: Sequence[GpuComparison], catalog_name: str = "") -> None:
        if catalog_name != self.catalog_name or len(rows) != len(self.comparisons):
            self._columns_sized = False  # another catalog: fit the columns to it again
        self._unfix_summary()
        self.comparisons = list(rows)
        self.catalog_name = catalog_name
        self._fill_filters()
        self._fill()

    # --- filling -------------------------------------------------------------------------------
    def _fill_filters(self) -> None:
        providers = sorted({r.provider for r in self.comparisons}, key=str.casefold)
        stated = {r.pricing_tier for r in self.comparisons}  # one pass, not one per tier
        tiers = [t for t in TIER_LABELS if t in stated]
        named = [(plain(p) or "(not stated)", p or NOT_STATED) for p in providers]  # data
        for combo, entries in (
            (self.provider_combo, named),
            (self.tier_combo, [(TIER_LABELS[t], t) for t in tiers]),
        ):
            chosen = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem("All", ALL)
            for text, data in entries:
                combo.addItem(text, data)
            combo.setCurrentIndex(max(combo.findData(chosen), 0))
            combo.blockSignals(False)
        self.filters.setVisible(len(providers) > 1 or len(tiers) > 1)

    def _on_filter(self, *_args: object) -> None:
        self._columns_sized = False  # other rows: fit the columns to them
        self._fill()

    def shown(self) -> list[GpuComparison]:
        """The comparisons the filters let through, in catalog order."""
        provider, tier = self.provider_combo.currentData(), self.tier_combo.currentData()
        rows = self.comparisons
        if provider:
            want = "" if provider == NOT_STATED else provider
            rows = [r for r in rows if r.provider == want]
        if tier:
            rows = [r for r in rows if r.pricing_tier == tier]
        return rows

    def _fill(self, *_args: object) -> None:
        rows = self.shown()
        ranked, cheapest, fastest = ranking(rows, self.ranked_by)
        cur = self.table.currentIndex().row()
        current_id = self.rows[cur].gpu_id if 0 <= cur < len(self.rows) else None
        t = self.table
        t.setUpdatesEnabled(False)
        self.model.set_rows(ranked, cheapest, fastest)
        builtin_only = all(r.origin in (None, BUILTIN_ORIGIN) for r in ranked)
        no_provider = all(not r.provider and not r.region for r in self.comparisons)
        one_tier = len({r.pricing_tier for r in self.comparisons}) <= 1
        hidden = {COL_ORIGIN: builtin_only, COL_PROVIDER: no_provider, COL_TIER: one_tier}
        # As the CLI: a column is shown when there is something to say. The widths are fitted
        # once per catalog (or set of columns): an edit keeps them (and yours).
        if t.set_columns(hidden, fit=not self._columns_sized):
            self._sized = False  # the splitter too
        self._columns_sized = True
        # The reset's items layout, which Qt runs on the table's next paint, now: run there it
        # asks for a second paint of the whole viewport (QAbstractItemView::doItemsLayout).
        t.executeDelayedItemsLayout()
        t.setUpdatesEnabled(True)
        self._size_splitter()
        if current_id is not None:
            row = next((i for i, r in enumerate(ranked) if r.gpu_id == current_id), None)
            if row is not None:
                t.selectRow(row)
        self.chart.set_rows(ranked, cheapest)
        self.summary.setText(self._summary(rows, cheapest, fastest))

    def _size_splitter(self) -> None:
        """Give the table the width its columns need (once), the chart the rest."""
        total = self.splitter.width()
        if self._sized or total < 600 or self.model.rowCount() == 0:
            return
        t = self.table
        need = (
            t.horizontalHeader().length()
            + t.verticalScrollBar().sizeHint().width()
            + 2 * t.frameWidth()
            + self.splitter.handleWidth()
        )
        # A table wider than the room scrolls; the chart keeps enough width to be read.
        chart = max(total - need, CHART_MIN_WIDTH, int(total * CHART_MIN_SHARE))
        self.splitter.setSizes([total - chart, chart])
        self._sized = True

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._size_splitter()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._size_splitter()

    def _summary(
        self,
        rows: list[GpuComparison],
        cheapest: GpuComparison | None,
        fastest: GpuComparison | None,
    ) -> str:
        n, fit = len(self.comparisons), sum(1 for r in rows if r.fits)
        # Rich text (the names in bold): each name from a catalog or file escaped (data).
        cat = f" of catalog '{for_html(self.catalog_name)}'" if self.catalog_name else ""
        shown = f" ({len(rows):,} shown by the filters)" if len(rows) != n else ""
        parts = [f"{n:,} GPUs{cat}{shown}, {fit:,} fit."]
        if cheapest is not None:
            c = cheapest
            where = f" ({for_html(c.provider)})" if c.provider else ""
            parts.append(
                f"★ Cheapest that fits: <b>{for_html(c.gpu_name)}</b>{where} × {c.num_gpus}, "
                f"{fmt_usd(c.run_usd)} per run."
            )
        if fastest is not None:
            f = fastest
            parts.append(
                f"» Fastest: <b>{for_html(f.gpu_name)}</b> × {f.num_gpus}, "
                f"{fmt_hours(f.wall_clock_s / SECONDS_PER_HOUR)}."
            )
        if cheapest is None:
            parts.append("No GPU fits at the current settings.")
        return " ".join(parts)

    def _adopt(self, row: int | QModelIndex) -> None:
        if isinstance(row, QModelIndex):
            row = row.row()
        if 0 <= row < len(self.rows):
            self.adoptRequested.emit(self.rows[row].spec)
