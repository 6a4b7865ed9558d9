"""The Compare table's widget: ``ComparisonTableView`` over ``ComparisonModel``, its cells drawn by
``TwoLineDelegate`` (the value, bold when best, over its delta to the baseline), their rows as
tall as ``row_heights`` and their columns as wide as their widest line (``compare_widths``).
The tab around it (baseline, legend, stages) is ``compare_view``."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import (
    QAccessible,
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPaintEvent,
    QPalette,
    QRegion,
)
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

from .compare_model import DELTA_ROLE, LINES_ROLE, RIGHT, VALUE_ROLE, ComparisonModel
from .compare_paint import PAD, Frame, Ink, Part
from .compare_widths import ColumnWidths, cell_width_px

__all__ = ["ComparisonTableView", "TwoLineDelegate", "delta_font", "row_heights"]

# Looked up once: each enum access costs a Python call per cell painted.
_HAS_DISPLAY = QStyleOptionViewItem.ViewItemFeature.HasDisplay
_ITEM = QStyle.ControlElement.CE_ItemViewItem
_SELECTED = QStyle.StateFlag.State_Selected.value
_STYLED = (
    QStyle.StateFlag.State_Selected | QStyle.StateFlag.State_HasFocus
    | QStyle.StateFlag.State_MouseOver
).value  # fmt: skip
_TEXT, _HIGHLIGHTED_TEXT = QPalette.ColorRole.Text, QPalette.ColorRole.HighlightedText
_TOP_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop


class TwoLineDelegate(QStyledItemDelegate):
    """The value (bold when best) over the difference to the baseline in a smaller, muted font.

    An edit of the baseline repaints every cell on screen (~350 at 1920 px), so ``paint`` reads
    the ``ComparisonModel`` directly (not ten item roles through Qt per cell) and keeps fonts and
    metrics per table font; what it draws is what ``initStyleOption`` + the style would draw."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._by_font: dict[str, tuple[QFont, int, int]] = {}
        self._kept: tuple[QFont, QFont, int, int] | None = None  # the last font and its fonts
        self._muted: dict[int, QColor] = {}  # the delta line's colour, per text colour
        self._view = parent if isinstance(parent, ComparisonTableView) else None

    def _fonts(self, option: QStyleOptionViewItem, index: QModelIndex) -> tuple[QFont, QFont]:
        value_font = QFont(index.data(Qt.ItemDataRole.FontRole) or option.font)
        return value_font, self._delta_font(option.font)[0]

    def _delta_font(self, font: QFont) -> tuple[QFont, int, int]:
        """The delta line's font, and the heights of the value line (plain, bold) over it."""
        key = font.key()
        kept = self._by_font.get(key)
        if kept is None:
            bold = QFont()  # ComparisonModel's bold (FontRole)
            bold.setBold(True)
            kept = self._by_font[key] = (
                delta_font(font),
                QFontMetrics(font).height(),
                QFontMetrics(bold).height(),
            )
        return kept

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        lines = index.data(LINES_ROLE)
        if not lines:
            return super().sizeHint(option, index)
        value_font, small_font = self._fonts(option, index)
        fm_v, fm_d = QFontMetrics(value_font), QFontMetrics(small_font)
        value, delta = lines
        w = cell_width_px(fm_v.horizontalAdvance(value), fm_d.horizontalAdvance(delta))
        h = fm_v.height() + (fm_d.height() if delta else 0) + PAD
        return QSize(w, h)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        model = index.model()
        if not isinstance(model, ComparisonModel) or model.table is None:
            super().paint(painter, option, index)
            return
        row, col = index.row(), index.column()
        value, delta, best, bad = model.painted(row, col)
        state = option.state.value  # an int: Python enum flag operations cost µs per cell
        if best or state & _STYLED:
            # What the style draws for an item: the best cells' shade, the selection, the focus
            # frame, hover. For any other cell it draws nothing: its option and call are skipped
            # (~40 µs a cell; an edit of the baseline repaints every cell on screen).
            opt = QStyleOptionViewItem(option)
            opt.features |= _HAS_DISPLAY  # as initStyleOption
            if best:
                opt.backgroundBrush = model.best_brush
            style = opt.widget.style() if opt.widget else QApplication.style()
            style.drawControl(_ITEM, opt, painter, opt.widget)
        view = self._view
        shared = view.frame if view is not None else None
        alone = shared is None
        # Outside the table's paint event (a drag image, a test), this cell's own, as it was.
        frame = Frame(None) if shared is None else shared
        if alone:
            painter.save()
        fonts = frame.fonts
        if fonts is None:
            font = option.font
            kept = self._kept
            if kept is None or kept[0] != font:  # the same font: a pointer comparison, not key()
                kept = self._kept = (QFont(font), *self._delta_font(font))  # (option's is lent)
            fonts = frame.fonts = kept
        plain, delta_font, plain_h, bold_h = fonts
        selected = bool(state & _SELECTED)
        ink = frame.inks.get(selected)
        if ink is None:
            ink = frame.inks[selected] = option.palette.color(
                _HIGHLIGHTED_TEXT if selected else _TEXT
            )
        # The cell's rect less the padding, as plain numbers (each QRect getter is a call).
        x, y, w, h = option.rect.getRect()
        left, top, width, height = x + PAD, y + PAD // 2, w - 2 * PAD, h - 2 * (PAD // 2)
        if not delta:
            frame.set_font(painter, model.bold if best else plain)
            frame.set_pen(painter, model.bad_brush.color() if bad and not selected else ink)
            painter.drawText(QRect(left, top, width, height), RIGHT, value)
        else:
            # Only the delta line is repainted when only it changed (ComparisonTableView): the
            # value line is drawn where the region painted reaches its ink, no pixel differs.
            # A cell of the delta parts asked, unmoved, reads its answer from them (Frame.skips).
            region = frame.region
            if (
                region is None
                or view is None
                or (
                    not frame.skips(row, col, x, y, w, value, best)
                    and region.intersects(QRect(x, y, w, view.value_ink_bottom(value, best)))
                )
            ):
                frame.set_font(painter, model.bold if best else plain)
                frame.set_pen(painter, model.bad_brush.color() if bad and not selected else ink)
                painter.drawText(
                    QRect(left, top, width, bold_h if best else plain_h), _TOP_RIGHT, value
                )
            frame.set_font(painter, delta_font)
            if selected:
                frame.set_pen(painter, ink)
            else:
                rgba = ink.rgba()
                muted = self._muted.get(rgba)
                if muted is None:
                    muted = self._muted[rgba] = QColor(ink)
                    muted.setAlpha(185)
                frame.set_pen(painter, muted)
            top += bold_h if best else plain_h
            painter.drawText(QRect(left, top, width, height), _TOP_RIGHT, delta)
        if alone:
            painter.restore()


class ComparisonTableView(QTableView):
    """The Compare table: a cell whose delta line alone changed (the model's ``DELTA_ONLY``
    roles; an edit of the baseline moves every delta on screen) is repainted from where that
    line's ink can start, below the value line's ink, so the value line is not drawn again."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.frame: Frame | None = None  # what the cells painted share, during paintEvent
        self._ink: Ink | None = None  # for the table's font; dropped when it changes
        # The delta parts asked to be repainted since the last paint (``_delta_region``); None
        # when none, or when asked twice (the parts of either would not say what is painted).
        self._asked: tuple[QRegion, dict[tuple[int, int], Part]] | None = None
        self._asked_twice = False
        self._widths = ColumnWidths()
        self._least_default = self.horizontalHeader().minimumSectionSize()
        self._measured: tuple[object, int] | None = None  # (table, cells worded) last measured

    def setModel(self, model: QAbstractItemModel | None) -> None:
        super().setModel(model)
        if model is not None:  # another table or other names: the columns are measured afresh
            model.modelReset.connect(self._unfit_columns)
            model.headerDataChanged.connect(self._unfit_columns)

    def _unfit_columns(self, orientation: Qt.Orientation = Qt.Orientation.Horizontal, *_) -> None:
        if orientation == Qt.Orientation.Horizontal:
            self._measured = None
            self.horizontalHeader().setMinimumSectionSize(self._least_default)

    def _fit_columns(self) -> None:
        """No column narrower than the widest line painted so far (``compare_widths``): the
        columns share out a wider viewport evenly (Stretch), and a wider table scrolls."""
        model, delegate = self.model(), self.itemDelegate()
        if not isinstance(model, ComparisonModel) or not isinstance(delegate, TwoLineDelegate):
            return
        # A paint that worded no cell of the same table (a hover, a cursor) measures nothing.
        measured = (model.table, model.worded_count())
        last = self._measured
        if last is not None and measured[0] is last[0] and measured[1] == last[1]:
            return
        self._measured = measured
        header = self.horizontalHeader()
        fonts = (*self._cell_fonts()[:3], header.font())
        names = (
            str(model.headerData(j, Qt.Orientation.Horizontal)) for j in range(model.columnCount())
        )
        margin = self.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
        need = self._widths.least(fonts, model.worded(), names, margin)
        if need > header.minimumSectionSize():
            header.setMinimumSectionSize(need)  # (lays the columns out and paints them again)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self._ink = None
            self._unfit_columns()  # measured again in the new font at the next paint
            self._asked = None  # (its parts are where the old font's value lines ink)
        super().changeEvent(event)

    def _cell_fonts(self) -> tuple[QFont, QFont, QFont, int, int]:
        """The fonts the delegate draws the cells with (plain, bold, delta) and the heights of
        the value line (plain, bold): the widths and the inks are measured in these."""
        model, delegate = self.model(), self.itemDelegate()
        assert isinstance(model, ComparisonModel) and isinstance(delegate, TwoLineDelegate)
        font = self.font()  # the cells' (option.font)
        return (font, model.bold, *delegate._delta_font(font))

    def _inks(self) -> Ink:
        ink = self._ink
        if ink is None:
            ink = self._ink = Ink(*self._cell_fonts())
        return ink

    def value_ink_bottom(self, value: str, best: bool) -> int:
        """The pixel row below the value line's ink, from the top of its cell."""
        return self._inks().value_bottom(value, best)

    def paintEvent(self, event: QPaintEvent) -> None:
        region = event.region()
        asked, self._asked, self._asked_twice = self._asked, None, False
        self.frame = Frame(region) if asked is None else Frame(region, *asked)
        try:
            super().paintEvent(event)
        finally:
            self.frame = None
        self._fit_columns()

    def dataChanged(
        self,
        top_left: QModelIndex | QPersistentModelIndex,
        bottom_right: QModelIndex | QPersistentModelIndex,
        roles: Sequence[int] = (),
    ) -> None:
        model = self.model()
        if (
            roles
            and DELTA_ROLE in roles
            and VALUE_ROLE not in roles
            and isinstance(model, ComparisonModel)
            and model.delta_only
            and isinstance(self.itemDelegate(), TwoLineDelegate)
            and not QAccessible.isActive()  # (Qt's own tells the accessibility of each change)
        ):
            if self.isVisible():
                region, parts = self._delta_region(model)
                if self._asked is None and not self._asked_twice:
                    self._asked = (region, parts)
                else:
                    self._asked, self._asked_twice = None, True
                self.viewport().update(region)
            return
        super().dataChanged(top_left, bottom_right, roles)

    def delta_part_top(self, row: int, col: int) -> int:
        """For a cell whose delta line alone changed (``ComparisonModel.delta_only``): the first
        pixel row, from the top of the cell, that the old and the new delta line can ink, when
        the value line's ink ends above it; 0 when they meet (the whole cell is repainted)."""
        model = self.model()
        assert isinstance(model, ComparisonModel)
        return self._part_top(model, row, col, *model.painted(row, col)[:3])

    def _part_top(
        self, model: ComparisonModel, row: int, col: int, value: str, delta: str, best: bool
    ) -> int:
        ink = self._inks()
        was = model.said(row - 1, col)
        if not delta or was is None or not was.delta:
            return 0
        first = min(ink.delta_top(delta, best), ink.delta_top(was.delta, best))
        return first if first >= ink.value_bottom(value, best) else 0

    def _delta_region(self, model: ComparisonModel) -> tuple[QRegion, dict[tuple[int, int], Part]]:
        """Of each cell whose delta line alone changed, the part ``delta_part_top`` gives;
        neighbours in a row as one rectangle (the grid line between them painted as it was).
        With it, the cells whose part leaves out their value line's ink: (row, column) ->
        ((x, y, width as the cell is painted, value line, best), the row below that line's
        ink), for ``TwoLineDelegate`` (``Frame.skips``)."""
        grid = 1 if self.showGrid() else 0
        rects: list[QRect] = []
        parts: dict[tuple[int, int], Part] = {}
        run: list[int] = []  # [row, first, left, right] of the rectangle being widened
        columns: dict[int, tuple[int, int]] = {}  # (left, right) of each column met
        tops: dict[int, int] = {}  # the top of each row met
        for row, col in sorted(model.delta_only):
            value, delta, best, _bad = model.painted(row, col)
            first = self._part_top(model, row, col, value, delta, best)
            span = columns.get(col)
            if span is None:
                left = self.columnViewportPosition(col)
                span = columns[col] = (left, left + self.columnWidth(col) - grid)
            left, right = span
            if first:
                top = tops.get(row)
                if top is None:
                    top = tops[row] = self.rowViewportPosition(row)
                bottom = top + self._inks().value_bottom(value, best)
                parts[(row, col)] = ((left, top, right - left, value, best), bottom)
            if run and run[0] == row and run[1] == first and run[3] + grid == left:
                run[3] = right
                continue
            if run:
                rects.append(self._part(*run))
            run = [row, first, left, right]
        if run:
            rects.append(self._part(*run))
        region = QRegion()
        for rect in rects:
            region += rect
        return region, parts

    def _part(self, row: int, first: int, left: int, right: int) -> QRect:
        top = self.rowViewportPosition(row)
        bottom = top + self.rowHeight(row) - (1 if self.showGrid() else 0)
        return QRect(left, top + first, right - left, bottom - top - first)


def delta_font(font: QFont) -> QFont:
    """The delta line's font: the table's, a little smaller (not below 6 pt)."""
    delta = QFont(font)
    delta.setPointSizeF(max(6.0, font.pointSizeF() * 0.88))
    return delta


def row_heights(font: QFont, metrics: int, deltas: bool) -> list[int]:
    """The table's row heights as ``TwoLineDelegate`` draws them: 'fits' on one line; each
    metric's value, bold where best, over its delta when there are several scenarios."""
    bold = QFont(font)
    bold.setBold(True)
    value_h = max(QFontMetrics(font).height(), QFontMetrics(bold).height())
    one = value_h + PAD
    two = value_h + (QFontMetrics(delta_font(font)).height() if deltas else 0) + PAD
    return [one, *([two] * metrics)]
