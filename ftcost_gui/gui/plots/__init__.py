"""Plots: thin pyqtgraph views with one ``set_result(inputs, result)`` entry point each."""

from .cost_plot import CostPlot
from .export import export_png, export_svg
from .memory_plot import MemoryPlot

__all__ = ["CostPlot", "MemoryPlot", "export_png", "export_svg"]
