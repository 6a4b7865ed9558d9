"""Charts: pyqtgraph views that draw the series core/series.py computes, nothing else.

Used by the window (gui/window/charts_area.py) and by the report renderer (report/render.py).
May import ``core``, ``io`` and ``present``; never ``report``, ``gui`` or ``cli``.
"""

from .cost_plot import CostPlot
from .export import export_png, export_svg, render_png
from .memory_plot import MemoryPlot
from .scenario_plots import ScenarioCostPlot, ScenarioMemoryPlot

__all__ = [
    "CostPlot",
    "MemoryPlot",
    "ScenarioCostPlot",
    "ScenarioMemoryPlot",
    "export_png",
    "export_svg",
    "render_png",
]
