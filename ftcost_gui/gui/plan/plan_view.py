"""The Plan tab's widgets: the constraints, the recommendation, the plot and the ranked table.

A thin view: ``set_search`` shows what ``core.planner`` found, worded by ``present.plan_texts``;
nothing is computed here. Editing a constraint emits ``constraintsChanged(PlanConstraints)``
(validated by the model); clicking a plot point, double-clicking a row, Enter on a row or "Use
this plan" emits ``adoptRequested(option index)``.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...charts.plan_plot import PlanFrontPlot
from ...core.fields import field_spec
from ...core.plan_front import PlanPoints, PlanSearch
from ...core.plan_space import DEFAULT_METHODS, PlanConstraints
from ...present.blocks import inline_html, inline_text
from ...present.plan_texts import (
    METHOD_SHORT,
    PLAN_HEADER,
    gpu_verdict_text,
    plan_cells,
    recommendation,
    verdict_counts_text,
)
from ..binding import FloatEditor
from ..muted_label import MutedLabel
from ..widgets import RowTable, scrolled

MIN_PLOT_PX = 240
MIN_LISTS_PX = 170
WIDE_COLUMNS = 3  # label–editor pairs to a row when the page is wide enough
PAGE_MARGIN_PX = 6
GOALS = (("cheapest", "Cheapest"), ("fastest", "Fastest"), ("weighted", "Weighted"))
ALL_METHODS = (*DEFAULT_METHODS, "full_bf16_adamw")


class ConstraintsBar(QWidget):
    """The search's constraints as editors; ``changed(PlanConstraints)`` after each edit."""

    changed = Signal(object)

    def __init__(self, constraints: PlanConstraints, parent: QWidget | None = None):
        super().__init__(parent)
        self.constraints = constraints
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(4)
        spec = field_spec(PlanConstraints, "deadline_h")
        self.deadline = FloatEditor(spec, special="none")
        self.budget = FloatEditor(field_spec(PlanConstraints, "budget_usd"), special="none")
        self.max_gpus = self._count("max_gpus", "any")
        self.batch = self._count("effective_batch", "scenario's")
        self.billing = QComboBox()
        self.billing.addItem("On-demand", "on_demand")
        self.billing.addItem("Spot", "spot")
        self.goal = QComboBox()
        for key, text in GOALS:
            self.goal.addItem(text, key)
        self.weight = QDoubleSpinBox()
        self.weight.setRange(0.01, 0.99)
        self.weight.setSingleStep(0.1)
        self.weight.setDecimals(2)
        self.weight.setValue(0.5)
        self.weight.setKeyboardTracking(False)
        self.weight.setToolTip(field_spec(PlanConstraints, "cost_weight").tooltip)
        self.methods: dict[str, QCheckBox] = {}
        self.methods_row = QHBoxLayout()
        self.methods_row.setSpacing(6)
        for m in ALL_METHODS:
            box = QCheckBox(METHOD_SHORT[m])
            box.setObjectName(f"method_{m}")
            self.methods_row.addWidget(box)
            self.methods[m] = box
        self.methods_row.addStretch(1)
        self.margin = QCheckBox("Keep memory margin")
        self.margin.setObjectName("memory_margin")
        self.margin.setToolTip(field_spec(PlanConstraints, "memory_margin").tooltip)
        goal = self._pair(self.goal, self.weight)
        # Reading order, which is also the keyboard's (the order the widgets became children).
        # Alt letters: only those no menu, tab or banner on screen with this page has (issue 16);
        # Deadline, Best, Billing, Effective batch and the margin have none left: Tab reaches them.
        cells = (("Deadline:", self.deadline, self.deadline),
                 ("B&udget:", self.budget, self.budget),
                 ("Ma&x GPUs:", self.max_gpus, self.max_gpus), ("Best:", goal, self.goal),
                 ("Billing:", self.billing, self.billing),
                 ("Effective batch:", self.batch, self.batch))  # fmt: skip
        self.cells: list[tuple[QLabel, QWidget]] = []
        for text, w, buddy in cells:
            label = QLabel(text)
            label.setBuddy(buddy)
            self.cells.append((label, w))
        self.methods_label = QLabel("Methods:")
        self.grid = grid
        self.columns = 0
        self._widths: dict[int, int] = {}
        self.arrange(WIDE_COLUMNS)
        # Their ranges (up to 1e6 h, $1e9) would ask for room no usual value needs; the room
        # goes to "Effective batch", whose text names the scenario's batch.
        usual = self.fontMetrics().horizontalAdvance("$100,000.00 h") + 24
        for name, w in (("deadline_h", self.deadline), ("budget_usd", self.budget)):
            w.setObjectName(name)
            w.setToolTip(field_spec(PlanConstraints, name).tooltip)
            w.setMinimumWidth(min(usual, w.minimumSizeHint().width()))
        self.set_constraints(constraints)
        self.deadline.committed.connect(lambda v: self._edit(deadline_h=v))
        self.budget.committed.connect(lambda v: self._edit(budget_usd=v))
        self.max_gpus.valueChanged.connect(lambda v: self._edit(max_gpus=v or None))
        self.batch.valueChanged.connect(lambda v: self._edit(effective_batch=v or None))
        self.billing.currentIndexChanged.connect(
            lambda _i: self._edit(billing=self.billing.currentData())
        )
        self.goal.currentIndexChanged.connect(lambda _i: self._edit_goal())
        self.weight.valueChanged.connect(lambda _v: self._edit_goal())
        for box in self.methods.values():
            box.toggled.connect(lambda _on: self._edit_methods())
        self.margin.toggled.connect(lambda on: self._edit(memory_margin=on))

    def _count(self, name: str, special: str) -> QSpinBox:
        spec = field_spec(PlanConstraints, name)
        box = QSpinBox()
        box.setObjectName(name)
        box.setRange(0, int(spec.maximum or 4096))
        box.setSpecialValueText(special)  # 0: none given
        box.setKeyboardTracking(False)
        box.setToolTip(spec.tooltip)
        return box

    @staticmethod
    def _pair(a: QWidget, b: QWidget) -> QWidget:
        w = QWidget()
        row = QHBoxLayout(w)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(a, 1)
        row.addWidget(b)
        return w

    def arrange(self, columns: int) -> None:
        """Lay the editors out ``columns`` label–editor pairs to a row: three on a wide page; two
        on a narrow one (1024 px windows), where "Keep memory margin" takes a row of its own, so
        that the page never scrolls sideways."""
        if columns == self.columns:
            return
        grid = self.grid
        while grid.count():  # the widgets stay the bar's children
            taken = grid.takeAt(0).layout()
            if taken is not None:
                taken.setParent(None)  # the methods' row, added again below
        self.methods_row.removeWidget(self.margin)
        for c in range(2 * WIDE_COLUMNS):
            grid.setColumnStretch(c, 0)
        for i, (label, w) in enumerate(self.cells):
            r, c = divmod(i, columns)
            grid.addWidget(label, r, 2 * c, Qt.AlignmentFlag.AlignRight)
            grid.addWidget(w, r, 2 * c + 1)
            grid.setColumnStretch(2 * c + 1, 1)
        row = -(-len(self.cells) // columns)
        grid.addWidget(self.methods_label, row, 0, Qt.AlignmentFlag.AlignRight)
        grid.addLayout(self.methods_row, row, 1, 1, 2 * columns - 1)
        if columns == WIDE_COLUMNS:
            self.methods_row.addWidget(self.margin)
        else:
            grid.addWidget(self.margin, row + 1, 1, 1, 2 * columns - 1)
        self.columns = columns

    def width_for(self, columns: int) -> int:
        """The least width the editors need laid out in ``columns`` pairs (measured by laying
        them out so; remembered until a text or the font changes)."""
        if columns not in self._widths:
            shown = self.columns
            self.arrange(columns)
            self._widths[columns] = self.grid.minimumSize().width()
            self.arrange(shown)
        return self._widths[columns]

    def changeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._widths.clear()
        super().changeEvent(event)

    def set_constraints(self, c: PlanConstraints) -> None:
        """Show ``c`` without emitting ``changed``."""
        self.constraints = c
        widgets = (self.deadline, self.budget, self.max_gpus, self.batch, self.billing,
                   self.goal, self.weight, self.margin, *self.methods.values())  # fmt: skip
        for w in widgets:
            w.blockSignals(True)
        try:
            self.deadline.set_field_value(c.deadline_h)
            self.budget.set_field_value(c.budget_usd)
            self.max_gpus.setValue(c.max_gpus or 0)
            self.batch.setValue(c.effective_batch or 0)
            self.billing.setCurrentIndex(self.billing.findData(c.billing))
            goal = c.objective
            self.goal.setCurrentIndex(self.goal.findData(goal))
            if goal == "weighted":
                self.weight.setValue(c.cost_weight)
            self.weight.setEnabled(goal == "weighted")
            for m, box in self.methods.items():
                box.setChecked(m in c.methods)
            self.margin.setChecked(c.memory_margin)
        finally:
            for w in widgets:
                w.blockSignals(False)

    def set_scenario_batch(self, batch: int | None) -> None:
        """The special text of 'Effective batch' says the scenario's value."""
        self.batch.setSpecialValueText(f"scenario's ({batch})" if batch else "scenario's")
        # the special text is wider than any number: never clip it on a narrow window
        self.batch.setMinimumWidth(self.batch.sizeHint().width())
        self._widths.clear()

    def _edit(self, **fields: object) -> None:
        doc = self.constraints.model_dump()
        doc.update(fields)
        try:
            new = PlanConstraints.model_validate(doc)
        except ValueError:  # a bound the editors do not enforce: show what is in force
            self.set_constraints(self.constraints)
            return
        if new != self.constraints:
            self.constraints = new
            self.changed.emit(new)

    def _edit_goal(self) -> None:
        goal = self.goal.currentData()
        self.weight.setEnabled(goal == "weighted")
        weight = {"cheapest": 1.0, "fastest": 0.0}.get(goal, self.weight.value())
        self._edit(cost_weight=weight)

    def _edit_methods(self) -> None:
        chosen = tuple(m for m, box in self.methods.items() if box.isChecked())
        if not chosen:  # at least one: re-check the last one unchecked
            self.set_constraints(self.constraints)
            return
        self._edit(methods=chosen)


class PlanView(QWidget):
    """Constraints on top; the recommendation; the plot beside the ranked table."""

    constraintsChanged = Signal(object)
    adoptRequested = Signal(int)

    def __init__(self, constraints: PlanConstraints, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("plan_view")
        self.search: PlanSearch | None = None
        self.bar = ConstraintsBar(constraints)
        self.bar.changed.connect(self.constraintsChanged)
        self.summary = QLabel("")
        self.summary.setObjectName("plan_summary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.counts = MutedLabel("")
        self.plot = PlanFrontPlot()
        self.plot.planClicked.connect(self.adoptRequested)
        self.model = QStandardItemModel(0, len(PLAN_HEADER), self)
        self.model.setHorizontalHeaderLabels(list(PLAN_HEADER))
        self.table = RowTable()
        self.table.setObjectName("plan_table")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setAccessibleName("Plans on the front, best first")
        self.table.doubleClicked.connect(lambda i: self._adopt_row(i.row()))
        self.table.rowActivated.connect(self._adopt_row)
        self.use = QPushButton("Use This Plan")  # Alt+U is Budget's
        self.use.setToolTip(
            "Put the selected plan into the scenario (Enter on a row does the same; Undo takes "
            "it back)"
        )
        self.use.clicked.connect(lambda: self._adopt_row(self.table.currentIndex().row()))
        self.why = QListWidget()
        self.why.setObjectName("plan_why")
        self.why.setAccessibleName("Why each GPU won or lost")
        self.why.setWordWrap(True)
        table_page = QWidget()
        tl = QVBoxLayout(table_page)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addWidget(self.counts, 1)
        row.addWidget(self.use)
        tl.addLayout(row)
        self.lists = QTabWidget()
        self.lists.addTab(table_page, "Ran&ked front")
        self.lists.addTab(self.why, "Wh&y not the others")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.plot)
        split.addWidget(self.lists)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        self.split = split
        self._sized = False
        # On a short window the page scrolls rather than squeeze the plot or the table away.
        inner = QWidget()
        lay = QVBoxLayout(inner)
        m = PAGE_MARGIN_PX
        lay.setContentsMargins(m, m, m, m)
        lay.addWidget(self.bar)
        lay.addWidget(self.summary)
        lay.addWidget(split, 1)
        self.plot.setMinimumHeight(MIN_PLOT_PX)
        self.lists.setMinimumHeight(MIN_LISTS_PX)
        self.scroll = scrolled(self, inner)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._fit_bar()

    def _fit_bar(self) -> None:
        """Three pairs of editors to a row where they fit, else two. The room is reckoned with
        the vertical scroll bar shown, so that its coming or going never flips the choice."""
        room = (self.scroll.width() - self.scroll.verticalScrollBar().sizeHint().width()
                - 2 * PAGE_MARGIN_PX)  # fmt: skip
        wide = self.bar.width_for(WIDE_COLUMNS) <= room
        self.bar.arrange(WIDE_COLUMNS if wide else WIDE_COLUMNS - 1)

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        if not self._sized:  # the plot gets a bit more than half of the height, once
            self._sized = True
            h = max(self.split.height(), 300)
            self.split.setSizes([int(h * 0.56), h - int(h * 0.56)])

    # --- what the tab shows ---------------------------------------------------------------------
    def set_search(
        self, search: PlanSearch, points: PlanPoints, texts: dict[int, str], batch: int | None
    ) -> None:
        self.search = search
        self.bar.set_scenario_batch(batch)
        self._fit_bar()  # the scenario's batch may have widened "Effective batch"
        self.summary.setText(inline_html(recommendation(search)))
        self.counts.setText(f"{len(search.ranked)} on the front of {search.candidates:,} plans")
        self.counts.setToolTip(
            verdict_counts_text(search) + f"; {search.plans_run:,} estimates run"
        )
        self.plot.set_series(points, texts)
        self.model.removeRows(0, self.model.rowCount())
        for c in plan_cells(search):
            cells = (c.rank, inline_text(c.gpu), c.how, c.cost, c.wall, c.gpus, c.memory, c.mfu,
                     c.why)  # fmt: skip
            items = [QStandardItem(text) for text in cells]
            for i in (0, 3, 4, 5, 6, 7):
                items[i].setTextAlignment(
                    Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                )
            self.model.appendRow(items)
        self.table.resizeColumnsToContents()
        if self.model.rowCount():
            self.table.selectRow(0)
        self.use.setEnabled(self.model.rowCount() > 0)
        self.why.clear()
        self.why.addItems([inline_text(gpu_verdict_text(search, g)) for g in search.gpus])

    def set_current(self, points: PlanPoints, texts: dict[int, str]) -> None:
        """Only the scenario's ring moved (the search itself did not change)."""
        self.plot.set_series(points, texts)

    def set_error(self, message: str) -> None:
        self.summary.setText(message)

    def _adopt_row(self, row: int) -> None:
        if self.search is None or not 0 <= row < len(self.search.ranked):
            return
        self.adoptRequested.emit(self.search.ranked[row])
