"""GUI fixtures: no real modal dialogs, and a main window built the way the app builds it."""

import gc

import pytest

from .counting import record_calls


@pytest.fixture(autouse=True)
def _free_closed_windows():
    """Each test's windows go with it: pytest-qt closes them, but their C++ widgets live until
    Python collects the wrappers' cycles. Thousands of such widgets slow every later test (a new
    window took seconds to lay out) and make timing-dependent waits flaky."""
    yield
    from PySide6.QtCore import QCoreApplication, QEvent

    gc.collect()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


@pytest.fixture(autouse=True)
def _no_real_modal_dialogs(monkeypatch):
    """Message boxes answer Discard; file dialogs fail unless a test patches them (§6.1)."""
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    calls: dict[str, list] = {"question": [], "warning": [], "critical": [], "information": []}

    def _stub(name):
        def _answer(*args, **kwargs):
            calls[name].append(args)
            return QMessageBox.StandardButton.Discard

        return staticmethod(_answer)

    for name in calls:
        monkeypatch.setattr(QMessageBox, name, _stub(name))

    def _fail(*args, **kwargs):
        raise AssertionError("unexpected file dialog")

    for name in ("getSaveFileName", "getOpenFileName", "getOpenFileNames", "getExistingDirectory"):
        monkeypatch.setattr(QFileDialog, name, staticmethod(_fail))
    from PySide6.QtWidgets import QInputDialog

    for name in ("getText", "getInt", "getDouble", "getItem", "getMultiLineText"):
        monkeypatch.setattr(QInputDialog, name, staticmethod(_fail))
    return calls


@pytest.fixture
def dialogs(_no_real_modal_dialogs):
    """The calls the stubbed message boxes received, by kind."""
    return _no_real_modal_dialogs


@pytest.fixture
def article_000_first(monkeypatch):
    """New documents are article 000's worked example (Qwen2.5-7B full FT at MFU 0.40), the
    numbers these tests check by hand; the app starts new documents from the shared defaults
    (core/defaults.py; tests/gui/test_window.py::test_first_launch_is_the_clis_new_estimate)."""
    from ftcost_gui.gui import defaults
    from ftcost_gui.gui.window import files, main_window, scenario_bar

    for module in (main_window, files, scenario_bar):
        monkeypatch.setattr(module, "first_launch_inputs", defaults.article_000)


@pytest.fixture
def window(qtbot, article_000_first):
    from ftcost_gui.gui.app import build_window

    w = build_window(build_plots_now=True)
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.fixture
def counted(monkeypatch):
    """Every full estimate anywhere (each runs one ``plan``) and every memory-only step."""
    import importlib

    estimate_mod = importlib.import_module("ftcost_gui.core.estimate")
    series_mod = importlib.import_module("ftcost_gui.core.series")
    calls = {"plan": 0, "memory": 0}
    plan, memory = estimate_mod.plan, series_mod.method_memory

    def counting_plan(inputs):
        calls["plan"] += 1
        return plan(inputs)

    def counting_memory(mi, counts):
        calls["memory"] += 1
        return memory(mi, counts)

    for mod in (estimate_mod, series_mod):
        monkeypatch.setattr(mod, "plan", counting_plan)
    monkeypatch.setattr(series_mod, "method_memory", counting_memory)
    return calls


@pytest.fixture
def specs_made(monkeypatch):
    """generateDrawSpecs runs, by axis orientation."""
    import pyqtgraph as pg

    return record_calls(
        monkeypatch, pg.AxisItem, "generateDrawSpecs", lambda axis, _p: axis.orientation
    )
