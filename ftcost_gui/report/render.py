"""The report's Qt side: plot images rendered offscreen from the real plot classes, and the PDF.

PDF: ``QPdfWriter`` + ``QTextDocument`` at 96 dpi (ecosystem-notes §5.2: a higher resolution alone
makes text and images tiny), A4 with 15 mm margins; images are registered as resources.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Collection
from pathlib import Path

from .. import __version__
from ..core.series import Outcomes
from ..io.atomic import atomic_write_bytes
from ..present.time_texts import price_word
from .content import IMAGE_NAMES, PLAN_IMAGES, PlanFigures, Report, ReportFigures, report_figures
from .forked import ImageWorker
from .html import html_bytes_but_charts, report_html, write_html
from .markdown import write_markdown

# CPU of a report's parts (issue 17, measured at 200 scenarios, painted without Qt's thread
# pool: SERIAL_FILLS): per scenario, the cost plot's curves ~3 ms, the memory plot's bars
# ~1.4 ms, the HTML ~2 ms; the plan search and its three plots ~0.6 s whatever the number of
# scenarios. Where the report writes a PDF (Qt lays it out in the report's process, so Qt is
# loaded there before the fork), a forked child (report/forked.py) draws the cost plot, the
# biggest single piece, and the memory plot too where that evens the two processes' work out
# (not without a plan section, nor at many hundreds of scenarios). HTML and Markdown alone:
# report/plot_child.py, a child that loads Qt itself draws every image.
_MS_PER_SCENARIO = {"cost": 3.0, "memory": 1.4, "html": 2.0}
_PLAN_MS = 600.0
# Whatever the number of scenarios: the child inherits Qt's modules (load_qt before the fork), so
# its own start is its QApplication and the pages it copies, ~60 ms CPU; a report of 1, 3 or 20
# scenarios still drew ~0.4-0.5 s of the plots' CPU off the parent's path.


def forked_images(scenarios: int, *, plan: bool) -> tuple[str, ...]:
    """The images a forked child draws for a report of ``scenarios`` (with a plan section or
    not): the cost plot, and the memory plot where the slower of the two processes is then
    sooner done."""
    ms = {part: each * scenarios for part, each in _MS_PER_SCENARIO.items()}
    parent = ms["memory"] + ms["html"] + (_PLAN_MS if plan else 0.0)
    alone = max(ms["cost"], parent)
    with_memory = max(ms["cost"] + ms["memory"], parent - ms["memory"])
    return ("cost", "memory") if with_memory < alone else ("cost",)


_DRAWN_ORDER = ("memory", "cost", *PLAN_IMAGES)  # plot_images' order (the PDF's resources)
PDF_DPI = 96
MARGIN_MM = 15.0
PLOT_SIZE = (680, 390)  # logical px; drawn at 2× for print


# Qt's raster engine hands a fill of many spans (each antialiased curve of a plot at 2x) to its
# GUI thread pool in segments and waits for them (qdrawhelper's QT_THREAD_PARALLEL_FILLS). The
# hand-off costs more than the fill: the 200-scenario cost plot drew in ~700 ms CPU, ~500
# without the pool, the memory plot ~300 -> ~240 (issue 17), and a forked report already keeps
# both CPUs busy. Qt reads the variable once, when a fill first asks for the
# pool, so it is set where the report creates the process's QApplication (the CLI, its forked
# child), not in the window's. The same pixels: each fill runs the same function in one thread.
SERIAL_FILLS = ("QT_NO_GUI_THREADPOOL", "1")


def ensure_qapp():
    """The running QApplication, or a new one (offscreen when there is no display; painting in
    this thread alone, ``SERIAL_FILLS``)."""
    if (
        "QT_QPA_PLATFORM" not in os.environ
        and sys.platform.startswith("linux")
        and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    ):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        os.environ.setdefault(*SERIAL_FILLS)
        app = QApplication([sys.argv[0] if sys.argv else "ftcost"])
    return app


def load_qt() -> None:
    """Import what ``plot_images`` draws with (Qt, numpy, pyqtgraph, the plot classes) and create
    no QApplication: done before forking (report/forked.py), so that the child inherits them
    instead of importing them again (~0.5 s CPU)."""
    from importlib import import_module

    for name in ("cost_plot", "memory_plot", "scenario_plots", "fits_plot", "plan_plot", "export"):
        import_module(f"..charts.{name}", __package__)


def plot_images(
    report: Report,
    size: tuple[int, int] = PLOT_SIZE,
    scale: float = 2.0,
    names: Collection[str] | None = None,
    figures: PlanFigures | None = None,
):
    """{'memory': png, 'cost': png}: by scenario when there are several, else by method; and the
    plan's three with a plan section (or ``figures``, what they draw). ``names``: only these
    (each view is laid out and drawn on its own, so a subset gives the same bytes as the whole;
    none: Qt is not touched)."""
    if names is not None and not names:
        return {}
    if figures is None and report.plan is not None:
        figures = PlanFigures.of(report.plan)
    drawn = report_figures(report, figures, names is None or "memory" in names or "cost" in names)
    return draw_images(drawn, size, scale, names=names)


def draw_images(
    figures: ReportFigures,
    size: tuple[int, int] = PLOT_SIZE,
    scale: float = 2.0,
    names: Collection[str] | None = None,
) -> dict[str, bytes]:
    """``plot_images`` from what the plots draw (a forked child has these, not the report)."""
    if names is not None and not names:
        return {}
    ensure_qapp()
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from ..charts import CostPlot, MemoryPlot, ScenarioCostPlot, ScenarioMemoryPlot, render_png
    from ..charts.fits_plot import WhatFitsPlot
    from ..charts.plan_plot import PlanFrontPlot
    from ..charts.theme import PAPER

    several = figures.series is not None
    makers: dict = (
        {"memory": ScenarioMemoryPlot, "cost": ScenarioCostPlot}
        if several
        else {"memory": MemoryPlot, "cost": CostPlot}
    )
    if figures.plan is not None:
        makers.update(
            plan=PlanFrontPlot, fits_seq=lambda: WhatFitsPlot("seq_len"),
            fits_batch=lambda: WhatFitsPlot("micro_batch"),
        )  # fmt: skip
    views = {name: make() for name, make in makers.items() if names is None or name in names}
    images: dict[str, bytes] = {}
    try:
        for view in views.values():
            view.use_theme(PAPER)  # print: white paper whatever the window's palette
            view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            view.resize(*size)
            view.show()
            view.setUpdatesEnabled(False)  # laid out as on screen, never painted there
        QApplication.processEvents()
        if figures.series is not None:
            for name in ("memory", "cost"):
                if name in views:
                    views[name].set_scenarios(figures.series)
        elif "memory" in views or "cost" in views:
            assert figures.inputs is not None  # one scenario: its plots by method
            outcome = Outcomes().get(figures.inputs)
            if "memory" in views:
                views["memory"].set_bars(outcome.memory_by_method)
            if "cost" in views:
                tier = outcome.inputs.hardware.gpu.pricing_tier
                views["cost"].set_series(outcome.cost_curve, outcome.cost_now, price_word(tier))
        if figures.plan is not None:
            if "plan" in views:
                views["plan"].set_series(figures.plan.points, {})
            for name in ("fits_seq", "fits_batch"):
                if name in views:
                    views[name].set_series(figures.plan.fits)
        QApplication.processEvents()
        for _ in range(2):  # the axes' new widths change the plot's width, and so its ticks
            for view in views.values():
                _size_axes(view)
            QApplication.processEvents()
        for name, view in views.items():
            images[name] = render_png(view.plot_widget, view.export_item, scale)
    finally:
        for view in views.values():
            view.close()
            view.deleteLater()
    return images


def _size_axes(view) -> None:
    """What painting a view on screen does to its layout, without painting it (issue 17: a plot
    of hundreds of curves paints for seconds, and the report's views painted dozens of times):
    pyqtgraph sizes each axis to the tick labels it draws (``AxisItem.generateDrawSpecs``) and
    the layout follows. The vertical axes start from no text, so that each gets its labels'
    width (on screen one keeps a wider width it once had unless its labels shrink by more than
    10 px: what the window showed before decided it)."""
    from PySide6.QtGui import QImage, QPainter

    view.settle()
    image = QImage(1, 1, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        for side in ("left", "right"):
            axis = view.plot_item.getAxis(side)
            if axis.isVisible():
                axis.textWidth = 0
                axis.generateDrawSpecs(painter)
        for side in ("top", "bottom"):  # one line of labels: the height they start with
            axis = view.plot_item.getAxis(side)
            if axis.isVisible():
                axis.generateDrawSpecs(painter)
    finally:
        painter.end()


def write_pdf(path: str | os.PathLike[str], report: Report, images: dict[str, bytes]) -> int:
    """Write the PDF; the number of pages."""
    ensure_qapp()
    from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QSizeF, QUrl
    from PySide6.QtGui import (
        QFont,
        QImage,
        QPageLayout,
        QPageSize,
        QPdfWriter,
        QTextDocument,
    )

    html = report_html(report, images, "pdf")
    # Into memory, then our atomic write: Qt would take the file name as a QString, which
    # cannot hold a non-UTF-8 name's bytes (the PDF landed under another name and the temp
    # stayed behind); atomic_write_bytes also sweeps a killed save's temps.
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageMargins(
        QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM), QPageLayout.Unit.Millimeter
    )
    writer.setResolution(PDF_DPI)
    writer.setTitle(f"ftcost report: {report.title}")
    writer.setCreator(f"ftcost {__version__}")
    doc = QTextDocument()
    font = QFont()
    font.setPointSizeF(9.0)
    doc.setDefaultFont(font)
    for name, png in images.items():
        image = QImage.fromData(png, "PNG")
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"{name}.png"), image)
    doc.setHtml(html)
    doc.setPageSize(QSizeF(writer.width(), writer.height()))
    pages = doc.pageCount()
    doc.print_(writer)
    del writer  # flushes
    buffer.close()
    data = bytes(buffer.data().data())
    if not data:
        raise OSError(f"could not render the PDF for {os.fsdecode(path)}")
    atomic_write_bytes(path, data)
    return pages


def export_report(
    report: Report,
    *,
    pdf: str | os.PathLike[str] | None = None,
    html: str | os.PathLike[str] | None = None,
    md: str | os.PathLike[str] | None = None,
    replace_images: bool = False,
    worker: ImageWorker | None = None,
    before_qt: Callable[[], None] = lambda: None,
) -> list[Path]:
    """Render the plots once and write every format asked for; the files written. ``worker``:
    a forked child drawing some of the images, or all of them (report/forked.py,
    report/plot_child.py); this process draws the rest and the HTML's text meanwhile, and the
    child's images too if it does not deliver them. ``before_qt``: called before this process
    first uses Qt (not at all where the child draws everything and there is no PDF)."""

    def draw(names: Collection[str] | None = None) -> dict[str, bytes]:
        if names is None or names:
            before_qt()
        return plot_images(report) if names is None else plot_images(report, names=names)

    html_with = None
    if worker is None:
        images = draw()
    else:
        shown = [n for n in IMAGE_NAMES if report.plan is not None or n not in PLAN_IMAGES]
        images = draw([n for n in shown if n not in worker.names])  # none: no Qt here
        if html is not None:
            html_with = html_bytes_but_charts(report)
        images.update(worker.result() or draw(worker.names))
        images = {name: images[name] for name in _DRAWN_ORDER if name in images}
    written: list[Path] = []
    if pdf is not None:
        before_qt()
        write_pdf(pdf, report, images)
        written.append(Path(pdf))
    if html is not None:
        if html_with is None:
            write_html(html, report, images)
        else:
            atomic_write_bytes(html, html_with(images))
        written.append(Path(html))
    if md is not None:
        written.extend(write_markdown(md, report, images, replace_images=replace_images))
    return written
