"""Work of a report of many scenarios (issue 17): counted, never timed."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

import pytest

from ftcost_gui.cli.report_cmd import add_report_parser, run_report
from ftcost_gui.core import EstimateInputs
from ftcost_gui.core.document import EstimateDocument, Scenario
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.series import Outcomes, document_series, own_outcome, scenario_series
from ftcost_gui.io.estimate_file import save_document


def _document(n: int) -> EstimateDocument:
    """n scenarios of different methods and sizes (each its own estimate)."""
    base = EstimateInputs()
    methods = ("full_amp_adamw", "lora", "qlora")
    return EstimateDocument(
        scenarios=tuple(
            Scenario(
                name=f"S{i}",
                inputs=base.edited("training", method=methods[i % 3]).edited(
                    "data", max_seq_len=1024 * (1 + i % 4)
                ),
            )
            for i in range(n)
        ),
        active=1,
    )


def test_own_outcome_is_the_estimate_and_gives_the_same_scenario_series():
    doc = _document(6)
    own = [own_outcome(s.inputs) for s in doc.scenarios]
    assert [o.result for o in own] == [estimate(s.inputs) for s in doc.scenarios]
    names = [s.name for s in doc.scenarios]
    assert scenario_series(names, own, doc.active) == document_series(doc, Outcomes())
    assert all(len(o.memory_by_method.keys) == 1 for o in own)  # no other method's memory
    # Without the range around the curve (the all-scenario plot draws none): the rest the same.
    bare = [own_outcome(s.inputs, band=False) for s in doc.scenarios]
    assert all(o.cost_curve.low_usd == o.cost_curve.high_usd == () for o in bare)
    assert all(o.cost_curve.low_usd for o in own)
    unbanded = [replace(o, cost_curve=replace(o.cost_curve, low_usd=(), high_usd=())) for o in own]
    assert bare == unbanded


def test_a_report_of_many_scenarios_plans_each_scenario_once(qapp, tmp_path, counted, monkeypatch):
    """Its figures and its plots' curves and bars come from one plan per scenario (the results
    and the plots' series each planned every scenario: 2 × n; the memory of the other methods,
    which the all-scenario plots do not show, was computed too), and no cost range around the
    curves, which the all-scenario plot does not draw (two more sweeps a scenario)."""
    import ftcost_gui.core.series as series

    band = series.cost_band

    def counting_band(*args):
        counted["band"] += 1
        return band(*args)

    monkeypatch.setattr(series, "cost_band", counting_band)
    path = tmp_path / "s.ftcost"
    save_document(path, _document(12))
    parser = argparse.ArgumentParser(prog="ftcost")
    add_report_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["report", str(path), "--html", str(tmp_path / "r.html"), "--no-plan"])
    counted.update(plan=0, memory=0, band=0)
    assert run_report(args) == 0
    assert counted == {"plan": 12, "memory": 0, "band": 0}
    assert "S11" in (tmp_path / "r.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("text", ["a<b & 'c'", "plain", "\x1b[31mred\u202e"])
def test_html_renderers_give_the_same_text_every_time(text):
    from html import escape

    from ftcost_gui.io.names import for_html, plain
    from ftcost_gui.present.blocks import inline_html

    assert for_html(text) == for_html(text) == escape(plain(text), quote=True)
    assert inline_html((text,)) == inline_html((text, "")) == escape(text, quote=False)


REPORT_CHILD = r"""
import json, sys
import ftcost_gui.report.forked as forked
forked.can_fork = lambda: False  # every image drawn in this process (else a child loads Qt)
from ftcost_gui.cli import main
rc = main(["report", sys.argv[1], "--html", sys.argv[2], "--no-plan"])
print(json.dumps({"rc": rc, "modules": sorted(sys.modules)}))
"""


def test_a_report_loads_no_exporter_the_window_uses(tmp_path):
    """The report renders its PNGs itself (charts/export.render_png): pyqtgraph's exporters
    (and the parameter tree they load) wait for the window's PNG export."""
    import json
    import os
    import subprocess

    path = tmp_path / "s.ftcost"
    save_document(path, _document(3))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FTCOST_CONFIG_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", REPORT_CHILD, str(path), str(tmp_path / "r.html")],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    got = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])
    assert got["rc"] == 0 and "pyqtgraph" in got["modules"]
    loaded = [
        m
        for m in got["modules"]
        if m.startswith(("pyqtgraph.exporters", "pyqtgraph.parametertree"))
    ]
    assert loaded == []


def _html_text(path) -> str:
    import re

    text = path.read_text(encoding="utf-8")
    return re.sub(r"Generated [^<·]*", "Generated", text)


FORK_CASES = r"""
import json, os, sys, time
os.getloadavg = lambda: (0.0, 0.0, 0.0)  # idle (a busy machine draws in one process)
from ftcost_gui.report.forked import can_fork, start_images
def good(names): return {n: n.encode() * 3 for n in names}
def fails(names): raise RuntimeError("no Qt")
def other(names): return {"memory": b"png"}
def reordered(names): return good(reversed(names))  # plot_images' order, not the asked one
def silent(names): os._exit(0)
out = {"can_fork": can_fork()}
for draw in (good, reordered, fails, other, silent):
    worker = start_images(lambda names, draw=draw: draw(names), ("cost", "plan"))
    out[draw.__name__] = None if worker is None else worker.result()
    if worker is not None:
        out[draw.__name__ + "_again"] = worker.result()  # taken once
def text(v): return {n: b.decode() for n, b in v.items()} if isinstance(v, dict) else v
out = {k: text(v) for k, v in out.items()}
worker = start_images(lambda names: (time.sleep(30), good(names))[1], ("cost",))
t = time.monotonic(); worker.close(); out["closed_in_s"] = time.monotonic() - t
os.getloadavg = lambda: (float(len(os.sched_getaffinity(0))),) * 3
out["busy"] = can_fork()  # every CPU busy: no child
print(json.dumps(out))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")
def test_a_forked_child_gives_its_images_or_none(tmp_path):
    """What the child sends is taken only when it exits cleanly with exactly the images asked
    for; a failing child, one that sends other images or nothing gives None (the caller then
    draws them itself); an unneeded child is stopped at once; every CPU busy: no child."""
    import json
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", FORK_CASES], capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout.splitlines()[-1])
    assert got.pop("closed_in_s") < 10
    assert got == {
        "can_fork": True,
        "good": {"cost": "costcostcost", "plan": "planplanplan"},
        "good_again": None,
        "reordered": {"plan": "planplanplan", "cost": "costcostcost"},
        "reordered_again": None,
        "fails": None,
        "fails_again": None,
        "other": None,
        "other_again": None,
        "silent": None,
        "silent_again": None,
        "busy": False,
    }


def test_no_fork_where_qt_is_loaded(qapp):
    """This process has a QApplication: a report drawn here is drawn here."""
    from ftcost_gui.report.forked import can_fork, start_images

    assert not can_fork()
    assert start_images(lambda names: {}, ("cost",)) is None


def _note(drawn, images):
    drawn.append(sorted(images))
    return images


class _Worker:
    names = ("cost",)

    def __init__(self, images):
        self.images = images

    def result(self):
        return self.images


def test_export_takes_the_childs_images_or_draws_them_itself(qapp, tmp_path, monkeypatch):
    import base64

    import ftcost_gui.report.render as render
    from ftcost_gui.report import Report

    doc = _document(3)
    report = Report(document=doc, results=[estimate(s.inputs) for s in doc.scenarios])
    drawn = []
    plot_images = render.plot_images
    monkeypatch.setattr(
        render,
        "plot_images",
        lambda r, names=None: _note(drawn, plot_images(r, names=names)),
    )
    render.export_report(report, html=tmp_path / "a.html")
    render.export_report(report, html=tmp_path / "b.html", worker=_Worker(None))
    render.export_report(report, html=tmp_path / "c.html", worker=_Worker({"cost": b"PNG"}))
    assert drawn == [["cost", "memory"], ["memory"], ["cost"], ["memory"]]
    assert (tmp_path / "a.html").read_text() == (tmp_path / "b.html").read_text()
    assert base64.b64encode(b"PNG").decode() in (tmp_path / "c.html").read_text()


class _Waited(_Worker):
    names = ("cost", "memory")

    def __init__(self, images, log):
        super().__init__(images)
        self.log = log

    def result(self):
        self.log.append("waited")
        return self.images


def test_the_html_text_is_written_while_the_child_draws(qapp, tmp_path, monkeypatch):
    """With a child drawing the cost and memory plots, this process draws the plan's images and
    builds the HTML's text before it waits for the child's images (then only the charts are
    added); the file is the one written without a child."""
    import ftcost_gui.report.render as render
    from ftcost_gui.report import Report

    doc = _document(3)
    report = Report(document=doc, results=[estimate(s.inputs) for s in doc.scenarios])
    log: list[str] = []
    but_charts = render.html_bytes_but_charts
    monkeypatch.setattr(
        render, "html_bytes_but_charts", lambda *a: (log.append("text"), but_charts(*a))[1]
    )
    images = render.plot_images(report)
    render.export_report(report, html=tmp_path / "a.html")
    assert log == []  # one process: the text once the images are drawn
    child = {n: images[n] for n in ("cost", "memory")}
    render.export_report(report, html=tmp_path / "b.html", worker=_Waited(child, log))
    assert log == ["text", "waited"]
    assert _html_text(tmp_path / "a.html") == _html_text(tmp_path / "b.html")


def test_the_child_takes_the_memory_plot_where_it_evens_the_work_out():
    from ftcost_gui.report.render import forked_images

    assert forked_images(200, plan=True) == ("cost", "memory")
    assert forked_images(40, plan=True) == ("cost", "memory")
    assert forked_images(200, plan=False) == ("cost",)  # no plan: the parent has less to do
    assert forked_images(1000, plan=True) == ("cost",)  # the child would then be the slower


REPORT_THREADS = r"""
import json, os, sys
import ftcost_gui.report.forked as forked
forked.can_fork = lambda: False  # every image drawn in this process
from ftcost_gui.cli import main
rc = main(["report", sys.argv[1], "--html", sys.argv[2]])
names = [open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task")]
main_name = open("/proc/self/comm").read().strip()
print(json.dumps({"rc": rc, "threads": names, "main": main_name}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="threads listed by /proc")
def test_the_cli_report_paints_without_qts_thread_pool(tmp_path):
    """The report's QApplication paints each fill in its own thread (render.SERIAL_FILLS): Qt's
    pool started threads for the plots' curves and cost more CPU than it saved; and numpy's
    OpenBLAS starts no worker thread (blas_threads.py) (issue 17)."""
    import json
    import os
    import subprocess

    path = tmp_path / "s.ftcost"
    save_document(path, _document(3))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FTCOST_CONFIG_DIR": str(tmp_path)}
    env.pop("QT_NO_GUI_THREADPOOL", None)
    env.pop("OPENBLAS_NUM_THREADS", None)
    out = subprocess.run(
        [sys.executable, "-c", REPORT_THREADS, str(path), str(tmp_path / "r.html")],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    got = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])
    assert got["rc"] == 0
    assert [name for name in got["threads"] if name.startswith("Thread (pooled)")] == []
    # nor a BLAS worker beside the main thread (OpenBLAS's threads carry the process's name)
    assert got["threads"].count(got["main"]) == 1
