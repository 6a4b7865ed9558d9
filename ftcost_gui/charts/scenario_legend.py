"""The 'All scenarios' cost plot's legend: rows made only for the entries that can be seen.

The legend sits inside the plot's view box, which clips it: at 200 scenarios ~30 of its 201 rows
can be seen. pyqtgraph's ``LegendItem`` makes a ``LabelItem`` (a rich-text item laid out from
HTML) and a sample per entry: ~0.3 s to open 200 scenarios' charts (issue 17). This legend keeps
every entry (``entries``) and makes rows (``items``) for those whose row can be seen, more when
the view grows; it is laid out and drawn exactly as pyqtgraph's would be with every row made:

- its width is the layout's least width, from the widest label: the label column is given the
  widest entry's width (the entries not made measured as their labels would be);
- its height is what ``LegendItem.updateSize`` sums (each row as high as it was last laid out,
  a new row its label's own height, the layout's least height at least), and the made rows are
  given the height each of the N rows gets in that height (the grid shares out the height
  evenly); its frame is drawn to that whole height (the view box cuts it where it ends).

It covers at most ``SHARE`` of the plot's height (the legend sits in the top right corner, over
the curves: at 12 scenarios in a 1024 × 700 window it hid their right half, at 200 the whole
right side). When the entries need more rows than that, it shows the first ones and a last row
"+ N more" (hover a curve for its scenario; Compare lists every one), its frame ending there.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsTextItem

from .base import LegendLabel, legend_row

SAMPLE_PX = 20.0  # pyqtgraph's ItemSample: 20 × 20
SHARE = 0.5  # of the view box's height, at most, covered by the legend
LEAST_ROWS = 3  # rows shown however short the plot (two entries and "+ N more")
SPOT_KEY = "spot (dashed)"  # the plot's last entry when some scenario has a spot price
NEAR_PX = 3.0  # labels measured exactly: those this close to the widest estimate


class ScenarioLegend(pg.LegendItem):
    """A ``LegendItem`` in one column whose rows are made for the entries that can be seen."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.entries: list[list] = []  # [item, name, height last laid out (None: new)]
        self.rows_made = 0  # rows made since the legend was created (tests count them)
        self._full_h = 0.0
        self._row_h = 0.0  # each row's height, as the grid lays the N rows out
        self._widths: dict[str, float] = {}  # label width by its HTML
        self._measure: QGraphicsTextItem | None = None
        self._cap = 0  # rows shown, "+ N more" included, when the entries need more; 0: all
        self.more: LegendLabel | None = None  # that last row

    # --- entries --------------------------------------------------------------------------------
    def addItem(self, item, name) -> None:
        self.entries.append([item, name, None])
        self.updateSize()

    def removeItem(self, item) -> None:
        for i, (it, name, _h) in enumerate(self.entries):
            if it is item or name == item:
                del self.entries[i]
                if i < len(self.items):  # its row was made: the later rows move up
                    rows = self.items[i + 1 :]
                    self._removeItemFromLayout(*self.items[i])
                    del self.items[i:]
                    for sample, label in rows:
                        self.layout.removeItem(sample)
                        self.layout.removeItem(label)
                    for sample, label in rows:
                        self._place(sample, label)
                self.updateSize()
                return

    def clear(self) -> None:
        self.entries = []
        super().clear()

    def set_name(self, item, name: str) -> None:
        """Rename ``item``'s entry (its label, where its row is made)."""
        for i, entry in enumerate(self.entries):
            if entry[0] is item:
                entry[1] = name
                if i < len(self.items):
                    self.items[i][1].setText(name)
                self._fit_height()  # ("▶ among them" follows the selection)
                self._fit_width()
                return

    def getLabel(self, plotItem):
        return next((label for s, label in self.items if s.item is plotItem), None)

    # --- rows -------------------------------------------------------------------------------------
    def _place(self, sample, label) -> None:
        row = len(self.items)
        self.layout.addItem(sample, row, 0, alignment=Qt.AlignmentFlag.AlignVCenter)
        self.layout.addItem(label, row, 1)
        self.items.append((sample, label))

    def _make_row(self) -> None:
        """The next entry's row, made as ``LegendItem.addItem`` makes it."""
        item, name, _h = self.entries[len(self.items)]
        self._place(*legend_row(self, item, name))
        self.rows_made += 1

    def _rows_seen(self) -> int:
        """Entry rows shown: those that fit in ``SHARE`` of the view box, the last of them
        given to "+ N more" when the entries need more (``_cap``); one while it is not laid out
        (the plot was given its scenarios while hidden: its rows are made when it is laid out,
        ``fill``)."""
        n = len(self.entries)
        vb = self.parentItem()
        self._cap = 0
        if vb is None or vb.height() <= 0 or self._row_h <= 0:
            return min(n, 1)
        _left, top, _right, bottom = self.layout.getContentsMargins()
        spacing = self.layout.verticalSpacing()
        room = vb.height() * SHARE - self.pos().y() - top - bottom + spacing
        fit = max(LEAST_ROWS, int(room // (self._row_h + spacing)))
        if n <= fit:
            return n
        self._cap = fit
        return fit - 1

    def fill(self) -> None:
        """Make or drop rows for the view box's height now, and lay them out."""
        cap = self._cap
        want = self._rows_seen()
        if want == len(self.items) and cap == self._cap:
            return
        self._trim(want)
        while len(self.items) < want:
            self._make_row()
        self._fit_height()
        self._fit_width()
        self._lay_out()

    def _trim(self, keep: int) -> None:
        """Drop the rows after the first ``keep`` (the view box shrank: fewer rows fit)."""
        for sample, label in self.items[keep:]:
            self._removeItemFromLayout(sample, label)
        del self.items[keep:]

    # --- size -------------------------------------------------------------------------------------
    def _label_width(self, name: str) -> float:
        """The width of ``name``'s label, as a LabelItem lays it out (its least width)."""
        # As LabelItem.setText writes it (the colour changes no width).
        size = self.opts["labelTextSize"]
        html = f"<span style='color: #ff000000; font-size: {size}'>{name}</span>"
        w = self._widths.get(html)
        if w is None:
            if self._measure is None:
                self._measure = QGraphicsTextItem()
            self._measure.setHtml(html)
            w = self._widths[html] = self._measure.boundingRect().width()
        return w

    def _fit_width(self) -> None:
        """The label column as wide as the widest entry's label (made or not)."""
        made = [label.minimumWidth() for _s, label in self.items]
        # The entries without a row: measured too, but not those "+ N more" stands for.
        rest = [] if self._cap else [e[1] for e in self.entries[len(self.items) :]]
        widest = max(made, default=0.0)
        if self._cap and self.more is not None:
            widest = max(widest, self._label_width(self.more.text))
        if rest:
            font = QFont(self._measure.font() if self._measure else QGraphicsTextItem().font())
            font.setPointSizeF(float(str(self.opts["labelTextSize"]).removesuffix("pt")))
            metrics = QFontMetricsF(font)
            guess = [metrics.horizontalAdvance(n) for n in rest]
            top = max(guess)
            for name, g in zip(rest, guess, strict=True):
                if g >= top - NEAR_PX or "<" in name or "&" in name:
                    widest = max(widest, self._label_width(name))
        self.layout.setColumnMinimumWidth(1, widest)

    def updateSize(self) -> None:
        """Height and row height as ``LegendItem.updateSize`` and the grid make them."""
        n = len(self.entries)
        if not n:
            self._full_h = self._row_h = 0.0
            self.layout.setColumnMinimumWidth(1, 0.0)
            super().updateSize()
            return
        if not self.items:
            self._make_row()
        fresh = max(SAMPLE_PX, self.items[0][1].minimumHeight())  # a new row's height
        made = [max(s.height(), label.height()) for s, label in self.items]
        rest = [
            max(SAMPLE_PX, h) if h is not None else fresh for *_x, h in self.entries[len(made) :]
        ]
        _left, top, _right, bottom = self.layout.getContentsMargins()
        spacing = self.layout.verticalSpacing()
        least = self._rows_height(n, fresh)  # the layout's least height
        self._full_h = max(least, sum(made) + sum(rest))
        self._row_h = (self._full_h - top - bottom - (n - 1) * spacing) / n
        for entry in self.entries:  # as laid out next (made rows: read from them)
            entry[2] = self._row_h
        want = self._rows_seen()
        self._trim(want)
        while len(self.items) < want:
            self._make_row()
        self._fit_height()
        self._fit_width()
        self._lay_out()

    def _fit_height(self) -> None:
        """With "+ N more": the frame ends below that row, which names what it stands for."""
        cap = self._cap
        if not cap:
            if self.more is not None:
                self.more.setVisible(False)
            return
        self._full_h = self._rows_height(cap, self._row_h)
        hidden = [name for _item, name, _h in self.entries[cap - 1 :]]
        spot = SPOT_KEY in hidden
        scenarios = len(hidden) - spot
        text = f"+ {scenarios} more" + (" · spot dashed" if spot else "")
        if any(name.startswith("▶ ") for name in hidden):
            text += " (▶ among them)"
        if self.more is None:
            self.more = LegendLabel(
                "", color=self.opts["labelTextColor"], justify="left",
                size=self.opts["labelTextSize"],
            )  # fmt: skip
            self.more.setParentItem(self)
            self.more.setToolTip(
                "Hover a curve for its scenario and cost; the Compare tab lists every scenario."
            )
        self.more.setText(text)
        self.more.setVisible(True)

    def _lay_out(self) -> None:
        k = len(self.items)
        if not k:
            return
        self.prepareGeometryChange()
        # the width: the layout's least (the widest label's)
        self.setGeometry(0, 0, 0, self._rows_height(k, self._row_h))
        if self._cap and self.more is not None:  # in the label column, one row below the last
            top, spacing = self.layout.getContentsMargins()[1], self.layout.verticalSpacing()
            self.more.setPos(self.items[0][1].geometry().x(), top + k * (self._row_h + spacing))

    def _rows_height(self, rows: int, row_h: float) -> float:
        """The height of ``rows`` rows ``row_h`` high, with the margins and spacings between."""
        _left, top, _right, bottom = self.layout.getContentsMargins()
        return top + bottom + rows * row_h + (rows - 1) * self.layout.verticalSpacing()

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self.width(), max(self.height(), self._full_h))
