"""pyqtgraph loaded with the modules the charts use; the rest of its namespace on first use.

``pyqtgraph/__init__.py`` imports every item, widget and tool it has (image views, parameter
trees, the multiprocess remote view with ``multiprocessing``/``socket``/``subprocess``…) with a
block of ``from .X import *`` lines, ~100 ms of CPU when the plots first load
(benchmarks/bench_gui.py) for modules the charts never touch. While ``pyqtgraph`` loads,
``install``'s finder runs its ``__init__`` with that block cut to the modules in ``EAGER`` (in
the block's order; then the lines of the modules those loaded, whose names cost nothing) and
gives the package a module ``__getattr__`` (PEP 562) that runs the whole
block the first time any other name is asked for (``pg.X``, ``from pyqtgraph import X``); the
names ``__init__`` defines after the block are then put back, as the original order leaves
them. So every ``pg.X`` is the object it was (tests/gui/test_pg_lite.py compares all of them
with a full load); only ``dir(pyqtgraph)`` lists fewer names until the rest has run.

Nothing changes when pyqtgraph is already loaded, or when its ``__init__`` does not have the
block as expected (another pyqtgraph version): it then loads as usual.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import re
import sys
from collections.abc import Callable, Sequence
from types import CodeType, ModuleType
from typing import Any

from .qt_mirror import add_finder, remove_finder

_PACKAGE = "pyqtgraph"

#: The block's modules whose names the charts use (``pg.PlotItem``, ``pg.mkPen`` …), plus
#: ``ViewBox`` for pyqtgraph's own exit clean-up, which names it as a global, and two that the
#: others load anyway, whose line binds the package's name to a class instead of the module.
EAGER = frozenset(
    {
        "functions",
        "GraphicsScene",
        "WidgetGroup",
        "graphicsItems.AxisItem",
        "graphicsItems.BarGraphItem",
        "graphicsItems.ErrorBarItem",
        "graphicsItems.GraphicsObject",
        "graphicsItems.InfiniteLine",
        "graphicsItems.LabelItem",
        "graphicsItems.LegendItem",
        "graphicsItems.LinearRegionItem",
        "graphicsItems.PlotDataItem",
        "graphicsItems.PlotItem",
        "graphicsItems.ScatterPlotItem",
        "graphicsItems.TextItem",
        "graphicsItems.ViewBox",
        "Point",
        "widgets.GraphicsLayoutWidget",
        "widgets.GraphicsView",
        "widgets.PlotWidget",
    }
)

#: The block: from this line to the last ``from .widgets…`` import before the clean-up code.
_FIRST = "from .colormap import *"
_LAST = "from .widgets.VerticalLabel import *"
_IMPORT = re.compile(r"from \.([\w.]+) import ")


def split_init(source: str) -> tuple[str, str, str] | None:
    """``__init__``'s source as (before the block + the block's EAGER lines, the whole block,
    after the block), lines kept in place (tracebacks keep their line numbers); None when the
    block is not there as expected."""
    lines = source.split("\n")
    try:
        first, last = lines.index(_FIRST), lines.index(_LAST)
    except ValueError:
        return None
    block = lines[first : last + 1]
    if first > last or not all(
        _IMPORT.match(line) or not line.strip() or line.lstrip().startswith("#") for line in block
    ):
        return None

    def eager(line: str) -> str:
        found = _IMPORT.match(line)
        return line if found is not None and found.group(1) in EAGER else ""

    head = lines[:first] + [eager(line) for line in block]
    rest = [""] * first + block
    tail = [""] * (last + 1) + lines[last + 1 :]
    return "\n".join(head), "\n".join(rest), "\n".join(tail)


def _rest_on_use(module: ModuleType, rest: str, tail_names: dict[str, Any]) -> Callable[[str], Any]:
    def __getattr__(name: str) -> Any:
        namespace = module.__dict__
        if namespace.get("__getattr__") is __getattr__:
            del namespace["__getattr__"]  # once: the whole namespace is there after this
            exec(compile(rest, module.__file__ or _PACKAGE, "exec"), namespace)
            namespace.update(tail_names)  # what the original order leaves: the tail's names
            if name in namespace:
                return namespace[name]
        raise AttributeError(f"module {_PACKAGE!r} has no attribute {name!r}")

    return __getattr__


class _LiteFinder(importlib.abc.MetaPathFinder):
    """Finds ``pyqtgraph`` as usual and runs its ``__init__`` with the block cut to EAGER."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != _PACKAGE:
            return None
        uninstall()  # once: the one load of pyqtgraph
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        loader = getattr(spec, "loader", None)
        if spec is None or spec.origin is None or not hasattr(loader, "get_source"):
            return spec
        try:
            parts = split_init(loader.get_source(fullname) or "")  # type: ignore[union-attr]
        except (ImportError, OSError):
            parts = None
        if parts is None:
            return spec
        head, rest, tail = parts  # the rest is compiled when first asked for
        code = [compile(part, spec.origin, "exec") for part in (head, tail)]
        loader.exec_module = lambda module: _run(module, code[0], rest, code[1])  # type: ignore[union-attr]
        return spec


def loaded_lines(rest: str) -> str:
    """The block's lines of EAGER modules and of the modules already loaded by them (their
    names cost nothing to bind: ``pg.PlotCurveItem`` when PlotDataItem has loaded it), in the
    block's order, other lines blank."""

    def bound(line: str) -> str:
        found = _IMPORT.match(line)
        if found is None:
            return ""
        name = found.group(1)
        return line if name in EAGER or f"{_PACKAGE}.{name}" in sys.modules else ""

    return "\n".join(bound(line) for line in rest.split("\n"))


def _run(module: ModuleType, head: CodeType, rest: str, tail: CodeType) -> None:
    namespace = module.__dict__
    exec(head, namespace)
    exec(compile(loaded_lines(rest), module.__file__ or _PACKAGE, "exec"), namespace)
    before = dict(namespace)
    exec(tail, namespace)
    tail_names = {k: v for k, v in namespace.items() if k not in before or before[k] is not v}
    namespace["__getattr__"] = _rest_on_use(module, rest, tail_names)


_finder = _LiteFinder()


def install() -> bool:
    """Load pyqtgraph lightly when it loads next; True when installed."""
    if _PACKAGE in sys.modules:
        return False
    add_finder(_finder)
    return True


def uninstall() -> None:
    remove_finder(_finder)
