"""The plots' paint work per edit (issue 17): what the Python side of a plot paint asks Qt,
counted, never timed. The pixels are pinned by test_axis.py (and the session's grabs)."""

from __future__ import annotations

from PySide6.QtGui import QPen
from PySide6.QtWidgets import QApplication

from .counting import record_calls


def _edit_seq_len(window, value: int) -> None:
    store = window.store
    store.set_field("data", "max_seq_len", value)
    store.recompute_now()
    QApplication.processEvents()


def test_axes_drawing_kept_specs_ask_no_tick_pen_again(window, monkeypatch):
    """A sequence length edited back and forth brings back each left axis's range and the
    specs worked out for it (charts/axis.py). Drawing them asks none of the tick pens whether
    a grid line can be filled as a pixel row: that was worked out with the specs (it asked
    five pen properties of each horizontal tick on every paint; the cap style is the one no
    other item asks)."""
    asked = record_calls(monkeypatch, QPen, "capStyle", lambda pen: pen)
    lengths = (3072, 4608)  # (the window starts at neither)
    for step in range(6):
        asked.clear()
        _edit_seq_len(window, lengths[step % 2])
        if step < 2:  # the first time each range is shown: its specs are worked out
            assert asked, step
        else:
            assert asked == [], step
