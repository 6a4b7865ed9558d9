"""The Compare table repaints the delta line alone where only it changed (issue 17): what it
draws is counted, and what the window shows after such edits is the table painted afresh.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QImage,
    QPainter,
    QPalette,
    QRegion,
)
from PySide6.QtWidgets import QApplication

from ftcost_gui.core.document import EstimateDocument, Scenario
from ftcost_gui.gui.text_ink import InkExtents

TEXTS = (
    "3.2 GPU-h",
    "✓ $6,086",
    "+0.23% / +0.0 GPU-h",
    "−12.5% / −$3,204.20",
    "×12.3 / +4 min",
    "same",
    "✗ does not fit",
    "yes",
    "1 d 3 h",
    "(—) gjpqy",
    "75.3 GiB",
    "ÅÉ Ç",
)


def _inked_rows(image: QImage, dpr: int) -> tuple[float, float] | None:
    rows = [
        y
        for y in range(image.height())
        if any(image.pixel(x, y) != 0xFFFFFFFF for x in range(image.width()))
    ]
    return (rows[0] / dpr, (rows[-1] + 1) / dpr) if rows else None


@pytest.mark.parametrize("dpr", [1, 2])
def test_ink_extents_hold_every_inked_row_of_a_line(qapp, dpr):
    """Drawn as the Compare delegate draws a line (right-aligned at the top of a rect), every
    pixel row a text inks lies within ``InkExtents.span`` (plain, bold, the smaller delta font)."""
    plain = QApplication.font()
    bold = QFont(plain)
    bold.setBold(True)
    small = QFont(plain)
    small.setPointSizeF(max(6.0, plain.pointSizeF() * 0.88))
    for font in (plain, bold, small):
        ink = InkExtents(font)
        for text in TEXTS:
            image = QImage(420 * dpr, 70 * dpr, QImage.Format.Format_ARGB32_Premultiplied)
            image.setDevicePixelRatio(dpr)
            image.fill(QColor("white"))
            painter = QPainter(image)
            painter.setFont(font)
            painter.setPen(QColor("black"))
            flags = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop
            painter.drawText(QRect(10, 20, 400, 40), flags, text)
            painter.end()
            rows = _inked_rows(image, dpr)
            assert rows is not None
            first, last = ink.span(text)
            assert first <= rows[0] - 20 and rows[1] - 20 <= last, (text, font.key(), rows)
            assert last - first <= QFontMetrics(font).height() + 8  # near the line, not a cell


def _scenarios(inputs, n: int) -> EstimateDocument:
    tokens = inputs.data.total_tokens
    return EstimateDocument(
        scenarios=tuple(
            Scenario(
                name=f"S{i}", inputs=inputs.edited("data", total_tokens=tokens * (1 + i / 997))
            )
            for i in range(n)
        )
    )


def _edit(store, factor: float) -> None:
    store.set_field("data", "total_tokens", store.inputs.data.total_tokens * factor)
    store.recompute_now()
    QApplication.processEvents()


def _opened(window, n: int = 40):
    """The Compare tab shown over ``n`` scenarios, after the first edit (which lays the table
    out): its table and model."""
    store = window.store
    window.resize(1920, 1080)  # columns as wide as their lines: ~10 on screen
    store.set_document(_scenarios(store.inputs, n))
    window.results.show_tab(window.results.compare)
    QApplication.processEvents()
    _edit(store, 1.2)
    view = window.results.compare
    return view.table, view.model


@pytest.fixture
def lines_drawn(monkeypatch):
    """(text, point size) of each text the Compare delegate draws."""
    drawn: list[tuple[str, float]] = []
    draw = QPainter.drawText

    def counting_draw(self, *args):
        if len(args) == 3 and isinstance(args[2], str):
            drawn.append((args[2], self.font().pointSizeF()))
        return draw(self, *args)

    monkeypatch.setattr(QPainter, "drawText", counting_draw)
    return drawn


def test_a_baseline_edit_draws_no_value_line_that_reads_the_same(window, lines_drawn):
    """A small edit of the baseline moves the deltas and leaves the other scenarios' values as
    they were: those cells are repainted below their value line, which is not drawn again (before:
    both lines of every such cell)."""
    store = window.store
    table, model = _opened(window)
    value_size = table.font().pointSizeF()
    for factor in (1.0001, 1.0003, 0.9998):
        lines_drawn.clear()
        _edit(store, factor)
        delta_only = set(model.delta_only)
        assert len(delta_only) > 8  # the deltas of the columns on screen
        whole = [cell for cell in delta_only if table.delta_part_top(*cell) == 0]
        assert len(whole) < len(delta_only) / 2  # most are repainted below their value line
        values = [text for text, size in lines_drawn if size == value_size]
        # The baseline's column (its values changed) and the cells repainted whole draw their
        # value line; a cell repainted below it draws its delta line only.
        changed_values = len(table.model().table.labels) + 1  # the baseline's column at most
        assert len(values) <= changed_values + len(whole)
        assert len(lines_drawn) - len(values) >= len(delta_only)


@pytest.fixture
def painter_calls(monkeypatch):
    """Calls of QPainter's save, setFont and setPen, and of QRegion.intersects, made while the
    Compare delegate paints."""
    from ftcost_gui.gui.compare_table import TwoLineDelegate

    calls = {"save": 0, "setFont": 0, "setPen": 0, "intersects": 0}
    inside = [False]

    def counting(name: str):
        real = getattr(QRegion if name == "intersects" else QPainter, name)

        def call(self, *args):
            calls[name] += inside[0]
            return real(self, *args)

        return call

    for name in calls:
        monkeypatch.setattr(QRegion if name == "intersects" else QPainter, name, counting(name))
    paint = TwoLineDelegate.paint

    def flagged_paint(self, painter, option, index):
        inside[0] = True
        try:
            paint(self, painter, option, index)
        finally:
            inside[0] = False

    monkeypatch.setattr(TwoLineDelegate, "paint", flagged_paint)
    return calls


def test_a_baseline_edit_sets_the_painters_font_and_pen_per_paint_not_per_cell(
    window, painter_calls, lines_drawn
):
    """The cells of one paint share the painter's font and pen: a cell repainted below its value
    line sets neither when the cell before it drew with the same (before: a save, the delta
    font, a pen and a restore for each cell; each setFont is a new font for drawText to resolve,
    ~20 µs a cell). The cells whose value line is drawn set their fonts twice."""
    store = window.store
    table, model = _opened(window)
    value_size = table.font().pointSizeF()
    for factor in (1.0001, 1.0003, 0.9998):
        for name in painter_calls:
            painter_calls[name] = 0
        lines_drawn.clear()
        _edit(store, factor)
        delta_only = len(model.delta_only)
        assert delta_only > 8
        values = len([text for text, size in lines_drawn if size == value_size])
        assert values < delta_only / 2
        assert painter_calls["save"] == 0
        assert painter_calls["setFont"] <= 2 * values + 1
        assert painter_calls["setPen"] <= 2 * values + 1
        # A cell asked below its value line knows it misses the region painted, and a cell
        # repainted whole draws it: the region is asked of the few others (before: every cell).
        assert painter_calls["intersects"] < delta_only / 2


def test_the_cells_that_skip_their_value_line_are_where_the_region_leaves_it_out(window):
    """``_delta_region``'s parts (the cells the delegate draws no value line for when only the
    region is painted): each at the cell's place as the table paints it, and the region misses
    the rows its value line inks."""
    store = window.store
    table, model = _opened(window)
    for factor in (1.0001, 1.3, 0.9998):
        _edit(store, factor)
        region, parts = table._delta_region(model)
        assert len(parts) > len(model.delta_only) / 2
        for (row, col), ((x, y, width, value, best), below) in parts.items():
            assert table.visualRect(model.index(row, col)).getRect()[:3] == (x, y, width)
            assert model.painted(row, col)[0::2] == (value, best)
            assert below == y + table.value_ink_bottom(value, best)
            assert not region.intersects(QRect(x, y, width, below - y))


def _dark(app) -> None:
    pal = QPalette()
    for role, colour in (
        (QPalette.ColorRole.Window, "#2b2b2b"),
        (QPalette.ColorRole.Base, "#1e1e1e"),
        (QPalette.ColorRole.Text, "#e0e0e0"),
        (QPalette.ColorRole.WindowText, "#e0e0e0"),
    ):
        pal.setColor(role, QColor(colour))
    app.setPalette(pal)


@pytest.mark.parametrize("palette", ["light", "dark"])
def test_the_table_after_edits_is_the_table_painted_afresh(window, palette):
    """The window's pixels of the table, after baseline edits repainted in parts (small and
    large edits, a selection and a focused cell), equal a fresh paint of the whole table."""
    app = QApplication.instance()
    old = app.palette()
    if palette == "dark":
        _dark(app)
    try:
        store = window.store
        store.set_document(_scenarios(store.inputs, 40))
        window.results.show_tab(window.results.compare)
        QApplication.processEvents()
        table = window.results.compare.table
        viewport = table.viewport()
        screen = QGuiApplication.primaryScreen()
        for step, factor in enumerate((1.2, 1.0001, 1.0002, 1.3, 0.9999, 0.7, 1.0001)):
            if step == 4:
                table.selectionModel().select(
                    table.model().index(3, 2), table.selectionModel().SelectionFlag.Select
                )
                table.setCurrentIndex(table.model().index(5, 3))
                table.setFocus()
            _edit(store, factor)
            QApplication.processEvents()
            top_left = viewport.mapTo(window, QPoint(0, 0))
            shown = (
                screen.grabWindow(window.winId())
                .copy(QRect(top_left, viewport.size()))
                .toImage()
                .convertToFormat(QImage.Format.Format_RGB32)
            )
            fresh = viewport.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
            assert shown == fresh, (palette, step, factor)
    finally:
        app.setPalette(old)


def test_an_edit_does_not_lay_the_compare_legend_out_again(window):
    """The legend above the table keeps its text: the layouts' questions about its height
    (~9 an edit) are answered from the heights worked out once per width (QLabel laid the text
    out for each: ~27 in these three edits)."""
    store = window.store
    store.set_document(_scenarios(store.inputs, 40))
    window.results.show_tab(window.results.compare)
    QApplication.processEvents()
    legend = window.results.compare.legend
    _edit(store, 1.2)
    before = legend.layouts
    for factor in (1.0001, 1.3, 0.9):
        _edit(store, factor)
    assert legend.layouts - before <= 1  # (a width not asked before: a larger edit's layout)
