"""The 'all scenarios' memory chart (one stacked bar per scenario), and what it shares with the
cost plot (``scenario_cost_plot``: one curve per scenario): the scenarios' colours and short names.

Subclasses of the single-scenario plots, so they share axes, band, legend, hover and export.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontMetricsF
from PySide6.QtWidgets import QWidget

from ..core.results import MEMORY_PART_LABELS
from ..core.series import ScenarioSeries
from ..present.memory_texts import PLOT_TITLE_SCENARIOS
from .memory_plot import RANGE_BEAM, WIDTH, MemoryPlot, count_label_y
from .theme import Theme

# Okabe-Ito: distinct for colour-blind readers; past eight the line style changes too. INK is
# the theme's ink (black on paper, near-white on a dark palette). The curves are named in their
# legend; the memory bars are named on their axis (no colour swatch ties them: a swatch under a
# bar reads as one more memory part, and two of these colours are memory parts' colours).
INK = "ink"
SCENARIO_COLORS = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    INK,
    "#999933",
)


@contextmanager
def _once(obj: object, method: str) -> Iterator[None]:
    """Calls of ``obj.method()`` inside run once at the end (none asked: not at all).

    pyqtgraph lays the legend out again after each entry added (``LegendItem.updateSize``):
    quadratic in the entries added at once, which made opening 200 scenarios' charts take
    seconds."""
    asked: list[bool] = []
    setattr(obj, method, lambda: asked.append(True))  # the instance's attribute hides the method
    try:
        yield
    finally:
        delattr(obj, method)
        if asked:
            getattr(obj, method)()


def scenario_color(i: int, theme: Theme | None = None) -> str:
    color = SCENARIO_COLORS[i % len(SCENARIO_COLORS)]
    if color == INK:
        return theme.foreground if theme is not None else "#000000"
    return color


def short_name(name: str, limit: int = 18) -> str:
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


SEPARATORS = " ·-:–/|,"


def tick_labels(names: Sequence[str], limit: int) -> list[str]:
    """Short bar labels: a prefix the names share is dropped ('Plan · LoRA' → 'LoRA'); a name
    that is all prefix ('Plan' beside 'Plan · LoRA') keeps it."""
    labels = list(names)
    if len(names) > 1:
        prefix = names[0]
        for n in names[1:]:
            while not n.startswith(prefix):
                prefix = prefix[:-1]
        if prefix in names:
            stem = prefix
        else:  # cut back to a word boundary
            cut = max(prefix.rfind(c) for c in SEPARATORS)
            stem = prefix[: cut + 1] if cut > 0 else ""
        if stem:
            rest = [n[len(stem) :] for n in names]
            ok = all(r == "" or r[0] in SEPARATORS or stem[-1] in SEPARATORS for r in rest)
            rest = [r.strip(SEPARATORS) or n for r, n in zip(rest, names, strict=True)]
            ok = ok and not any(r.startswith("(") for r in rest)
            if ok and len(set(rest)) == len(rest):
                labels = rest
    return [short_name(n, limit) for n in labels]


TICK_GAP_PX = 2.0  # at least, between two bar names on the axis
# Bars closer than this: their error bars are thin, faint and capless (at 200 scenarios in a
# 1920 px window, 1.5 px whiskers with caps ~4 px apart merged into a black band that hid the
# "GPU memory" line's label); the range still reads as a band.
DENSE_BAR_PX = 6.0
DENSE_RANGE_ALPHA = 110


def tick_step(label_px: float, spacing_px: float) -> int:
    """Every how many bars a name (``label_px`` wide with its gap) is written, bars
    ``spacing_px`` apart: the least of 1, 2, 5, 10, 20, 50, … at which names never run into
    each other (at 40 scenarios in a 1024 × 700 window every bar's name overlapped the next)."""
    if spacing_px <= 0:
        return 1
    scale = 1
    while True:
        for step in (scale, 2 * scale, 5 * scale):
            if step * spacing_px >= label_px:
                return step
        scale *= 10


class ScenarioMemoryPlot(MemoryPlot):
    """One stacked bar of memory parts per scenario (to the device total), with the memory of
    each scenario's GPU."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        pi = self.plot_item
        pi.setTitle(PLOT_TITLE_SCENARIOS)
        pi.setLabel("bottom", "Scenario (▶ = selected)")
        self.plot_widget.setToolTip(
            "Each scenario's memory per GPU on its own GPU count (above each bar; ▶: the selected "
            "scenario); the error bar: "
            "its memory range, low (the data's longest row) to high (the allocator at its worst)."
        )
        self.usable_marks = pg.PlotDataItem([], [], connect="pairs")
        self.total_marks = pg.PlotDataItem([], [], connect="pairs")
        pi.addItem(self.usable_marks)
        pi.addItem(self.total_marks)
        self.names: tuple[str, ...] = ()
        self.tick_texts: list[str] = []
        # Per bar: ("N GPUs", "N", (selected mark, does-not-fit mark)); fitted to the spacing.
        self.count_texts: list[tuple[str, str, tuple[str, str]]] = []
        self._count_at: list[tuple[float, float]] = []  # per bar: where its count stands
        self._selected = -1
        self._widest: tuple[tuple[str, ...], str, float] = ((), "", 0.0)  # texts, font, px
        self._dense = False  # the error bars drawn as for bars closer than DENSE_BAR_PX
        self.usable_gib: list[float] = []
        self.view_box.sigResized.connect(self._fit_count_labels)
        self.restyle(self.theme)

    def restyle(self, theme: Theme) -> None:
        super().restyle(theme)
        if not hasattr(self, "usable_marks"):  # the base classes theme before the items exist
            return
        self.usable_marks.setPen(pg.mkPen(theme.bad, width=2.5))
        self.total_marks.setPen(pg.mkPen(theme.neutral, width=1.5, style=Qt.PenStyle.DashLine))
        if self._dense:  # (the base class styled them for bars apart)
            self._style_ranges()

    def _style_ranges(self) -> None:
        """The error bars as ``MemoryPlot`` draws them, or thin, faint and capless for bars
        closer than ``DENSE_BAR_PX``."""
        if self._dense:
            faint = QColor(self.theme.foreground)
            faint.setAlpha(DENSE_RANGE_ALPHA)
            self.range_bars.setData(pen=pg.mkPen(faint, width=1), beam=0)
        else:
            self.range_bars.setData(pen=pg.mkPen(self.theme.foreground, width=1.5), beam=RANGE_BEAM)

    def set_scenarios(self, series: ScenarioSeries) -> None:
        """One bar per scenario, each on its own GPUs; the same bars as last time draw nothing."""
        bars = series.memory
        if bars == self._bars:
            return
        self._bars = bars
        names, active = bars.keys, bars.active
        n = len(names)
        self.names = self.methods = tuple(names)
        self.current_method = names[active] if 0 <= active < n else ""
        x = np.arange(n, dtype=float)
        self.heights_gib = {part: list(bars.part(part)) for part in MEMORY_PART_LABELS}
        totals = self.stack.stack(x, [self.heights_gib[part] for part in self.bars], WIDTH)
        if 0 <= active < n:
            self.highlight.setOpts(
                x=[x[active]], height=[totals[active]], y0=[0.0], width=WIDTH + 0.08
            )
            self.highlight.setVisible(True)
        else:
            self.highlight.setVisible(False)
        usable = list(bars.usable_gib)
        capacity = list(bars.capacity_gib)
        self.usable_gib = usable
        same = len({round(u, 6) for u in usable}) == 1 and len({round(c, 6) for c in capacity}) == 1
        # The bars stack to the device total, which must fit the GPU's memory: a usable line
        # only where it is below that memory (it is not, since the reserve is a part).
        below = any(u < c - 1e-9 for u, c in zip(usable, capacity, strict=True))
        self.usable_line.setVisible(same and below)
        self.total_line.setVisible(same)
        if same:
            self.usable_line.setValue(usable[0])
            self.total_line.setValue(capacity[0])
            self.usable_marks.setData([], [])
            self.total_marks.setData([], [])
        else:
            half = WIDTH / 2 + 0.12
            xs = np.repeat(x, 2) + np.tile([-half, half], n)
            self.usable_marks.setData(xs if below else [], np.repeat(usable, 2) if below else [])
            self.total_marks.setData(xs, np.repeat(capacity, 2))
        marks = ((self.total_marks, "GPU memory (its GPU)"),) if not same else ()
        if not same and below:
            marks = ((self.usable_marks, "usable (its GPU)"), *marks)
        self.draw_ranges(bars, x, totals)
        self._show_legend(self.parts_drawn(), marks)
        self.gpus_needed = dict(zip(names, bars.gpus_needed, strict=True))
        self.count_texts = []
        self._count_at = []
        for i in range(n):
            used = bars.num_gpus[i]
            mark = ("▶ " if i == active else "", "" if bars.fits[i] else " ✗")
            self.count_texts.append((f"{used} GPU{'s' if used != 1 else ''}", str(used), mark))
            self._count_at.append((x[i], count_label_y(totals[i], bars.ranges_gib[i], capacity[i])))
        self._selected = active
        self._update_ticks()
        highs = [band[1] for band in bars.ranges_gib if band is not None]
        top = max(float(totals.max()) if n else 1.0, max(capacity, default=1.0), *highs) * 1.15
        # Room on the right for the legend (wider with the per-GPU marks), so it covers no bar.
        # Both at once: x alone would first fit y to every item (auto-range still on for y).
        self.plot_item.setRange(
            xRange=(-0.6, n + (0.9 if same else 1.5)), yRange=(0, top), padding=0
        )
        self._fit_count_labels()

    def _update_ticks(self) -> None:
        """Bar labels as long as the bar spacing allows (again on resize)."""
        n = len(self.names)
        if not n:
            return
        spacing = self.plot_widget.width() * 0.8 / (n + 1.5)
        self.tick_texts = tick_labels(self.names, max(6, int(max(40.0, spacing) / 6.5)))
        self._label_ticks()

    def _label_ticks(self, spacing_px: float | None = None) -> None:
        """A tick under every bar; its name under every ``tick_step``-th where the names would
        run into each other: the k-th, 2k-th, … bar's (scenarios numbered from 1 read 5, 10, 15;
        the first bar's name would stand past the axis' end, where pyqtgraph drops it)."""
        texts = tuple(self.tick_texts)
        if spacing_px is None:
            span = self.view_box.viewRect().width()
            spacing_px = self.view_box.width() / span if span > 0 else 0.0
        axis = self.plot_item.getAxis("bottom")
        font = axis.style["tickFont"] or axis.font()
        kept_texts, kept_font, widest = self._widest
        if kept_texts != texts or kept_font != font.key():  # measured once per names and font
            metrics = QFontMetricsF(font)
            widest = max((metrics.horizontalAdvance(t) for t in texts), default=0.0)
            self._widest = (texts, font.key(), widest)
        step = tick_step(widest + TICK_GAP_PX, spacing_px)
        ticks = [(float(i), t if (i + 1) % step == 0 else "") for i, t in enumerate(texts)]
        if ticks != self._ticks:  # new ticks: the axis is drawn again from scratch
            self._ticks = ticks
            axis.setTicks([ticks])

    def _fit_count_labels(self, *_args: object) -> None:
        """The GPU counts above the bars, as the bar spacing allows (again on resize): "▶ N GPUs"
        while it holds that, else the count alone (the selected bar keeps its outline); where
        not even that fits, the selected scenario's only (Compare lists every count). Labels
        never run into each other (12 scenarios at 1024 × 700 did)."""
        texts = self.count_texts
        view = self.view_box.viewRect()
        span = view.width()
        if span <= 0:
            return
        if not texts:
            for label in self.count_labels:
                label.setVisible(False)
            return
        spacing_px = self.view_box.width() / span  # the bars stand one x unit apart
        self._label_ticks(spacing_px)
        if (spacing_px < DENSE_BAR_PX) != self._dense:
            self._dense = not self._dense
            self._style_ranges()
        metrics = QFontMetricsF(self.count_labels[0].textItem.font())

        def fits(words: str) -> bool:
            return metrics.horizontalAdvance(words) + 4 <= spacing_px

        long_ok = all(fits(before + words + after) for words, _, (before, after) in texts)
        short_ok = long_ok or all(fits(n + after) for _, n, (_before, after) in texts)
        if short_ok:
            shown = list(range(len(texts)))
        else:
            shown = [self._selected] if 0 <= self._selected < len(texts) else []
        # Labels are made for the counts shown only (200 scenarios: one, not 200 text items).
        while len(self.count_labels) < len(shown):
            t = pg.TextItem("", color=self.theme.foreground, anchor=(0.5, 1.0))
            t.setFont(self.count_labels[0].textItem.font())
            self.plot_item.addItem(t)
            self.count_labels.append(t)
        for j, label in enumerate(self.count_labels):
            if j >= len(shown):
                label.setVisible(False)
                continue
            words, count, (before, after) = texts[shown[j]]
            # The count alone: the selected bar is marked by its outline, not a "▶ " too.
            text = before + words + after if long_ok else count + after
            label.setText(text)
            x, y = self._count_at[shown[j]]
            # Within the plot: the first or last of bars closer than the count is wide stands
            # its count beside its centre, not half past the axis (200 bars: "2" was cut).
            half = label.boundingRect().width() / 2 / spacing_px  # (its box: pixels)
            x = min(max(x, view.left() + half), max(view.right() - half, view.left() + half))
            label.setPos(x, y)
            label.setVisible(True)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._update_ticks()
