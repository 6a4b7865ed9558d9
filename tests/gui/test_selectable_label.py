"""The headline's detail lines: selectable with the mouse, laid out without a text document
until the mouse is over them (issue 17): counted, and compared pixel for pixel.

A selectable QLabel lays its text out in a text document twice per size a layout asks; a check
box toggle changes all six detail lines, and their documents were ~10 % of its instructions.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QEnterEvent, QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from ftcost_gui.gui.wrapped_label import SELECTABLE, SelectableWrappedLabel, WrappedLabel

from .test_palette import dark_palette

TEXTS = (
    "",
    "fits · device total (nvidia-smi) · allocated 63.1 · reserved 71.2 GiB",
    "spot $6.55 (F = 1.020: take spot)",
    "None needed → 1360 rented (2 × 680) · 22 nodes of 680",
    "2.39e39 FLOPs at 2.8% effective MFU · checkpointing auto: on",
    "$2,104,549,224,007,535,689,728 runs (154880 × $13,588,256,860) + $3,120 people",
    "23,016,893,364,403,349,487,616.0 GPU-h held · training 59,891.2 days · eval 3 %",
    "does NOT fit · device total (nvidia-smi) · allocated 541,891,488.2 GiB",
    "averyveryverylongwordwithoutanyspacethatcannotwrapanywhere and then a few words",
)


def _documents(label) -> list[QTextDocument]:
    return label.findChildren(QTextDocument)


def _enter(label) -> None:
    inside = QPointF(3, 3)
    QApplication.sendEvent(label, QEnterEvent(inside, label.mapToGlobal(inside), inside))
    label.setAttribute(Qt.WidgetAttribute.WA_UnderMouse, True)


def _leave(label) -> None:
    label.setAttribute(Qt.WidgetAttribute.WA_UnderMouse, False)
    QApplication.sendEvent(label, QEvent(QEvent.Type.Leave))


@pytest.mark.parametrize("dark", [False, True])
def test_the_plain_path_measures_and_draws_what_the_selectable_one_does(qtbot, dark):
    """Until the mouse comes over it the label is drawn by QLabel's plain path: the same size
    hints, heights and pixels as the selectable label's document path, at every width."""
    page = QWidget()
    qtbot.addWidget(page)
    if dark:
        page.setPalette(dark_palette())
    ours, selectable = SelectableWrappedLabel("", page), WrappedLabel("", page)
    selectable.setTextInteractionFlags(SELECTABLE)
    page.show()
    compared = 0
    for text in TEXTS:
        for label in (ours, selectable):
            label.setText(text)
        # The size hint's width (QLabel's golden-ratio guess) may differ: the headline's grid
        # columns are stretched, and a stretched column takes its items' minimum widths, not
        # their hints (qGeomCalc's smartSizeHint); heights come from heightForWidth.
        assert ours.minimumSizeHint() == selectable.minimumSizeHint(), text
        least = ours.minimumSizeHint().width()
        for width in sorted({least, 106, 118, 159, 173, 203, 240, 330, 571}):
            width = max(width, least)  # a layout never gives it less
            height = ours.heightForWidth(width)
            assert height == selectable.heightForWidth(width), (text, width)
            for label in (ours, selectable):
                label.resize(width, height)
            assert ours.grab().toImage() == selectable.grab().toImage(), (text, width)
            compared += 1
    assert not _documents(ours)  # all of it on the plain path
    assert compared > 50


def test_the_headline_divides_its_width_by_stretch_not_by_size_hints(window):
    grid = window.results.headline.layout()
    assert [grid.columnStretch(c) for c in range(grid.columnCount())] == [1, 1, 1]
    widths = {card.width() for card in window.results.headline.cards.values()}
    assert max(widths) - min(widths) <= 1


def test_a_check_box_toggle_lays_no_detail_line_out_in_a_document(window):
    """The six detail lines change on every CPU-offload toggle; none has a text document to lay
    out while the mouse is elsewhere (each had one, laid out twice per size asked)."""
    box = window.form_tabs.panels["training"].editor("training", "cpu_offload_optimizer")
    details = [card.detail for card in window.results.headline.cards.values()]
    assert len(details) == 6
    for _ in range(4):
        texts = [d.text() for d in details]
        box.setChecked(not box.isChecked())
        QApplication.processEvents()
        assert all(d.text() != t for d, t in zip(details, texts, strict=True))
        assert [len(_documents(d)) for d in details] == [0] * 6


def test_a_detail_line_is_selectable_with_the_mouse(window):
    card = window.results.headline.cards["memory"]
    label = card.detail
    assert isinstance(label, SelectableWrappedLabel)
    text = label.text()
    assert len(text) > 20
    _enter(label)
    assert label.textInteractionFlags() == SELECTABLE
    assert label.focusPolicy() == Qt.FocusPolicy.ClickFocus
    # Drag across the first line: the text under it is selected, as in any selectable label.
    y = label.contentsRect().top() + label.fontMetrics().height() // 2
    QTest.mousePress(label, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(1, y))
    QTest.mouseMove(label, QPoint(label.width() - 2, y))
    QTest.mouseRelease(
        label,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        QPoint(label.width() - 2, y),
    )
    assert label.hasSelectedText() and text.startswith(label.selectedText()[:10])
    _leave(label)
    assert label.textInteractionFlags() == SELECTABLE  # it holds a selection (and the focus)
    label.clearFocus()  # Qt drops a label's selection with the focus
    assert not label.hasSelectedText()
    assert label.textInteractionFlags() == Qt.TextInteractionFlag.NoTextInteraction
    assert not _documents(label)
    _enter(label)
    assert label.textInteractionFlags() == SELECTABLE
    _leave(label)
    assert label.textInteractionFlags() == Qt.TextInteractionFlag.NoTextInteraction
