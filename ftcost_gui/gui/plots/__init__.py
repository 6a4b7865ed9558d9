"""Plots: thin pyqtgraph views with one ``set_result(inputs, result)`` entry point each."""

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
