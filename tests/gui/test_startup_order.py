"""What the application loads before its first paint, and in which order (issue 17: start-up).

The figures live in benchmarks/bench_gui.py; these tests pin the choices that make them: no plot
library before the window is on screen (every add-on included), the Qt-free modules before
PySide6, the plots built after the first paint, what the first window does not show loaded when
first used, no garbage collection until the plots are built, and no module's source read for
PySide6's ``__feature__`` scan (~0.4 ms and its text kept in memory for each module imported after
PySide6), and pyqtgraph not making every Qt class when it loads (charts/qt_mirror.py) nor loading
the modules the charts do not use (charts/pg_lite.py), and the plots' menus built on first use.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

CHILD = r"""
import gc, json, linecache, os, sys, time
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info))
from ftcost_gui.gui.app import start
collections.clear()  # importing the package (before start) is not start-up's
app, window = start(sys.argv[:1])
at_plots = []  # collections counted when the plots are built (the one collection follows it)
window.charts.plotsBuilt.connect(lambda: at_plots.append(len(collections)))
loaded = list(sys.modules)
before_show = {m: m in sys.modules for m in ("pyqtgraph", "numpy")}
on_first_use = [m for m in (
    "ftcost_gui.gui.catalog.editor", "ftcost_gui.core.planner", "ftcost_gui.core.plan_front",
    "ftcost_gui.core.what_fits", "ftcost_gui.report.content", "ftcost_gui.present.explain",
    "ftcost_gui.io.export_csv", "ftcost_gui.gui.help.guide_window", "ftcost_gui.gui.help.shortcuts",
    "ftcost_gui.io.hf_cache", "ftcost_gui.io.hf_config", "ftcost_gui.io.safetensors_header",
    "ftcost_gui.core.plan_space", "ftcost_gui.gui.compare_view", "ftcost_gui.gui.compare_table",
    "ftcost_gui.gui.compare_model",
    "ftcost_gui.present.tables",
    ) if m in sys.modules]
compare_built = window.results.compare_built
panels_built = len(window.form_tabs.built_panels())
threads_before_show = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else 0
window.show()
app.processEvents()  # the first paint; the plots follow it on a zero timer
plots_after_paint = window.charts.memory_plot is None
for _ in range(5):
    app.processEvents()
deadline = time.monotonic() + 60  # the one collection waits for the plots' first paint
while not gc.isenabled() and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.01)
print(json.dumps({
    "before_show": before_show,
    "on_first_use": on_first_use,
    "panels_built": panels_built,
    "compare_built": compare_built,
    "order": [loaded.index(m) for m in ("ftcost_gui.core.estimate", "PySide6.QtWidgets")],
    "plots_after_paint": plots_after_paint,
    "plots_built": window.charts.memory_plot is not None,
    "collected_before_plots": at_plots,
    "gc_after": [gc.isenabled(), gc.get_freeze_count() > 10_000],
    # pyqtgraph's modules the charts do not use not loaded with the plots drawn (charts/pg_lite.py)
    "pyqtgraph_rest_on_use": "__getattr__" in vars(sys.modules["pyqtgraph"]),
    "pyqtgraph_modules": len([m for m in sys.modules if m.startswith("pyqtgraph.")]),
    "menus_built": [
        plot.view_box.menu_built for plot in (window.charts.memory_plot, window.charts.cost_plot)
    ],
    # numpy's import starts no OpenBLAS threads (blas_threads.py); Linux counts them
    "threads": [threads_before_show, len(os.listdir("/proc/self/task"))
                if os.path.isdir("/proc/self/task") else 0],
    "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
    # pydantic never read the installed distributions' entry points for plugins (gui/app.py)
    "pydantic_plugins_scanned": sys.modules["pydantic.plugin._loader"]._plugins is not None,
    "sources_read": sorted(f for f in linecache.cache if f.endswith(".py")),
    "qt_classes": [  # made by PySide6 on first use / listed by the three Qt modules
        sum(len(sys.modules[f"PySide6.{m}"].__dict__) for m in ("QtCore", "QtGui", "QtWidgets")),
        sum(len(dir(sys.modules[f"PySide6.{m}"])) for m in ("QtCore", "QtGui", "QtWidgets")),
    ],
}))
window.store.set_dirty(False)
"""


def test_start_loads_the_core_before_qt_and_no_plot_library_before_the_first_paint(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FTCOST_CONFIG_DIR": str(tmp_path)}
    env.pop("OPENBLAS_NUM_THREADS", None)
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    out = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, check=True, env=env
    )
    got = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])
    # Every add-on (dataset dialog, plan tabs, catalogs, help) waits with pyqtgraph and numpy.
    assert got["before_show"] == {"pyqtgraph": False, "numpy": False}
    # Neither the catalog manager, the plan search, the report, the Arithmetic tab's text, the CSV
    # export, the user guide, the shortcut list, the model import's readers (config.json,
    # safetensors headers, the Hugging Face cache), the plan constraints (read when the Plan
    # tab first needs them) nor the Compare tab's view load with the window; only the form tab on
    # screen is built (test_lazy_forms.py).
    assert got["on_first_use"] == []
    assert got["panels_built"] == 1
    # Nor the Compare tab's view, its model and its table's texts (test_lazy_compare.py).
    assert got["compare_built"] is False
    core, qt = got["order"]
    assert core < qt  # PySide6 hooks each import made after it
    assert got["plots_after_paint"] and got["plots_built"]
    # No collection until the plots are built (main: ~125 before the first paint, ~210 until
    # the plots), then one, and what survives it is left out of later ones.
    assert got["collected_before_plots"] == [0]
    assert got["gc_after"] == [True, True]
    # Ours, pyqtgraph's and numpy's modules were all imported after PySide6: none was read
    # (PySide6 reads its own few while it loads, before the scan can be skipped).
    ours = ("ftcost_gui", "pyqtgraph", "numpy")
    assert [f for f in got["sources_read"] if any(k in f for k in ours)] == []
    assert len(got["sources_read"]) <= 3  # shiboken6, enum, PySide6 (main: ~410)
    # pyqtgraph's copies of the Qt modules take the classes made so far and the rest on use
    # (charts/qt_mirror.py): with the plots drawn, ~360 of ~725 made (a7f813f: all, 721).
    made, listed = got["qt_classes"]
    assert made < 0.7 * listed
    # Building and drawing the plots asks for no name outside pyqtgraph's modules they use
    # (charts/pg_lite.py): ~55 of its ~145 modules loaded (ffb1511: all).
    assert got["pyqtgraph_rest_on_use"]
    assert got["pyqtgraph_modules"] < 80
    # The plots' right-click menus wait for a right-click (charts/menu_view_box.py).
    assert got["menus_built"] == [False, False]
    # numpy, loaded with the plots, started no thread pool of OpenBLAS (one thread per core but
    # one, ~25-35 ms of start-up on 2 cores): the plots drawn, as many threads as before show.
    assert got["openblas_threads"] == "1"
    before, after = got["threads"]
    assert after == before
    # No scan of every installed distribution's entry points for pydantic plugins (~15M
    # instructions before the first paint, callgrind).
    assert got["pydantic_plugins_scanned"] is False


def test_the_skipped_collections_come_back_once(monkeypatch):
    """start() turns the collector off until the plots are built; the one collection (after the
    plots, or the fallback for a window never painted) turns it on once, whichever comes first."""
    import gc

    from ftcost_gui.gui import app

    runs = []
    monkeypatch.setattr(gc, "freeze", lambda: runs.append("freeze"))  # this process stays as is
    gc.disable()
    try:
        app._collect_once_settled()
        assert gc.isenabled() and runs == ["freeze"]
        app._collect_once_settled()  # the second timer: nothing more
        assert runs == ["freeze"]
    finally:
        gc.enable()
    assert app.GC_SETTLE_MS < app.GC_FALLBACK_MS


def test_one_blas_thread_is_said_before_numpy_loads_and_a_user_setting_is_kept(monkeypatch):
    """The window and the report's command say it (blas_threads.py): before numpy loads, one
    thread unless the user chose; once numpy is loaded its pool exists, so nothing is set."""
    import numpy  # noqa: F401  (loaded, as in the test process after the plots)

    from ftcost_gui import blas_threads

    monkeypatch.delitem(sys.modules, "numpy")  # as in a process that has not loaded it yet
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    blas_threads.one_blas_thread()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4"
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    blas_threads.one_blas_thread()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.undo()  # numpy back in sys.modules
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    blas_threads.one_blas_thread()
    assert "OPENBLAS_NUM_THREADS" not in os.environ


def test_a_pydantic_plugin_setting_the_user_made_is_kept(monkeypatch):
    from ftcost_gui.gui import app

    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "")  # empty: scan for plugins as pydantic does
    app._no_pydantic_plugins()
    assert os.environ["PYDANTIC_DISABLE_PLUGINS"] == ""
    monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS")
    app._no_pydantic_plugins()
    assert os.environ["PYDANTIC_DISABLE_PLUGINS"] == "__all__"
