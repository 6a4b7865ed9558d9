"""Charts: pyqtgraph views that draw the series core/series.py computes, nothing else.

Used by the window (gui/window/charts_area.py) and by the report renderer (report/render.py).
May import ``core``, ``io`` and ``present``; never ``report``, ``gui`` or ``cli``.

The names below load their module on first use (PEP 562): the window reads ``charts.theme``
(colours, no pyqtgraph) while it starts and imports pyqtgraph only with the plots, after its
first paint.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from . import pg_lite, qt_mirror

qt_mirror.install()  # pyqtgraph's copies of the Qt modules filled on use (charts/qt_mirror.py)
pg_lite.install()  # pyqtgraph's modules the charts do not use loaded on use (charts/pg_lite.py)

if TYPE_CHECKING:
    from .cost_plot import CostPlot
    from .export import export_png, export_svg, render_png
    from .memory_plot import MemoryPlot
    from .scenario_cost_plot import ScenarioCostPlot
    from .scenario_plots import ScenarioMemoryPlot

_HOMES = {
    "CostPlot": ".cost_plot",
    "MemoryPlot": ".memory_plot",
    "ScenarioCostPlot": ".scenario_cost_plot",
    "ScenarioMemoryPlot": ".scenario_plots",
    "export_png": ".export",
    "export_svg": ".export",
    "render_png": ".export",
}

__all__ = [
    "CostPlot",
    "MemoryPlot",
    "ScenarioCostPlot",
    "ScenarioMemoryPlot",
    "export_png",
    "export_svg",
    "render_png",
]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(_HOMES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
