"""The price check: after a file is opened, say when its GPU prices differ from the catalog's.

A bar above the results ("This estimate uses $X/h; your catalog 'NAME' says $Y/h") with
"Update prices" (one undoable edit; the file changes when saved) and "Keep" (for these prices,
while this file is open, in every scenario). It listens to the window's ``documentOpened``; each
scenario keeps its own prices, so selecting another scenario checks again.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QStyle, QWidget

from ...core.catalog import id_key, price_differences, with_catalog_prices
from ...core.compare import inputs_with_gpu
from ...core.inputs import EstimateInputs, GpuSpec
from ..services import WindowServices
from ..store import describe_validation_error
from .service import CatalogService
from .text import origin_catalog, price_message


class PriceBar(QFrame):
    """'This estimate uses $X/h; your catalog 'NAME' says $Y/h' with Update prices / Keep."""

    updateRequested = Signal()
    keepRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("price_bar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            "QFrame#price_bar { background: #fff4d6; border: 1px solid #d9b44a; "
            "border-radius: 4px; } QFrame#price_bar QLabel { color: #3b2f00; }"
        )
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        icon = QLabel(self)
        icon.setPixmap(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxInformation).pixmap(20)
        )
        lay.addWidget(icon)
        self.text = QLabel(self)
        self.text.setObjectName("price_bar_text")
        self.text.setTextFormat(Qt.TextFormat.PlainText)  # names from files are data
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.text, 1)
        self.update_button = QPushButton("&Update prices", self)
        self.update_button.setToolTip(
            "Use the catalog's prices in this estimate (one undoable edit; the file changes only "
            "when you save)."
        )
        self.keep_button = QPushButton("&Keep", self)
        self.keep_button.setToolTip("Keep the prices saved in this estimate.")
        lay.addWidget(self.update_button)
        lay.addWidget(self.keep_button)
        self.update_button.clicked.connect(self.updateRequested)
        self.keep_button.clicked.connect(self.keepRequested)
        self.hide()


def apply_gpu(services: WindowServices, spec: GpuSpec, description: str) -> bool:
    """Put a GPU (and its prices) into the estimate as one undoable edit; False if refused."""
    store = services.store
    try:
        inputs = inputs_with_gpu(store.inputs, spec)
    except ValidationError as exc:
        services.show_status(f"Not applied (GPU): {describe_validation_error(exc)}", 8000)
        return False
    store.set_inputs(inputs, description=description, at_once=True)
    return True


class PriceCheck(QObject):
    """The bar and when it shows."""

    def __init__(self, services: WindowServices, catalogs: CatalogService):
        super().__init__(services.dialog_parent())
        self.services, self.catalogs = services, catalogs
        self.bar = PriceBar()
        services.add_banner(self.bar)
        self._bar_gpu: str | None = None
        self._kept: set[tuple[str, float, float | None]] = set()  # prices the user chose to keep
        self.bar.updateRequested.connect(self.update_prices)
        self.bar.keepRequested.connect(self.keep_prices)
        services.documentOpened.connect(self._on_opened)
        store = services.store
        store.inputsChanged.connect(self._on_inputs)
        store.activeScenarioChanged.connect(self._on_scenario)

    def _on_opened(self, _path: Path) -> None:
        self._kept.clear()  # a new file: ask again
        self.check()

    def _on_scenario(self, _index: int) -> None:
        self.check()

    @staticmethod
    def _price_key(spec: GpuSpec) -> tuple[str, float, float | None, str]:
        return (
            id_key(spec.id),
            spec.on_demand_usd_per_hour,
            spec.spot_usd_per_hour,
            spec.pricing_tier,
        )

    def check(self) -> bool:
        """Show the bar if the estimate's GPU prices differ from the catalog's; True if shown."""
        spec = self.services.store.inputs.hardware.gpu
        update = price_differences(spec, self.catalogs.rows)
        row = self.catalogs.row_for(spec.id)
        if update is None or row is None or self._price_key(spec) in self._kept:
            self._hide()
            return False
        self._bar_gpu = id_key(spec.id)
        self.bar.text.setText(price_message(spec, row))
        self.bar.show()
        return True

    def _hide(self) -> None:
        self._bar_gpu = None
        self.bar.hide()

    def update_prices(self) -> None:
        spec = self.services.store.inputs.hardware.gpu
        row = self.catalogs.row_for(spec.id)
        self._hide()
        if row is None:
            return
        catalog = origin_catalog(row.origin)
        new = with_catalog_prices(spec, row.gpu)
        if apply_gpu(self.services, new, f"Update {spec.name} prices from catalog '{catalog}'"):
            self.services.show_status(
                f"Prices of {spec.name} updated from catalog '{catalog}' (save to keep them)", 6000
            )

    def keep_prices(self) -> None:
        # 'Keep' holds for these prices while this file is open, in every scenario.
        self._kept.add(self._price_key(self.services.store.inputs.hardware.gpu))
        self._hide()

    def _on_inputs(self, inputs: EstimateInputs) -> None:
        if self._bar_gpu is None:
            return
        spec = inputs.hardware.gpu
        if id_key(spec.id) != self._bar_gpu or price_differences(spec, self.catalogs.rows) is None:
            self._hide()
