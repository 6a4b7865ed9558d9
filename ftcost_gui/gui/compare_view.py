"""The Compare tab: one column per scenario, the best value per row marked, deltas to a baseline."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QModelIndex, QRect, QSize, Qt, Signal
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
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..charts.theme import Theme, mix, readable, theme_for
from ..core.results import EstimateResult
from ..present.objective import stages_text
from ..present.tables import BEST_MARK, ComparisonTable, comparison_table
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
        self.table = QTableWidget(self)
        self.table.setObjectName("compare_table")
        self.table.setAccessibleName("Scenario comparison table")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.table.setWordWrap(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
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

    def set_scenarios(self, names: Sequence[str], results: Sequence[EstimateResult | None]) -> None:
        pairs = [(n, r) for n, r in zip(names, results, strict=True) if r is not None]
        self.names = tuple(n for n, _ in pairs)
        self._results = [r for _, r in pairs]
        if self.baseline_name not in self.names:
            self.baseline_name = self.names[0] if self.names else ""
        self.baseline_combo.blockSignals(True)
        self.baseline_combo.clear()
        self.baseline_combo.addItems(list(self.names))
        if self.names:
            self.baseline_combo.setCurrentIndex(self.names.index(self.baseline_name))
        self.baseline_combo.blockSignals(False)
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
            self.table.setRowCount(0)
            self.table.setColumnCount(0)
            return
        baseline = self.names.index(self.baseline_name)
        t = comparison_table(self.names, self._results, baseline)
        self.comparison = t
        several = len(self.names) > 1
        self.hint.setVisible(not several)
        self.legend.setVisible(several)
        self.stages.setVisible(several)
        self.stages.setText(stages_text(self.names, self._results) if several else "")
        tbl = self.table
        tbl.setColumnCount(len(t.names))
        tbl.setRowCount(len(t.labels) + 1)
        tbl.setHorizontalHeaderLabels(
            [
                f"{n}\n(baseline)" if i == t.baseline and several else n
                for i, n in enumerate(t.names)
            ]
        )
        tbl.setVerticalHeaderLabels([FITS_ROW, *t.labels])
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        best_bg = self.best_background()
        bad_fg = QColor(readable(self._theme().bad, best_bg))
        for j, ok in enumerate(t.fits):
            item = self._item(0, j)
            item.setText("yes" if ok else "✗ does not fit")
            item.setData(LINES_ROLE, (item.text(), ""))
            item.setForeground(QBrush() if ok else QBrush(bad_fg))
            item.setTextAlignment(right)
            item.setToolTip(f"{t.names[j]}: {'fits' if ok else 'does not fit'} in GPU memory")
        bold = QFont(tbl.font())
        bold.setBold(True)
        for i, (label, line) in enumerate(zip(t.labels, t.cells, strict=True), start=1):
            for j, c in enumerate(line):
                item = self._item(i, j)
                text = f"{BEST_MARK} {c.text}" if c.best else c.text
                item.setText(f"{text}\n{c.delta}" if c.delta else text)
                item.setData(LINES_ROLE, (text, c.delta))
                item.setFont(bold if c.best else tbl.font())
                item.setBackground(QBrush(best_bg) if c.best else QBrush())
                item.setTextAlignment(right)
                tip = f"{label} · {t.names[j]}: {c.text}"
                if c.best:
                    tip += " (best)"
                if c.delta:
                    tip += f"; vs {t.names[t.baseline]}: {c.delta}"
                item.setToolTip(tip)
                item.setData(Qt.ItemDataRole.AccessibleTextRole, tip)
        tbl.resizeRowsToContents()

    def _item(self, row: int, col: int) -> QTableWidgetItem:
        item = self.table.item(row, col)
        if item is None:
            item = QTableWidgetItem()
            self.table.setItem(row, col, item)
        return item

    # --- read back (tests, copy) ------------------------------------------------------------------
    def best_cells(self) -> set[tuple[int, int]]:
        """(metric row, scenario column) of the cells shown as best (✓ and bold)."""
        out = set()
        for i in range(1, self.table.rowCount()):
            for j in range(self.table.columnCount()):
                item = self.table.item(i, j)
                if item.text().startswith(BEST_MARK) and item.font().bold():
                    out.add((i - 1, j))
        return out

    def cell_text(self, row_label: str, column: int) -> str:
        labels = [FITS_ROW, *(self.comparison.labels if self.comparison else ())]
        return self.table.item(labels.index(row_label), column).text()
