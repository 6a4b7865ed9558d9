"""The forms: one tab per input group (model, data, training, hardware, advanced), each scrolled."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea, QTabWidget, QWidget

from ..store import EstimateStore
from .advanced_panel import AdvancedPanel
from .data_panel import DataPanel
from .form import FormPanel
from .hardware_panel import HardwarePanel
from .model_panel import ModelPanel
from .training_panel import TrainingPanel


def _scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


class FormTabs(QTabWidget):
    """The five form panels on one store; ``panels`` by key."""

    def __init__(self, store: EstimateStore, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("form_tabs")
        self.setDocumentMode(True)
        self.setUsesScrollButtons(False)
        self.model_panel = ModelPanel(store)
        data, training = DataPanel(store), TrainingPanel(store)
        self.hardware_panel = HardwarePanel(store)
        self.panels: dict[str, FormPanel] = {
            "model": self.model_panel,
            "data": data,
            "training": training,
            "hardware": self.hardware_panel,
            "advanced": AdvancedPanel(store),
        }
        titles = ("&Model", "&Data", "&Training", "&Hardware", "Ad&vanced")
        for panel, title in zip(self.panels.values(), titles, strict=True):
            self.addTab(_scrolled(panel), title)
        self.setMinimumWidth(360)

    def show_panel(self, panel: QWidget) -> None:
        """Bring the tab that holds ``panel`` to the front."""
        for i in range(self.count()):
            tab = self.widget(i)
            if tab is panel or tab.isAncestorOf(panel):
                self.setCurrentIndex(i)
                return

    def disconnect_all(self) -> None:
        """Stop every binding (the window is closing)."""
        for panel in self.panels.values():
            panel.disconnect_all()
