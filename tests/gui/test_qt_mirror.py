"""pyqtgraph's copies of the Qt modules filled on use (charts/qt_mirror.py; issue 17: start-up).

pyqtgraph copies every name of QtCore, QtGui and QtWidgets into its own modules when it loads,
which makes PySide6 create all their classes at once. With ``qt_mirror.install`` only the classes
already made are copied and the rest are fetched on first use: every name still resolves to the
same PySide6 object, and the plots' context menus work as before. In a fresh process (pyqtgraph
loads once per process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys
from PySide6.QtWidgets import QApplication, QMenu
import PySide6.QtCore, PySide6.QtGui, PySide6.QtWidgets
app = QApplication(sys.argv[:1])
qt = {n: sys.modules["PySide6." + n] for n in ("QtCore", "QtGui", "QtWidgets")}
listed = {n: len(dir(m)) for n, m in qt.items()}
from ftcost_gui.charts import qt_mirror  # the charts package installs it on import
installed = qt_mirror._finder in sys.meta_path
import pyqtgraph as pg
made = {n: len(m.__dict__) for n, m in qt.items()}  # classes PySide6 made for pyqtgraph
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets
mirrors = {"QtCore": QtCore, "QtGui": QtGui, "QtWidgets": QtWidgets}
kept_before = "QCollator" in vars(QtCore)
zone = QtCore.QCollator
kept = "QCollator" in vars(QtCore) and vars(QtCore)["QCollator"] is qt["QtCore"].QCollator
same = all(getattr(mirrors[n], name) is getattr(m, name)
           for n, m in qt.items() for name in dir(m) if not name.startswith("__"))
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from ftcost_gui.charts import CostPlot
plot = CostPlot()
plot.resize(500, 400)
plot.show()
app.processEvents()
vp = plot.plot_widget.viewport()
QTest.mouseClick(vp, Qt.MouseButton.RightButton, pos=vp.rect().center())
app.processEvents()
menus = [m for m in QApplication.topLevelWidgets() if isinstance(m, QMenu) and m.isVisible()]
def texts(menu):
    return [[a.text(), texts(a.menu()) if a.menu() else None] for a in menu.actions()]
shown = [texts(m) for m in menus]
vb = plot.view_box
vb.menu.ctrl[0].manualRadio.click()
manual = vb.state["autoRange"][0]
vb.menu.ctrl[0].autoRadio.click()
print(json.dumps({
    "installed": installed, "removed": qt_mirror._finder not in sys.meta_path,
    "listed": listed, "listed_after": {n: len(dir(m)) for n, m in qt.items()}, "made": made,
    "same": same, "menus": shown, "auto_range": [manual, vb.state["autoRange"][0]],
    "again": qt_mirror.install(), "kept": [kept_before, kept],
}), flush=True)
import os
os._exit(0)  # a menu still open and the plot outlive QApplication at exit (teardown crash)
"""


def test_pyqtgraph_copies_only_the_qt_classes_made_and_resolves_the_rest_on_use(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FTCOST_CONFIG_DIR": str(tmp_path)}
    env.pop("PYQTGRAPH_QT_LIB", None)
    out = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, check=True, env=env
    )
    got = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])
    assert got["installed"] and got["removed"]  # for pyqtgraph's one load, then gone
    assert got["listed_after"] == got["listed"]  # PySide6's own listing is put back
    # Without it pyqtgraph's load made every class the three modules list (main: all ~720).
    for name, listed in got["listed"].items():
        assert got["made"][name] < 0.6 * listed, name
    assert got["same"]  # every name of the mirrors is PySide6's object, made on use
    # A name fetched once is kept in the mirror: later look-ups (pyqtgraph's ~700 per edit)
    # are the module's own, not a call each.
    assert got["kept"] == [False, True]
    # The plot's context menu: pyqtgraph's view menu, its axis and option forms, our exports.
    [menu] = got["menus"]
    words = [text for text, _ in menu]
    for text in ("View All", "X axis", "Y axis", "Mouse Mode", "Plot Options",
                 "Export plot as PNG…", "Export plot as SVG…"):  # fmt: skip
        assert text in words
    options = dict((text, sub) for text, sub in menu)["Plot Options"]
    assert [text for text, _ in options] == [
        "Transforms",
        "Downsample",
        "Average",
        "Alpha",
        "Grid",
        "Points",
    ]
    assert got["auto_range"] == [False, 1.0]  # the X axis form's radio buttons drive the view
    assert got["again"] is False  # pyqtgraph is loaded: nothing to install
