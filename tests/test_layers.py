"""The layers keep their place: no Qt below the window, no import of the window from below."""

from __future__ import annotations

import subprocess
import sys

QT = ("PySide6", "pyqtgraph", "shiboken6")


def _loaded_after(imports: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules named ``prefixes…`` that importing ``imports`` loads (a fresh process)."""
    code = (
        "import os, sys; os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen');"
        f"import {imports};"
        f"print(' '.join(m for m in sys.modules if m.startswith({prefixes!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_core_and_io_import_without_qt():
    imports = (
        "ftcost_gui.core, ftcost_gui.core.estimate, ftcost_gui.io.estimate_file,"
        " ftcost_gui.io.resources"
    )
    assert _loaded_after(imports, QT) == []


def test_core_does_not_import_platformdirs():
    assert _loaded_after("ftcost_gui.core", ("platformdirs",)) == []


def test_present_imports_without_qt():
    imports = (
        "ftcost_gui.present.explain, ftcost_gui.present.figures, ftcost_gui.present.tables,"
        " ftcost_gui.present.blocks, ftcost_gui.present.text"
    )
    assert _loaded_after(imports, QT) == []


def test_charts_and_report_never_import_the_window():
    imports = "ftcost_gui.charts, ftcost_gui.report.content, ftcost_gui.report.render"
    assert _loaded_after(imports, ("ftcost_gui.gui", "ftcost_gui.cli")) == []


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
