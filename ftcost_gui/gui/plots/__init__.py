"""Plots: thin pyqtgraph views that draw the series core/series.py computes (no estimates)."""

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
