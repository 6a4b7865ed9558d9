"""The headline cards carry each figure's range (core/ranges.py): low–high on the caption's line
where it has room, never clipped, and always in the card's tooltip with where it comes from."""

from __future__ import annotations

from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication

from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.units import GIB
from ftcost_gui.present.ranges import headline_ranges

RANGED = ("memory", "gpu_hours", "wall", "cost", "project")


def _cards(window, qtbot, size):
    window.resize(*size)
    for _ in range(3):
        QApplication.processEvents()
    qtbot.wait(10)
    return window.results.headline.cards


def test_a_wide_window_shows_every_range(window, qtbot):
    cards = _cards(window, qtbot, (1920, 1080))
    inputs = window.store.inputs
    r = estimate(inputs)
    bands = headline_ranges(inputs, r)
    assert set(bands) == set(RANGED)
    g = r.ranges
    # the memory card's range is the device total's low and high in GiB, one decimal
    assert bands["memory"][0] == (
        f"{g.memory_bytes.low / GIB:,.1f}–{g.memory_bytes.high / GIB:,.1f} GiB"
        if round(g.memory_bytes.low / GIB, 1) != round(g.memory_bytes.high / GIB, 1)
        else f"{g.memory_bytes.low / GIB:,.1f} GiB"
    )
    for key in RANGED:
        assert cards[key].range.text() == bands[key][0], key
        assert f"Range {bands[key][0]} — {bands[key][1]}." in cards[key].toolTip(), key
    assert cards["gpus"].range.text() == ""  # a count has no range


def test_a_small_window_never_clips_a_range(window, qtbot):
    cards = _cards(window, qtbot, (1024, 700))
    for key in RANGED:
        label = cards[key].range
        text = label.text()
        assert text in ("", label.full), key  # the whole range or nothing
        assert QFontMetrics(label.font()).horizontalAdvance(text) <= label.width(), key
        assert f"Range {label.full} — " in cards[key].toolTip(), key  # the tooltip keeps it
