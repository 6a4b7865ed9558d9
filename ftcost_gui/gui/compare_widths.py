"""The Compare table's least column width: as wide as its widest line painted, so no value,
delta or scenario name is cut (the columns were the viewport shared out evenly: at 12 scenarios
on a 1920 px window a delta line such as "0.08% / +0.1 min" lost its first characters, at 200
scenarios every line did). Only the cells worded so far are measured (the model words a cell
when it is painted or compared): the width grows as wider lines come on screen."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtGui import QFont, QFontMetrics

from .compare_paint import PAD

STEP_PX = 8  # widths rounded up to this: an edit that moves a delta by a digit re-lays no column
NAME_CHARS = 24  # a header wider than this many average characters is cut (its tooltip is whole)
KEPT_TEXTS = 20_000  # texts whose widths are remembered per font, at most


def cell_width_px(value_px: int, delta_px: int) -> int:
    """A cell's width for its lines' advances: the wider, with the delegate's padding."""
    return max(value_px, delta_px) + 2 * PAD


class ColumnWidths:
    """Each text's advance remembered per font: an edit of 200 scenarios brings ~200 new delta
    lines, and measuring every cell's lines again each edit would cost milliseconds."""

    def __init__(self) -> None:
        self._fonts: tuple[str, ...] = ()
        self._metrics: tuple[QFontMetrics, ...] = ()
        self._kept: tuple[dict[str, int], ...] = ()

    def _use(self, fonts: tuple[QFont, ...]) -> None:
        keys = tuple(f.key() for f in fonts)
        if keys != self._fonts or sum(map(len, self._kept)) > KEPT_TEXTS:
            self._fonts = keys
            self._metrics = tuple(QFontMetrics(f) for f in fonts)
            self._kept = tuple({} for _f in fonts)

    def _widest(self, which: int, texts: Iterable[str]) -> int:
        kept, advance = self._kept[which], self._metrics[which].horizontalAdvance
        widest = 0
        for text in texts:
            w = kept.get(text)
            if w is None:
                w = kept[text] = max((advance(line) for line in text.split("\n")), default=0)
            widest = max(widest, w)
        return widest

    def least(
        self,
        fonts: tuple[QFont, QFont, QFont, QFont],
        cells: Iterable[tuple[str, str, bool]],
        names: Iterable[str],
        header_margin_px: int,
    ) -> int:
        """The least width every column needs: its cells' value lines (``fonts``: plain, bold,
        delta, header), delta lines and its header (a name up to ``NAME_CHARS`` characters
        wide), with the delegate's padding, rounded up to ``STEP_PX``."""
        self._use(fonts)
        plain, bold, deltas = [], [], []
        for value, delta, best in cells:
            (bold if best else plain).append(value)
            deltas.append(delta)
        value_px = max(self._widest(0, plain), self._widest(1, bold))
        name_cap = NAME_CHARS * self._metrics[3].averageCharWidth()
        name_px = min(self._widest(3, names), name_cap) + 2 * header_margin_px
        need = max(cell_width_px(value_px, self._widest(2, deltas)), name_px)
        return -(-need // STEP_PX) * STEP_PX
