"""The plan search and what fits in the window, given only ``WindowServices``: two results tabs
and their two actions (Edit menu). ``gui/app.build_window`` installs it."""

from __future__ import annotations

from PySide6.QtCore import QObject

from ..catalog.service import CatalogService
from ..services import ActionSpec, WindowServices
from .fits_tab import FitsTab
from .plan_tab import PlanTab


class PlanUi(QObject):
    def __init__(self, services: WindowServices, catalogs: CatalogService):
        super().__init__(services.dialog_parent())
        self.plan = PlanTab(services, catalogs)
        self.fits = FitsTab(services, catalogs)
        services.add_action(
            ActionSpec(
                "plan_search", "&Plan: What to Rent", self.plan.show,
                tip="The cheapest or fastest way to run this scenario within a deadline and a "
                "budget, over every GPU of the catalog", menu="edit", section="catalogs",
            )
        )  # fmt: skip
        services.add_action(
            ActionSpec(
                "what_fits", "What &Fits", self.fits.show,
                tip="Memory per GPU as the sequence length and the micro-batch grow",
                menu="edit", section="catalogs",
            )
        )  # fmt: skip
