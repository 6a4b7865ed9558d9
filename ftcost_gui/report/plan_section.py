"""The report's plan section: the recommendation paragraph at the top and the best plans, for
HTML and Markdown (worded by ``present.plan_texts``; the plots are in the charts)."""

from __future__ import annotations

from ..io.names import for_html as escape
from ..io.names import for_markdown as md
from ..present.blocks import inline_html, inline_markdown, inline_text, md_table
from ..present.plan_texts import PLAN_HEADER, fits_rows, plan_cells, recommendation
from .content import PlanSection

TOP_PLANS = 5  # the report lists the best few of the front
FITS_HEADER = ("GPU", "Method", "Longest sequence", "Largest micro-batch")


def _constraints_text(p: PlanSection, name: str) -> str:
    """``name``: the catalog's name, escaped for the output."""
    s = p.search
    return (
        f"Searched for the selected scenario over {len(s.offers)} GPU offers of the catalog "
        f"'{name}': {s.candidates:,} plans judged ({len(s.ranked)} on the Pareto front of "
        f"cost against wall-clock), effective batch {s.batch} sequences."
    )


def plan_html(p: PlanSection, table_open: str) -> str:
    """'Recommendation': the paragraph, the best plans and what fits (``table_open``: the
    report's <table ...> for its target)."""
    out = [
        "<h2>Recommendation</h2>",
        f"<p>{inline_html(recommendation(p.search, p.best_fits))}</p>",
    ]
    cells = plan_cells(p.search)[:TOP_PLANS]
    if cells:
        head = "".join(f"<th>{escape(h)}</th>" for h in PLAN_HEADER)
        rows = "".join(
            "<tr>" + "".join(
                f"<td>{escape(t)}</td>" for t in (c.rank, inline_text(c.gpu), c.how, c.cost,
                                                  c.wall, c.gpus, c.memory, c.mfu, c.why)
            ) + "</tr>"
            for c in cells
        )  # fmt: skip
        out.append(f"{table_open}<tr>{head}</tr>{rows}</table>")
    out.append(f"<p class='legend'>{_constraints_text(p, escape(p.catalog))}</p>")
    fits = fits_rows(p.fits)
    head = "".join(f"<th>{h}</th>" for h in FITS_HEADER)
    rows = "".join("<tr>" + "".join(f"<td>{escape(t)}</td>" for t in r) + "</tr>" for r in fits)
    w = p.fits
    out.append(
        f"<h3>What fits on the scenario's {w.num_gpus} GPU(s)</h3>"
        f"<p class='legend'>Longest sequence at micro-batch {w.micro_batch}; largest micro-batch "
        f"at {w.seq_len:,} tokens; checkpointing {'on' if w.checkpointing else 'off'}.</p>"
        f"{table_open}<tr>{head}</tr>{rows}</table>"
    )
    return "".join(out)


def plan_markdown(p: PlanSection) -> str:
    out = ["## Recommendation\n", inline_markdown(recommendation(p.search, p.best_fits)) + "\n"]
    cells = plan_cells(p.search)[:TOP_PLANS]
    if cells:
        rows = [
            [c.rank, inline_markdown(c.gpu), c.how, c.cost, c.wall, c.gpus, c.memory, c.mfu,
             c.why]
            for c in cells
        ]  # fmt: skip
        out.append(md_table(list(PLAN_HEADER), rows, "lllrrrrrl"))
    out.append(_constraints_text(p, md(p.catalog)) + "\n")
    w = p.fits
    out.append(f"### What fits on the scenario's {w.num_gpus} GPU(s)\n")
    out.append(md_table(list(FITS_HEADER), [[md(r[0]), *r[1:]] for r in fits_rows(w)], "llrr"))
    return "\n".join(out)
