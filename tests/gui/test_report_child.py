"""The report's plots drawn by a child that loads Qt itself (report/plot_child.py, issue 17): which
process loads Qt and draws what, counted; what crosses to the child, as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ftcost_gui.core.compare import offer
from ftcost_gui.core.document import EstimateDocument
from ftcost_gui.core.plan_space import PlanConstraints
from ftcost_gui.core.series import Outcomes
from ftcost_gui.io.estimate_file import save_document
from ftcost_gui.io.resources import builtin_catalog
from ftcost_gui.report import Report
from ftcost_gui.report.content import PlanFigures, plan_section
from ftcost_gui.report.plot_child import (
    figures_from_json,
    figures_json,
    grandchild_images,
    order_from_json,
    order_json,
)

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


@pytest.mark.parametrize("scenarios", [1, 3])
def test_what_the_memory_and_cost_plots_draw_reaches_the_child_as_it_is(scenarios):
    """Several scenarios: every bar and curve of the series read back equal and of the same types
    (repr the same; the child computes no estimate); one scenario: its inputs, from which the
    child computes the plots by method as the report's process would."""
    from ftcost_gui.core.series import document_series, own_outcome, scenario_series

    doc = _document(3)
    if scenarios == 1:  # S1 alone: LoRA at 2,048 tokens
        doc = EstimateDocument(scenarios=doc.scenarios[1:2], active=0)
    outcomes = [own_outcome(s.inputs, band=False) for s in doc.scenarios]
    names = [s.name for s in doc.scenarios]
    series = scenario_series(names, outcomes, doc.active) if scenarios > 1 else None
    report = Report(document=doc, results=[o.result for o in outcomes], series=series)
    names_back, back = order_from_json(order_json(report, ("cost", "memory")))
    assert names_back == ("cost", "memory") and back.plan is None
    if scenarios > 1:
        assert back.inputs is None
        assert back.series == series and repr(back.series) == repr(series)
        assert len(back.series.curves) == 3 and back.series.memory.keys == ("S0", "S1", "S2")
        # without the caller's series: the ones the plots would compute, sent the same way
        bare = Report(document=doc, results=report.results)
        assert order_from_json(order_json(bare, ("cost",)))[1].series == document_series(
            doc, Outcomes()
        )
    else:
        assert back.series is None
        assert back.inputs == doc.current.inputs and repr(back.inputs) == repr(doc.current.inputs)


def test_the_grandchild_takes_the_cost_plot_and_what_evens_the_work_out():
    assert grandchild_images(3, plan=True) == ("cost", "memory")  # the plan's three: the child
    assert grandchild_images(200, plan=True) == ("cost",)  # 400 curves ~ the other four
    assert grandchild_images(200, plan=False) == ("cost",)
    assert grandchild_images(100, plan=True) == ("cost", "plan")


DRAWN = r"""
import json, os, sys
os.getloadavg = lambda: (0.0, 0.0, 0.0)  # idle (a busy machine draws in one process)
import ftcost_gui.report.render as render
draw_images = render.draw_images
def counted(figures, *a, names=None, **k):
    images = draw_images(figures, *a, names=names, **k)
    if images:
        with open(sys.argv[2], "a") as log:  # the children's calls too (their lists die)
            log.write(json.dumps([os.getpid(), os.getppid(), sorted(images)]) + "\n")
    return images
render.draw_images = counted
if os.environ.get("GRANDCHILD"):  # what the grandchild draws, forced
    import ftcost_gui.report.plot_child as plot_child
    plot_child.grandchild_images = lambda *a, **k: tuple(os.environ["GRANDCHILD"].split(","))
from ftcost_gui.cli import main
rc = main(["report", sys.argv[1], *sys.argv[3:]])
qt = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "numpy", "pyqtgraph"))
print(json.dumps({"rc": rc, "pid": os.getpid(), "qt": qt}))
"""


def _report(tmp_path, *flags: str, grandchild: str = "") -> tuple[dict, list]:
    path = tmp_path / "s.ftcost"
    save_document(path, _document(3))
    log = tmp_path / "drawn.jsonl"
    log.unlink(missing_ok=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FTCOST_CONFIG_DIR": str(tmp_path)}
    env["GRANDCHILD"] = grandchild
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
def test_a_grandchild_that_draws_a_plan_image_is_forked_once_the_figures_came(tmp_path):
    """Where the grandchild draws one of the plan's images (grandchild_images: ~60-150
    scenarios), the child forks it once the plan's figures came, so that it draws what it was
    given and nothing is drawn twice (forked before them, it could not draw the plan and the
    child drew its images again)."""
    got, calls = _report(tmp_path, "--html", str(tmp_path / "f.html"), grandchild="cost,plan")
    assert got["qt"] == []
    child = [c for c in calls if c[1] == got["pid"]]
    grandchild = [c for c in calls if c[1] != got["pid"]]
    assert [names for _, _, names in child] == [["fits_batch", "fits_seq", "memory"]]
    assert [names for _, _, names in grandchild] == [["cost", "plan"]]


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


EARLY = r"""
import json, os, sys
os.getloadavg = lambda: (0.0, 0.0, 0.0)  # idle (a busy machine draws in one process)
import ftcost_gui.core.series as core_series
import ftcost_gui.report.plot_child as plot_child
LOG = sys.argv[1]
def note(**fields):
    with open(LOG, "a") as log:
        log.write(json.dumps({"pid": os.getpid(), "ppid": os.getppid(), **fields}) + "\n")
draw = plot_child._draw
def started(*a, **k):  # the child, as it starts
    note(child=True, commands_loaded="ftcost_gui.cli.commands" in sys.modules)
    return draw(*a, **k)
plot_child._draw = started
own_outcome = core_series.own_outcome
def estimated(*a, **k):
    note(estimate=True)
    return own_outcome(*a, **k)
core_series.own_outcome = estimated
from ftcost_gui.cli import main
sys.argv = ["ftcost", "report", *sys.argv[2:]]
rc = main()  # the process's entry, as `ftcost` runs it
qt = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "numpy", "pyqtgraph"))
print(json.dumps({"rc": rc, "pid": os.getpid(), "qt": qt}))
"""


def _entry(tmp_path, *args: str) -> tuple[dict, list]:
    log = tmp_path / "early.jsonl"
    log.unlink(missing_ok=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FTCOST_CONFIG_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", EARLY, str(log), *args],
        capture_output=True, text=True, check=True, env=env, timeout=120,
    )  # fmt: skip
    got = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])
    notes = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return got, notes


@linux_only
def test_the_plots_child_starts_before_the_commands_modules_load(tmp_path):
    """As the process's entry, ``ftcost report --html`` forks its plots' child before the
    command line's modules are imported (its Qt imports run beside them, the file's reading and
    the estimates); the report's process makes every estimate (3), the child none (it is sent
    the series), and the report is the one drawn in one process."""
    path = tmp_path / "s.ftcost"
    save_document(path, _document(3))
    got, notes = _entry(tmp_path, str(path), "--html", str(tmp_path / "f.html"))
    assert got["rc"] == 0 and got["qt"] == []
    children = [n for n in notes if n.get("child")]
    assert [(n["ppid"], n["commands_loaded"]) for n in children] == [(got["pid"], False)]
    estimates = [n["pid"] for n in notes if n.get("estimate")]
    assert estimates == [got["pid"]] * 3
    import argparse

    from ftcost_gui.cli.report_cmd import add_report_parser, run_report

    parser = argparse.ArgumentParser(prog="ftcost")
    add_report_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["report", str(path), "--html", str(tmp_path / "s.html")])
    assert run_report(args) == 0
    assert _html_text(tmp_path / "f.html") == _html_text(tmp_path / "s.html")


@linux_only
def test_an_early_child_no_report_takes_is_stopped_and_a_pdf_forks_none(tmp_path):
    """A report that fails (no such file) stops the child it forked first: none is left
    importing Qt for nothing once the command returns. A PDF is laid out by Qt in the report's
    process, so none is forked first."""
    got, notes = _entry(
        tmp_path, str(tmp_path / "nosuch.ftcost"), "--html", str(tmp_path / "f.html")
    )
    assert got["rc"] == 2
    children = [n["pid"] for n in notes if n.get("child")]
    assert len(children) <= 1  # stopped before it could note its start, or after
    assert all(not os.path.exists(f"/proc/{pid}") for pid in children)  # stopped and reaped
    path = tmp_path / "s.ftcost"
    save_document(path, _document(3))
    got, notes = _entry(tmp_path, str(path), "--pdf", str(tmp_path / "f.pdf"))
    assert got["rc"] == 0 and [n for n in notes if n.get("child")] == []


ENDING = r"""
import json, os, sys, time
os.getloadavg = lambda: (0.0, 0.0, 0.0)  # idle (a busy machine draws in one process)
import ftcost_gui.report.forked as forked
import ftcost_gui.report.render as render
exit_now = os._exit
def linger(code):  # every child lingers after it sent its images: its end is seen, not timed
    time.sleep(float(sys.argv[3]))
    exit_now(code)
os._exit = linger
start_images = forked.start_images
started = []
def noted(*a, **k):
    worker = start_images(*a, **k)
    if worker is not None and os.getpid() == int(sys.argv[4]):
        started.append(worker.pid)
    return worker
forked.start_images = noted
import ftcost_gui.report.plot_child as plot_child
plot_child.start_images = noted
def group(pgid):  # the processes of the child's group still running
    alive = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat[2]) == pgid and stat[0] != "Z":
            alive.append(int(pid))
    return alive
import ftcost_gui.io.atomic as atomic
write = atomic.atomic_write_bytes
at_write = []
def noted_write(path, data):
    at_write.append(len(group(started[0])))
    write(path, data)
atomic.atomic_write_bytes = render.atomic_write_bytes = noted_write
from ftcost_gui.cli import main
rc = main(["report", sys.argv[1], "--html", sys.argv[2]])
print(json.dumps({"rc": rc, "at_write": at_write, "after": len(group(started[0]))}))
"""


@linux_only
def test_the_report_is_written_before_its_children_have_ended(tmp_path):
    """The report's process takes the child's images as they come (whole, every name asked for)
    and writes the file; it reaps the child after that, and the child its own child after it
    sent its images: neither process's end (its memory handed back, ~10 ms each at 200
    scenarios) is on the report's path. Here each child lingers after sending: both are still
    there when the file is written (on a167e96: neither), and both are reaped at the end."""
    path = tmp_path / "s.ftcost"
    save_document(path, _document(3))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FTCOST_CONFIG_DIR": str(tmp_path)}
    code = f"import os, sys; sys.argv.append(str(os.getpid())); exec({ENDING!r})"
    out = subprocess.run(
        [sys.executable, "-c", code, str(path), str(tmp_path / "f.html"), "1.5"],
        capture_output=True, text=True, check=True, env=env, timeout=120,
    )  # fmt: skip
    got = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])
    assert got["rc"] == 0
    assert got["at_write"] == [2]  # the child and the grandchild
    assert got["after"] == 0
    assert (tmp_path / "f.html").stat().st_size > 10_000
