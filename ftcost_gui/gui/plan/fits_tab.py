"""The "What fits" results tab: memory per GPU as the sequence length and the micro-batch grow.

Computed (``core.what_fits``) only while the tab is on screen and only when the scenario or the
GPUs compared changed; ``computations`` counts them. Two more GPUs of the catalog can be drawn
beside the scenario's (their usable and total memory, and their figures for its method).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError
from PySide6.QtWidgets import QWidget

from ...core.inputs import GpuSpec
from ..catalog.service import CatalogService
from ..services import WindowServices
from .lazy_tab import LazyTab

if TYPE_CHECKING:  # the view imports pyqtgraph; core.what_fits loads with the first computation
    from ...core.what_fits import WhatFits
    from .fits_view import FitsView


class FitsTab(LazyTab["FitsView"]):
    def __init__(self, services: WindowServices, catalogs: CatalogService):
        super().__init__(
            services, "what_fits", "What F&its", "Memory per GPU as the sequence length and the "
            "micro-batch grow, per method: the longest sequence and largest micro-batch that fit",
        )  # fmt: skip
        self.catalogs = catalogs
        self.fits: WhatFits | None = None
        self.others: tuple[str, ...] = ()  # GPU ids drawn beside the scenario's
        self.computations = 0
        self._key: object = None
        services.store.resultChanged.connect(self._on_change)
        services.resultTabChanged.connect(self._on_change)
        catalogs.changed.connect(self._on_catalog)

    def make_view(self, parent: QWidget) -> FitsView:
        from .fits_view import FitsView

        view = FitsView(parent)
        view.othersChanged.connect(self.set_others)
        view.set_gpus(self._gpu_rows(), self.others)
        return view

    def _gpu_rows(self) -> list[tuple[str, str]]:
        return [(r.gpu.id, r.gpu.name) for r in self.catalogs.rows]

    def _on_change(self, *_args: object) -> None:
        if self.visible():
            self.refresh()

    def _on_catalog(self) -> None:
        self._key = None  # a row compared may have changed
        if self.view is not None:
            self.view.set_gpus(self._gpu_rows(), self.others)
        self._on_change()

    def set_others(self, ids: tuple[str, ...]) -> None:
        self.others = ids
        self._on_change()

    def _specs(self) -> list[GpuSpec]:
        out = []
        for gpu_id in self.others:
            row = self.catalogs.row_for(gpu_id)
            if row is not None:
                out.append(row.gpu.to_spec())
        return out

    def refresh(self) -> None:
        view = self.ensure_view()
        inputs = self.services.store.inputs
        if self.services.store.result is None:
            view.set_error("The scenario has no estimate: fix the inputs first.")
            return
        key = (inputs, self.others)
        if key == self._key:
            return
        from ...core.what_fits import what_fits

        try:
            self.fits = what_fits(inputs, self._specs())
        except (ValidationError, ValueError, ArithmeticError) as exc:
            view.set_error(f"What fits failed: {exc}")
            return
        self._key = key
        self.computations += 1
        view.set_fits(self.fits)
