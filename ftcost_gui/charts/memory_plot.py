"""Memory floor vs VRAM: stacked memory parts per method to the device total (allocated parts,
allocator reserve, CUDA context: what nvidia-smi shows), with the GPU's memory as a line."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QGraphicsItem, QWidget

from ..core.results import MEMORY_PART_LABELS, OBJECTIVE_MEMORY_PARTS
from ..core.series import MemoryBars
from ..present.memory_texts import PLOT_AXIS, PLOT_LINE, PLOT_STACK, PLOT_TITLE_METHODS
from .base import PlotView
from .plot_label import PlotLabel
from .stacked_bars import BarPart, StackedBars
from .theme import Theme

SHORT = {
    "full_amp_adamw": "Full",
    "full_adamw_8bit": "8-bit Adam",
    "full_bf16_adamw": "bf16 full",
    "lora": "LoRA",
    "qlora": "QLoRA",
}
# Okabe-Ito-like palette plus two greys: distinct and colour-blind friendly.
PART_COLORS = {
    "weights": "#0072B2",
    "gradients": "#E69F00",
    "master": "#56B4E9",
    "optimizer": "#D55E00",
    "adapters": "#009E73",
    "activations": "#CC79A7",
    "logits": "#F0E442",
    "buffers": "#999999",
    "reserve": "#CCCCCC",  # allocator reserve: reserved − allocated
    "overhead": "#555555",
    # DPO/GRPO/PPO parts (core/alignment.py, core/rollout.py)
    "reference": "#882255",
    "critic": "#999933",
    "rollout_weights": "#332288",
    "kv_cache": "#88CCEE",
}
LEGEND_LABELS = {
    "weights": "Weights",
    "gradients": "Gradients",
    "master": "fp32 master",
    "optimizer": "Optimizer",
    "adapters": "Adapters",
    "activations": "Activations",
    "logits": "Logits & loss",
    "buffers": "Buffers",
    "reference": "Reference",
    "critic": "Reward/value",
    "rollout_weights": "vLLM weights",
    "kv_cache": "KV cache",
    "reserve": "Allocator reserve",
    "overhead": "CUDA context",
}
MAX_BARS = 5
LegendExtra = tuple[tuple[object, str], ...]  # (plot item, label) entries after the parts
WIDTH = 0.6
RANGE_BEAM = WIDTH * 0.4  # the error bars' caps, as wide as 40 % of a bar
LINE_CLEARANCE = 0.15  # a count label this close under the memory line goes above it


def count_label_y(total_gib: float, band: tuple[float, float] | None, line_gib: float) -> float:
    """Where a bar's GPU count sits: above its range's top (never over the error bar) and, when
    that is just under the GPU's memory line, above the line (never struck through by it)."""
    y = max(total_gib, band[1] if band is not None else total_gib)
    if line_gib * (1 - LINE_CLEARANCE) < y < line_gib:
        return line_gib
    return y


class Bars(pg.BarGraphItem):
    """``pg.BarGraphItem`` that remembers its bounding rectangle until its bars or the view's
    transform change: the scene asks for it ~50 times per edit, and pyqtgraph works out the
    pixel size (the pen's padding) anew each time."""

    def __init__(self, **opts):
        self._bounds: QRectF | None = None
        super().__init__(**opts)

    def setOpts(self, **opts) -> None:
        self._bounds = None
        super().setOpts(**opts)

    def viewTransformChanged(self) -> None:
        self._bounds = None  # a range change or resize: another pixel size
        super().viewTransformChanged()

    def boundingRect(self) -> QRectF:
        if self._bounds is None:
            self._bounds = super().boundingRect()
        return QRectF(self._bounds)


class MemoryPlot(PlotView):
    """Stacked memory parts of each method (core.series.MemoryBars: full / 8-bit / LoRA / QLoRA,
    and the current method when it is another), on the current GPU count."""

    SPARE_X_LABEL = True  # the ticks name the methods; the tooltip says what '*' is

    def __init__(self, parent: QWidget | None = None):
        # The legend sits below the plot so it never covers a bar, at any window width.
        super().__init__(PLOT_TITLE_METHODS, parent, legend_column=True)
        pi = self.plot_item
        pi.setLabel("left", PLOT_AXIS)
        pi.setLabel("bottom", "Method (* = current)")
        self.plot_widget.setToolTip(
            f"Each method's memory per GPU on the current scenario's GPU count: {PLOT_STACK}; "
            "* marks the current method; above each bar, the GPUs that method needs. The error "
            "bar on a bar: its memory range, low (no row longer than the data's longest "
            "sequence) to high (the allocator at its measured worst)."
        )
        pi.setMouseEnabled(x=False, y=False)
        # The parts are painted by one item (charts/stacked_bars.py), in this order.
        self.stack = StackedBars()
        pi.addItem(self.stack)
        self.bars: dict[str, BarPart] = {}
        for key in MEMORY_PART_LABELS:
            color = QColor(PART_COLORS[key])
            self.bars[key] = self.stack.add(
                x=[0], height=[0], y0=[0], width=WIDTH, brush=color,
                pen=pg.mkPen(self.theme.background, width=0.5),
            )  # fmt: skip
        self._legend_keys: tuple[str, ...] = ()
        self._legend_extra: LegendExtra = ()
        self._show_legend(tuple(k for k in MEMORY_PART_LABELS if k not in OBJECTIVE_MEMORY_PARTS))
        self.highlight = Bars(
            x=[0], height=[0], y0=[0], width=WIDTH + 0.08, brush=None,
            pen=pg.mkPen(self.theme.foreground, width=2.5, style=Qt.PenStyle.DashLine),
        )  # fmt: skip
        pi.addItem(self.highlight)
        # low – high of a bar's memory (core/ranges.py: the data's longest row, the allocator
        # at its measured worst), as an error bar on its top
        self.range_bars = pg.ErrorBarItem(
            x=np.zeros(0), y=np.zeros(0), beam=RANGE_BEAM,
            pen=pg.mkPen(self.theme.foreground, width=1.5),
        )  # fmt: skip
        pi.addItem(self.range_bars)
        # The lines' labels sit on the paper: with many bars the error bars ran through "GPU
        # memory 79.6 GiB" in the axes' colour ("All scenarios" at 12+ scenarios, 1024 px).
        self.usable_line = pg.InfiniteLine(
            angle=0, movable=False, pen=pg.mkPen(self.theme.bad, width=2),
            label="usable {value:.1f} GiB",
            labelOpts={
                "position": 0.97, "color": self.theme.bad, "anchors": [(1, 0), (1, 0)],
                "fill": self.theme.legend_brush(),
            },
        )  # fmt: skip
        self.total_line = pg.InfiniteLine(
            angle=0, movable=False,
            pen=pg.mkPen(self.theme.neutral, width=1.5, style=Qt.PenStyle.DashLine),
            label=PLOT_LINE,
            labelOpts={
                "position": 0.97, "color": self.theme.muted, "anchors": [(1, 1), (1, 1)],
                "fill": self.theme.legend_brush(),
            },
        )  # fmt: skip
        for line in (self.usable_line, self.total_line):
            # the label's paper behind its line: the box it fills reaches the line's stroke
            line.label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemStacksBehindParent)
        pi.addItem(self.usable_line)
        pi.addItem(self.total_line)
        font = QFont()
        font.setBold(True)
        self.count_labels: list[PlotLabel] = []
        for _ in range(MAX_BARS):
            t = PlotLabel("", color=self.theme.foreground, anchor=(0.5, 1.0))
            t.setFont(font)
            pi.addItem(t)
            self.count_labels.append(t)
        self.methods: tuple[str, ...] = ()
        self.heights_gib: dict[str, list[float]] = {}
        self.gpus_needed: dict[str, int | None] = {}
        self.current_method = ""
        self.ranges_gib: dict[str, tuple[float, float]] = {}
        self._bars: MemoryBars | None = None
        self._ticks: list[tuple[float, str]] = []

    def restyle(self, theme: Theme) -> None:
        if not hasattr(self, "count_labels"):  # the base class themes before the items exist
            return
        for item in self.bars.values():
            item.setOpts(pen=pg.mkPen(theme.background, width=0.5))
        self.highlight.setOpts(
            pen=pg.mkPen(theme.foreground, width=2.5, style=Qt.PenStyle.DashLine)
        )
        self.usable_line.setPen(pg.mkPen(theme.bad, width=2))
        self.usable_line.label.setColor(theme.bad)
        self.total_line.setPen(pg.mkPen(theme.neutral, width=1.5, style=Qt.PenStyle.DashLine))
        self.total_line.label.setColor(theme.muted)
        for line in (self.usable_line, self.total_line):
            line.label.fill = pg.mkBrush(theme.legend_brush())
            line.label.update()
        for label in self.count_labels:
            label.setColor(theme.foreground)
        self.range_bars.setData(pen=pg.mkPen(theme.foreground, width=1.5))

    def _show_legend(self, keys: tuple[str, ...], extra: LegendExtra = ()) -> None:
        """The legend: the memory parts ``keys``, then ``extra`` (item, label) entries."""
        if (keys, extra) == (self._legend_keys, self._legend_extra):
            return
        self._legend_keys, self._legend_extra = keys, extra
        parts = [(self.bars[k], LEGEND_LABELS.get(k, MEMORY_PART_LABELS[k])) for k in keys]
        self.show_legend([*parts, *extra])

    def set_bars(self, bars: MemoryBars) -> None:
        """Draw one stacked bar per method; the same bars as last time draw nothing."""
        if bars == self._bars:
            return
        self._bars = bars
        methods = bars.keys
        method = methods[bars.active]
        self.methods = methods
        self.current_method = method
        x = np.arange(len(methods), dtype=float)
        self.heights_gib = {key: list(bars.part(key)) for key in MEMORY_PART_LABELS}
        # a part an edit left alone is not given its bars again
        totals = self.stack.stack(x, [self.heights_gib[k] for k in self.bars], WIDTH)
        self.draw_ranges(bars, x, totals)
        self._show_legend(self.parts_drawn())
        idx = bars.active
        self.highlight.setOpts(x=[x[idx]], height=[totals[idx]], y0=[0.0], width=WIDTH + 0.08)
        usable = bars.usable_gib[idx]
        total = bars.capacity_gib[idx]
        self.usable_line.setValue(usable)
        # The bars stack to the device total (allocator reserve and CUDA context included), which
        # must fit the GPU's memory: the usable line coincides with the total line then.
        self.usable_line.setVisible(usable < total - 1e-9)
        self.total_line.setValue(total)
        self.gpus_needed = dict(zip(methods, bars.gpus_needed, strict=True))
        for i, label in enumerate(self.count_labels):
            if i < len(methods):
                n = self.gpus_needed[methods[i]]
                text = f"{n} GPU{'s' if n != 1 else ''}" if n is not None else "n/a"
                if methods[i] == method:
                    text = f"▶ {text}"
                if label.toPlainText() != text:  # (setting it again lays its text out again)
                    label.setText(text)
                label.setPos(x[i], count_label_y(totals[i], bars.ranges_gib[i], total))
                label.setVisible(True)
            else:
                label.setVisible(False)
        ticks = [(float(i), SHORT[m] + ("*" if m == method else "")) for i, m in enumerate(methods)]
        if ticks != self._ticks:  # new ticks: the axis is drawn again from scratch
            self._ticks = ticks
            self.plot_item.getAxis("bottom").setTicks([ticks])
        # Headroom above the total line for its label (it sits above the line, usable below).
        highs = [band[1] for band in bars.ranges_gib if band is not None]
        top = max(float(totals.max()), total, *highs) * 1.2
        # Both at once (one pass of the view's range over its items, as in the cost plot).
        self.plot_item.setRange(xRange=(-0.6, len(methods) - 0.4), yRange=(0, top), padding=0)

    def draw_ranges(self, bars: MemoryBars, x: np.ndarray, totals: np.ndarray) -> None:
        """An error bar from low to high on each bar that has a range (explained in the plot's
        tooltip, not the legend: one more legend row cuts the plot at 1024×700)."""
        ranged = [i for i, band in enumerate(bars.ranges_gib) if band is not None]
        self.ranges_gib = {bars.keys[i]: bars.ranges_gib[i] for i in ranged}  # type: ignore[misc]
        if not ranged:
            self.range_bars.setData(x=np.zeros(0), y=np.zeros(0))
            return
        lo = np.array([bars.ranges_gib[i][0] for i in ranged])  # type: ignore[index]
        hi = np.array([bars.ranges_gib[i][1] for i in ranged])  # type: ignore[index]
        y = totals[ranged]
        self.range_bars.setData(
            x=x[ranged], y=y, top=np.maximum(hi - y, 0.0), bottom=np.maximum(y - lo, 0.0)
        )

    def parts_drawn(self) -> tuple[str, ...]:
        """The legend lists the parts some bar has: SFT keeps its nine, RL adds its own."""
        return tuple(k for k in self.bars if any(self.heights_gib[k]))

    def totals_gib(self) -> list[float]:
        return [
            sum(self.heights_gib[k][i] for k in self.heights_gib) for i in range(len(self.methods))
        ]
