"""The Compare tab: one column per scenario, the best value per row marked, deltas to a baseline.

The table is a view of ``ComparisonModel``: Qt asks for the cells it shows, so an edit costs the
comparison's numbers (linear in scenarios) and the words of the cells on screen, never a
thousand columns of text; the rows' heights come from the cells shown too.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..charts.theme import Theme, mix, readable, theme_for
from ..core.results import EstimateResult
from ..present.objective import stages_text
from ..present.tables import BEST_MARK, Cell, ComparisonTable, comparison_table
from .muted_label import MutedLabel

BEST_TINT = 0.14  # the best cells' shade: the theme's green over the table's base, faint
FITS_ROW = "Fits in memory"
LINES_ROLE = Qt.ItemDataRole.UserRole + 1  # (value text, delta text)
PAD = 6


class TwoLineDelegate(QStyledItemDelegate):
    """The value (bold when best) over the difference to the baseline in a smaller, muted font."""

    def _fonts(self, option: QStyleOptionViewItem, index: QModelIndex) -> tuple[QFont, QFont]:
        value_font = QFont(index.data(Qt.ItemDataRole.FontRole) or option.font)
        delta_font = QFont(option.font)
        delta_font.setPointSizeF(max(6.0, option.font.pointSizeF() * 0.88))
        return value_font, delta_font

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        lines = index.data(LINES_ROLE)
        if not lines:
            return super().sizeHint(option, index)
        value_font, delta_font = self._fonts(option, index)
        fm_v, fm_d = QFontMetrics(value_font), QFontMetrics(delta_font)
        value, delta = lines
        w = max(fm_v.horizontalAdvance(value), fm_d.horizontalAdvance(delta)) + 2 * PAD
        h = fm_v.height() + (fm_d.height() if delta else 0) + PAD
        return QSize(w, h)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        lines = index.data(LINES_ROLE)
        if not lines:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        value, delta = lines
        value_font, delta_font = self._fonts(option, index)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        rect = opt.rect.adjusted(PAD, PAD // 2, -PAD, -PAD // 2)
        fm_v = QFontMetrics(value_font)
        align = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop
        painter.save()
        painter.setFont(value_font)
        fg = index.data(Qt.ItemDataRole.ForegroundRole)
        painter.setPen(
            fg.color() if isinstance(fg, QBrush) and not selected else opt.palette.color(role)
        )
        if not delta:
            align = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            painter.drawText(rect, align, value)
        else:
            painter.drawText(
                QRect(rect.left(), rect.top(), rect.width(), fm_v.height()), align, value
            )
            painter.setFont(delta_font)
            muted = QColor(opt.palette.color(role))
            if not selected:
                muted.setAlpha(185)
            painter.setPen(muted)
            below = QRect(rect.left(), rect.top() + fm_v.height(), rect.width(), rect.height())
            painter.drawText(below, align, delta)
        painter.restore()


def row_heights(font: QFont, metrics: int, deltas: bool) -> list[int]:
    """The table's row heights as ``TwoLineDelegate`` draws them: 'fits' on one line; each
    metric's value, bold where best, over its delta when there are several scenarios."""
    bold = QFont(font)
    bold.setBold(True)
    delta = QFont(font)
    delta.setPointSizeF(max(6.0, font.pointSizeF() * 0.88))
    value_h = max(QFontMetrics(font).height(), QFontMetrics(bold).height())
    one = value_h + PAD
    two = value_h + (QFontMetrics(delta).height() if deltas else 0) + PAD
    return [one, *([two] * metrics)]


ANY_INDEX = QModelIndex | QPersistentModelIndex
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _shape(t: ComparisonTable | None) -> tuple[int, int]:
    return (0, 0) if t is None else (len(t.labels) + 1, len(t.names))


class ComparisonModel(QAbstractTableModel):
    """A ``ComparisonTable`` as rows (fits, then one per metric) × scenarios; cells are worded
    when the view asks for them and kept until the table changes."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.table: ComparisonTable | None = None
        self._cells: dict[tuple[int, int], Cell] = {}
        self._bold = QFont()
        self._bold.setBold(True)
        self._best_bg = self._bad_fg = QBrush()

    def set_colours(self, best_background: QColor, bad_foreground: QColor) -> None:
        """The best cells' shade and the 'does not fit' text colour (from the palette)."""
        self._best_bg, self._bad_fg = QBrush(best_background), QBrush(bad_foreground)

    def set_table(self, table: ComparisonTable | None) -> None:
        old = self.table
        self._cells.clear()
        if _shape(old) != _shape(table):
            self.beginResetModel()
            self.table = table
            self.endResetModel()
            return
        self.table = table
        if table is not None and table.names:
            last = self.index(self.rowCount() - 1, self.columnCount() - 1)
            self.dataChanged.emit(self.index(0, 0), last)
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self.columnCount() - 1)
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, self.rowCount() - 1)

    def rowCount(self, parent: ANY_INDEX = QModelIndex()) -> int:  # noqa: B008
        t = self.table
        return 0 if t is None or parent.isValid() else len(t.labels) + 1

    def columnCount(self, parent: ANY_INDEX = QModelIndex()) -> int:  # noqa: B008
        t = self.table
        return 0 if t is None or parent.isValid() else len(t.names)

    def cell(self, row: int, col: int) -> Cell:
        """Metric row ``row`` (0 = the first metric), scenario ``col``."""
        key = (row, col)
        c = self._cells.get(key)
        if c is None:
            c = self._cells[key] = self.table.cell(row, col)  # type: ignore[union-attr]
        return c

    def text(self, row: int, col: int) -> tuple[str, str]:
        """(value line, delta line) as the table shows them (row 0 = fits in memory)."""
        t = self.table
        assert t is not None
        if row == 0:
            return ("yes" if t.fits[col] else "✗ does not fit", "")
        c = self.cell(row - 1, col)
        return (f"{BEST_MARK} {c.text}" if c.best else c.text, c.delta)

    def is_best(self, row: int, col: int) -> bool:
        return row > 0 and self.cell(row - 1, col).best

    def tooltip(self, row: int, col: int) -> str:
        t = self.table
        assert t is not None
        if row == 0:
            ok = t.fits[col]
            return f"{t.names[col]}: {'fits' if ok else 'does not fit'} in GPU memory"
        c = self.cell(row - 1, col)
        tip = f"{t.labels[row - 1]} · {t.names[col]}: {c.text}"
        if c.best:
            tip += " (best)"
        if c.delta:
            tip += f"; vs {t.names[t.baseline]}: {c.delta}"
        return tip

    def data(self, index: ANY_INDEX, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if self.table is None or not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            value, delta = self.text(row, col)
            return f"{value}\n{delta}" if delta else value
        if role == LINES_ROLE:
            return self.text(row, col)
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if self.is_best(row, col) else None
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._best_bg if self.is_best(row, col) else None
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._bad_fg if row == 0 and not self.table.fits[col] else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return RIGHT
        if role in (Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.AccessibleTextRole):
            return self.tooltip(row, col)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        t = self.table
        if t is None or role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            name = t.names[section]
            return f"{name}\n(baseline)" if section == t.baseline and len(t.names) > 1 else name
        return FITS_ROW if section == 0 else t.labels[section - 1]


class ComparisonView(QWidget):
    """``compare_scenarios`` as a table; ``baselineChanged(index)`` when the user picks one."""

    baselineChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("compare")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 6, 4, 4)
        top = QHBoxLayout()
        label = QLabel("B&aseline:", self)
        self.baseline_combo = QComboBox(self)
        self.baseline_combo.setObjectName("baseline")
        self.baseline_combo.setAccessibleName("Baseline scenario")
        self.baseline_combo.setToolTip("Differences in the table are to this scenario.")
        self.baseline_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        label.setBuddy(self.baseline_combo)
        top.addWidget(label)
        top.addWidget(self.baseline_combo)
        self.legend = MutedLabel(
            f"{BEST_MARK} bold, shaded: best of the row among the scenarios that fit · second "
            "line: percent / amount vs the baseline",
            self,
        )
        self.legend.setWordWrap(True)
        top.addWidget(self.legend, 1)
        lay.addLayout(top)
        self.model = ComparisonModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setObjectName("compare_table")
        self.table.setAccessibleName("Scenario comparison table")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.table.setWordWrap(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        rows = self.table.verticalHeader()
        # Rows of known heights (one line, or value + delta: ``row_heights``), set when the
        # table's shape or font changes: an edit measures no cell (ResizeToContents asked the
        # delegate for every cell on screen, twice, on every edit).
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self._heights_for: tuple[object, ...] = ()
        self.table.verticalHeader().setDefaultAlignment(
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        )
        self.table.setItemDelegate(TwoLineDelegate(self.table))
        lay.addWidget(self.table, 1)
        self.hint = MutedLabel(
            "One scenario so far. Add one (Scenario → Duplicate) or click Compare methods to see "
            "scenarios side by side.",
            self,
        )
        self.hint.setWordWrap(True)
        lay.addWidget(self.hint)
        self.stages = QLabel("", self)  # the scenarios as SFT → DPO → RL stages (core/stages.py)
        self.stages.setObjectName("compare_stages")
        self.stages.setWordWrap(True)
        self.stages.setToolTip(
            "The scenarios' runs added up, as a project that runs each stage in turn. Meaningful "
            "when the scenarios are stages (SFT, DPO, RL), not alternatives."
        )
        lay.addWidget(self.stages)
        self.names: tuple[str, ...] = ()
        self._tiers: list[str] = []
        self.baseline_name = ""
        self.comparison: ComparisonTable | None = None
        self.baseline_combo.activated.connect(self._on_baseline_activated)

    @property
    def baseline(self) -> int:
        return self.comparison.baseline if self.comparison is not None else 0

    def _on_baseline_activated(self, index: int) -> None:
        self.baseline_name = self.baseline_combo.itemText(index)
        self._refresh()
        self.baselineChanged.emit(self.baseline)

    def set_baseline(self, index: int) -> None:
        if 0 <= index < len(self.names):
            self.baseline_name = self.names[index]
            self.baseline_combo.setCurrentIndex(index)
            self._refresh()

    def set_scenarios(
        self,
        names: Sequence[str],
        results: Sequence[EstimateResult | None],
        tiers: Sequence[str] = (),
    ) -> None:
        """``tiers``: each scenario's GPU pricing tier, which words the first cost row."""
        tiers = list(tiers) or ["on_demand"] * len(names)
        rows = [(n, r, t) for n, r, t in zip(names, results, tiers, strict=True) if r is not None]
        names_now = tuple(n for n, _r, _t in rows)
        self._results = [r for _n, r, _t in rows]
        self._tiers = [t for _n, _r, t in rows]
        if self.baseline_name not in names_now:
            self.baseline_name = names_now[0] if names_now else ""
        combo = self.baseline_combo
        combo.blockSignals(True)
        if names_now != self.names:  # an edit keeps the names: the list stays as it is
            combo.clear()
            combo.addItems(list(names_now))
        self.names = names_now
        if self.names:
            combo.setCurrentIndex(self.names.index(self.baseline_name))
        combo.blockSignals(False)
        self._refresh()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.names:  # shades follow the palette
            self._refresh()

    def _theme(self) -> Theme:
        return theme_for(self.table.palette())

    def best_background(self) -> QColor:
        """The best cells' shade; their text stays the table's text colour (readable on it)."""
        theme = self._theme()
        return mix(theme.background, theme.good, BEST_TINT)

    def _refresh(self) -> None:
        if not self.names:
            self.comparison = None
            self.model.set_table(None)
            return
        baseline = self.names.index(self.baseline_name)
        t = comparison_table(self.names, self._results, baseline, self._tiers)
        self.comparison = t
        several = len(self.names) > 1
        self.hint.setVisible(not several)
        self.legend.setVisible(several)
        self.stages.setVisible(several)
        self.stages.setText(stages_text(self.names, self._results, self._tiers) if several else "")
        best_bg = self.best_background()
        self.model.set_colours(best_bg, QColor(readable(self._theme().bad, best_bg)))
        self.model.set_table(t)
        self._size_rows(t)

    def _size_rows(self, t: ComparisonTable) -> None:
        font = self.table.font()
        key = (len(t.labels), len(t.names) > 1, font.key())
        if key == self._heights_for:
            return
        self._heights_for = key
        header = self.table.verticalHeader()
        for row, height in enumerate(row_heights(font, len(t.labels), len(t.names) > 1)):
            header.resizeSection(row, max(height, header.minimumSectionSize()))

    # --- read back (tests, copy) ------------------------------------------------------------------
    def cell(self, row: int, column: int) -> tuple[str, bool]:
        """(text, bold) of a cell as the table shows it; row 0 is 'Fits in memory'."""
        index = self.model.index(row, column)
        font = index.data(Qt.ItemDataRole.FontRole)
        return str(index.data()), bool(font is not None and font.bold())

    def header_text(self, column: int) -> str:
        return str(self.model.headerData(column, Qt.Orientation.Horizontal))

    def best_cells(self) -> set[tuple[int, int]]:
        """(metric row, scenario column) of the cells shown as best (✓ and bold)."""
        out = set()
        for i in range(1, self.model.rowCount()):
            for j in range(self.model.columnCount()):
                text, bold = self.cell(i, j)
                if text.startswith(BEST_MARK) and bold:
                    out.add((i - 1, j))
        return out

    def cell_text(self, row_label: str, column: int) -> str:
        labels = [FITS_ROW, *(self.comparison.labels if self.comparison else ())]
        return self.cell(labels.index(row_label), column)[0]
