"""Every plot image of an HTML or Markdown report drawn by a forked child that loads Qt itself,
while this process, which never loads Qt, searches the plan and builds the text (issue 17).

The child is forked as the process starts (``start_early``, from cli.main: once the core is
imported, which both need, and before the command line's own modules), so that its imports of
PySide6, numpy and pyqtgraph (~0.5 s CPU) run beside this process's reading of the file and its
estimates rather than after them; where it was not (``main(argv)``, the tests) ``start_plots``
forks it once the estimates are done. Once loaded, the child forks a grandchild of its own for
part of the images (``grandchild_images``: about half the drawing) and draws the rest, so the
two CPUs draw while this process has nothing left to do but wait and write.

What the plots draw is computed here after the fork and sent to the child as JSON (floats
written with ``repr``, so read back the same; report/forked.py's ``send`` never waits for the
child to read): the memory and cost plots' series (``order_json``: ~0.5 MB at 200 scenarios,
~30 ms CPU here and ~20 there) or the one scenario's inputs, then the plan's figures
(``PlanFigures``, ~4 kB) once the search is done. A child that fails gives nothing back and
this process draws every image itself (report/render.export_report): the report is the same.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from ..blas_threads import one_blas_thread
from ..core.inputs import EstimateInputs
from ..core.plan_front import PlanPoints
from ..core.series import (
    CostCurve,
    CostPoint,
    MemoryBars,
    ScenarioSeries,
)
from ..core.what_fits import FitCurve, FitFigures, GpuLine, WhatFits
from .content import (
    IMAGE_NAMES,
    PLAN_IMAGES,
    PlanFigures,
    PlanSection,
    Report,
    ReportFigures,
    report_figures,
)
from .forked import ImageWorker, start_images

# CPU ms of each image in a child, per scenario and on top (issue 17; no Qt thread pool; each
# alone in a fresh child after Qt's imports, at 12 and 200 scenarios: cost 253 / 690, memory
# 285 / 355, each plan image ~220; a process's later images come ~70 ms cheaper than its first,
# which both children draw, so that is left out here).
_IMAGE_MS = {
    "cost": (2.3, 150.0),
    "memory": (0.37, 210.0),
    "plan": (0.0, 150.0),
    "fits_seq": (0.0, 150.0),
    "fits_batch": (0.0, 150.0),
}


_early: ImageWorker | None = None  # the child start_early forked, until start_plots takes it


def start_early(args: Sequence[str]) -> None:
    """Fork the plots' child now, before the command line's modules are imported, where ``args``
    (the process's) ask for a report that may need no Qt here (not ``--pdf``, nor ``--help``):
    its Qt imports then run beside this process's imports, the file's reading and the estimates
    instead of after them (issue 17). It waits for ``start_plots``; ``stop_early`` stops it if
    the report does not take it (an error, a PDF)."""
    global _early
    if _early is not None or args[:1] != ["report"]:
        return
    if any(a in ("-h", "--help") or a.startswith("--p") for a in args[1:]):
        return
    one_blas_thread()  # before the child loads numpy
    _early = start_images(_draw, IMAGE_NAMES, inbox=True)


def stop_early() -> None:
    """Stop the child of ``start_early`` if no report took it."""
    global _early
    if _early is not None:
        _early.close()
        _early = None


def start_plots(report: Report, *, plan: bool) -> ImageWorker | None:
    """The child that draws every image of ``report`` (the plan's three too when ``plan``: it
    then waits for ``send_plan``): ``start_early``'s, or one forked now; it is sent what the
    memory and cost plots draw. None where no child can be forked."""
    global _early
    worker, _early = _early or start_images(_draw, IMAGE_NAMES, inbox=True), None
    if worker is not None:
        worker.names = (
            IMAGE_NAMES if plan else tuple(n for n in IMAGE_NAMES if n not in PLAN_IMAGES)
        )
        worker.send(order_json(report, worker.names))
    return worker


def send_plan(worker: ImageWorker, plan: PlanSection) -> None:
    """What the plan's plots draw, to the child of ``start_plots(..., plan=True)`` (any other
    worker takes nothing)."""
    if "plan" in worker.names:
        worker.send(figures_json(PlanFigures.of(plan)))


def grandchild_images(scenarios: int, *, plan: bool) -> tuple[str, ...]:
    """The images the child's own child draws: the cost plot and whichever of the others leave
    the slower of the two the least to draw (``_IMAGE_MS``)."""
    names = [n for n in IMAGE_NAMES if plan or n not in PLAN_IMAGES]
    ms = {n: each * scenarios + fixed for n, (each, fixed) in _IMAGE_MS.items() if n in names}
    total = sum(ms.values())
    others = names[1:]
    picks = (
        ("cost", *(n for i, n in enumerate(others) if mask >> i & 1))
        for mask in range(1 << len(others))
    )
    return min(picks, key=lambda p: max(sum(ms[n] for n in p), total - sum(ms[n] for n in p)))


def _draw(names: Collection[str], receive: Callable[[], bytes]) -> dict[str, bytes]:
    """In the child: load Qt, read what the plots draw (the plan's figures after the memory and
    cost plots': the search runs meanwhile), draw ``names`` with a grandchild."""
    from .render import draw_images, load_qt

    load_qt()  # before the grandchild's fork: it inherits Qt's modules
    names, figures = order_from_json(receive())
    plan = any(n in PLAN_IMAGES for n in names)
    scenarios = 1 if figures.series is None else len(figures.series.names)
    theirs = grandchild_images(scenarios, plan=plan)
    now = not any(n in PLAN_IMAGES for n in theirs)  # it needs no plan figures: forked at once
    worker = start_images(partial(draw_images, figures), theirs) if now else None
    if plan:
        figures = replace(figures, plan=figures_from_json(receive()))
    if not now:
        worker = start_images(partial(draw_images, figures), theirs)
    own = [n for n in names if worker is None or n not in worker.names]
    images = draw_images(figures, names=own)
    if worker is not None:
        images.update(worker.result() or draw_images(figures, names=worker.names))
    return images


def order_json(report: Report, names: Collection[str]) -> bytes:
    """What the child draws (``names``) and what its memory and cost plots draw, as JSON: every
    scenario's series (floats written with ``repr``, so read back the same), or the one
    scenario's inputs as an estimate file holds them."""
    figures = report_figures(report)
    series = None if figures.series is None else _series_lists(figures.series)
    inputs = None if figures.inputs is None else figures.inputs.model_dump(mode="json")
    return json.dumps({"names": list(names), "series": series, "inputs": inputs}).encode("utf-8")


def order_from_json(data: bytes) -> tuple[tuple[str, ...], ReportFigures]:
    """What ``order_json`` wrote: the names, and the figures as they were (no plan's yet)."""
    d = json.loads(data)
    series = None if d["series"] is None else _series_from_lists(d["series"])
    inputs = None
    if d["inputs"] is not None:  # validated as a file's are (io/estimate_file.py: strict)
        inputs = EstimateInputs.model_validate_json(json.dumps(d["inputs"]), strict=True)
    return tuple(d["names"]), ReportFigures(series, inputs)


def _series_lists(s: ScenarioSeries) -> dict[str, Any]:
    m = s.memory
    memory = [
        m.keys, m.active, m.parts_gib, m.usable_gib, m.capacity_gib, m.gpus_needed, m.num_gpus,
        m.fits, m.ranges_gib,
    ]  # fmt: skip
    return {
        "names": s.names,
        "active": s.active,
        "memory": memory,
        "curves": [
            [c.mfu_pct, c.on_demand_usd, c.spot_usd, c.low_usd, c.high_usd] for c in s.curves
        ],
        "now": [[p.mfu_pct, p.on_demand_usd, p.spot_usd, p.low_usd, p.high_usd] for p in s.now],
    }


def _series_from_lists(d: dict[str, Any]) -> ScenarioSeries:
    keys, active, parts, usable, capacity, needed, gpus, fits, ranges = d["memory"]
    memory = MemoryBars(
        keys=tuple(keys),
        active=active,
        parts_gib=tuple(map(tuple, parts)),
        usable_gib=tuple(usable),
        capacity_gib=tuple(capacity),
        gpus_needed=tuple(needed),
        num_gpus=tuple(gpus),
        fits=tuple(fits),
        ranges_gib=tuple(None if r is None else tuple(r) for r in ranges),
    )
    curves = tuple(
        CostCurve(tuple(m), tuple(od), None if sp is None else tuple(sp), tuple(lo), tuple(hi))
        for m, od, sp, lo, hi in d["curves"]
    )
    now = tuple(CostPoint(*p) for p in d["now"])
    return ScenarioSeries(tuple(d["names"]), d["active"], memory, curves, now)


def figures_json(figures: PlanFigures) -> bytes:
    """``figures`` as JSON (dicts as lists of pairs: their keys are numbers, their order kept)."""
    p, f = figures.points, figures.fits
    points = {
        "front": p.front,
        "dominated": p.dominated,
        "infeasible": p.infeasible,
        "wall_h": list(p.wall_h.items()),
        "cost_usd": list(p.cost_usd.items()),
        "best": p.best,
        "deadline_h": p.deadline_h,
        "budget_usd": p.budget_usd,
        "current": p.current,
    }
    fits = {
        "method": f.method,
        "num_gpus": f.num_gpus,
        "checkpointing": f.checkpointing,
        "seq_len": f.seq_len,
        "micro_batch": f.micro_batch,
        "by_seq_len": [[c.method, c.x, c.gib] for c in f.by_seq_len],
        "by_micro_batch": [[c.method, c.x, c.gib] for c in f.by_micro_batch],
        "gpus": [[g.gpu_id, g.name, g.usable_gib, g.total_gib] for g in f.gpus],
        "figures": [
            [
                x.gpu_id,
                x.method,
                x.longest_seq_len,
                x.largest_micro_batch,
                x.seq_len_capped,
                x.micro_batch_capped,
            ]
            for x in f.figures
        ],
        "current_gib": f.current_gib,
    }
    return json.dumps({"points": points, "fits": fits}).encode("utf-8")


def figures_from_json(data: bytes) -> PlanFigures:
    """What ``figures_json`` wrote, as it was (tuples for tuples)."""
    d = json.loads(data)
    p, f = d["points"], d["fits"]
    points = PlanPoints(
        front=tuple(p["front"]),
        dominated=tuple(p["dominated"]),
        infeasible=tuple(p["infeasible"]),
        wall_h={i: v for i, v in p["wall_h"]},
        cost_usd={i: v for i, v in p["cost_usd"]},
        best=p["best"],
        deadline_h=p["deadline_h"],
        budget_usd=p["budget_usd"],
        current=None if p["current"] is None else tuple(p["current"]),
    )

    def curves(rows: list) -> tuple[FitCurve, ...]:
        return tuple(FitCurve(m, tuple(x), tuple(gib)) for m, x, gib in rows)

    fits = WhatFits(
        method=f["method"],
        num_gpus=f["num_gpus"],
        checkpointing=f["checkpointing"],
        seq_len=f["seq_len"],
        micro_batch=f["micro_batch"],
        by_seq_len=curves(f["by_seq_len"]),
        by_micro_batch=curves(f["by_micro_batch"]),
        gpus=tuple(GpuLine(*g) for g in f["gpus"]),
        figures=tuple(FitFigures(*x) for x in f["figures"]),
        current_gib=f["current_gib"],
    )
    return PlanFigures(points, fits)
