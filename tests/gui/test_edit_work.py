"""The work one edit does in the window (issue 17): counted, never timed.

Legend entries made when a part leaves the memory legend and comes back (CPU offload off and
on), plot paints per edit, cells painted in the Compare table after an edit of the baseline.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtWidgets import QApplication

from ftcost_gui.charts.memory_plot import LEGEND_LABELS, WIDTH

from .counting import record_calls


@pytest.fixture
def labels_made(monkeypatch):
    """LabelItems constructed anywhere (each legend entry is one)."""
    made = {"n": 0}
    init = pg.LabelItem.__init__

    def counting_init(self, *args, **kwargs):
        made["n"] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(pg.LabelItem, "__init__", counting_init)
    return made


def _legend_texts(plot) -> list[str]:
    return [label.text for _sample, label in plot.legend.items]


def test_the_cpu_offload_box_reuses_the_memory_legends_entries(window, labels_made):
    """Offloading the optimizer takes its parts out of the bars and the legend; switching it
    back lists them again. The entries are made the first time only: the legend was cleared and
    nine label items made again on every toggle (~15–45 ms of a check box's 80 ms)."""
    plot = window.charts.memory_plot
    box = window.form_tabs.panels["training"].editor("training", "cpu_offload_optimizer")
    assert not box.isChecked()
    before = _legend_texts(plot)
    texts = {}
    for rounds in range(3):
        for checked in (True, False):
            if rounds == 1:
                labels_made["n"] = 0
            box.setChecked(checked)
            QApplication.processEvents()
            texts.setdefault(checked, _legend_texts(plot))
            assert _legend_texts(plot) == texts[checked]
            shown = [label for _s, label in plot.legend.items]
            assert all(label.isVisible() for label in shown)
            hidden = [e for e in plot._legend_entries.values() if e[1] not in shown]
            assert not any(sample.isVisible() or label.isVisible() for sample, label in hidden)
        if rounds == 1:
            assert labels_made["n"] == 0  # toggled off and on again: no new legend entry
    assert texts[False] == before
    offloaded = set(before) - set(texts[True])
    assert offloaded and offloaded <= {LEGEND_LABELS["optimizer"], LEGEND_LABELS["master"]}
    # Laid out as LegendItem.addItem lays entries out: in order, row by row.
    cols = plot.legend.columnCount
    layout = plot.legend.layout
    for i, (sample, label) in enumerate(plot.legend.items):
        assert layout.itemAt(i // cols, 2 * (i % cols)) is sample
        assert layout.itemAt(i // cols, 2 * (i % cols) + 1) is label


@pytest.fixture
def cells_painted(monkeypatch):
    """(row, column) of each Compare cell painted (patched before the window is built)."""
    from ftcost_gui.gui.compare_table import TwoLineDelegate

    painted: list[tuple[int, int]] = []
    paint = TwoLineDelegate.paint

    def counting_paint(self, painter, option, index):
        painted.append((index.row(), index.column()))
        paint(self, painter, option, index)

    monkeypatch.setattr(TwoLineDelegate, "paint", counting_paint)
    return painted


def _scenarios(inputs, n: int):
    from ftcost_gui.core.document import EstimateDocument, Scenario

    tokens = inputs.data.total_tokens
    return EstimateDocument(
        scenarios=tuple(
            Scenario(name=f"S{i}", inputs=inputs.edited("data", total_tokens=tokens * (1 + i / 16)))
            for i in range(n)
        )
    )


def _words(model, columns) -> dict[tuple[int, int], tuple[tuple[str, str], bool]]:
    return {
        (row, col): (model.text(row, col), model.is_best(row, col))
        for col in columns
        for row in range(model.rowCount())
    }


def test_an_edit_of_the_baseline_repaints_the_cells_whose_words_changed(cells_painted, window):
    """An edit of the baseline moves every delta, but a small one leaves most cells on screen
    reading the same: those are not painted again (before: every cell on screen, ~350 at
    1920 px with 200 scenarios, ~170 µs each)."""
    store = window.store
    assert store.inputs.data.mode == "tokens"
    window.resize(1920, 1080)  # columns as wide as their lines: ~10 on screen
    store.set_document(_scenarios(store.inputs, 40))
    window.results.show_tab(window.results.compare)
    QApplication.processEvents()
    QApplication.processEvents()  # (the first paint measures the lines and widens the columns)
    view = window.results.compare
    table = view.table
    shown = range(table.columnAt(0), table.columnAt(table.viewport().width() - 1) + 1)
    assert 8 < len(shown) < 40  # more than a few columns on screen, not all
    for factor in (1.2, 1.3):  # the first after the tab lays it out; the columns widen to
        store.set_field("data", "total_tokens", store.inputs.data.total_tokens * factor)
        store.recompute_now()  # the wider deltas of larger edits
        QApplication.processEvents()
    for factor in (1.2, 1.01, 1.0001, 1.0002, 1.0001):
        before = _words(view.model, shown)
        cells_painted.clear()
        store.set_field("data", "total_tokens", store.inputs.data.total_tokens * factor)
        store.recompute_now()
        QApplication.processEvents()
        after = _words(view.model, shown)
        # (a wider line than any before widens the columns: the last may leave the screen)
        on_screen = range(table.columnAt(0), table.columnAt(table.viewport().width() - 1) + 1)
        changed = {c for c in after if after[c] != before[c] and c[1] in on_screen}
        painted = set(cells_painted)
        assert changed <= painted  # every cell whose words changed is painted …
        if factor == 1.2:
            continue
        if len(changed) < 0.9 * len(after):  # … and, unless nearly all did, only those
            assert painted == changed, (len(painted), len(changed))
        else:
            assert len(painted) >= len(changed)
    assert 0 < len(changed) < len(after) / 2  # the last, small edit: a few cells


@pytest.fixture
def plot_calls(monkeypatch):
    """Bars given data (the memory parts: by their stack), axis ticks set, text items given
    text (the memory plot's work)."""
    from ftcost_gui.charts.stacked_bars import BarPart

    calls = {"bars": [], "ticks": 0, "texts": 0}
    set_opts, set_ticks = pg.BarGraphItem.setOpts, pg.AxisItem.setTicks
    set_text, take = pg.TextItem.setText, BarPart.take

    def counting_opts(self, **opts):
        if "height" in opts:
            calls["bars"].append(self)
        set_opts(self, **opts)

    def counting_take(self, rects, bounds, **opts):
        calls["bars"].append(self)
        take(self, rects, bounds, **opts)

    def counting_ticks(self, ticks):
        calls["ticks"] += 1
        set_ticks(self, ticks)

    def counting_text(self, text, color=None):
        calls["texts"] += 1
        set_text(self, text, color)

    monkeypatch.setattr(pg.BarGraphItem, "setOpts", counting_opts)
    monkeypatch.setattr(BarPart, "take", counting_take)
    monkeypatch.setattr(pg.AxisItem, "setTicks", counting_ticks)
    monkeypatch.setattr(pg.TextItem, "setText", counting_text)
    return calls


def test_a_sequence_length_edit_redraws_only_the_memory_parts_it_changed(window, plot_calls):
    """Longer sequences change the activations (and what stacks above them), not the weights
    under them, the methods on the axis or the GPU counts: those items are left alone (each
    BarGraphItem given data is re-measured and repainted; new ticks redraw the whole axis)."""
    store, plot = window.store, window.charts.memory_plot
    weights = plot.bars["weights"]
    store.set_field("data", "max_seq_len", store.inputs.data.max_seq_len + 512)
    store.recompute_now()
    QApplication.processEvents()
    counts = dict(plot.gpus_needed)
    heights = {k: list(v) for k, v in plot.heights_gib.items()}
    for key in plot_calls:
        plot_calls[key] = [] if key == "bars" else 0
    store.set_field("data", "max_seq_len", store.inputs.data.max_seq_len + 512)
    store.recompute_now()
    QApplication.processEvents()
    assert plot.gpus_needed == counts  # the same GPU counts: no label text set again
    changed = [k for k in heights if plot.heights_gib[k] != heights[k]]
    assert "activations" in changed and "weights" not in changed
    redrawn = set(plot_calls["bars"]) - {plot.highlight}
    assert weights not in redrawn
    # Only the parts whose height changed and those stacked above them (their base moved).
    order = list(plot.bars)
    first = min(order.index(k) for k in changed)
    below = {plot.bars[k] for k in order[:first]}
    assert below and not redrawn & below
    assert {plot.bars[k] for k in changed} <= redrawn
    assert plot_calls["ticks"] == 0 and plot_calls["texts"] == 0


@pytest.fixture
def plot_paints(monkeypatch):
    """Paint events of each plot view, by the plot's object name (patched before the window)."""
    paints: list[str] = []
    paint_event = pg.GraphicsView.paintEvent

    def counting_paint(self, event):
        paints.append(self.parent().objectName())
        return paint_event(self, event)

    monkeypatch.setattr(pg.GraphicsView, "paintEvent", counting_paint)
    return paints


def test_an_edit_that_resizes_the_plots_paints_each_once(plot_paints, window):
    """When an edit changes the headline's height the plots are resized with it: each is laid
    out and painted once (the first plot settled used to paint the window, the other plot's
    changes not yet processed, and that plot painted a second time)."""
    store = window.store
    for step in range(3):
        window.resize(1200, 800 - 20 * (step + 1))  # as a taller headline: shorter plots
        plot_paints.clear()
        store.set_field("data", "max_seq_len", store.inputs.data.max_seq_len + 512)
        store.recompute_now()
        QApplication.processEvents()
        assert sorted(plot_paints) == ["cost_plot", "memory_plot"], step


def test_the_memory_bars_bounds_are_worked_out_once_per_change(window, monkeypatch):
    """The scene asks the bars for their bounding rectangle dozens of times per edit; they are
    worked out (pixel size and all) only when the bars or the view's transform changed, and
    what is remembered is what would be worked out now — after edits and resizes. The parts'
    item (charts/stacked_bars.py) bounds every part's bars with half its pen in pixels."""
    from ftcost_gui.charts.memory_plot import Bars

    plot = window.charts.memory_plot
    stack = plot.stack
    store = window.store
    worked = {"n": 0}
    bounds = pg.BarGraphItem.boundingRect

    def counting(item):
        worked["n"] += 1
        return bounds(item)

    monkeypatch.setattr(pg.BarGraphItem, "boundingRect", counting)
    box = window.form_tabs.panels["training"].editor("training", "cpu_offload_optimizer")
    for i, edit in enumerate(
        [
            lambda: store.set_field("data", "max_seq_len", 2560),
            lambda: box.setChecked(not box.isChecked()),
            lambda: window.resize(window.width() - 40, window.height() - 30),
            lambda: store.set_field("efficiency", "mfu", 0.37),
            lambda: box.setChecked(not box.isChecked()),
            lambda: store.set_field("data", "max_seq_len", 4096),
        ]
    ):
        worked["n"] = 0
        measured = stack.measured
        edit()
        store.recompute_now()
        QApplication.processEvents()
        assert worked["n"] <= 3, i  # the highlight's (pyqtgraph's: ~50 per edit)
        assert stack.measured - measured <= 3, i
        assert Bars.boundingRect(plot.highlight) == bounds(plot.highlight), i
        shown = stack.boundingRect()
        assert shown == stack._measure(), i
        pad_x, pad_y = (v.length() * 0.25 for v in stack.pixelVectors())  # half of 0.5 px
        for part in plot.bars.values():
            x, height, y0 = (np.asarray(part.opts[k], dtype=float) for k in ("x", "height", "y0"))
            drawn = QRectF(
                float(x.min()) - WIDTH / 2 - pad_x,
                float(y0.min()) - pad_y,
                float(x.max() - x.min()) + WIDTH + 2 * pad_x,
                float((y0 + height).max() - y0.min()) + 2 * pad_y,
            )
            assert shown.contains(drawn.adjusted(1e-9, 1e-9, -1e-9, -1e-9)), (i, part)


@pytest.fixture
def bar_work(monkeypatch):
    """Paints of the memory parts' item, part paints, its geometry changes (patched before the
    window: the scene's calls into the items go to the methods of their classes then)."""
    from ftcost_gui.charts.stacked_bars import StackedBars

    work: dict[str, list] = {"painted": [], "parts": [], "geometry": []}
    paint, part_paint = StackedBars.paint, pg.BarGraphItem.paint
    change = StackedBars.prepareGeometryChange

    def counting_paint(self, p, *args):
        work["painted"].append(self)
        paint(self, p, *args)

    def counting_part_paint(self, p, *args):
        work["parts"].append(self)
        part_paint(self, p, *args)

    def counting_change(self):
        work["geometry"].append(self)
        change(self)

    monkeypatch.setattr(StackedBars, "paint", counting_paint)
    monkeypatch.setattr(pg.BarGraphItem, "paint", counting_part_paint)
    monkeypatch.setattr(StackedBars, "prepareGeometryChange", counting_change)
    return work


def test_the_memory_parts_are_one_item_painted_once_a_paint(bar_work, plot_paints, window):
    """The 14 memory parts are painted by one scene item, in their order (charts/
    stacked_bars.py): each paint of the plot paints it once, and an edit that changes the bars
    changes its geometry once (and once per change of the view's transform), where each part
    was an item painted, re-measured and re-bounded by the scene (14 paints per paint)."""
    plot, store = window.charts.memory_plot, window.store
    scene = plot.plot_widget.scene()
    assert [i for i in scene.items() if isinstance(i, pg.BarGraphItem)] == [plot.highlight]
    assert plot.stack.scene() is scene and plot.stack.parts == list(plot.bars.values())
    assert all(part.scene() is None for part in plot.bars.values())
    box = window.form_tabs.panels["training"].editor("training", "cpu_offload_optimizer")
    for i, edit in enumerate(
        [
            lambda: store.set_field("data", "max_seq_len", 2560),
            lambda: store.set_field("data", "max_seq_len", 3584),
            lambda: box.setChecked(not box.isChecked()),
        ]
    ):
        for done in bar_work.values():
            done.clear()
        plot_paints.clear()
        edit()
        store.recompute_now()
        QApplication.processEvents()
        paints = plot_paints.count("memory_plot")
        assert paints >= 1 and bar_work["painted"] == [plot.stack] * paints, i
        # Every part painted by it, in order (the highlight: its own item, after).
        assert bar_work["parts"] == [*plot.bars.values(), plot.highlight] * paints, i
        # One for the bars' new data, one per change of the view's transform (its range; its
        # size when the legend below it gains a row): each part had each.
        assert 1 <= len(bar_work["geometry"]) <= 3, i


def test_a_part_hidden_from_its_legend_sample_is_not_painted(window):
    """A click on a memory part's legend sample hides that part's bars and shows them again,
    as when each part was its own item."""
    plot = window.charts.memory_plot
    sample = next(s for s, _label in plot.legend.items if s.item is plot.bars["weights"])

    class Click:
        def button(self):
            return Qt.MouseButton.LeftButton

        def accept(self):
            pass

    sample.mouseClickEvent(Click())
    assert not plot.bars["weights"].isVisible()
    painted = []
    paint = pg.BarGraphItem.paint
    pg.BarGraphItem.paint = lambda self, p, *a: (painted.append(self), paint(self, p, *a))
    try:
        plot.plot_widget.grab()
        assert plot.bars["weights"] not in painted and plot.bars["gradients"] in painted
        sample.mouseClickEvent(Click())
        painted.clear()
        plot.plot_widget.grab()
        assert plot.bars["weights"] in painted
    finally:
        pg.BarGraphItem.paint = paint


def test_the_cost_plots_lines_take_data_without_a_data_item(window, monkeypatch):
    """The cost plot's four lines are the curves pyqtgraph's PlotDataItem would paint, given
    their data directly: ``PlotDataItem.setData`` cost ~270 µs a call around the curve's ~35,
    four calls an edit that moves the curves."""
    calls = {"data_item": 0}
    set_data = pg.PlotDataItem.setData

    def counting(self, *args, **kwargs):
        calls["data_item"] += 1
        set_data(self, *args, **kwargs)

    monkeypatch.setattr(pg.PlotDataItem, "setData", counting)
    plot = window.charts.cost_plot
    lines = (plot.od_curve, plot.spot_curve, plot.range_low, plot.range_high)
    before = [line.getData()[1].copy() for line in lines if line.getData()[1] is not None]
    window.store.set_field("data", "max_seq_len", 8192)
    window.store.recompute_now()
    QApplication.processEvents()
    assert calls["data_item"] == 0
    assert all(isinstance(line, pg.PlotCurveItem) for line in lines)
    after = [line.getData()[1] for line in lines if line.getData()[1] is not None]
    assert len(after) >= 2 and any(
        len(a) != len(b) or (a != b).any() for a, b in zip(before, after, strict=False)
    )


@pytest.fixture
def labels_resized(monkeypatch):
    """The text of each pyqtgraph label resized (patched before the window is built)."""
    return record_calls(monkeypatch, pg.LabelItem, "resizeEvent", lambda label, _e: label.text)


def test_the_cpu_offload_box_lays_each_legend_label_out_once(labels_resized, window):
    """Offloading the optimizer takes two parts out of the memory legend (a row fewer, a taller
    plot). The legend's labels are laid out once, at the size the plot's layout gives the
    legend: pyqtgraph's ``LegendItem.updateSize`` first set sizes of its own, from the labels'
    sizes as last laid out, and each label was resized at each (two or three times a toggle)."""
    plot = window.charts.memory_plot
    box = window.form_tabs.panels["training"].editor("training", "cpu_offload_optimizer")
    legend_heights = set()
    for width in (1440, 1024):
        window.resize(width, 800)
        QApplication.processEvents()
        for checked in (True, False, True, False):
            labels_resized.clear()
            box.setChecked(checked)
            QApplication.processEvents()
            legend_heights.add(plot.legend.geometry().height())
            shown = [label.text for _sample, label in plot.legend.items]
            counts = {text: labels_resized.count(text) for text in shown}
            assert max(counts.values()) <= 1, counts
            # The legend has the height the plot's layout gives it: its entries' rows.
            hint = plot.legend.effectiveSizeHint(Qt.SizeHint.PreferredSize).height()
            assert plot.legend.geometry().height() == hint
    assert len(legend_heights) >= 2  # a row fewer with the optimizer offloaded


def test_the_memory_legend_stays_below_the_plot_after_edits_while_hidden(window):
    """A window resized just before the plots are hidden ('All scenarios' shown), edits while
    they are hidden, then the plots shown again: the memory legend is in its row under the plot.
    It was drawn at the top, over the title and the bars: ``LegendItem.updateSize`` set its
    geometry at (0, 0) while the plot was hidden, and the plot's layout did not place it again."""
    store = window.store
    charts = window.charts
    plot = charts.memory_plot
    box = window.form_tabs.panels["training"].editor("training", "cpu_offload_optimizer")
    window.resize(window.width() - 37, window.height() - 23)
    QApplication.processEvents()
    window.resize(window.width() + 37, window.height() + 23)  # not yet laid out when hidden:
    store.duplicate_scenario()
    charts.set_mode("scenarios")
    QApplication.processEvents()
    for checked in (True, False):
        box.setChecked(checked)
        QApplication.processEvents()
    charts.set_mode("method")
    QApplication.processEvents()
    legend, item = plot.legend.geometry(), plot.plot_item.geometry()
    assert legend.top() >= item.bottom()  # in its row, under the plot
    assert legend.height() == plot.legend.effectiveSizeHint(Qt.SizeHint.PreferredSize).height()


def test_a_sequence_length_edited_back_draws_the_axes_specs_it_had(plot_paints, window, specs_made):
    """Edited back and forth, a sequence length brings back each plot's y range: the left
    axes draw the ticks and labels worked out for it before (charts/axis.py), and each plot
    paints once per edit."""
    made = specs_made
    store, paints = window.store, plot_paints
    lengths = (3072, 4608)  # (the window starts at neither)
    for step in range(6):
        made.clear()
        paints.clear()
        store.set_field("data", "max_seq_len", lengths[step % 2])
        store.recompute_now()
        QApplication.processEvents()
        assert sorted(paints) == ["cost_plot", "memory_plot"], step
        if step >= 2:  # both ranges shown once: nothing worked out again
            assert made == [], step


def test_the_stacked_parts_bars_are_the_ones_pyqtgraph_works_out(window):
    """The parts' rectangles and data bounds, worked out for all parts in one pass, are bit for
    bit the ones ``BarGraphItem.setOpts`` works out from each part's options."""
    plot, store = window.charts.memory_plot, window.store
    for field, value in [
        ("max_seq_len", 3584),
        ("max_seq_len", 16384),
        ("method", "full_bf16_adamw"),  # five bars
        ("cpu_offload_optimizer", True),
    ]:
        section = "data" if field == "max_seq_len" else "training"
        store.set_field(section, field, value)
        store.recompute_now()
        QApplication.processEvents()
        for key, part in plot.bars.items():
            opts = {k: part.opts[k] for k in ("x", "height", "y0", "width")}
            made = pg.BarGraphItem(**opts)
            assert np.array_equal(made._rectarray.ndarray(), part._rectarray.ndarray()), key
            assert made._dataBounds == part._dataBounds, key
