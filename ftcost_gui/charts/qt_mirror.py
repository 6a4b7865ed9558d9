"""pyqtgraph's copies of QtCore, QtGui and QtWidgets, filled on use instead of all at once.

``pyqtgraph.Qt`` keeps its own modules ("mirrors") of the three Qt modules, filled by copying
every name ``dir()`` lists (its ``_copy_attrs``). PySide6 makes a class only when it is first
asked for, so that copy makes all ~720 classes of the three modules, and their enums, at once:
~90–110 ms of CPU when the plots first load (benchmarks/bench_gui.py), for classes ftcost mostly
never uses. While ``pyqtgraph.Qt`` runs, ``install`` has the three PySide6 modules list only the
classes already made, and gives each mirror a module ``__getattr__`` (PEP 562) that fetches any
other name from PySide6 on first use: ``pyqtgraph.Qt.QtWidgets.X is PySide6.QtWidgets.X`` for
every ``X``, as before; only ``dir()`` of a mirror lists fewer names.

Nothing changes when pyqtgraph is already loaded, is told to use another binding
(``PYQTGRAPH_QT_LIB``), or when the PySide6 modules make their classes eagerly (no ``__dir__``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

_QT = ("QtCore", "QtGui", "QtWidgets")
_PACKAGE = "pyqtgraph.Qt"
_MIRRORS = {f"{_PACKAGE}.{name}": f"PySide6.{name}" for name in _QT}


def _made_names(module: ModuleType) -> Callable[[], list[str]]:
    return lambda: list(module.__dict__)


def _forward(qt_name: str, mirror: ModuleType) -> Callable[[str], Any]:
    def __getattr__(name: str) -> Any:
        value = getattr(sys.modules[qt_name], name)
        # Kept in the mirror: pyqtgraph looks QRectF, QPointF, Qt … up ~700 times per edit
        # (issue 17, edit path), each a call here otherwise.
        setattr(mirror, name, value)
        return value

    return __getattr__


class _MirrorFinder(importlib.abc.MetaPathFinder):
    """Finds ``pyqtgraph.Qt`` and its mirrors as usual and wraps how their modules run."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != _PACKAGE and fullname not in _MIRRORS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        loader = getattr(spec, "loader", None)
        if spec is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module  # type: ignore[union-attr]
        if fullname == _PACKAGE:
            loader.exec_module = lambda module: self._run_package(run, module)  # type: ignore[union-attr]
        else:
            loader.exec_module = lambda module: self._run_mirror(run, module, _MIRRORS[fullname])  # type: ignore[union-attr]
        return spec

    def _run_package(self, run: Callable[[ModuleType], None], module: ModuleType) -> None:
        try:  # what pyqtgraph.Qt imports first: its copy then sees only the classes made
            qt = [importlib.import_module(f"PySide6.{name}") for name in _QT]
        except ImportError:
            qt = []
        lazy = [m for m in qt if callable(m.__dict__.get("__dir__"))]
        listed = {m: m.__dict__["__dir__"] for m in lazy}
        try:
            for m in lazy:
                m.__dir__ = _made_names(m)  # type: ignore[method-assign]
            run(module)
        finally:
            for m, dir_ in listed.items():
                m.__dir__ = dir_  # type: ignore[method-assign]
            uninstall()

    @staticmethod
    def _run_mirror(run: Callable[[ModuleType], None], module: ModuleType, qt_name: str) -> None:
        run(module)
        if getattr(sys.modules.get(_PACKAGE), "QT_LIB", None) == "PySide6":
            module.__getattr__ = _forward(qt_name, module)  # type: ignore[method-assign]


_finder = _MirrorFinder()


def install() -> bool:
    """Fill pyqtgraph's Qt mirrors on use when pyqtgraph loads next; True when installed.

    Only the classes PySide6 has made when pyqtgraph loads are copied: the PySide6 modules
    must be imported first (the application imports them long before the plots)."""
    if "pyqtgraph" in sys.modules or os.environ.get("PYQTGRAPH_QT_LIB", "PySide6") != "PySide6":
        return False
    if any(name in sys.modules for name in ("PyQt6", "PyQt5", "PySide2")):
        return False  # pyqtgraph would pick one of these first
    add_finder(_finder)
    return True


def uninstall() -> None:
    remove_finder(_finder)


def add_finder(finder: importlib.abc.MetaPathFinder) -> None:
    """``finder`` first on ``sys.meta_path`` (once); also for charts/pg_lite.py."""
    if finder not in sys.meta_path:
        sys.meta_path.insert(0, finder)


def remove_finder(finder: importlib.abc.MetaPathFinder) -> None:
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
