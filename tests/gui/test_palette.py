"""Dark palettes (issue 16): text stays readable (WCAG AA, 4.5:1) and the plots follow.

The window is switched to a dark palette while it is open, as a system switching to its dark
scheme does: headline figures (each state: fits, near the limit, does not fit), captions,
warnings, the explanation's notes, the Compare table's best cells and every plot's text are
measured against the colour they are drawn on; the plots' paper is the palette's base colour,
and back on the light palette it is white again.
"""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from ftcost_gui.charts.theme import AA_TEXT, PAPER, contrast_ratio, readable, theme_for
from ftcost_gui.io.resources import resource_path

R = QPalette.ColorRole
DARK = {
    R.Window: "#353535", R.WindowText: "#ffffff", R.Base: "#252525", R.AlternateBase: "#353535",
    R.Text: "#ffffff", R.Button: "#353535", R.ButtonText: "#ffffff", R.ToolTipBase: "#353535",
    R.ToolTipText: "#ffffff", R.Highlight: "#2a82da", R.HighlightedText: "#000000",
    R.Link: "#2a82da", R.PlaceholderText: "#9a9a9a", R.BrightText: "#ff0000",
}  # fmt: skip


def dark_palette() -> QPalette:
    """The usual 'Fusion dark' recipe; other roles derived from the window colour, as Qt does."""
    palette = QPalette(QColor("#353535"), QColor("#353535"))
    for role, color in DARK.items():
        palette.setColor(role, QColor(color))
    return palette


@pytest.fixture
def dark(qapp):
    light = QApplication.palette()
    QApplication.setPalette(dark_palette())
    yield
    QApplication.setPalette(light)


def _style_color(widget) -> str:
    match = re.search(r"color:\s*(#[0-9a-fA-F]{6})", widget.styleSheet())
    return match.group(1) if match else widget.palette().color(widget.foregroundRole()).name()


def _window_bg(widget) -> str:
    return widget.palette().color(QPalette.ColorRole.Window).name()


def _settle(qtbot) -> None:
    QApplication.processEvents()
    qtbot.wait(10)


def drawn_color(text_item) -> str:
    """The colour a QGraphicsTextItem draws: its HTML's colour, else its default colour."""
    colors = re.findall(r"color:\s*(#[0-9a-fA-F]{6})", text_item.toHtml())
    return colors[-1].lower() if colors else text_item.defaultTextColor().name()


def plot_texts(plot):
    """(what, colour) of every text a plot draws."""
    pi = plot.plot_item
    texts = [("title", drawn_color(pi.titleLabel.item))]
    for side in ("left", "bottom"):
        axis = pi.getAxis(side)
        texts.append((f"{side} ticks", axis.textPen().color().name()))
        texts.append((f"{side} label", drawn_color(axis.label)))
    for _sample, label in plot.legend.items:
        texts.append((f"legend {label.text}", drawn_color(label.item)))
    for item in getattr(plot, "count_labels", []):
        texts.append(("count label", drawn_color(item.textItem)))
    for name in ("usable_line", "total_line"):
        line = getattr(plot, name, None)
        if line is not None:
            texts.append((name, drawn_color(line.label.textItem)))
    if hasattr(plot, "band_label"):
        texts.append(("band label", drawn_color(plot.band_label.textItem)))
    return texts


def assert_plot_readable(plot, paper: str) -> None:
    assert plot.plot_widget.backgroundBrush().color().name() == paper, plot.objectName()
    for what, color in plot_texts(plot):
        ratio = contrast_ratio(color, paper)
        assert ratio >= AA_TEXT, f"{plot.objectName()}: {what} {color} on {paper}: {ratio:.2f}"


def all_plots(window):
    memory, cost = window.charts.ensure_plots()
    return [memory, cost, *window.charts.ensure_scenario_plots()]


def test_dark_palette_keeps_every_text_readable(window, qtbot, dark):
    _settle(qtbot)
    headline = window.results.headline
    for key, card in headline.cards.items():
        bg = _window_bg(card)
        for label in (card.caption, card.value, card.detail):
            ratio = contrast_ratio(_style_color(label), bg)
            assert ratio >= AA_TEXT, (key, label.text(), ratio)
    card = headline.cards["memory"]
    for state in (True, "warn", False):  # green, amber, red: each readable on the dark window
        card.set("1.0 of 2.0 GiB", "", "", state)
        assert contrast_ratio(_style_color(card.value), _window_bg(card)) >= AA_TEXT, state
    assert contrast_ratio(_style_color(headline.warnings), _window_bg(headline)) >= AA_TEXT
    # The explanation: body text and its notes on the text view's base colour.
    window.results.show_tab(window.results.explain)
    html = window.results.update_explain()
    base = window.results.explain.palette().color(QPalette.ColorRole.Base).name()
    for color in set(re.findall(r"color:\s*(#[0-9a-fA-F]{3,6})", html)):
        assert contrast_ratio(color, base) >= AA_TEXT, color
    text = window.results.explain.palette().color(QPalette.ColorRole.Text).name()
    assert contrast_ratio(text, base) >= AA_TEXT
    # Plots: paper is the palette's base; every text on it reads.
    paper = theme_for(window.palette()).background
    assert QColor(paper).lightnessF() < 0.3
    for plot in all_plots(window):
        _settle(qtbot)
        assert_plot_readable(plot, paper)


def test_compare_best_cells_read_in_a_dark_palette(window, qtbot, dark):
    window.action("compare_methods").trigger()
    _settle(qtbot)
    view = window.results.compare
    view.set_scenarios([s.name for s in window.store.document.scenarios], window.store.results)
    best = view.best_cells()
    assert best
    text = view.table.palette().color(QPalette.ColorRole.Text).name()
    model = view.model  # the table is a view of a model: read the brushes it paints with
    for row, col in best:
        shade = model.index(row + 1, col).data(Qt.ItemDataRole.BackgroundRole).color().name()
        assert contrast_ratio(text, shade) >= AA_TEXT, (row, col, shade)
    for col in range(model.columnCount()):  # a red "does not fit" reads on the dark base
        fg = model.index(0, col).data(Qt.ItemDataRole.ForegroundRole)
        if fg is not None and fg.style() != Qt.BrushStyle.NoBrush:
            assert contrast_ratio(fg.color().name(), view.best_background().name()) >= AA_TEXT


def assert_bar_chart_readable(chart, paper: str) -> None:
    assert chart.backgroundBrush().color().name() == paper
    for side in ("left", "bottom"):
        ink = chart.getPlotItem().getAxis(side).textPen().color().name()
        assert contrast_ratio(ink, paper) >= AA_TEXT, side
    assert contrast_ratio(drawn_color(chart.star.textItem), paper) >= AA_TEXT


def test_plots_follow_the_palette_both_ways(window, qtbot):
    light_paper = theme_for(window.palette()).background
    plots = all_plots(window)
    which_gpu = window.addons["catalogs"].which_gpu
    which_gpu.show()
    which_gpu.refresh_now()
    chart = which_gpu.view.chart
    light = QApplication.palette()
    QApplication.setPalette(dark_palette())
    try:
        _settle(qtbot)
        dark_paper = theme_for(window.palette()).background
        assert dark_paper != light_paper
        for plot in plots:
            assert_plot_readable(plot, dark_paper)
        assert_bar_chart_readable(chart, dark_paper)
    finally:
        QApplication.setPalette(light)
    _settle(qtbot)
    for plot in plots:
        assert_plot_readable(plot, light_paper)
    assert_bar_chart_readable(chart, light_paper)


def test_report_plots_stay_on_white_paper_in_a_dark_window(qapp, dark, tmp_path):
    from ftcost_gui.core.estimate import estimate
    from ftcost_gui.io.estimate_file import load_document
    from ftcost_gui.report.content import Report
    from ftcost_gui.report.render import plot_images

    doc = load_document(resource_path("examples") / "article-001-7b-lora.ftcost")
    report = Report(doc, [estimate(s.inputs) for s in doc.scenarios])
    png = plot_images(report)["memory"]
    image = QColor(_top_left_pixel(png))
    assert image.name() == PAPER.background


def _top_left_pixel(png: bytes) -> QColor:
    from PySide6.QtGui import QImage

    image = QImage.fromData(png)
    return image.pixelColor(1, 1)


def test_readable_moves_a_colour_until_it_reads():
    assert contrast_ratio(readable("#b71c1c", "#252525"), "#252525") >= AA_TEXT
    assert readable("#000000", "#ffffff") == "#000000"
    assert contrast_ratio("#ffffff", "#000000") == pytest.approx(21.0)
    # WCAG's own example pair: #777 on white is 4.48:1, just under AA.
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_the_window_starts_without_pyqtgraph():
    """Colours live in charts/theme.py, which loads no plot: pyqtgraph waits for the plots."""
    import subprocess
    import sys

    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; import ftcost_gui.gui.window.main_window, ftcost_gui.gui.results_view; "
            "print('pyqtgraph' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "False"
