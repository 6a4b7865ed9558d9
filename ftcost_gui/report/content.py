"""A report's content: the document, one result per scenario, the title, date and baseline.

``html.py`` builds its HTML (a self-contained browser file, or the subset the PDF renderer reads),
``markdown.py`` its Markdown; both word results through present/ and show the same sections:
title and date, the scenarios' comparison, both plots, the inputs that matter, each scenario's
headline figures, breakdown and arithmetic, the assumptions with their sources, and the GPU
prices used with their dates and sources. Names from files go through io/names.py. Qt-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from ..core.compare import Offer
from ..core.document import EstimateDocument
from ..core.inputs import EstimateInputs, GpuSpec
from ..core.plan_front import PlanPoints, PlanSearch, plan_points
from ..core.plan_space import PlanConstraints
from ..core.planner import search_plans
from ..core.results import EstimateResult
from ..core.series import Outcomes, ScenarioSeries, document_series
from ..core.what_fits import WhatFits, what_fits
from ..io.names import plain
from ..present.tables import (
    ComparisonTable,
    comparison_table,
)
from ..present.time_texts import price_word

Target = Literal["html", "pdf"]
IMAGE_NAMES = ("cost", "memory", "plan", "fits_seq", "fits_batch")  # the order they appear in
PLAN_IMAGES = ("plan", "fits_seq", "fits_batch")  # only in a report with a plan section


@dataclass(frozen=True)
class PlanSection:
    """The plan search for the report's selected scenario, what fits on its GPUs, and on the
    recommended plan's (for the recommendation's sentence)."""

    search: PlanSearch
    fits: WhatFits
    best_fits: WhatFits | None
    catalog: str


@dataclass(frozen=True)
class PlanFigures:
    """What the plan's three plots draw: every plan run, and what fits on the scenario's GPUs
    (a forked child that draws them gets these, not the search: report/plot_child.py)."""

    points: PlanPoints
    fits: WhatFits

    @classmethod
    def of(cls, plan: PlanSection) -> PlanFigures:
        return cls(plan_points(plan.search), plan.fits)


@dataclass(frozen=True)
class ReportFigures:
    """What a report's plots draw (a forked child gets these, not the report:
    report/plot_child.py): the memory and cost plots by scenario (``series``: a report of
    several scenarios; None where neither is drawn), else by method for the one scenario's
    ``inputs``; the plan's three (``plan``) where the report has a plan section."""

    series: ScenarioSeries | None
    inputs: EstimateInputs | None
    plan: PlanFigures | None = None


def plan_section(
    inputs: EstimateInputs,
    offers: Sequence[Offer],
    constraints: PlanConstraints | None = None,
    catalog: str = "",
    others: Sequence[GpuSpec] = (),
) -> PlanSection:
    """Search the plans of ``inputs`` and what fits (the CLI's ``plan`` and the reports)."""
    search = search_plans(inputs, offers, constraints)
    best = search.best
    best_fits = None if best is None else what_fits(best.inputs, p=best.plan)
    return PlanSection(search, what_fits(inputs, others), best_fits, catalog)


@dataclass(frozen=True)
class Report:
    """What a report shows; ``results`` has one entry per scenario."""

    document: EstimateDocument
    results: Sequence[EstimateResult]
    title: str = "Untitled estimate"
    generated: datetime = field(default_factory=lambda: datetime.now().astimezone())
    baseline: int = 0
    plan: PlanSection | None = None  # the recommendation at the top, and its plots
    # The all-scenario plots' series when the caller computed them with the results (the CLI:
    # one plan per scenario for both); None: the plots compute them.
    series: ScenarioSeries | None = None

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.document.scenarios]

    @property
    def several(self) -> bool:
        return len(self.document.scenarios) > 1

    def comparison(self) -> ComparisonTable:
        tiers = [s.inputs.hardware.gpu.pricing_tier for s in self.document.scenarios]
        return comparison_table(self.names, list(self.results), self.baseline, tiers)

    def __post_init__(self) -> None:
        # The default title is a file name: any bytes (non-UTF-8 names) and any characters.
        object.__setattr__(self, "title", plain(self.title))

    def date_text(self) -> str:
        return self.generated.strftime("%Y-%m-%d %H:%M")


def report_figures(
    report: Report, plan: PlanFigures | None = None, series: bool = True
) -> ReportFigures:
    """What ``report``'s plots draw: every scenario's series where there are several (``series``:
    the memory or cost plot is drawn; the report's own when the caller computed them), else the
    one scenario's inputs; and ``plan``. The report's process and its plots' child
    (report/plot_child.py) both take them from here."""
    drawn = None
    if report.several and series:
        drawn = report.series or document_series(report.document, Outcomes())
    inputs = None if report.several else report.document.current.inputs
    return ReportFigures(drawn, inputs, plan)


def image_titles(report: Report) -> dict[str, str]:
    """Alt texts: what each image shows, in a few words."""
    how = "by scenario" if report.several else "by method"
    return {
        "memory": f"Memory per GPU {how}",
        "cost": f"Cost per run vs MFU {how}",
        "plan": "Plans: cost per run vs wall-clock",
        "fits_seq": "Memory per GPU vs sequence length",
        "fits_batch": "Memory per GPU vs micro-batch",
    }


PLAN_CAPTIONS = {
    "plan": "Every plan the search ran: cost per run against held wall-clock (log scales). Blue: "
    "the Pareto front (nothing is both cheaper and faster); star: the recommended plan; grey: "
    "dominated; crosses: over the deadline or the budget; ring: the scenario as it is; red "
    "dashes: the deadline and the budget.",
    "fits_seq": "Memory per GPU on the scenario's GPUs against the sequence length, one curve per "
    "method (thick: the scenario's); solid lines: each GPU's usable memory, dashed: its total; "
    "ring: the scenario; triangle: the longest sequence that fits.",
    "fits_batch": "The same against the micro-batch; triangle: the largest micro-batch that fits.",
}


def image_captions(report: Report) -> dict[str, str]:
    return {**_captions(report), **PLAN_CAPTIONS}


def _captions(report: Report) -> dict[str, str]:
    # The solid line's price: on-demand, or the 1- or 3-year committed rate the GPU row bills.
    tiers = {s.inputs.hardware.gpu.pricing_tier for s in report.document.scenarios}
    words = sorted({price_word(t) for t in tiers})
    solid = words[0] if len(words) == 1 else "each scenario's " + " or ".join(words) + " price"
    if report.several:
        return {
            "memory": "Memory per GPU by scenario: parts stacked to the device total (allocated "
            "tensors, allocator reserve, CUDA context: what nvidia-smi shows), with the memory of "
            "each scenario's GPU (the selected scenario is outlined).",
            "cost": f"Cost per run vs MFU, one colour per scenario (solid: {solid}, dashed: spot; "
            "dots: each scenario's MFU; green band: well-tuned 35–55%).",
        }
    return {
        "memory": "Memory per GPU by method for this scenario's model, data and GPUs (* = the "
        "method chosen): parts stacked to the device total (allocated tensors, allocator "
        "reserve, CUDA context: what nvidia-smi shows); dashed line: the GPU's memory.",
        "cost": f"Cost per run vs MFU (solid: {solid}, dashed: spot; dots: the chosen MFU; green "
        "band: well-tuned 35–55%).",
    }
