"""The report as HTML: one self-contained file for a browser, or the PDF renderer's subset.

HTML for a browser is one file (CSS inline, images as ``data:`` URIs, no external reference).
HTML for the PDF uses the subset QTextDocument understands and names its images, which
``render.write_pdf`` registers as resources.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Mapping

from .. import __version__
from ..core.inputs import METHOD_LABELS
from ..io.atomic import atomic_write_text
from ..io.names import for_html as escape  # names from files: controls stripped, then escaped
from ..present.blocks import to_html
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
from .content import IMAGE_NAMES, Report, Target, image_captions, image_titles
from .plan_section import plan_html

# --- HTML -----------------------------------------------------------------------------------------
_CSS_HTML = """
body { font-family: "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif; font-size: 14px;
       color: #1a1a1a; max-width: 1040px; margin: 24px auto; padding: 0 16px; line-height: 1.4; }
h1 { font-size: 26px; margin-bottom: 2px; }
h2 { font-size: 20px; border-bottom: 2px solid #0072B2; padding-bottom: 3px; margin-top: 32px; }
h3 { font-size: 16px; margin: 18px 0 6px; }
h4 { font-size: 14px; margin: 12px 0 4px; }
.meta, .caption, .ref, .note, .legend { color: #555; }
.caption { font-size: 13px; margin: 2px 0 16px; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { border: 1px solid #c8c8c8; padding: 4px 8px; vertical-align: top; }
th { background: #eef2f6; text-align: left; }
td.num { text-align: right; white-space: nowrap; }
td.best { background: #e3f2e5; font-weight: bold; }
td.diff, th.diff { background: #fff6e0; }
.delta { display: block; font-size: 12px; color: #444; font-weight: normal; }
.bad { color: #b71c1c; font-weight: bold; }
.f { font-family: "DejaVu Sans Mono", Consolas, monospace; font-size: 13px; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
figure { margin: 0; flex: 1 1 480px; }
figure p.caption { margin-top: 4px; }
img { width: 100%; height: auto; border: 1px solid #ddd; }
.group { font-weight: bold; background: #f5f5f5; }
table.layout { width: 100%; }
table.layout, table.layout > tbody > tr > td { border: none; padding: 0 12px 0 0; width: 50%; }
table.plain td, table.plain th { border: none; padding: 1px 14px 1px 0; background: none; }
"""

_CSS_PDF = """
body { font-size: 9pt; }
h1 { font-size: 17pt; margin-bottom: 0; }
h2 { font-size: 13pt; color: #0b3d66; margin-top: 14pt; margin-bottom: 4pt; }
h3 { font-size: 10.5pt; margin-top: 9pt; margin-bottom: 3pt; }
h4 { font-size: 9.5pt; margin-top: 6pt; margin-bottom: 2pt; }
p { margin-top: 1pt; margin-bottom: 4pt; }
.meta, .caption, .ref, .note, .legend { color: #555555; }
.caption { font-size: 8pt; }
table { border-collapse: collapse; }
th { background-color: #eef2f6; font-weight: bold; }
td, th { font-size: 8.5pt; }
td.num { text-align: right; }
td.best { background-color: #e3f2e5; font-weight: bold; }
td.diff, th.diff { background-color: #fff6e0; }
.delta { font-size: 7.5pt; color: #444444; font-weight: normal; }
.bad { color: #b71c1c; font-weight: bold; }
.f { font-family: "DejaVu Sans Mono", monospace; font-size: 8pt; }
.group { font-weight: bold; background-color: #f5f5f5; }
"""

_TABLE_PDF = 'border="1" cellspacing="0" cellpadding="3" style="border-color: #b0b0b0;"'
PDF_IMAGE_WIDTH = 620  # px at the PDF's 96 dpi: the text width of A4 with 15 mm margins is ~680


def _table(target: Target, extra: str = "") -> str:
    attrs = _TABLE_PDF if target == "pdf" else ""
    return f"<table {attrs} {extra}>".replace("  ", " ").replace(" >", ">")


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def comparison_html(report: Report, target: Target) -> str:
    t = report.comparison()
    mark = " <span class='legend'>(baseline)</span>"
    head = "".join(
        f"<th>{escape(n)}{mark if i == t.baseline else ''}</th>" for i, n in enumerate(t.names)
    )
    fits = "".join(
        "<td class='num'>yes</td>" if ok else "<td class='num bad'>✗ does not fit</td>"
        for ok in t.fits
    )
    rows = [f"<tr><th>Metric</th>{head}</tr>", f"<tr><td>Fits in memory</td>{fits}</tr>"]
    for label, line in zip(t.labels, t.cells, strict=True):
        cells = []
        for c in line:
            text = f"{BEST_MARK} {c.text}" if c.best else c.text
            text = f"<b>{escape(text)}</b>" if c.best else escape(text)
            if c.delta:
                sep = "<br/>" if target == "pdf" else ""
                text += f"{sep}<span class='delta'>{escape(c.delta)}</span>"
            cls = "num best" if c.best else "num"
            cells.append(f"<td class='{cls}'>{text}</td>")
        rows.append(f"<tr><td>{escape(label)}</td>{''.join(cells)}</tr>")
    base = escape(t.names[t.baseline])
    return (
        "<h2>Scenarios compared</h2>"
        + _table(target, 'width="100%"')
        + "".join(rows)
        + "</table>"
        + f"<p class='legend'>{BEST_MARK} and bold: the best value of the row among the scenarios "
        f"that fit in memory. The second line is the difference to the baseline, {base}: "
        "percent / amount.</p>"
    )


def headline_html(report: Report, target: Target, i: int) -> str:
    s, r = report.document.scenarios[i], report.results[i]
    texts = headline_texts(s.inputs, r)
    bands = headline_ranges(s.inputs, r)
    rows = "".join(
        f"<tr><td><b>{escape(caption)}</b></td><td class='num'><b>{escape(texts[key][0])}</b></td>"
        f"<td class='num'>{escape(bands[key][0]) if key in bands else ''}"
        f"</td><td>{escape(texts[key][1])}</td></tr>"
        for key, caption in HEADLINES
    )
    warn = ""
    if r.warnings:
        warn = "".join(f"<p class='bad'>⚠ {escape(w)}</p>" for w in r.warnings)
    return (
        "<h3>Headline results</h3>"
        + _table(target, 'width="100%"')
        + "<tr><th>Figure</th><th>Value</th><th>Range</th><th>Detail</th></tr>"
        + rows
        + "</table>"
        + warn
    )


def ranges_html(report: Report, target: Target, i: int) -> str:
    """Low, expected and high of each figure, and where each band comes from."""
    s, r = report.document.scenarios[i], report.results[i]
    rows = "".join(
        f"<tr><td>{escape(name)}</td><td class='num'>{escape(lo)}</td>"
        f"<td class='num'><b>{escape(mid)}</b></td><td class='num'>{escape(hi)}</td>"
        f"<td>{escape(src)}</td></tr>"
        for name, lo, mid, hi, src in range_rows(s.inputs, r)
    )
    return (
        "<h3>Ranges</h3>"
        + _table(target, 'width="100%"')
        + "<tr><th>Figure</th><th>Low</th><th>Expected</th><th>High</th>"
        "<th>Where the band comes from</th></tr>" + rows + "</table>"
    )


def _group_tables(rows: list[tuple[str, str, str]], target: Target) -> list[str]:
    groups: dict[str, list[tuple[str, str]]] = {}
    for g, item, value in rows:
        groups.setdefault(g, []).append((item, value))
    out = []
    for g, items in groups.items():
        body = "".join(
            f"<tr><td>{escape(a)}</td><td class='num'>{escape(b)}</td></tr>" for a, b in items
        )
        out.append(
            _table(target, 'width="100%"')
            + f"<tr><th colspan='2'>{escape(g)}</th></tr>{body}</table>"
        )
    return out


def breakdown_html(report: Report, target: Target, i: int) -> str:
    s, r = report.document.scenarios[i], report.results[i]
    tables = _group_tables(breakdown_rows(s.inputs, r), target)
    # Two columns: memory and FLOPs | cost, wall-clock and project (about equal heights).
    left, right = tables[:2], tables[2:]
    pdf = target == "pdf"
    layout = (
        '<table width="100%" cellspacing="0" cellpadding="0" border="0">'
        if pdf
        else '<table class="layout">'
    )
    gap = "<p></p>" if pdf else ""
    cell = '<td width="50%" valign="top">' if pdf else '<td style="vertical-align: top;">'
    return (
        "<h3>Breakdown</h3>"
        + layout
        + "<tr>"
        + cell
        + gap.join(left)
        + "</td>"
        + (cell.replace("<td", '<td style="padding-left: 10px;"') if pdf else cell)
        + gap.join(right)
        + "</td></tr></table>"
    )


def explain_body(report: Report, i: int) -> str:
    """The scenario's 'How this is computed', headings one level below the scenario's."""
    s, r = report.document.scenarios[i], report.results[i]
    return to_html(
        explain(s.inputs, r),
        heading_level=4,
        table_attrs=" class='plain' cellspacing='0' cellpadding='2'",
    )


def inputs_html(report: Report, target: Target) -> str:
    rows = input_rows(report.document, list(report.results))
    several = report.several
    label_w = 28
    col_w = (100 - label_w) // max(1, len(report.names))
    head = "".join(f"<th width='{col_w}%'>{escape(n)}</th>" for n in report.names)
    body = []
    for row in rows:
        diff = several and row.differs
        cls = " class='diff'" if diff else ""
        label = f"<b>{escape(row.label)}</b> ≠" if diff else escape(row.label)
        cells = "".join(f"<td{cls}>{escape(v)}</td>" for v in row.values)
        body.append(f"<tr><td{cls}>{label}</td>{cells}</tr>")
    note = (
        "<p class='legend'>≠ and shading: the rows where the scenarios differ.</p>"
        if several
        else ""
    )
    return (
        "<h2>Inputs</h2>"
        + _table(target, 'width="100%"' if target == "pdf" else "")
        + f"<tr><th width='{label_w}%'>Field</th>{head}</tr>"
        + "".join(body)
        + "</table>"
        + note
    )


def charts_html(report: Report, target: Target, images: Mapping[str, bytes]) -> str:
    """Cost first (page 1 of the PDF, under the summary), memory on the next PDF page."""
    captions = image_captions(report)
    figures = []
    for name in IMAGE_NAMES:
        if name not in images:
            continue
        alt = escape(image_titles(report)[name])
        caption = f"<p class='caption'>{escape(captions[name])}</p>"
        if target == "pdf":  # a page for the estimate's plots, one for the plan's
            brk = ' style="page-break-before: always;"' if name in ("memory", "plan") else ""
            img = f'<img src="{name}.png" width="{PDF_IMAGE_WIDTH}" alt="{alt}"/>'
            figures.append(f'<p align="center"{brk}>{img}</p>{caption}')
        else:
            img = f'<img src="{_data_uri(images[name])}" alt="{alt}"/>'
            figures.append(f"<figure>{img}<figcaption>{caption}</figcaption></figure>")
    if target == "pdf":
        return "<h2>Charts</h2>" + "".join(figures)
    return "<h2>Charts</h2><div class='charts'>" + "".join(figures) + "</div>"


def assumptions_html(target: Target, *, page_break: bool) -> str:
    brk = ' style="page-break-before: always;"' if page_break else ""
    rows = "".join(
        f"<tr><td><b>{escape(t)}</b></td><td>{escape(text)}</td><td>{escape(src)}</td></tr>"
        for t, text, src in ASSUMPTIONS
    )
    articles = "; ".join(f"{num} <i>{escape(name)}</i>" for num, name in ARTICLES)
    return (
        f"<h2{brk}>Assumptions and sources</h2>"
        "<p>The estimate is the articles' arithmetic with your numbers; these are the assumptions "
        "behind it (docs/model.md has the full account).</p>"
        + _table(target, 'width="100%"')
        + "<tr><th width='18%'>Topic</th><th width='60%'>Assumption</th>"
        "<th width='22%'>Source</th></tr>"
        + rows
        + "</table>"
        + f"<p class='ref'>Articles: {articles}.</p>"
    )


def prices_html(report: Report, target: Target) -> str:
    rows = "".join(
        f"<tr><td>{escape(p.gpu)}</td><td class='num'>{escape(p.on_demand)}</td>"
        f"<td class='num'>{escape(p.spot)}</td><td>{escape(p.as_of)}</td>"
        f"<td>{escape(p.scenarios)}</td><td>{escape(p.source)}</td></tr>"
        for p in price_rows(report.document)
    )
    return (
        "<h2>GPU prices used</h2>"
        + _table(target, 'width="100%"')
        + "<tr><th width='13%'>GPU</th><th width='10%'>On-demand $/GPU-h</th>"
        "<th width='10%'>Spot $/GPU-h</th><th width='11%'>As of</th>"
        "<th width='16%'>Scenarios</th><th width='40%'>Source</th></tr>"
        + rows
        + "</table>"
        + "<p class='note'>Prices change weekly; check them with your provider. The estimate is a "
        "plan, not a quote.</p>"
    )


def report_html(report: Report, images: Mapping[str, bytes], target: Target = "html") -> str:
    """The whole report as HTML; ``target='pdf'`` names images ``<name>.png`` as resources."""
    return html_but_charts(report, target)(images)


def html_but_charts(
    report: Report, target: Target = "html"
) -> Callable[[Mapping[str, bytes]], str]:
    """The report's HTML but for its charts, and what adds them: ``report_html`` in two steps,
    so that the text is written while a forked child still draws images (issue 17)."""
    lead, tail = _around_charts(report, target)
    return lambda images: lead + charts_html(report, target, images) + tail


def html_bytes_but_charts(report: Report) -> Callable[[Mapping[str, bytes]], bytes]:
    """``html_but_charts`` for a browser, as the file's UTF-8 bytes: the text around the charts
    is encoded before the images come, so that adding them is one join (issue 17: encoding the
    ~5 MB of a 200-scenario report took ~10 ms of its last, serial step)."""
    lead, tail = (part.encode("utf-8") for part in _around_charts(report, "html"))
    return lambda images: b"".join(
        (lead, charts_html(report, "html", images).encode("utf-8"), tail)
    )


def _around_charts(report: Report, target: Target) -> tuple[str, str]:
    """The HTML before the charts (from the document's start) and after them (to its end)."""
    pdf = target == "pdf"
    css = _CSS_PDF if pdf else _CSS_HTML
    n = len(report.document.scenarios)
    parts = [
        f"<h1>ftcost report: {escape(report.title)}</h1>",
        f"<p class='meta'>Generated {escape(report.date_text())} by ftcost {escape(__version__)} · "
        f"{n} scenario{'s' if n != 1 else ''}</p>",
    ]
    if report.plan is not None:  # the recommendation first: what to rent and how to run it
        parts.append(plan_html(report.plan, _table(target, 'width="100%"')))
    if report.several:
        parts.append(comparison_html(report, target))
    else:
        parts.append(
            "<h2>Summary</h2>"
            + headline_html(report, target, 0).replace("<h3>Headline results</h3>", "")
        )
    before = "".join(parts)
    parts = [inputs_html(report, target)]
    for i, s in enumerate(report.document.scenarios):
        method = METHOD_LABELS[s.inputs.training.method]
        title = f"Scenario {i + 1}: {s.name}" if report.several else f"Scenario: {s.name}"
        brk = ' style="page-break-before: always;"'
        parts.append(f"<h2{brk}>{escape(title)}</h2>")
        parts.append(
            f"<p class='meta'>{escape(s.inputs.model.name)} · {escape(method)} · "
            f"{report.results[i].time.num_gpus} × {escape(s.inputs.hardware.gpu.name)}</p>"
        )
        if report.several:
            parts.append(headline_html(report, target, i))
        parts.append(ranges_html(report, target, i))
        parts.append(breakdown_html(report, target, i))
        parts.append("<h3>How this is computed</h3>")
        parts.append(explain_body(report, i))
    parts.append(assumptions_html(target, page_break=True))
    parts.append(prices_html(report, target))
    parts.append("</body></html>\n")
    title = escape(f"ftcost report: {report.title}")
    head = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"/>'
        f"<title>{title}</title><style>{css}</style></head><body>"
    )
    return head + before, "".join(parts)


def write_html(path: str | os.PathLike[str], report: Report, images: Mapping[str, bytes]) -> None:
    atomic_write_text(path, report_html(report, images, "html"))
