"""'Which GPU for this job': the estimate on every GPU of the effective catalog.

A thin view: ``set_comparisons(rows, catalog_name)`` shows what ``core.compare.compare_gpus``
computed; nothing is estimated here. The table ranks by cost per run (or by wall-clock), the GPUs
that fit first; the cheapest GPU that fits is bold and starred (★), the fastest marked (»). A bar
chart beside it shows the cost per run of every GPU (fitting ones coloured, the others grey).
Double-click or Enter on a row (or "Use this GPU") emits ``adoptRequested(GpuSpec)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.catalog import BUILTIN_ORIGIN
from ..core.compare import (
    GpuComparison,
    cheapest_fitting,
    fastest_fitting,
    rank_by_cost,
    rank_by_wall_clock,
)
from ..core.units import SECONDS_PER_HOUR, fmt_hours, fmt_usd
from .catalog_ui import origin_label
from .qt_compat import guard_refcount_leak

guard_refcount_leak()

FIT_COLOR = "#0072B2"
CHEAPEST_COLOR = "#E69F00"
NO_FIT_COLOR = "#BBBBBB"
GREY_TEXT = QColor(120, 120, 120)
CHART_MIN_WIDTH = 230

COLUMNS: tuple[tuple[str, str], ...] = (
    ("#", "Rank among the GPUs that fit (– : does not fit)"),
    ("GPU", "★ cheapest GPU that fits · » fastest GPU that fits · ◀ this estimate's GPU"),
    ("Fits", "The job fits in memory at the current settings"),
    ("GPUs", "GPUs the row is priced for; 'needs M' when the memory floor forces more"),
    (
        "TFLOPS\nper GPU",
        "Achieved TFLOPS per GPU: dense peak × MFU ÷ (QLoRA, communication, offload slowdowns)",
    ),
    ("$ per\n1e18 FLOP", "On-demand price ÷ achieved FLOP/s: dollars per 10^18 FLOPs of work"),
    ("Wall-\nclock", "Held wall-clock: training plus start-up, checkpoints, evaluation"),
    ("$ per run\non-demand", "Cost of one run on-demand: GPU-hours held × on-demand price"),
    ("$ per run\nspot", "Cost of one run on spot, interruptions included; – : no spot price"),
    ("GPU-h\nheld", "GPU-hours held: GPUs × held wall-clock, what is billed"),
    ("Origin", "built-in, or user (the active catalog); ▲: replaces the built-in row"),
)
COL_RANK, COL_GPU, COL_FITS, COL_GPUS, COL_ORIGIN = 0, 1, 2, 3, 10
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_NUMERIC = frozenset(range(4, 10)) | {COL_RANK, COL_GPUS}


def gpus_text(r: GpuComparison) -> str:
    if r.gpus_needed is None:
        return f"{r.num_gpus} (no count fits)"
    if not r.fits and r.gpus_needed > r.num_gpus:
        return f"{r.num_gpus} (needs {r.gpus_needed})"
    return str(r.num_gpus)


def legend_html() -> str:
    """The chart's key below it (a label: it never hides a bar)."""
    items = (
        (CHEAPEST_COLOR, "★ cheapest that fits"),
        (FIT_COLOR, "fits"),
        (NO_FIT_COLOR, "does not fit"),
    )
    return " &nbsp; ".join(f"<span style='color:{c}'>■</span>&nbsp;{t}" for c, t in items)


def short_origin(origin: str | None) -> str:
    if not origin:
        return ""
    return "built-in" if origin == BUILTIN_ORIGIN else "user"


def row_texts(r: GpuComparison, rank: int | None, marks: str) -> list[str]:
    """The table's cells for one GPU (what tests compare with compare_gpus)."""
    name = r.gpu_name + ("" if r.bf16_supported else " (FP16)")
    return [
        str(rank) if rank is not None else "–",
        f"{marks} {name}".strip(),
        "yes" if r.fits else "no",
        gpus_text(r),
        f"{r.achieved_tflops:,.0f}" if r.achieved_tflops >= 100 else f"{r.achieved_tflops:,.1f}",
        f"${r.usd_per_1e18_flops:,.2f}",
        fmt_hours(r.wall_clock_s / SECONDS_PER_HOUR),
        fmt_usd(r.on_demand_usd),
        fmt_usd(r.spot_usd) if r.spot_usd is not None else "–",
        f"{r.held_gpu_hours:,.1f}",
        short_origin(r.origin),
    ]


class _Table(QTableWidget):
    """Enter/Return on a row asks to adopt it (double-click does too)."""

    rowActivated = Signal(int)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentRow() >= 0:
            self.rowActivated.emit(self.currentRow())
            event.accept()
            return
        super().keyPressEvent(event)


class _NameAxis(pg.AxisItem):
    """A left axis that writes GPU names at integer positions."""

    def __init__(self) -> None:
        super().__init__("left")
        self.names: list[str] = []

    def tickValues(self, minVal, maxVal, size):
        return [(1.0, list(range(len(self.names))))]

    def tickStrings(self, values, scale, spacing):
        return [self.names[int(v)] if 0 <= int(v) < len(self.names) else "" for v in values]


class CostBarChart(pg.PlotWidget):
    """Horizontal bars: cost per run on-demand per GPU, in the table's order (first on top)."""

    def __init__(self, parent: QWidget | None = None):
        self.name_axis = _NameAxis()
        super().__init__(parent, axisItems={"left": self.name_axis}, background="w")
        self.setObjectName("gpu_cost_chart")
        self.setAccessibleName("Cost per run for each GPU")
        pi = self.getPlotItem()
        pi.setLabel("bottom", "Cost per run, on-demand (USD)")
        pi.showGrid(x=True, y=False, alpha=0.25)
        pi.setMouseEnabled(x=False, y=False)
        pi.hideButtons()
        pi.setMenuEnabled(False)
        self.getViewBox().invertY(True)
        for ax in ("left", "bottom"):
            pi.getAxis(ax).setPen(pg.mkPen("k"))
            pi.getAxis(ax).setTextPen(pg.mkPen("k"))
        self.bars = pg.BarGraphItem(x0=[], y=[], height=0.7, width=[], brushes=[])
        pi.addItem(self.bars)
        self.star = pg.TextItem("", color="#000000", anchor=(0, 0.5))
        font = QFont()
        font.setPointSizeF(8.5)
        font.setBold(True)
        self.star.setFont(font)
        pi.addItem(self.star)
        self.values: list[float] = []
        self.colors: list[str] = []

    def set_rows(self, rows: Sequence[GpuComparison], cheapest: GpuComparison | None) -> None:
        names = [r.gpu_name for r in rows]
        self.values = [r.on_demand_usd for r in rows]
        self.colors = [
            CHEAPEST_COLOR if r is cheapest else FIT_COLOR if r.fits else NO_FIT_COLOR for r in rows
        ]
        pens = [pg.mkPen("k", width=2) if r is cheapest else pg.mkPen(None) for r in rows]
        self.name_axis.names = names
        self.bars.setOpts(
            x0=[0.0] * len(rows),
            y=list(range(len(rows))),
            width=self.values,
            height=0.7,
            brushes=[pg.mkBrush(c) for c in self.colors],
            pens=pens,
        )
        top = max(self.values, default=1.0) or 1.0
        pi = self.getPlotItem()
        pi.setXRange(0, top * 1.22, padding=0)
        pi.setYRange(-0.6, max(len(rows), 1) - 0.4, padding=0)
        if cheapest is not None and cheapest in rows:
            i = rows.index(cheapest)
            self.star.setText(f"★ {fmt_usd(cheapest.on_demand_usd)}")
            self.star.setPos(cheapest.on_demand_usd + top * 0.01, i)
            self.star.setVisible(True)
        else:
            self.star.setVisible(False)
        self.name_axis.picture = None
        self.name_axis.update()


class GpuCompareView(QWidget):
    """The comparison table and the cost chart; ``adoptRequested(GpuSpec)`` on double-click."""

    adoptRequested = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("gpu_compare")
        self.rows: list[GpuComparison] = []  # in table order
        self.comparisons: list[GpuComparison] = []  # as given
        self.cheapest: GpuComparison | None = None
        self.fastest: GpuComparison | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        self.summary = QLabel(self)
        self.summary.setObjectName("compare_summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top.addWidget(self.summary, 1)
        rank_label = QLabel("&Rank by:", self)
        self.rank_combo = QComboBox(self)
        self.rank_combo.setObjectName("rank_by")
        self.rank_combo.addItem("Cost per run", "cost")
        self.rank_combo.addItem("Wall-clock", "wall_clock")
        self.rank_combo.setToolTip("GPUs that fit come first either way")
        rank_label.setBuddy(self.rank_combo)
        self.use_button = QPushButton("&Use this GPU", self)
        self.use_button.setToolTip("Put the selected GPU and its prices into the estimate")
        top.addWidget(rank_label)
        top.addWidget(self.rank_combo)
        top.addWidget(self.use_button)
        lay.addLayout(top)

        self.table = _Table(0, len(COLUMNS), self)
        self.table.setObjectName("compare_table")
        self.table.setAccessibleName("GPUs compared for this job")
        for i, (text, tip) in enumerate(COLUMNS):
            item = QTableWidgetItem(text)
            item.setToolTip(tip)
            self.table.setHorizontalHeaderItem(i, item)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setStretchLastSection(True)
        self._sized = False
        chart_box = QWidget(self)
        clay = QVBoxLayout(chart_box)
        clay.setContentsMargins(0, 0, 0, 0)
        clay.setSpacing(2)
        self.chart = CostBarChart(chart_box)
        clay.addWidget(self.chart, 1)
        self.legend = QLabel(legend_html(), chart_box)
        self.legend.setObjectName("chart_legend")
        self.legend.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.legend.setWordWrap(True)
        clay.addWidget(self.legend)
        chart_box.setMinimumWidth(CHART_MIN_WIDTH)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(chart_box)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        lay.addWidget(self.splitter, 1)
        self.hint = QLabel(
            "Double-click a GPU (or select it and press Enter) to use it in this estimate. "
            "Each row is this estimate with only the GPU and its catalog prices changed.",
            self,
        )
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: palette(mid);")
        lay.addWidget(self.hint)

        self.rank_combo.currentIndexChanged.connect(self._fill)
        self.table.doubleClicked.connect(lambda index: self._adopt(index.row()))
        self.table.rowActivated.connect(self._adopt)
        self.use_button.clicked.connect(lambda: self._adopt(self.table.currentRow()))

    @property
    def ranked_by(self) -> str:
        return self.rank_combo.currentData()

    def set_ranked_by(self, key: str) -> None:
        self.rank_combo.setCurrentIndex(self.rank_combo.findData(key))

    def set_error(self, message: str) -> None:
        self.summary.setText(message)

    def set_comparisons(self, rows: Sequence[GpuComparison], catalog_name: str = "") -> None:
        self.comparisons = list(rows)
        self.catalog_name = catalog_name
        self.cheapest = cheapest_fitting(rows)
        self.fastest = fastest_fitting(rows)
        self._fill()

    def _fill(self, *_args) -> None:
        rows = self.comparisons
        ranked = rank_by_wall_clock(rows) if self.ranked_by == "wall_clock" else rank_by_cost(rows)
        self.rows = ranked
        cur = self.table.currentRow()
        current_id = self.rows[cur].gpu_id if 0 <= cur < len(self.rows) else None
        t = self.table
        t.setUpdatesEnabled(False)
        t.setRowCount(len(ranked))
        bold = QFont(t.font())
        bold.setBold(True)
        rank = 0
        for i, r in enumerate(ranked):
            marks = ""
            if r is self.cheapest:
                marks += "★"
            if r is self.fastest:
                marks += "»"
            if r.current:
                marks += "◀"
            if r.fits:
                rank += 1
            texts = row_texts(r, rank if r.fits else None, marks)
            tips = []
            if r is self.cheapest:
                tips.append("Cheapest GPU that fits (on-demand cost per run)")
            if r is self.fastest:
                tips.append("Fastest GPU that fits (held wall-clock)")
            if r.current:
                tips.append("This estimate's GPU")
            if r.origin:
                tips.append(f"From {origin_label(r.origin)}")
            tips += list(r.warnings)
            for j, text in enumerate(texts):
                item = QTableWidgetItem(text)
                if j in _NUMERIC:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if r is self.cheapest:
                    item.setFont(bold)
                if not r.fits:
                    item.setForeground(QBrush(GREY_TEXT))
                if j == COL_GPU and tips:
                    item.setToolTip("\n".join(tips))
                item.setData(Qt.ItemDataRole.UserRole, r.gpu_id)
                t.setItem(i, j, item)
        t.resizeColumnsToContents()
        builtin_only = all(r.origin in (None, BUILTIN_ORIGIN) for r in ranked)
        if t.isColumnHidden(COL_ORIGIN) != builtin_only:
            t.setColumnHidden(COL_ORIGIN, builtin_only)  # as the CLI: shown with a user catalog
            self._sized = False
        t.setUpdatesEnabled(True)
        self._size_splitter()
        if current_id is not None:
            for i, r in enumerate(ranked):
                if r.gpu_id == current_id:
                    t.selectRow(i)
                    break
        self.chart.set_rows(ranked, self.cheapest)
        self.summary.setText(self._summary())

    def _size_splitter(self) -> None:
        """Give the table the width its columns need (once), the chart the rest."""
        total = self.splitter.width()
        if self._sized or total < 600 or self.table.rowCount() == 0:
            return
        t = self.table
        vh = t.verticalHeader()
        need = (
            t.horizontalHeader().length()
            + (vh.width() if vh.isVisible() else 0)
            + t.verticalScrollBar().sizeHint().width()
            + 2 * t.frameWidth()
            + self.splitter.handleWidth()
        )
        chart = max(total - need, CHART_MIN_WIDTH)
        self.splitter.setSizes([total - chart, chart])
        self._sized = True

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._size_splitter()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._size_splitter()

    def _summary(self) -> str:
        n = len(self.comparisons)
        fit = sum(1 for r in self.comparisons if r.fits)
        cat = f" of catalog '{self.catalog_name}'" if getattr(self, "catalog_name", "") else ""
        parts = [f"{n} GPUs{cat}, {fit} fit."]
        if self.cheapest is not None:
            c = self.cheapest
            parts.append(
                f"★ Cheapest that fits: <b>{c.gpu_name}</b> × {c.num_gpus}, "
                f"{fmt_usd(c.on_demand_usd)} per run."
            )
        if self.fastest is not None:
            f = self.fastest
            parts.append(
                f"» Fastest: <b>{f.gpu_name}</b> × {f.num_gpus}, "
                f"{fmt_hours(f.wall_clock_s / SECONDS_PER_HOUR)}."
            )
        if self.cheapest is None:
            parts.append("No GPU fits at the current settings.")
        return " ".join(parts)

    def _adopt(self, row: int) -> None:
        if 0 <= row < len(self.rows):
            self.adoptRequested.emit(self.rows[row].spec)
