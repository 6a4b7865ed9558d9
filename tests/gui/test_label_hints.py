"""Labels on the edit path measure their text once per text and width (issue 17): counted.

Qt's layouts ask a word-wrapped label for its height at a width several times in one pass (each
layout above it, and the window for its minimum height), and QLabel laid the whole text out for
each: a sequence-length edit asked the headline's detail lines 30 times for 12 widths; the
Compare tab's stages line (~3,000 characters with 200 scenarios) ~10 times for 3 widths.
"""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import QMargins
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QLabel

from ftcost_gui.gui import results_view
from ftcost_gui.gui.wrapped_label import WrappedLabel

from .label_looks import look_changes

TEXTS = (
    "",
    "one",
    "4 GPUs · 71.3 GiB of 80 GiB each (near the limit: 89 %)",
    "As project stages, one after the other (" + " → ".join(f"S{i}" for i in range(60)) + "): "
    "1,234.5 GPU-h held over all runs, $4,567 on-demand",
    "averyveryverylongwordwithoutanyspacethatcannotwrapanywhereatall " * 3,
)


@pytest.mark.parametrize("selectable", [False, True])
def test_a_wrapped_labels_heights_are_qlabels(qtbot, selectable):
    """The kept heights are the ones QLabel works out, through text, font and margin changes."""
    ours, plain = WrappedLabel(), QLabel()
    plain.setWordWrap(True)
    for label in (ours, plain):
        qtbot.addWidget(label)
        if selectable:
            label.setTextInteractionFlags(results_view.Qt.TextInteractionFlag.TextSelectableByMouse)
    steps = look_changes(plain)
    for step in steps:
        step(ours)
        step(plain)
        for text in TEXTS:
            ours.setText(text)
            plain.setText(text)
            for width in (0, 1, 37, 118, 173, 330, 571, 1216, 3000):
                for _ in range(2):
                    assert ours.heightForWidth(width) == plain.heightForWidth(width), (
                        text[:20],
                        width,
                    )
    assert ours.contentsMargins() == QMargins(3, 2, 7, 1)


def test_a_wrapped_label_lays_a_text_out_once_per_width(qtbot):
    label = WrappedLabel("a few words that wrap at a narrow width")
    qtbot.addWidget(label)
    for width in (40, 80, 40, 80, 40):
        label.heightForWidth(width)
    assert label.layouts == 2
    label.setText("other words")
    label.heightForWidth(40)
    label.heightForWidth(40)
    assert label.layouts == 3
    label.setFont(QFont(label.font().family(), 20))  # a change event: asked again
    label.heightForWidth(40)
    assert label.layouts == 4


@pytest.fixture
def heights_asked(monkeypatch):
    """(label, width) of each height asked of a WrappedLabel (patched before the window)."""
    asked: Counter = Counter()
    height_for_width = WrappedLabel.heightForWidth

    def counting(self, width):
        asked[(self.objectName(), width)] += 1
        return height_for_width(self, width)

    monkeypatch.setattr(WrappedLabel, "heightForWidth", counting)
    return asked


def _layouts(labels) -> dict[str, int]:
    return {label.objectName(): label.layouts for label in labels}


def test_a_sequence_length_edit_lays_each_detail_line_out_once_per_width(heights_asked, window):
    store = window.store
    details = [card.detail for card in window.results.headline.cards.values()]
    asked_more = 0
    for seq_len in (4096, 2560, 8192, 3072):
        heights_asked.clear()
        before = _layouts(details)
        store.set_field("data", "max_seq_len", seq_len)
        store.recompute_now()
        QApplication.processEvents()
        after = _layouts(details)
        for name in after:
            widths = {w for (n, w) in heights_asked if n == name}
            assert after[name] - before[name] <= len(widths), name
        asked_more += sum(heights_asked.values()) - len(heights_asked)
    assert asked_more > 0  # the layouts did ask again: the kept heights answered


def test_a_baseline_edit_lays_the_stages_line_out_once_per_width(heights_asked, window):
    from ftcost_gui.core.document import EstimateDocument, Scenario

    store = window.store
    tokens = store.inputs.data.total_tokens
    store.set_document(
        EstimateDocument(
            scenarios=tuple(
                Scenario(
                    name=f"Scenario {i + 1}",
                    inputs=store.inputs.edited("data", total_tokens=tokens * (1 + i / 97)),
                )
                for i in range(60)
            )
        )
    )
    window.results.show_tab(window.results.compare)
    QApplication.processEvents()
    stages = window.results.compare.stages
    assert stages.isVisible() and len(stages.text()) > 250  # wraps (the chain named at its ends)
    for factor in (1.01, 1.3, 0.9):
        heights_asked.clear()
        before = stages.layouts
        store.set_field("data", "total_tokens", store.inputs.data.total_tokens * factor)
        store.recompute_now()
        QApplication.processEvents()
        widths = {w for (n, w) in heights_asked if n == "compare_stages"}
        assert widths  # its height was asked
        assert stages.layouts - before <= len(widths)


def test_a_headline_value_is_measured_once_per_text_and_scale(window, monkeypatch):
    measured: Counter = Counter()

    class CountingMetrics(results_view.QFontMetrics):
        def __init__(self, font):
            super().__init__(font)
            self.size = (font.pointSizeF(), font.bold())

        def horizontalAdvance(self, text, *args):
            if self.size[1]:  # the values' bold type (the range line measures in its own)
                measured[(self.size, text)] += 1
            return super().horizontalAdvance(text, *args)

    monkeypatch.setattr(results_view, "QFontMetrics", CountingMetrics)
    store = window.store
    for seq_len in (4096, 2560, 8192):
        measured.clear()
        store.set_field("data", "max_seq_len", seq_len)
        store.recompute_now()
        QApplication.processEvents()
        assert measured  # new values were measured …
        assert max(measured.values()) == 1  # … each text once at each size
