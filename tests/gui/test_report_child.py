"""The report's plots drawn by a child that loads Qt itself (report/plot_child.py, issue 17): which
process loads Qt and draws what, counted; what crosses to the child, as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ftcost_gui.core.compare import offer
from ftcost_gui.core.plan_space import PlanConstraints
from ftcost_gui.io.estimate_file import save_document
from ftcost_gui.io.resources import builtin_catalog
from ftcost_gui.report.content import PlanFigures, plan_section
from ftcost_gui.report.plot_child import figures_from_json, figures_json, grandchild_images

from ..core.helpers import make
from .test_report_work import _document, _html_text

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")


@pytest.mark.parametrize(
    "constraints",
    [None, PlanConstraints(methods=("lora", "qlora"), deadline_h=24.0, budget_usd=50.0)],
)
def test_the_plans_figures_reach_the_child_as_they_are(constraints):
    """The plan's plots in the child draw what the search here found: every point, limit and
    curve read back equal, and of the same types (tuples, ints, floats: repr is the same)."""
    cat = builtin_catalog()
    offers = [offer(cat.find(g).to_spec()) for g in ("h100-sxm", "a100-80gb-sxm", "l4")]
    inputs = make("llama-3.1-8b", training__method="lora", training__num_gpus=2)
    figures = PlanFigures.of(plan_section(inputs, offers, constraints, "Built-in"))
    assert len(figures.points.wall_h) > 5 and figures.fits.by_seq_len
    back = figures_from_json(figures_json(figures))
    assert back == figures
    assert repr(back) == repr(figures)


def test_the_grandchild_takes_the_cost_plot_and_what_evens_the_work_out():
    assert grandchild_images(3, plan=True) == ("cost", "memory")  # the plan's three: the child
    assert grandchild_images(200, plan=True) == ("cost",)  # 400 curves ~ the other four
    assert grandchild_images(200, plan=False) == ("cost",)
    assert grandchild_images(100, plan=True) == ("cost", "plan")


DRAWN = r"""
import json, os, sys
os.getloadavg = lambda: (0.0, 0.0, 0.0)  # idle (a busy machine draws in one process)
import ftcost_gui.report.render as render
plot_images = render.plot_images
def counted(report, *a, names=None, **k):
    images = plot_images(report, *a, names=names, **k)
    if images:
        with open(sys.argv[2], "a") as log:  # the children's calls too (their lists die)
            log.write(json.dumps([os.getpid(), os.getppid(), sorted(images)]) + "\n")
    return images
render.plot_images = counted
from ftcost_gui.cli import main
rc = main(["report", sys.argv[1], *sys.argv[3:]])
qt = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "numpy", "pyqtgraph"))
print(json.dumps({"rc": rc, "pid": os.getpid(), "qt": qt}))
"""


def _report(tmp_path, *flags: str) -> tuple[dict, list]:
    path = tmp_path / "s.ftcost"
    save_document(path, _document(3))
    log = tmp_path / "drawn.jsonl"
    log.unlink(missing_ok=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FTCOST_CONFIG_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", DRAWN, str(path), str(log), *flags],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    got = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])
    assert got["rc"] == 0
    return got, [json.loads(line) for line in log.read_text().splitlines()]


@linux_only
def test_the_html_reports_process_never_loads_qt(tmp_path):
    """``ftcost report --html`` forks a child as soon as the estimates are done; the child loads
    Qt, numpy and pyqtgraph (while this process searches the plan and builds the text) and
    forks a grandchild for the cost and memory plots (3 scenarios: grandchild_images); the child
    draws the plan's three from the figures sent to it; this process loads none of them. The
    file is the one the report drawn in one process writes (here: Qt is loaded, no fork)."""
    got, calls = _report(
        tmp_path, "--html", str(tmp_path / "f.html"), "--md", str(tmp_path / "f.md")
    )
    assert got["qt"] == []
    child = [c for c in calls if c[1] == got["pid"]]
    grandchild = [c for c in calls if c[1] != got["pid"]]
    assert [names for _, _, names in child] == [["fits_batch", "fits_seq", "plan"]]
    assert [names for _, _, names in grandchild] == [["cost", "memory"]]
    assert grandchild[0][1] == child[0][0]
    import argparse

    from ftcost_gui.cli.report_cmd import add_report_parser, run_report

    parser = argparse.ArgumentParser(prog="ftcost")
    add_report_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["report", str(tmp_path / "s.ftcost"), "--html", str(tmp_path / "s.html")]
    )
    assert run_report(args) == 0
    assert _html_text(tmp_path / "f.html") == _html_text(tmp_path / "s.html")


@linux_only
def test_without_a_plan_section_the_reports_process_loads_no_qt_either(tmp_path):
    """--no-plan: no plan images, none drawn here (none asked of the child either): the child
    draws the memory plot, its own child the cost plot."""
    got, calls = _report(tmp_path, "--html", str(tmp_path / "f.html"), "--no-plan")
    assert got["qt"] == []
    assert [names for _, ppid, names in calls if ppid == got["pid"]] == [["memory"]]
    assert [names for _, ppid, names in calls if ppid != got["pid"]] == [["cost"]]


@linux_only
def test_a_pdf_report_loads_qt_before_its_fork(tmp_path):
    """The PDF is laid out by Qt in the report's process: Qt is loaded there before the fork and
    the child draws the cost and memory plots (render.forked_images), this process the rest."""
    got, calls = _report(tmp_path, "--pdf", str(tmp_path / "f.pdf"))
    assert "PySide6.QtGui" in got["qt"]
    assert [names for pid, _, names in calls if pid == got["pid"]] == [
        ["fits_batch", "fits_seq", "plan"]
    ]
    assert [names for pid, ppid, names in calls if pid != got["pid"]] == [["cost", "memory"]]


INBOX_CASES = r"""
import json, os, sys, time
os.getloadavg = lambda: (0.0, 0.0, 0.0)
from ftcost_gui.report.forked import start_images
def echo(names, receive): return {n: receive() for n in names}
out = {}
worker = start_images(echo, ("plan",), inbox=True)
worker.send(b"x" * 200_000)  # more than a pipe holds by default: sent before the child reads
out["sent"] = {n: len(v) for n, v in worker.result().items()}
worker = start_images(echo, ("plan",), inbox=True)
out["never_sent"] = worker.result()  # the child's receive() ends with nothing: it fails
def forks(names):
    inner = start_images(lambda names: (time.sleep(60), {})[1], ("cost",))
    with open(sys.argv[1], "w") as f:
        f.write(str(inner.pid))
    time.sleep(60)
    return {}
worker = start_images(forks, ("memory",))
while not os.path.exists(sys.argv[1]) or not open(sys.argv[1]).read():
    time.sleep(0.05)
grandchild = int(open(sys.argv[1]).read())
worker.close()
def gone(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
deadline = time.monotonic() + 10
while not gone(grandchild) and time.monotonic() < deadline:
    time.sleep(0.05)
out["grandchild_gone"] = gone(grandchild)
print(json.dumps(out))
"""


@linux_only
def test_a_child_receives_what_is_sent_and_stops_with_what_it_forked(tmp_path):
    """``send`` gives the child's ``receive`` the bytes (a pipe made large enough: sending never
    waits for the child); nothing sent: the child fails and gives nothing; closing a child
    stops the grandchild it forked too (its process group), none left drawing."""
    out = subprocess.run(
        [sys.executable, "-c", INBOX_CASES, str(tmp_path / "pid")],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    got = json.loads(out.stdout.splitlines()[-1])
    assert got == {"sent": {"plan": 200_000}, "never_sent": None, "grandchild_gone": True}
