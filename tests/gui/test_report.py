"""Reports: PDF pages and text, self-contained HTML, Markdown images, the CLI, CSV helpers."""

import argparse
import base64
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ftcost_gui.cli.csv_out import CsvOutputError, add_csv_flag, check_csv_args, emit_csv
from ftcost_gui.cli.report_cmd import add_report_parser, run_report
from ftcost_gui.core.rows import result_rows
from ftcost_gui.core.scenarios import compare_scenarios, estimate_all
from ftcost_gui.core.units import fmt_usd
from ftcost_gui.io.estimate_file import load_document
from ftcost_gui.io.export_csv import read_results_csv
from ftcost_gui.present.tables import comparison_table, fmt_delta
from ftcost_gui.report import Report

DATA = Path(__file__).resolve().parents[1] / "data"
V1, V2 = DATA / "estimate_v1.ftcost", DATA / "estimate_v2.ftcost"
PNG = b"\x89PNG\r\n\x1a\n"


def _args(file, **kw):
    parser = argparse.ArgumentParser(prog="ftcost")
    add_report_parser(parser.add_subparsers(dest="command"))
    argv = ["report", str(file)]
    for k, v in kw.items():
        argv += [f"--{k}", str(v)]
    return parser.parse_args(argv)


@pytest.fixture(scope="module")
def v2_report(qapp, tmp_path_factory):
    """``ftcost report estimate_v2.ftcost --pdf --html --md``, run in-process once."""
    out = tmp_path_factory.mktemp("report")
    paths = {"pdf": out / "plan.pdf", "html": out / "plan.html", "md": out / "plan.md"}
    assert run_report(_args(V2, **paths)) == 0
    doc = load_document(V2)
    return paths, doc, estimate_all(doc)


def _page_objects(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def _pdftotext(path, first=None, last=None) -> str | None:
    if shutil.which("pdftotext") is None:
        return None
    cmd = ["pdftotext", "-layout"]
    if first:
        cmd += ["-f", str(first), "-l", str(last or first)]
    return subprocess.run([*cmd, str(path), "-"], capture_output=True, text=True, check=True).stdout


def test_cli_writes_all_three_formats(v2_report, capsys):
    paths, _doc, _ = v2_report
    for p in paths.values():
        assert p.exists() and p.stat().st_size > 1000
    assert paths["pdf"].read_bytes()[:5] == b"%PDF-"
    assert (paths["md"].parent / "plan-memory.png").exists()


def test_pdf_pages_and_headline_text(v2_report):
    paths, doc, results = v2_report
    pdf = paths["pdf"].read_bytes()
    pages = _page_objects(pdf)
    n = len(doc.scenarios)
    # Page breaks are forced before the memory chart, each scenario and the assumptions.
    assert pages >= n + 3
    if shutil.which("pdfinfo"):
        info = subprocess.run(["pdfinfo", str(paths["pdf"])], capture_output=True, text=True)
        assert f"Pages:           {pages}" in info.stdout
        assert "ftcost report: estimate_v2" in info.stdout
    text = _pdftotext(paths["pdf"])
    if text is None:
        pytest.skip("pdftotext not installed")
    for s, r in zip(doc.scenarios, results, strict=True):
        assert s.name in text
        assert fmt_usd(r.cost.on_demand_usd) in text
        assert fmt_usd(r.project.total_usd) in text
    for heading in ("Scenarios compared", "Inputs", "Assumptions and sources", "GPU prices used"):
        assert heading in text
    assert "2026-11-09" in text  # the prices' "as of" date
    assert "GPU Fine-Tuning Costs" in text  # article names
    first = _pdftotext(paths["pdf"], 1)
    assert "Scenarios compared" in first and "Cost per run vs MFU" in first
    # Each scenario starts a page of its own, in order.
    starts = []
    for k in range(1, pages + 1):
        page = _pdftotext(paths["pdf"], k)
        for i, s in enumerate(doc.scenarios):
            if page.lstrip().startswith(f"Scenario {i + 1}: {s.name}"):
                starts.append((i, k))
    assert [i for i, _ in starts] == list(range(n))
    assert len({k for _, k in starts}) == n


def test_pdf_page_count_is_the_layouts(qapp, tmp_path):
    from ftcost_gui.report.render import plot_images, write_pdf

    doc = load_document(V1)
    report = Report(doc, estimate_all(doc), title="one")
    target = tmp_path / "one.pdf"
    pages = write_pdf(target, report, plot_images(report))
    assert pages == _page_objects(target.read_bytes())  # what QTextDocument laid out
    assert pages >= 3  # forced breaks: memory chart, the scenario, the assumptions
    assert not list(tmp_path.glob(".*.tmp"))


def test_html_is_self_contained(v2_report):
    paths, doc, results = v2_report
    html = paths["html"].read_text()
    lowered = html.lower()
    for bad in ('src="http', "src='http", 'href="http', "href='http", "<link", "@import", "url("):
        assert bad not in lowered, bad
    sources = re.findall(r'<img[^>]*\ssrc="([^"]+)"', html)
    assert len(sources) == 5  # cost, memory, and the recommendation's plan and what-fits plots
    for src in sources:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == PNG
    for s, r in zip(doc.scenarios, results, strict=True):
        assert s.name in html
        assert fmt_usd(r.cost.on_demand_usd) in html
    assert "✓" in html and "(baseline)" in html


def test_markdown_references_existing_images(v2_report):
    paths, doc, results = v2_report
    md = paths["md"].read_text()
    refs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert sorted(refs) == [
        "plan-cost.png", "plan-fits_batch.png", "plan-fits_seq.png", "plan-memory.png",
        "plan-plan.png",
    ]  # fmt: skip
    for ref in refs:
        assert not Path(ref).is_absolute()
        assert (paths["md"].parent / ref).read_bytes()[:8] == PNG
    for i, s in enumerate(doc.scenarios):
        assert f"## Scenario {i + 1}: {s.name}" in md
        assert fmt_usd(results[i].cost.on_demand_usd) in md
    assert "### How this is computed" in md
    assert not re.search(r"</?[a-zA-Z][^>]*>", md)  # explain_html became Markdown, no tags


def test_report_baseline_by_name_and_errors(qapp, tmp_path, capsys):
    out = tmp_path / "b.html"
    assert run_report(_args(V2, html=out, baseline="QLoRA r16")) == 0
    assert "QLoRA r16 <span class='legend'>(baseline)</span>" in out.read_text()
    capsys.readouterr()
    cases = [
        _args(V2),
        _args(V2, html=tmp_path / "x.html", baseline="nope"),
        _args(tmp_path / "missing.ftcost", pdf=tmp_path / "x.pdf"),
        _args(V2, pdf=tmp_path / "no" / "such" / "dir.pdf"),
    ]
    for args in cases:
        assert run_report(args) == 2
        err = capsys.readouterr().err
        assert err.startswith("ftcost: error: ") and err.count("\n") == 1


def test_cli_report_in_a_fresh_process_sets_offscreen(tmp_path):
    """Headless: no QT_QPA_PLATFORM and no DISPLAY still works (the command sets offscreen)."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    code = (
        "import argparse, sys;"
        "from ftcost_gui.cli.report_cmd import add_report_parser, run_report;"
        "p = argparse.ArgumentParser(); add_report_parser(p.add_subparsers());"
        "sys.exit(run_report(p.parse_args(sys.argv[1:])))"
    )
    md = tmp_path / "r.md"
    out = subprocess.run(
        [sys.executable, "-c", code, "report", str(V1), "--md", str(md)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # the offscreen plugin's chatter is filtered
    assert md.exists() and (tmp_path / "r-memory.png").exists()


def test_report_text_builders_do_not_load_qt():
    code = (
        "import sys, ftcost_gui.report, ftcost_gui.report.content, ftcost_gui.present.tables,"
        " ftcost_gui.report.html, ftcost_gui.report.markdown,"
        " ftcost_gui.cli.csv_out, ftcost_gui.cli.report_cmd;"
        "print([m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_comparison_table_matches_compare_scenarios():
    doc = load_document(V2)
    results = estimate_all(doc)
    for baseline in range(len(results)):
        rows = compare_scenarios(results, baseline)
        table = comparison_table([s.name for s in doc.scenarios], results, baseline)
        assert table.best_cells() == {(i, j) for i, r in enumerate(rows) for j in r.best}
        for row, cells in zip(rows, table.cells, strict=True):
            assert cells[baseline].delta == "" and cells[baseline].baseline
            for j, c in enumerate(cells):
                if j != baseline:
                    assert c.delta == fmt_delta(row.metric.key, row.deltas[j], row.ratios[j])
    assert fmt_delta("on_demand_usd", -3.2, 0.88) == "−12% / −$3.20"
    assert fmt_delta("memory_gib", 1.5, 1.0546) == "+5.5% / +1.5 GiB"
    assert fmt_delta("gpus", 0.0, 1.0) == "same"


def test_csv_helpers_round_trip_the_result(tmp_path):
    doc = load_document(V2)
    results = estimate_all(doc)
    named = [(s.name, r) for s, r in zip(doc.scenarios, results, strict=True)]
    out = io.StringIO()
    assert emit_csv("-", named, out) is True
    table = read_results_csv(out.getvalue())
    for name, r in named:
        for row in result_rows(r):
            text = table[(name, row.section, row.key)]
            if isinstance(row.value, float):
                assert float(text) == row.value
            elif isinstance(row.value, bool) or row.value is None:
                assert text == ("" if row.value is None else str(row.value))
            elif isinstance(row.value, int):
                assert int(text) == row.value
    target = tmp_path / "r.csv"
    assert emit_csv(str(target), named[:1], io.StringIO()) is False
    assert read_results_csv(target.read_text()) == {
        k: v for k, v in table.items() if k[0] == named[0][0]
    }
    assert emit_csv(None, named, out) is False
    with pytest.raises(CsvOutputError):
        emit_csv(str(tmp_path), named, out)  # a folder

    parser = argparse.ArgumentParser()
    parser.add_argument("file", nargs="?")
    parser.add_argument("--json", action="store_true")
    add_csv_flag(parser)
    assert parser.parse_args(["f.ftcost", "--csv"]).csv == "-"
    assert parser.parse_args(["f.ftcost", "--csv", "o.csv"]).csv == "o.csv"
    assert parser.parse_args(["f.ftcost"]).csv is None
    with pytest.raises(CsvOutputError):
        check_csv_args(parser.parse_args(["f.ftcost", "--csv", "--json"]))
    with pytest.raises(CsvOutputError):
        check_csv_args(parser.parse_args(["--csv", "f.ftcost"]))


def test_markdown_never_replaces_existing_images_unasked(qapp, tmp_path, capsys):
    precious = tmp_path / "out-memory.png"
    precious.write_bytes(b"precious")
    md = tmp_path / "out.md"
    assert run_report(_args(V1, md=md)) == 2
    err = capsys.readouterr().err
    assert "out-memory.png already exist" in err and "--force" in err
    assert precious.read_bytes() == b"precious" and not md.exists()
    args = _args(V1, md=md)
    args.force = True
    assert run_report(args) == 0
    assert precious.read_bytes()[:8] == PNG and md.exists()


@pytest.mark.parametrize("path", [V1, V2], ids=["one scenario", "several"])
def test_plot_images_draw_each_plot_once_and_paint_no_view(qapp, monkeypatch, path):
    """The report's plots are laid out as on screen and drawn once each into their image
    (issue 17: the views painted dozens of times on the offscreen screen first: a 200-scenario
    report spent most of its time there). Counted, not timed."""
    import pyqtgraph as pg

    from ftcost_gui import charts
    from ftcost_gui.charts import export
    from ftcost_gui.report.render import plot_images

    paints, renders = [], []
    real_paint = pg.GraphicsView.paintEvent
    real_render = export.render_png

    def paint(self, event):
        paints.append(self)
        return real_paint(self, event)

    def render(*args, **kwargs):
        renders.append(args[0])
        return real_render(*args, **kwargs)

    monkeypatch.setattr(pg.GraphicsView, "paintEvent", paint)
    monkeypatch.setattr(export, "render_png", render)
    monkeypatch.setattr(charts, "render_png", render, raising=False)
    doc = load_document(path)
    images = plot_images(Report(doc, estimate_all(doc), title="t"))
    assert set(images) == {"memory", "cost"}
    assert paints == []
    assert len(renders) == len(images) == len(set(renders))
