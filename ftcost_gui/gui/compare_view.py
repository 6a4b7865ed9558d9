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
FEW_COLUMNS = 8  # at most this many changed scenarios are repainted cell by cell
MOST = 0.9  # more changed cells on screen than this share: the whole table is repainted
# Looked up once: each enum access costs a Python call per cell painted.
_HAS_DISPLAY = QStyleOptionViewItem.ViewItemFeature.HasDisplay
_ITEM = QStyle.ControlElement.CE_ItemViewItem
_SELECTED = QStyle.StateFlag.State_Selected
_STYLED = _SELECTED | QStyle.StateFlag.State_HasFocus | QStyle.StateFlag.State_MouseOver
_TEXT, _HIGHLIGHTED_TEXT = QPalette.ColorRole.Text, QPalette.ColorRole.HighlightedText
_TOP_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class TwoLineDelegate(QStyledItemDelegate):
    """The value (bold when best) over the difference to the baseline in a smaller, muted font.

    An edit of the baseline repaints every cell on screen (~350 at 1920 px), so ``paint`` reads
    the ``ComparisonModel`` directly (not ten item roles through Qt per cell) and keeps fonts and
    metrics per table font; what it draws is what ``initStyleOption`` + the style would draw."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._by_font: dict[str, tuple[QFont, int, int]] = {}
        self._kept: tuple[QFont, QFont, int, int] | None = None  # the last font and its fonts

    def _fonts(self, option: QStyleOptionViewItem, index: QModelIndex) -> tuple[QFont, QFont]:
        value_font = QFont(index.data(Qt.ItemDataRole.FontRole) or option.font)
        return value_font, self._delta_font(option.font)[0]

    def _delta_font(self, font: QFont) -> tuple[QFont, int, int]:
        """The delta line's font, and the heights of the value line (plain, bold) over it."""
        key = font.key()
        kept = self._by_font.get(key)
        if kept is None:
            delta = QFont(font)
            delta.setPointSizeF(max(6.0, font.pointSizeF() * 0.88))
            bold = QFont()  # ComparisonModel's bold (FontRole)
            bold.setBold(True)
            kept = self._by_font[key] = (
                delta,
                QFontMetrics(font).height(),
                QFontMetrics(bold).height(),
            )
        return kept

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
        model = index.model()
        if not isinstance(model, ComparisonModel) or model.table is None:
            super().paint(painter, option, index)
            return
        row, col = index.row(), index.column()
        value, delta = model.text(row, col)
        best = model.is_best(row, col)
        state = option.state
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
        font = option.font
        kept = self._kept
        if kept is None or kept[0] != font:  # the same font: a pointer comparison, not key()
            kept = self._kept = (QFont(font), *self._delta_font(font))  # (option's is lent)
        _font, delta_font, plain_h, bold_h = kept
        value_h = bold_h if best else plain_h
        selected = bool(state & _SELECTED)
        ink = option.palette.color(_HIGHLIGHTED_TEXT if selected else _TEXT)
        rect = option.rect.adjusted(PAD, PAD // 2, -PAD, -PAD // 2)
        painter.save()
        painter.setFont(model.bold if best else font)
        bad = row == 0 and not model.table.fits[col]
        painter.setPen(model.bad_brush.color() if bad and not selected else ink)
        if not delta:
            painter.drawText(rect, RIGHT, value)
        else:
            painter.drawText(
                QRect(rect.left(), rect.top(), rect.width(), value_h), _TOP_RIGHT, value
            )
            painter.setFont(delta_font)
            muted = QColor(ink)
            if not selected:
                muted.setAlpha(185)
            painter.setPen(muted)
            below = QRect(rect.left(), rect.top() + value_h, rect.width(), rect.height())
            painter.drawText(below, _TOP_RIGHT, delta)
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


def _shape(t: ComparisonTable | None) -> tuple[int, int]:
    return (0, 0) if t is None else (len(t.labels) + 1, len(t.names))


def changed_columns(old: ComparisonTable | None, new: ComparisonTable) -> list[int]:
    """The scenarios (columns) whose header or any cell differs between two tables of one
    shape: a cell is its value, delta and best mark (``ComparisonTable.cell``)."""
    n = len(new.names)
    if old is None or old.baseline != new.baseline or old.keys != new.keys:
        return list(range(n))
    changed = {j for j in range(n) if old.names[j] != new.names[j] or old.fits[j] != new.fits[j]}
    for a, b in zip(old.rows, new.rows, strict=True):
        if a.best != b.best:
            changed.update(set(a.best) ^ set(b.best))
        for seq_a, seq_b in ((a.values, b.values), (a.deltas, b.deltas), (a.ratios, b.ratios)):
            if seq_a != seq_b:
                changed.update(j for j in range(n) if seq_a[j] != seq_b[j])
    return sorted(changed)


def _runs(columns: list[int]) -> list[tuple[int, int]]:
    """Consecutive columns as (first, last) ranges."""
    runs: list[tuple[int, int]] = []
    for j in columns:
        if runs and runs[-1][1] == j - 1:
            runs[-1] = (runs[-1][0], j)
        else:
            runs.append((j, j))
    return runs


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

    @property
    def bold(self) -> QFont:
        return self._bold

    @property
    def best_brush(self) -> QBrush:
        return self._best_bg

    @property
    def bad_brush(self) -> QBrush:
        return self._bad_fg

    def set_colours(self, best_background: QColor, bad_foreground: QColor) -> None:
        """The best cells' shade and the 'does not fit' text colour (from the palette)."""
        self._best_bg, self._bad_fg = QBrush(best_background), QBrush(bad_foreground)

    def set_table(self, table: ComparisonTable | None, shown: range | None = None) -> None:
        """The view repaints the cells that changed. ``shown``: the columns on screen, where
        what each cell says is compared with what it said (an edit of the baseline moves every
        delta, but most on screen still read the same: those are not repainted)."""
        old, said = self.table, self._cells
        self._cells = {}
        if _shape(old) != _shape(table):
            self.beginResetModel()
            self.table = table
            self.endResetModel()
            return
        self.table = table
        if table is None or not table.names:
            return
        bottom, right = self.rowCount() - 1, self.columnCount() - 1
        # Headers only where their text changed: a header told of any change re-sizes its
        # stretched sections later and the table repaints everything on screen once more.
        if old is None or old.labels != table.labels:
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, bottom)
        if old is None or old.baseline != table.baseline or len(old.names) != len(table.names):
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, right)
        else:
            for first, last in _runs([j for j, n in enumerate(table.names) if old.names[j] != n]):
                self.headerDataChanged.emit(Qt.Orientation.Horizontal, first, last)
        # Only the scenarios whose cells changed are repainted: an edit of one scenario repaints
        # its column (and those whose best mark moved), not every cell on screen; cell by cell,
        # since a view repaints its whole viewport for a range of cells.
        columns = changed_columns(old, table)
        if len(columns) > FEW_COLUMNS and shown is not None and old is not None:
            on_screen = [j for j in columns if j in shown]
            cells = self._reworded(old, said, on_screen)
            if len(cells) < len(on_screen) * (bottom + 1) * MOST:
                for row, col in cells:
                    index = self.index(row, col)
                    self.dataChanged.emit(index, index)
                return
        if len(columns) > FEW_COLUMNS:
            self.dataChanged.emit(self.index(0, 0), self.index(bottom, right))
            return
        for col in columns:
            for row in range(bottom + 1):
                index = self.index(row, col)
                self.dataChanged.emit(index, index)

    def _reworded(
        self, old: ComparisonTable, said: dict[tuple[int, int], Cell], columns: list[int]
    ) -> list[tuple[int, int]]:
        """(row, column) of the cells of ``columns`` whose words or best mark differ from what
        they said in ``old`` (a cell not worded then counts as changed); words them now."""
        table = self.table
        assert table is not None
        changed = []
        for col in columns:
            if old.fits[col] != table.fits[col]:
                changed.append((0, col))
            for row in range(len(table.labels)):
                was = said.get((row, col))
                if was is None or was != self.cell(row, col):
                    changed.append((row + 1, col))
        return changed

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
        self.model.set_table(t, self._columns_shown())
        self._size_rows(t)

    def _columns_shown(self) -> range | None:
        """The scenarios (columns) on screen now; None when the table is not."""
        table = self.table
        if not table.isVisible() or self.model.columnCount() == 0:
            return None
        first = table.columnAt(0)
        last = table.columnAt(table.viewport().width() - 1)
        if first < 0:
            return None
        return range(first, (last if last >= 0 else self.model.columnCount() - 1) + 1)

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
