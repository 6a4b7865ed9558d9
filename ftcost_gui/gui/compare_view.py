"""The Compare tab: one column per scenario, the best value per row marked, deltas to a baseline.

The table is a view of ``ComparisonModel``: Qt asks for the cells it shows, so an edit costs the
comparison's numbers (linear in scenarios) and the words of the cells on screen, never a
thousand columns of text; the rows' heights come from the cells shown too.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ..charts.theme import Theme, mix, readable, theme_for
from ..core.results import EstimateResult
from ..core.stages import Stage, stage
from ..io.names import plain
from ..present.objective import stages_text
from ..present.tables import BEST_MARK, ComparisonTable, comparison_table
from .compare_model import FITS_ROW, ComparisonModel
from .compare_table import ComparisonTableView, TwoLineDelegate, row_heights
from .muted_label import MutedLabel
from .wrapped_label import WrappedLabel

__all__ = ["ComparisonModel", "ComparisonView"]

BEST_TINT = 0.14  # the best cells' shade: the theme's green over the table's base, faint


class _MutedWrappedLabel(MutedLabel, WrappedLabel):
    """The legend above the table: muted, and its height for a width worked out once (its text
    stays; the layouts ask it ~9 times an edit, QLabel laid the text out each time)."""


class ComparisonView(QWidget):
    """``compare_scenarios`` as a table; ``baselineChanged(index)`` when the user picks one."""

    baselineChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("compare")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 6, 4, 4)
        top = QHBoxLayout()
        label = QLabel("Baseline:", self)  # its letters are all menus', tabs' or forms'
        self.baseline_combo = QComboBox(self)
        self.baseline_combo.setObjectName("baseline")
        self.baseline_combo.setAccessibleName("Baseline scenario")
        self.baseline_combo.setToolTip("Differences in the table are to this scenario.")
        self.baseline_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        label.setBuddy(self.baseline_combo)
        top.addWidget(label)
        top.addWidget(self.baseline_combo)
        self.legend = _MutedWrappedLabel(
            f"{BEST_MARK} bold, shaded: best of the row among the scenarios that fit · second "
            "line: percent / amount vs the baseline",
            self,
        )
        top.addWidget(self.legend, 1)
        lay.addLayout(top)
        self.model = ComparisonModel(self)
        self.table = ComparisonTableView(self)
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
        # the scenarios as SFT → DPO → RL stages (core/stages.py)
        self.stages = WrappedLabel("", self)
        self.stages.setObjectName("compare_stages")
        self.stages.setTextFormat(Qt.TextFormat.PlainText)  # scenario names are data
        self.stages.setToolTip(
            "The scenarios' runs added up, as a project that runs each stage in turn. Meaningful "
            "when the scenarios are stages (SFT, DPO, RL), not alternatives."
        )
        lay.addWidget(self.stages)
        self.names: tuple[str, ...] = ()
        self._raw_names: tuple[str, ...] = ()  # as given, and as shown (``io.names.plain``)
        self._plain_names: tuple[str, ...] = ()
        self._tiers: list[str] = []
        self.baseline_name = ""
        self.comparison: ComparisonTable | None = None
        # Each scenario's stage (core/stages.py) by name and result, made again only for a
        # result an edit replaced (results are frozen; each is kept with its stage, so its id
        # stays its own): an edit of one of 200 scenarios made 200 stages.
        self._stages: dict[tuple[str, int], tuple[EstimateResult, Stage]] = {}
        self._stages_next: dict[tuple[str, int], tuple[EstimateResult, Stage]] = {}
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
        raw = tuple(names)
        if raw != self._raw_names:  # names are data: shown without controls or bidi marks
            self._raw_names, self._plain_names = raw, tuple(plain(n) for n in raw)
        names = self._plain_names
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
        self.stages.setText(
            stages_text(self.names, self._results, self._tiers, self._stage) if several else ""
        )
        self._stages, self._stages_next = self._stages_next, {}
        best_bg = self.best_background()
        self.model.set_colours(best_bg, QColor(readable(self._theme().bad, best_bg)))
        self.model.set_table(t, self._columns_shown())
        self._size_rows(t)

    def _stage(self, name: str, result: EstimateResult) -> Stage:
        key = (name, id(result))
        kept = self._stages.get(key)
        if kept is None or kept[0] is not result:
            kept = (result, stage(name, result))
        self._stages_next[key] = kept
        return kept[1]

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
