"""Labels that measure each of their texts once (issue 17): the headline's detail and range
lines and the status bar's summary keep QLabel's hints and heights for their last few texts.
Counted per edit, and compared with QLabel's own through text, look and change events."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMargins, QSize, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QLabel

from ftcost_gui.gui.kept_hints import KEPT_TEXTS, KeptHintsLabel

from .label_looks import look_changes

TEXTS = (
    "",
    "one",
    "0.92–1.21 GiB",
    "4 GPUs · 71.3 GiB of 80 GiB each (near the limit: 89 %)",
    "averyveryverylongwordwithoutanyspacethatcannotwrapanywhereatall and then a few words",
    "Baseline: 1,234.5 GPU-h held over all runs, $4,567 on-demand · training 59,891.2 days",
)
WIDTHS = (0, 1, 37, 118, 173, 330, 571, 3000)


def _measures(label: QLabel) -> tuple[QSize, QSize, list[int]]:
    heights = [label.heightForWidth(w) for w in WIDTHS] if label.wordWrap() else []
    return label.sizeHint(), label.minimumSizeHint(), heights


@pytest.mark.parametrize("wrap", [False, True])
@pytest.mark.parametrize("selectable", [False, True])
def test_kept_hints_are_qlabels_through_texts_looks_and_change_events(qtbot, wrap, selectable):
    """The same measures as a plain QLabel, each text set several times (the kept ones answer)
    and after every kind of change to what QLabel measures with."""
    ours, plain = KeptHintsLabel(), QLabel()
    flag = Qt.TextInteractionFlag
    steps = [
        *look_changes(plain),
        lambda label: label.setAlignment(Qt.AlignmentFlag.AlignRight),
        lambda label: label.setMinimumWidth(140),
        lambda label: label.setMaximumWidth(400),
        lambda label: label.setTextInteractionFlags(
            flag.NoTextInteraction if selectable else flag.TextSelectableByMouse
        ),
        lambda label: label.setStyleSheet("QLabel { padding: 3px 5px; font-size: 17px; }"),
        lambda label: label.setLayoutDirection(Qt.LayoutDirection.RightToLeft),
        lambda label: label.setTextFormat(Qt.TextFormat.RichText),
        lambda label: label.setWordWrap(not wrap),
        lambda label: label.setStyleSheet(
            "QLabel { qproperty-alignment: AlignCenter; min-width: 50px; max-width: 300px; }"
        ),
        lambda label: label.setTextFormat(Qt.TextFormat.PlainText),
    ]
    for label in (ours, plain):
        qtbot.addWidget(label)
        label.setWordWrap(wrap)
        if selectable:
            label.setTextInteractionFlags(flag.TextSelectableByMouse)
    margins = []
    for step in steps:
        step(ours)
        step(plain)
        margins.append(ours.contentsMargins())
        for _ in range(2):  # the second round: the kept measures answer
            for text in TEXTS:
                ours.setText(text)
                plain.setText(text)
                assert _measures(ours) == _measures(plain), (text[:20], ours.contentsMargins())
    # The style sheet's padding moved the margins from C++, past any Python setter: they are
    # read from the label each time, not tracked.
    assert QMargins(3, 2, 7, 1) in margins
    assert len({(m.left(), m.top(), m.right(), m.bottom()) for m in margins}) > 2


def test_a_label_measures_a_text_again_only_after_a_change_or_when_forgotten(qtbot):
    label = KeptHintsLabel("first")
    qtbot.addWidget(label)
    for text in ("first", "second", "first", "second"):
        label.setText(text)
        label.sizeHint()
        label.minimumSizeHint()
    assert label.hints_measured == 2
    label.setFont(QFont(label.font().family(), 20))  # a change event: asked again
    label.sizeHint()
    assert label.hints_measured == 3
    for i in range(KEPT_TEXTS + 1):  # the oldest texts are forgotten
        label.setText(f"text {i}")
        label.sizeHint()
    label.setText("second")
    label.sizeHint()
    assert label.hints_measured == 3 + KEPT_TEXTS + 2


def _headline_labels(window) -> list:
    cards = window.results.headline.cards.values()
    return [lab for card in cards for lab in (card.detail, card.range)] + [window.summary_label]


def test_toggling_a_check_box_back_measures_no_headline_text_again(window):
    """A check box toggled back and forth brings the same texts back: QLabel measures none of
    them again (it measured all eleven headline lines and the summary each time: ~7M of a
    check-box edit's 60M instructions)."""
    check = window.form_tabs.panels["training"].editor("training", "cpu_offload_optimizer")
    labels = _headline_labels(window)
    changed = []
    for _ in range(2):
        before = [lab.text() for lab in labels]
        check.setChecked(not check.isChecked())
        QApplication.processEvents()
        changed.append(sum(lab.text() != text for lab, text in zip(labels, before, strict=True)))
    assert min(changed) >= 8  # most lines do change
    measured = [(lab.hints_measured, lab.layouts) for lab in labels]
    for _ in range(4):
        check.setChecked(not check.isChecked())
        QApplication.processEvents()
    assert [(lab.hints_measured, lab.layouts) for lab in labels] == measured


def test_a_new_value_is_measured_once(window):
    """A value not seen before: each line whose text changed is measured once, each height once
    per width."""
    store = window.store
    labels = _headline_labels(window)
    for seq_len in (4096, 2560, 8192):
        before = [(lab.text(), lab.hints_measured) for lab in labels]
        store.set_field("data", "max_seq_len", seq_len)
        store.recompute_now()
        QApplication.processEvents()
        for lab, (text, hints) in zip(labels, before, strict=True):
            assert lab.hints_measured - hints <= (lab.text() != text), lab.objectName()
