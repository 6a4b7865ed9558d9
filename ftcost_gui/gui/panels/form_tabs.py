"""The forms: one tab per input group (model, data, training, hardware, advanced), each scrolled.

Only the tab on screen is built with the window; the others (~80 of 115 rows) when first shown
or first asked for (``panels[key]``, ``hardware_panel``): a panel reads the store's inputs when it
is built, so a late one shows what an early one would (issue 17: start-up).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QScrollArea, QTabWidget, QWidget

from ..catalog.service import CatalogService
from ..store import EstimateStore
from .advanced_panel import AdvancedPanel
from .data_panel import DataPanel
from .form import FormPanel
from .hardware_panel import HardwarePanel
from .model_panel import ModelPanel
from .training_panel import TrainingPanel

#: key, tab title (with its mnemonic), panel class — in tab order.
TABS: tuple[tuple[str, str, type[FormPanel]], ...] = (
    ("model", "&Model", ModelPanel),
    ("data", "&Data", DataPanel),
    ("training", "&Training", TrainingPanel),
    ("hardware", "Ha&rdware", HardwarePanel),
    ("advanced", "Ad&vanced", AdvancedPanel),
)


def _scrolled() -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


class _Panels(Mapping[str, FormPanel]):
    """``FormTabs.panels``: a panel by key, built when first asked for."""

    def __init__(self, tabs: FormTabs):
        self._tabs = tabs

    def __getitem__(self, key: str) -> FormPanel:
        return self._tabs.panel(key)

    def __iter__(self) -> Iterator[str]:
        return iter(key for key, _title, _cls in TABS)

    def __len__(self) -> int:
        return len(TABS)


class FormTabs(QTabWidget):
    """The five form panels on one store; ``panels`` by key (each built on first use)."""

    panelBuilt = Signal(object)  # a FormPanel, once built (help texts, tests)

    def __init__(self, store: EstimateStore, parent: QWidget | None = None):
        super().__init__(parent)
        self.store = store
        self.setObjectName("form_tabs")
        self.setDocumentMode(True)
        self.setUsesScrollButtons(False)
        # The window's catalogs: the add-ons use them before the hardware tab is shown.
        self.catalog = CatalogService(parent=self)
        self._built: dict[str, FormPanel] = {}
        self.panels: Mapping[str, FormPanel] = _Panels(self)
        for _key, title, _cls in TABS:
            self.addTab(_scrolled(), title)
        self.setMinimumWidth(360)
        self.panel(TABS[0][0])
        self.currentChanged.connect(self._on_current)

    # --- building on first use ----------------------------------------------------------------
    def panel(self, key: str) -> FormPanel:
        """The panel of ``key``, built now if it was not yet."""
        built = self._built.get(key)
        if built is not None:
            return built
        keys = [k for k, _title, _cls in TABS]
        if key not in keys:
            raise KeyError(key)
        index = keys.index(key)
        cls = TABS[index][2]
        panel = (
            HardwarePanel(self.store, catalog=self.catalog)
            if cls is HardwarePanel
            else cls(self.store)
        )
        self._built[key] = panel
        area = self.widget(index)
        assert isinstance(area, QScrollArea)
        area.setWidget(panel)
        self.panelBuilt.emit(panel)
        return panel

    def built_panels(self) -> list[FormPanel]:
        """The panels built so far, in tab order."""
        return [self._built[k] for k, _title, _cls in TABS if k in self._built]

    def _on_current(self, index: int) -> None:
        if 0 <= index < len(TABS):
            self.panel(TABS[index][0])

    @property
    def model_panel(self) -> ModelPanel:
        panel = self.panel("model")
        assert isinstance(panel, ModelPanel)
        return panel

    @property
    def hardware_panel(self) -> HardwarePanel:
        panel = self.panel("hardware")
        assert isinstance(panel, HardwarePanel)
        return panel

    # --- the window's calls -------------------------------------------------------------------
    def show_panel(self, panel: QWidget) -> None:
        """Bring the tab that holds ``panel`` to the front."""
        for i in range(self.count()):
            tab = self.widget(i)
            if tab is panel or tab.isAncestorOf(panel):
                self.setCurrentIndex(i)
                return

    def disconnect_all(self) -> None:
        """Stop every binding (the window is closing)."""
        for panel in self.built_panels():
            panel.disconnect_all()
