"""The "All scenarios" memory chart's GPU counts above the bars never run into each other: "N GPUs"
while the bar spacing holds it, the count alone when not, the selected scenario's only when not
even that fits (seen at 12 scenarios in a 1024 × 700 window: "2 GPUs" twelve times overlapped)."""

from __future__ import annotations

import itertools
import statistics

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QApplication

from ftcost_gui.core.document import EstimateDocument, Scenario


def _document(inputs, n: int) -> EstimateDocument:
    return EstimateDocument(
        scenarios=tuple(
            Scenario(name=f"S{i}", inputs=inputs.edited("efficiency", mfu=0.2 + 0.5 * i / n))
            for i in range(n)
        ),
        active=n - 1,
    )


def _shown_labels(window, n):
    window.store.set_document(_document(window.store.inputs, n))
    window.results.show_tab(window.charts)
    window.charts.set_mode("scenarios")
    QApplication.processEvents()
    memory = window.charts.scenario_plots[0]
    shown = [t for t in memory.count_labels if t.isVisible()]
    return memory.count_labels, sorted(shown, key=lambda t: t.pos().x())


def _overlaps(shown) -> int:
    boxes = [t.mapRectToScene(t.boundingRect()) for t in shown]
    return sum(a.intersects(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


@pytest.mark.parametrize(("size", "n"), [((1920, 1080), 3), ((1024, 700), 12), ((1024, 700), 60)])
def test_the_gpu_counts_above_the_bars_never_overlap(window, size, n):
    window.resize(*size)
    window.show()
    labels, shown = _shown_labels(window, n)
    assert _overlaps(shown) == 0
    texts = [t.textItem.toPlainText() for t in shown]
    assert shown[-1].pos().x() == n - 1  # the selected (last) scenario's count always shows
    if n == 3:  # room: the long form, the selected one marked
        assert texts == ["2 GPUs", "2 GPUs", "▶ 2 GPUs"]
    elif n == 12:  # the count alone, on every bar
        assert len(shown) == n and set(texts) == {"2"}
    else:  # not even the count fits 60 bars: the selected scenario's only, one text item made
        assert texts == ["2"] and len(labels) < 10


def test_the_counts_follow_a_resize(window):
    window.resize(1024, 700)
    window.show()
    labels, shown = _shown_labels(window, 8)
    assert {t.textItem.toPlainText() for t in shown} == {"2"}
    window.resize(1920, 1080)
    QApplication.processEvents()
    shown = sorted((t for t in labels if t.isVisible()), key=lambda t: t.pos().x())
    assert len(shown) == 8 and _overlaps(shown) == 0
    assert shown[-1].textItem.toPlainText() == "▶ 2 GPUs"


# --- the bar names under the axis, and the error bars of dense bars ------------------------------
STEPS = (1, 2, 5, 10, 20, 50, 100)


def _bar_names(window, n: int, size):
    window.resize(*size)
    window.show()
    _shown_labels(window, n)
    memory = window.charts.scenario_plots[0]
    axis = memory.plot_item.getAxis("bottom")
    ticks = dict(axis._tickLevels[0])  # value -> text, as set (pyqtgraph's own store)
    metrics = QFontMetricsF(axis.style["tickFont"] or axis.font())
    vb = memory.view_box
    # each bar's name as drawn: centred under its bar, its width in pixels
    boxes = {
        i: (vb.mapViewToScene(QPointF(i, 0)).x(), metrics.horizontalAdvance(memory.tick_texts[i]))
        for i in range(n)
    }
    return memory, ticks, boxes


def _overlap(boxes, shown) -> bool:
    spans = sorted((x - w / 2, x + w / 2) for x, w in (boxes[i] for i in shown))
    return any(b[0] < a[1] for a, b in itertools.pairwise(spans))


@pytest.mark.parametrize(
    ("size", "n"),
    [((1920, 1080), 3), ((1024, 700), 12), ((1024, 700), 40), ((1920, 1080), 200)],
)
def test_the_bar_names_never_run_into_each_other(window, size, n):
    memory, ticks, boxes = _bar_names(window, n, size)
    assert sorted(ticks) == [float(i) for i in range(n)]  # every bar keeps its tick
    shown = [i for i in range(n) if ticks[float(i)]]
    assert all(ticks[float(i)] == memory.tick_texts[i] for i in shown)
    step = next(k for k in STEPS if shown == [i for i in range(n) if (i + 1) % k == 0])
    assert not _overlap(boxes, shown)
    if step > 1:  # the names are thinned no more than they must be
        finer = STEPS[STEPS.index(step) - 1]
        assert _overlap(boxes, [i for i in range(n) if (i + 1) % finer == 0])
    if n == 3:
        assert step == 1
    if n == 200:
        assert step >= 5


def test_dense_bars_draw_faint_capless_error_bars(window):
    from ftcost_gui.charts.memory_plot import RANGE_BEAM

    memory, _ticks, _boxes = _bar_names(window, 200, (1920, 1080))
    opts = memory.range_bars.opts
    assert opts["beam"] == 0 and opts["pen"].color().alpha() < 255 and opts["pen"].widthF() == 1
    memory.restyle(memory.theme)  # a palette change keeps the look of dense bars
    assert memory.range_bars.opts["beam"] == 0
    _shown_labels(window, 12)  # bars apart: as the method chart draws them
    opts = memory.range_bars.opts
    assert opts["beam"] == RANGE_BEAM and opts["pen"].widthF() == 1.5
    assert opts["pen"].color().alpha() == 255


@pytest.mark.parametrize("active", [0, 199])
def test_the_selected_count_of_dense_bars_stands_inside_the_plot(window, active):
    window.resize(1920, 1080)
    window.show()
    doc = _document(window.store.inputs, 200)
    window.store.set_document(doc.model_copy(update={"active": active}))
    window.results.show_tab(window.charts)
    window.charts.set_mode("scenarios")
    QApplication.processEvents()
    memory = window.charts.scenario_plots[0]
    shown = [t for t in memory.count_labels if t.isVisible()]
    assert [t.textItem.toPlainText() for t in shown] == ["2"]  # the selected bar's only
    box = shown[0].mapRectToScene(shown[0].boundingRect())
    plot = memory.view_box.mapRectToScene(memory.view_box.boundingRect())
    assert plot.left() <= box.left() and box.right() <= plot.right()  # not cut by an axis
    assert abs(shown[0].pos().x() - active) < 5  # beside its bar


def _lightness_in(memory, item) -> list[int]:
    """The lightness (0-255) of the plot's pixels across the middle half of ``item``'s box (its
    text's line; the GPU counts above the bars may reach into the box's top margin)."""
    view = memory.plot_widget
    box = view.mapFromScene(item.mapRectToScene(item.boundingRect())).boundingRect()
    box = box.adjusted(3, box.height() // 4, -3, -box.height() // 4)
    image = view.grab().toImage()
    return [
        image.pixelColor(x, y).lightness()
        for x in range(max(box.left(), 0), min(box.right(), image.width() - 1))
        for y in range(max(box.top(), 0), min(box.bottom(), image.height() - 1))
    ]


@pytest.mark.parametrize("dark", [False, True])
def test_the_gpu_memory_label_reads_over_the_error_bars(window, dark):
    # At 12 and 40 scenarios in a 1024 × 700 window the error bars of the last bars ran through
    # "GPU memory 79.6 GiB" in the axes' colour: the label now sits on the paper.
    from ftcost_gui.charts.theme import NIGHT, PAPER

    window.resize(1024, 700)
    window.show()
    _shown_labels(window, 12)
    memory = window.charts.scenario_plots[0]
    memory.restyle(NIGHT if dark else PAPER)
    label = memory.total_line.label
    assert memory.total_line.isVisible() and label.toPlainText().startswith("GPU memory")
    whiskers = memory.range_bars.mapRectToScene(memory.range_bars.boundingRect())
    assert label.mapRectToScene(label.boundingRect()).intersects(whiskers)  # they reach it
    text = label.color.lightness()
    shown = _lightness_in(memory, label)
    # nothing in the box stands out more than the label's own text: dark axes on light paper
    # (or light on dark) would be darker (lighter) than it
    if dark:
        assert max(shown) <= text + 8
    else:
        assert min(shown) >= text - 8


def test_the_gpu_memory_line_is_whole_under_its_label(window):
    # The label's paper reaches the line's stroke: drawn over it, it washed out the line's upper
    # half under the label. It stacks behind its line.
    window.resize(1024, 700)
    window.show()
    _shown_labels(window, 12)
    memory = window.charts.scenario_plots[0]
    line, label = memory.total_line, memory.total_line.label
    view = memory.plot_widget
    y = view.mapFromScene(line.mapToScene(line.boundingRect().center())).y()
    box = view.mapFromScene(label.mapRectToScene(label.boundingRect())).boundingRect()
    image = view.grab().toImage()

    def row(xs) -> float:  # the line's dashes along its middle row (median: whiskers aside)
        return statistics.median(image.pixelColor(x, y).lightness() for x in xs)

    under = row(range(box.left() + 4, box.right() - 4))
    beside = row(range(box.left() - 90, box.left() - 8))
    assert under <= beside + 8, (under, beside)
