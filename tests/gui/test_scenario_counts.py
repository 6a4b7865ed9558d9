"""The "All scenarios" memory chart's GPU counts above the bars never run into each other: "N GPUs"
while the bar spacing holds it, the count alone when not, the selected scenario's only when not
even that fits (seen at 12 scenarios in a 1024 × 700 window: "2 GPUs" twelve times overlapped)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from ftcost_gui.core.document import EstimateDocument, Scenario


def _document(inputs, n: int) -> EstimateDocument:
    return EstimateDocument(
        scenarios=tuple(
            Scenario(name=f"S{i}", inputs=inputs.edited("efficiency", mfu=0.2 + 0.01 * i))
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
