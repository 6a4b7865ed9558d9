"""The report as Markdown, with its plot images written as PNG files beside it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from .. import __version__
from ..core.inputs import METHOD_LABELS, EstimateInputs
from ..core.results import EstimateResult
from ..io.atomic import atomic_write_bytes, atomic_write_text
from ..io.names import for_link
from ..io.names import for_markdown as md
from ..present.blocks import md_table, to_markdown
from ..present.explain import explain
from ..present.figures import HEADLINES, breakdown_rows, headline_texts
from ..present.ranges import headline_ranges, range_rows
from ..present.tables import (
    ARTICLES,
    ASSUMPTIONS,
    BEST_MARK,
    input_rows,
    price_rows,
)
from .content import IMAGE_NAMES, Report, image_captions, image_titles
from .plan_section import plan_markdown


# --- Markdown -------------------------------------------------------------------------------------
def _headlines(inputs: EstimateInputs, r: EstimateResult) -> str:
    texts = headline_texts(inputs, r)
    bands = headline_ranges(inputs, r)

    def band(key: str) -> str:
        return md(bands[key][0]) if key in bands else ""

    rows = [[cap, md(texts[k][0]), band(k), md(texts[k][1])] for k, cap in HEADLINES]
    return md_table(["Figure", "Value", "Range", "Detail"], rows, "lrrl")


def _ranges(inputs: EstimateInputs, r: EstimateResult) -> str:
    rows = [
        [name, lo, f"**{mid}**", hi, md(src)] for name, lo, mid, hi, src in range_rows(inputs, r)
    ]
    return md_table(
        ["Figure", "Low", "Expected", "High", "Where the band comes from"], rows, "lrrrl"
    )


def report_markdown(report: Report, image_files: Mapping[str, str]) -> str:
    """The report as Markdown; ``image_files`` maps an image name to its relative path."""
    out = [
        f"# ftcost report: {md(report.title)}\n",
        f"Generated {report.date_text()} by ftcost {__version__} · "
        f"{len(report.document.scenarios)} scenario(s)\n",
    ]
    if report.plan is not None:  # the recommendation first: what to rent and how to run it
        out.append(plan_markdown(report.plan))
    if report.several:
        t = report.comparison()
        header = [
            "Metric",
            *(md(n) + (" (baseline)" if i == t.baseline else "") for i, n in enumerate(t.names)),
        ]
        rows = [["Fits in memory", *("yes" if ok else "✗ does not fit" for ok in t.fits)]]
        for label, line in zip(t.labels, t.cells, strict=True):
            cells = []
            for c in line:
                text = f"**{BEST_MARK} {c.text}**" if c.best else c.text
                cells.append(f"{text} ({c.delta})" if c.delta else text)
            rows.append([label, *cells])
        out.append("## Scenarios compared\n")
        out.append(md_table(header, rows, "l" + "r" * len(t.names)))
        out.append(
            f"{BEST_MARK} and bold: the best value among the scenarios that fit in memory; in "
            f"brackets, the difference to the baseline ({md(t.names[t.baseline])}): "
            "percent / amount.\n"
        )
    else:
        s, r = report.document.scenarios[0], report.results[0]
        out.append("## Summary\n")
        out.append(_headlines(s.inputs, r))
    captions = image_captions(report)
    out.append("## Charts\n")
    for name in IMAGE_NAMES:
        if name in image_files:
            alt = image_titles(report)[name]
            out.append(f"![{alt}]({for_link(image_files[name])})\n\n*{captions[name]}*\n")
    out.append("## Inputs\n")
    irows = input_rows(report.document, list(report.results))
    out.append(
        md_table(
            ["Field", *map(md, report.names)],
            [
                [
                    f"**{r.label}** ≠" if report.several and r.differs else r.label,
                    *map(md, r.values),  # values include model and GPU names
                ]
                for r in irows
            ],
        )
    )
    for i, s in enumerate(report.document.scenarios):
        r = report.results[i]
        method = METHOD_LABELS[s.inputs.training.method]
        out.append(f"## Scenario {i + 1}: {md(s.name)}\n")
        out.append(
            f"{md(s.inputs.model.name)} · {method} · {r.time.num_gpus} × "
            f"{md(s.inputs.hardware.gpu.name)}\n"
        )
        if report.several:
            out.append("### Headline results\n")
            out.append(_headlines(s.inputs, r))
        for w in r.warnings:
            out.append(f"> ⚠ {md(w)}\n")  # warnings quote names
        out.append("### Ranges\n")
        out.append(_ranges(s.inputs, r))
        out.append("### Breakdown\n")
        out.append(md_table(["Group", "Part", "Value"], breakdown_rows(s.inputs, r), "llr"))
        out.append("### How this is computed\n")
        out.append(to_markdown(explain(s.inputs, r), heading_level=4))
    out.append("## Assumptions and sources\n")
    out.append(md_table(["Topic", "Assumption", "Source"], [list(a) for a in ASSUMPTIONS], "lll"))
    out.append("Articles: " + "; ".join(f"{num} *{name}*" for num, name in ARTICLES) + ".\n")
    out.append("## GPU prices used\n")
    out.append(
        md_table(
            ["GPU", "On-demand $/GPU-h", "Spot $/GPU-h", "As of", "Scenarios", "Source"],
            [
                [md(p.gpu), p.on_demand, p.spot, md(p.as_of), md(p.scenarios), md(p.source)]
                for p in price_rows(report.document)
            ],
            "lrrlll",
        )
    )
    out.append(
        "Prices change weekly; check them with your provider. The estimate is a plan, not a "
        "quote.\n"
    )
    return "\n".join(out)


def markdown_image_names(path: str | os.PathLike[str]) -> dict[str, str]:
    """Image name → file name next to the Markdown file (``plan.md`` → ``plan-memory.png``)."""
    stem = Path(path).stem
    return {name: f"{stem}-{name}.png" for name in IMAGE_NAMES}


def existing_markdown_images(path: str | os.PathLike[str]) -> list[Path]:
    """The image files a Markdown export next to ``path`` would replace."""
    p = Path(path)
    return [p.with_name(n) for n in markdown_image_names(p).values() if p.with_name(n).exists()]


def write_markdown(
    path: str | os.PathLike[str],
    report: Report,
    images: Mapping[str, bytes],
    *,
    replace_images: bool = False,
) -> list[Path]:
    """Write the .md and its PNG files next to it; the paths written.

    Existing PNGs of the same names are replaced only when ``replace_images`` is set (the caller
    asked the user): FileExistsError otherwise, before anything is written.
    """
    p = Path(path)
    names = {k: v for k, v in markdown_image_names(p).items() if k in images}
    clashes = [p.with_name(n) for n in names.values() if p.with_name(n).exists()]
    if clashes and not replace_images:
        listed = ", ".join(c.name for c in clashes)
        raise FileExistsError(f"would replace {listed} next to {p.name}")
    written = []
    for name, file_name in names.items():
        target = p.with_name(file_name)
        atomic_write_bytes(target, images[name])
        written.append(target)
    atomic_write_text(p, report_markdown(report, names))
    written.append(p)
    return written
