"""Every plot image of an HTML or Markdown report drawn by a forked child that loads Qt itself,
while this process, which never loads Qt, searches the plan and builds the text (issue 17).

At 200 scenarios the report spent ~1.3 s CPU before its first fork, ~0.5 s of it importing
PySide6, numpy and pyqtgraph, which nothing but the plots needs. Here the child is forked once
the estimates are done and imports them while this process searches the plans (~0.2 s) and
builds the HTML's text (~0.4 s); once loaded, the child forks a grandchild of its own for part
of the images (``grandchild_images``: about half the drawing) and draws the rest, so the two
CPUs draw while this process has nothing left to do but wait and write.

The plan's three plots need the search, which runs here after the fork: what they draw
(``PlanFigures``: every plan's point, what fits) is sent to the child as JSON (floats written
with ``repr``, so read back the same), ~4 kB. A child that fails gives nothing back and this
process draws every image itself (report/render.export_report): the report is the same.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from functools import partial
from typing import Any

from ..core.plan_front import PlanPoints
from ..core.what_fits import FitCurve, FitFigures, GpuLine, WhatFits
from .content import IMAGE_NAMES, PLAN_IMAGES, PlanFigures, PlanSection, Report
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


def start_plots(report: Report, *, plan: bool) -> ImageWorker | None:
    """Fork the child that draws every image of ``report`` (the plan's three too when ``plan``:
    it then waits for ``send_plan``); None where no child can be forked."""
    names = IMAGE_NAMES if plan else tuple(n for n in IMAGE_NAMES if n not in PLAN_IMAGES)
    return start_images(partial(_draw, report, plan), names, inbox=plan)


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


def _draw(
    report: Report, plan: bool, names: Collection[str], receive: Any = None
) -> dict[str, bytes]:
    """In the child: load Qt, read the plan's figures, draw ``names`` with a grandchild."""
    from .render import load_qt, plot_images

    load_qt()  # before the grandchild's fork: it inherits Qt's modules
    figures = figures_from_json(receive()) if plan else None
    draw = partial(plot_images, report, figures=figures)
    worker = start_images(draw, grandchild_images(len(report.document.scenarios), plan=plan))
    own = [n for n in names if worker is None or n not in worker.names]
    images = draw(names=own)
    if worker is not None:
        images.update(worker.result() or draw(names=worker.names))
    return images


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
