"""The layers keep their place: no Qt below the window, no import of the window from below."""

from __future__ import annotations

import subprocess
import sys


def test_core_and_io_import_without_qt():
    code = (
        "import sys, ftcost_gui.core, ftcost_gui.io.estimate_file, ftcost_gui.io.resources;"
        "import ftcost_gui.core.estimate;"
        "qt = ('PySide6', 'pyqtgraph', 'shiboken6');"
        "bad = [m for m in sys.modules if m.split('.')[0] in qt];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_core_does_not_import_platformdirs():
    code = "import sys, ftcost_gui.core;sys.exit(1 if 'platformdirs' in sys.modules else 0)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_present_imports_without_qt():
    code = (
        "import sys, ftcost_gui.present.explain, ftcost_gui.present.figures,"
        " ftcost_gui.present.tables, ftcost_gui.present.blocks, ftcost_gui.present.text;"
        "qt = ('PySide6', 'pyqtgraph', 'shiboken6');"
        "bad = [m for m in sys.modules if m.split('.')[0] in qt];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_charts_and_report_never_import_the_window():
    code = (
        "import os; os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen');"
        "import sys, ftcost_gui.charts, ftcost_gui.report.content, ftcost_gui.report.render;"
        "bad = [m for m in sys.modules if m.startswith(('ftcost_gui.gui', 'ftcost_gui.cli'))];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_import_contracts_hold(capsys):
    """pyproject.toml's import-linter contracts: the layers, no Qt below the charts, no cycles."""
    from pathlib import Path

    from importlinter.cli import lint_imports

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    code = lint_imports(config_filename=str(pyproject), no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out


def test_every_module_imports():
    """The contracts skip a module that does not exist: a stale relative import fails here."""
    import importlib
    import os
    import pkgutil

    import ftcost_gui

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    failed = []
    for info in pkgutil.walk_packages(ftcost_gui.__path__, "ftcost_gui."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except Exception as exc:  # report every module that fails, not only the first
            failed.append(f"{info.name}: {exc!r}")
    assert failed == []
