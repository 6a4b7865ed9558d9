"""The Compare tab's model: a ``ComparisonTable`` as rows × scenarios, worded when the view asks,
and told only what changed (an edit repaints the cells whose words changed, not the table).
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QWidget

from ..present.tables import BEST_MARK, Cell, ComparisonTable, same_figure
from .rich_text import rich_text

FITS_ROW = "Fits in memory"
LINES_ROLE = Qt.ItemDataRole.UserRole + 1  # (value text, delta text)
VALUE_ROLE = Qt.ItemDataRole.UserRole + 2  # the value line
DELTA_ROLE = Qt.ItemDataRole.UserRole + 3  # the delta line
# What changed in the cells whose delta line changed and whose value line and best mark did not
# (an edit of the baseline; ``ComparisonModel.delta_only``): a view may repaint that line only.
DELTA_ONLY = [
    Qt.ItemDataRole.DisplayRole,
    Qt.ItemDataRole.ToolTipRole,
    Qt.ItemDataRole.AccessibleTextRole,
    LINES_ROLE,
    DELTA_ROLE,
]
FEW_COLUMNS = 8  # at most this many changed scenarios are repainted cell by cell
MOST = 0.9  # more changed cells on screen than this share: the whole table is repainted
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


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
        if len(changed) == n:  # every column (an edit of the baseline: its first deltas)
            break
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
        self._said: dict[tuple[int, int], Cell] = {}  # the cells worded under the last table
        # The cells of the last ``set_table`` whose delta line alone changed: told as one
        # ``dataChanged`` range with the ``DELTA_ONLY`` roles.
        self.delta_only: list[tuple[int, int]] = []
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
        self._cells, self._said, self.delta_only = {}, said, []
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
                # (createIndex: ``index`` asks rowCount and columnCount, two calls into Python)
                changed, create = self.dataChanged, self.createIndex
                for row, col, delta_only in cells:
                    if not delta_only:
                        index = create(row, col)
                        changed.emit(index, index)
                only = self.delta_only = [(row, col) for row, col, d in cells if d]
                if only:
                    rows, cols = [r for r, _c in only], [c for _r, c in only]
                    top_left = create(min(rows), min(cols))
                    changed.emit(top_left, create(max(rows), max(cols)), DELTA_ONLY)
                return
        if len(columns) > FEW_COLUMNS:
            self.dataChanged.emit(self.index(0, 0), self.index(bottom, right))
            return
        for col in columns:
            for row in range(bottom + 1):
                index = self.createIndex(row, col)
                self.dataChanged.emit(index, index)

    def _reworded(
        self, old: ComparisonTable, said: dict[tuple[int, int], Cell], columns: list[int]
    ) -> list[tuple[int, int, bool]]:
        """(row, column, delta line only) of the cells of ``columns`` whose words or best mark
        differ from what they said in ``old`` (a cell not worded then counts as changed); words
        them now. 'Delta line only': the value line and the best mark read as they did."""
        table = self.table
        assert table is not None
        cells, word = self._cells, table.cell
        # A value the old table had (its metric and number) keeps the words said of it.
        same_keys = old.keys == table.keys
        changed = []
        for col in columns:
            if old.fits[col] != table.fits[col]:
                changed.append((0, col, False))
            for row, (row_was, row_now) in enumerate(zip(old.rows, table.rows, strict=True)):
                key = (row, col)
                was = said.get(key)
                if was is None:
                    changed.append((row + 1, col, False))
                    continue
                now = cells.get(key)
                if now is None:
                    kept = same_keys and same_figure(row_was.values[col], row_now.values[col])
                    now = cells[key] = word(row, col, was if kept else None)
                if was != now:
                    same_value = was.text == now.text and was.best == now.best
                    changed.append((row + 1, col, same_value and was.baseline == now.baseline))
        return changed

    def said(self, row: int, col: int) -> Cell | None:
        """What a metric cell said under the previous table, if it was worded then."""
        return self._said.get((row, col))

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

    def painted(self, row: int, col: int) -> tuple[str, str, bool, bool]:
        """(value line, delta line, best, does not fit) of a cell: what the delegate paints."""
        t = self.table
        assert t is not None
        if row == 0:
            fits = t.fits[col]
            return ("yes" if fits else "✗ does not fit", "", False, not fits)
        c = self.cell(row - 1, col)
        return (f"{BEST_MARK} {c.text}" if c.best else c.text, c.delta, c.best, False)

    def worded_count(self) -> int:
        """How many cells of the table are worded so far."""
        return len(self._cells)

    def worded(self) -> Iterator[tuple[str, str, bool]]:
        """(value line, delta line, best) of the cells worded so far (painted or compared), and
        the 'fits in memory' row's lines: what ``compare_widths`` measures."""
        for c in self._cells.values():
            yield (f"{BEST_MARK} {c.text}" if c.best else c.text, c.delta, c.best)
        t = self.table
        if t is not None and t.names:
            yield ("yes", "", False)
            if not all(t.fits):
                yield ("✗ does not fit", "", False)

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
        if role == VALUE_ROLE:
            return self.text(row, col)[0]
        if role == DELTA_ROLE:
            return self.text(row, col)[1]
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if self.is_best(row, col) else None
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._best_bg if self.is_best(row, col) else None
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._bad_fg if row == 0 and not self.table.fits[col] else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return RIGHT
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return self.tooltip(row, col)
        if role == Qt.ItemDataRole.ToolTipRole:
            # A tooltip guesses rich text; the scenario names in it are data: shown as written.
            return rich_text(self.tooltip(row, col))
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
