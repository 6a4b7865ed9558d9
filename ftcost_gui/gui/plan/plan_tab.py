"""The "Plan" results tab: searches only while it is on screen, and only when what it searches
changed.

What a search depends on (``plan_space.search_key``): the scenario with every setting a plan
chooses left out (method, GPU and prices, count, batch split, checkpointing, sharding, billing),
its effective batch, the constraints and the catalog. So adopting a plan, or editing a setting
the plan chooses anyway, moves the scenario's ring on the plot and searches nothing. An edit
while the tab is hidden only marks it stale; showing it searches once. ``searches`` counts the
searches (tests count them; nothing is timed). The search runs after a short debounce on the
GUI thread (about 0.1–0.3 s for the built-in catalog; benchmarks/bench_plan.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from pydantic import ValidationError
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from ..catalog.service import CatalogService
from ..services import WindowServices
from .lazy_tab import LazyTab

if TYPE_CHECKING:  # the view imports pyqtgraph: built when first shown; the search's modules
    # load with the first search (start-up: issue 17)
    from ...core.plan_front import PlanPoints, PlanSearch
    from ...core.plan_space import PlanConstraints
    from ...report.content import PlanSection
    from .plan_view import PlanView

DEBOUNCE_MS = 150
SETTINGS_KEY = "plan/constraints"


class PlanTab(LazyTab["PlanView"]):
    """The tab's page, its view (built when first shown), and when it searches."""

    def __init__(self, services: WindowServices, catalogs: CatalogService):
        super().__init__(
            services, "plan", "Pla&n", "What to rent and how to run it: the cheapest or "
            "fastest plan within a deadline and a budget, over every GPU of the catalog",
        )  # fmt: skip
        self.catalogs = catalogs
        self._constraints: PlanConstraints | None = None  # the last session's, read on first use
        self.search: PlanSearch | None = None
        self.points: PlanPoints | None = None
        self.texts: dict[int, str] = {}
        self.searches = 0
        self._key: object = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.refresh)
        services.store.resultChanged.connect(self._on_change)
        services.resultTabChanged.connect(self._on_tab)
        services.set_report_plan(self.report_plan)
        catalogs.changed.connect(self._on_change)

    # --- when -----------------------------------------------------------------------------------
    def _on_tab(self, _index: int) -> None:
        if self.visible():
            self.ensure_view()
            self.refresh()

    def _on_change(self, *_args: object) -> None:
        if self.visible():
            self._timer.start()

    def make_view(self, parent: QWidget) -> PlanView:
        from .plan_view import PlanView

        view = PlanView(self.constraints, parent)
        view.constraintsChanged.connect(self.set_constraints)
        view.adoptRequested.connect(self.adopt)
        return view

    # --- what -----------------------------------------------------------------------------------
    @property
    def constraints(self) -> PlanConstraints:
        """The search's constraints: the last session's until changed (read when first asked
        for: the window's first paint waits for no plan module)."""
        if self._constraints is None:
            self._constraints = self._saved_constraints()
        return self._constraints

    def set_constraints(self, c: PlanConstraints) -> None:
        if c == self.constraints:
            return
        self._constraints = c
        self.services.settings.setValue(SETTINGS_KEY, c.model_dump_json())
        if self.view is not None:
            self.view.bar.set_constraints(c)
        if self.visible():
            self.refresh()

    def refresh(self) -> None:
        """Search now if what the search depends on changed; else only move the scenario."""
        from ...core.plan_front import plan_points
        from ...core.plan_space import search_key
        from ...core.planner import search_plans
        from ...present.plan_texts import hover_text

        self._timer.stop()
        view = self.ensure_view()
        store = self.services.store
        result = store.result
        if result is None:
            view.set_error("The scenario has no estimate: fix the inputs first.")
            return
        inputs = store.inputs
        batch = inputs.training.micro_batch * inputs.training.grad_accum * result.time.num_gpus
        c = self.constraints
        if c.effective_batch is None:
            c = c.model_copy(update={"effective_batch": batch})
        offers = tuple(self.catalogs.offers)
        key = (search_key(inputs), c, tuple(id(o) for o in offers))
        if key != self._key:
            try:
                self.search = search_plans(key[0], offers, c)
            except (ValidationError, ValueError, ArithmeticError) as exc:
                view.set_error(f"The plan search failed: {exc}")
                self._key = None
                return
            self._key = key
            self.searches += 1
            self.texts = {i: hover_text(self.search, i) for i in self._shown(self.search)}
            self.points = self._with_scenario(plan_points(self.search))
            view.set_search(self.search, self.points, self.texts, batch)
        elif self.points is not None:
            self.points = self._with_scenario(self.points)
            view.set_current(self.points, self.texts)

    @staticmethod
    def _shown(search: PlanSearch) -> list[int]:
        return [o.index for o in search.options if o.fits]

    def _with_scenario(self, points: PlanPoints) -> PlanPoints:
        """The scenario's own point (its estimate, at the search's billing)."""
        from ...core.plan_front import scenario_point

        result = self.services.store.result
        here = None if result is None else scenario_point(result, self.constraints.billing)
        return replace(points, current=here)

    def adopt(self, ident: int) -> None:
        """Put a plan into the scenario as one undoable edit."""
        from ...core.plan_space import adopted, plan_inputs
        from ...present.blocks import inline_text
        from ...present.plan_texts import plan_title

        if self.search is None or not 0 <= ident < len(self.search.options):
            return
        option = self.search.options[ident]
        store = self.services.store
        try:
            # onto the scenario as it is now (an edit may be waiting for its search)
            inputs = adopted(plan_inputs(store.inputs, option.offer, option.knobs, option.billing))
        except ValidationError as exc:
            self.services.show_status(f"Not applied (plan): {exc.errors()[0]['msg']}", 8000)
            return
        title = inline_text(plan_title(option))
        store.set_inputs(inputs, description=f"Use plan {title}")
        self.services.show_status(f"Now estimating the plan: {title}", 5000)

    def report_plan(self) -> PlanSection | None:
        """The report's recommendation: the selected scenario searched with these constraints."""
        from ...report.content import plan_section

        store = self.services.store
        if store.result is None:
            return None
        offers = self.catalogs.offers
        return plan_section(store.inputs, offers, self.constraints, self.catalogs.active_name)

    def _saved_constraints(self) -> PlanConstraints:
        """The constraints of the last session (a bad value: the defaults)."""
        from ...core.plan_space import PlanConstraints

        text = self.services.settings.value(SETTINGS_KEY, "")
        if isinstance(text, str) and text:
            try:
                return PlanConstraints.model_validate_json(text)
            except (ValidationError, ValueError):
                pass
        return PlanConstraints()
