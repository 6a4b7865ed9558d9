"""The plots' right-click menu built on first use (charts/menu_view_box.py; issue 17: start-up).

A plot is built without its ViewBox menu; a right-click (or an export action asked for) builds
the same menu pyqtgraph builds with the view, the export actions after a separator at its end.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu

from ftcost_gui.charts import CostPlot, MemoryPlot
from ftcost_gui.charts.menu_view_box import MenuViewBox


def _texts(menu: QMenu) -> list:
    return [[a.text(), _texts(a.menu()) if a.menu() else None] for a in menu.actions()]


def test_the_menu_waits_for_first_use_and_is_pyqtgraphs(qtbot):
    plot = CostPlot()
    qtbot.addWidget(plot)
    plot.resize(500, 400)
    plot.show()
    qtbot.waitExposed(plot)
    assert not plot.view_box.menu_built  # nothing made for a menu not opened
    assert plot.view_box.menuEnabled()
    plain = pg.ViewBox()  # pyqtgraph's own, built with the view
    assert plain.menu is not None
    vp = plot.plot_widget.viewport()
    qtbot.mouseClick(vp, Qt.MouseButton.RightButton, pos=vp.rect().center())
    shown = [m for m in QApplication.topLevelWidgets() if isinstance(m, QMenu) and m.isVisible()]
    assert plot.view_box.menu_built and plot.view_box.menu in shown
    # pyqtgraph's entries, then ours after a separator (then what the scene adds at each popup:
    # the plot's "Plot Options", as before)
    ours = [["", None], ["Export plot as PNG…", None], ["Export plot as SVG…", None]]
    got = _texts(plot.view_box.menu)
    assert got[: len(plain.menu.actions()) + 3] == [*_texts(plain.menu), *ours]
    assert ["Plot Options", None] not in got and any(t == "Plot Options" for t, _ in got)
    # it reads the view's state when it pops up, as pyqtgraph's does
    plot.view_box.menu.ctrl[0].manualRadio.click()
    assert plot.view_box.state["autoRange"][0] is False
    plot.view_box.menu.ctrl[0].autoRadio.click()
    assert plot.view_box.state["autoRange"][0] is not False
    for m in shown:
        m.hide()


def test_an_export_action_asked_for_builds_the_menu(qtbot):
    plot = MemoryPlot()
    qtbot.addWidget(plot)
    assert not plot.view_box.menu_built
    asked = []
    plot.exportRequested.connect(asked.append)
    plot.svg_action.trigger()
    plot.png_action.trigger()
    assert plot.view_box.menu_built and asked == ["svg", "png"]
    assert plot.view_box.menu.actions()[-2:] == [plot.png_action, plot.svg_action]


def test_a_menu_switched_off_and_on():
    view = MenuViewBox(enableMenu=False)
    assert view.menu is None and not view.menuEnabled()
    added = []
    view.on_menu(added.append)
    view.setMenuEnabled(True)  # pyqtgraph builds it now (ViewBox._applyMenuEnabled)
    assert view.menu_built and added == [view.menu]
    view.setMenuEnabled(False)
    assert view.menu is None


# A plot left without a parent, then dropped, must be freed by its reference count: a cycle
# through its view box's callbacks (widget → scene → view box → the widget's bound method) was
# broken by the garbage collector from the middle, and the widget's scene was destroyed under an
# item being destroyed (a segfault in QGraphicsScene::clear, one run of a plot test in several).
# Run in a child process: the collection that would follow a failure crashes the process.
_DROPPED = """
import gc, sys, weakref
from PySide6.QtWidgets import QApplication
app = QApplication([])
from ftcost_gui.charts.cost_plot import CostPlot
from ftcost_gui.charts.fits_plot import WhatFitsPlot
from ftcost_gui.charts.length_histogram import LengthHistogramPlot
from ftcost_gui.charts.memory_plot import MemoryPlot
from ftcost_gui.charts.plan_plot import PlanFrontPlot
from ftcost_gui.charts.scenario_cost_plot import ScenarioCostPlot
from ftcost_gui.charts.scenario_plots import ScenarioMemoryPlot
makers = [CostPlot, MemoryPlot, LengthHistogramPlot, PlanFrontPlot, ScenarioCostPlot,
          ScenarioMemoryPlot, lambda: WhatFitsPlot("seq_len")]
gc.collect()
gc.disable()
kept = []
for make in makers:
    plot = make()
    plot.view_box.menu  # the menu built: the export callback has run
    ref = weakref.ref(plot)
    del plot
    if ref() is not None:
        kept.append(type(ref()).__name__)
print("kept:", ",".join(kept))
sys.stdout.flush()
import os; os._exit(0)  # (no collection at exit: a kept plot would crash it)
"""


def test_a_dropped_plot_is_freed_without_the_garbage_collector():
    import os
    import subprocess
    import sys

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run(
        [sys.executable, "-c", _DROPPED], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "kept:", run.stdout


def test_a_bound_method_given_to_on_menu_does_not_keep_its_object():
    import weakref

    class Owner:
        def __init__(self) -> None:
            self.menus: list = []

        def add(self, menu) -> None:
            self.menus.append(menu)

    view = MenuViewBox()
    alive, gone = Owner(), Owner()
    view.on_menu(alive.add)
    view.on_menu(gone.add)
    ref = weakref.ref(gone)
    del gone
    assert ref() is None  # the view box did not keep it
    menu = view.menu
    assert alive.menus == [menu]  # the living owner's callback ran; the gone one's was skipped
