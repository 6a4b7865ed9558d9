"""Window benchmarks (prints figures; not a test). Run from the repo root:

    QT_QPA_PLATFORM=offscreen nice -n 10 .venv/bin/python benchmarks/bench_gui.py [--runs 7]

Every figure is printed beside the same figure of a bare PySide6 + pyqtgraph window (a
QMainWindow with one PlotWidget and one curve), measured in the same run, alternated with ours,
and their ratio: on a loaded machine absolute times vary ±50 %, ratios much less.

Bytecode of the package and of the libraries it imports is compiled first, and one start of each
window is run and discarded, so no start recompiles or reads cold files.

1. Start-up, in a child process per start: process start → the window's first paint event; →
   both plots drawn (the first paint of each plot's view: results, forms and plots on screen);
   resident memory (ru_maxrss) with the plots drawn. The bare window's first paint is its plot's.
2. Edits through the store: edit → results and both plots redrawn, median and p95 over 200
   edits (MFU, tokens, sequence length), alternated in blocks with an edit of the bare window (its
   curve's data and a label's text set, then painted).
3. Edits through the widgets, the way a user makes them: a choice (combo box), a check box (both
   apply at once) and a spin box step (applied after the 120 ms typing pause, printed with and
   without it), alternated with bare edits.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD_START = r"""
import json, os, sys, time, resource
T0 = float(sys.argv[1])
"""

_CHILD_COMMON = r"""
from PySide6.QtCore import QEvent, QObject, QTimer
marks = {}


def rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Painted(QObject):
    # Times of the first paint of the window and of each plot's view (a QGraphicsView's
    # viewport), filtered on those widgets only: an application-wide Python filter is handed
    # every event of every object, each converted to Python, so it cost a window in proportion
    # to its widgets (callgrind, start -> first paint: ours +140M instructions of 2,184M, the
    # bare window's +17M of 1,953M), work neither window does when it runs.
    def __init__(self, window, plots_wanted):
        super().__init__()
        self.window, self.wanted, self.plots = window, plots_wanted, set()
        window.installEventFilter(self)

    def watch_plots(self):
        from PySide6.QtWidgets import QGraphicsView

        for view in self.window.findChildren(QGraphicsView):
            view.viewport().installEventFilter(self)

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            now = time.time() - T0
            obj.removeEventFilter(self)
            marks.setdefault("first", now)  # the bare window's plot covers it: that paint
            if obj is not self.window:
                self.plots.add(id(obj))
                if len(self.plots) >= self.wanted and "plots" not in marks:
                    marks["plots"] = now
                    QTimer.singleShot(0, done)
        return False


def done():
    app.processEvents()
    marks["rss"] = rss_mib()
    print(json.dumps(marks))
    finish()
    QTimer.singleShot(0, app.quit)
"""

CHILD_APP = (
    _CHILD_START
    + r"""
from ftcost_gui.gui.app import start  # the application's own start (its import order)
app, w = start(sys.argv[:1])
"""
    + _CHILD_COMMON
    + r"""
def finish():
    w.store.set_dirty(False)
probe = Painted(w, 2)
w.charts.plotsBuilt.connect(probe.watch_plots)  # the plots are built after the first paint
w.show()
app.exec()
"""
)

CHILD_BARE = (
    _CHILD_START
    + r"""
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
"""
    + _CHILD_COMMON
    + r"""
import pyqtgraph as pg
from PySide6.QtWidgets import QMainWindow
w = QMainWindow()
pw = pg.PlotWidget()
pw.plot([0, 1, 2], [0, 1, 0])
w.setCentralWidget(pw)
w.resize(1440, 900)
def finish():
    pass
probe = Painted(w, 1)
probe.watch_plots()
w.show()
app.exec()
"""
)


def precompile() -> None:
    """Bytecode for the package and the libraries a start imports (no start recompiles)."""
    compileall.compile_dir(ROOT / "ftcost_gui", quiet=1)
    for name in ("PySide6", "shiboken6", "pyqtgraph", "numpy", "pydantic", "platformdirs"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            for where in spec.submodule_search_locations:
                compileall.compile_dir(where, quiet=2)


def _env() -> dict[str, str]:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("FTCOST_CONFIG_DIR", tempfile.mkdtemp(prefix="ftcost-bench-"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _start(code: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", code, repr(time.time())],
        capture_output=True, text=True, env=_env(), check=True, cwd=ROOT,
    )  # fmt: skip
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1]
    return json.loads(line)


def _vs(label: str, ours: float, bare: float, unit: str = "ms", target: str = "") -> None:
    aim = f"   (target {target})" if target else ""
    print(f"{label:<44}{ours:8.1f} {unit} vs bare {bare:8.1f} {unit}: {ours / bare:5.2f}×{aim}")


def bench_startup(runs: int) -> None:
    _start(CHILD_BARE), _start(CHILD_APP)  # warm-up: files cached, bytecode written
    app, bare = [], []
    for _ in range(runs):
        bare.append(_start(CHILD_BARE))
        app.append(_start(CHILD_APP))

    def med(xs: list[dict[str, float]], key: str) -> float:
        return statistics.median(x[key] for x in xs)

    print(f"start-up, median of {runs} alternated starts (bare: its plot's first paint):")
    _vs("  start → first painted window", med(app, "first") * 1e3, med(bare, "first") * 1e3,
        target="≤ 0.6×")  # fmt: skip
    _vs("  start → results and both plots drawn", med(app, "plots") * 1e3,
        med(bare, "plots") * 1e3, target="≤ 1.2×")  # fmt: skip
    _vs("  resident memory, plots drawn", med(app, "rss"), med(bare, "rss"), "MiB", "≤ 1.2×")
    ratios = sorted(a["first"] / b["first"] for a, b in zip(app, bare, strict=True))
    print(f"  first-paint ratio of each pair: {', '.join(f'{r:.2f}' for r in ratios)}")


# --- edits (in this process) ------------------------------------------------------------------
def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[int(0.95 * (len(xs) - 1))]


def _timed(app, edit: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    edit()
    app.processEvents()  # paints the dirty regions (offscreen backing store)
    return (time.perf_counter() - t0) * 1e3


class BareWindow:
    """The bare window: one PlotWidget with a curve and a label; an edit sets both and paints."""

    def __init__(self):
        import pyqtgraph as pg
        from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

        self.window = QMainWindow()
        page = QWidget()
        lay = QVBoxLayout(page)
        self.label = QLabel("0")
        self.plot = pg.PlotWidget()
        self.curve = self.plot.plot(list(range(64)), [0.0] * 64)
        lay.addWidget(self.label)
        lay.addWidget(self.plot, 1)
        self.window.setCentralWidget(page)
        self.window.resize(1440, 900)
        self.window.show()
        self.n = 0

    def edit(self) -> None:
        self.n += 1
        k = 1 + self.n % 7
        self.curve.setData(list(range(64)), [(i * k) % 13 for i in range(64)])
        self.label.setText(f"{self.n * 1.37:.2f} GiB")


def _window():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("FTCOST_CONFIG_DIR", tempfile.mkdtemp(prefix="ftcost-bench-"))
    sys.path.insert(0, str(ROOT))
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from ftcost_gui.gui.app import build_window

    w = build_window(build_plots_now=True)
    w.resize(1440, 900)
    w.show()
    bare = BareWindow()
    for _ in range(5):
        app.processEvents()
    return app, w, bare


def bench_edits(n: int = 200, block: int = 10) -> None:
    app, w, bare = _window()
    store = w.store
    ours: dict[str, list[float]] = {"mfu": [], "tokens": [], "seq len": []}
    bares: list[float] = []

    def edit(i: int) -> str:
        if i % 3 == 1:  # an MFU edit: results, the cost marker; the bars stay
            store.set_field("efficiency", "mfu", 0.30 + (i % 20) * 0.01)
            kind = "mfu"
        elif i % 3 == 2:  # a token edit: every figure and the cost curves; memory is unchanged
            store.set_field("data", "total_tokens", 5e7 + (i % 20) * 1e6)
            kind = "tokens"
        else:  # a sequence-length edit: every figure, all four memory bars and the cost curves
            store.set_field("data", "max_seq_len", 2048 + (i % 6) * 512)
            kind = "seq len"
        store.recompute_now()
        return kind

    for start in range(0, n, block):
        for i in range(start, start + block):
            kinds: list[str] = []
            ours_ms = _timed(app, lambda i=i, kinds=kinds: kinds.append(edit(i)))
            ours[kinds[0]].append(ours_ms)
        for _ in range(block):
            bares.append(_timed(app, bare.edit))
    every = [x for xs in ours.values() for x in xs]
    print(f"edit → results + both plots redrawn, {n} edits through the store, alternated:")
    _vs("  median", statistics.median(every), statistics.median(bares))
    _vs("  p95", _p95(every), _p95(bares), target="≤ 16 ms")
    for kind, xs in ours.items():
        print(f"    {kind:7s} edits: median {statistics.median(xs):.1f} ms, p95 {_p95(xs):.1f} ms")
    store.set_dirty(False)
    w.close()
    bare.window.close()


def bench_widgets(n: int = 60, block: int = 5) -> None:
    from PySide6.QtCore import QEventLoop

    app, w, bare = _window()
    store = w.store
    training = w.form_tabs.panels["training"]
    combo = training.editor("training", "checkpointing")
    check = training.editor("training", "cpu_offload_optimizer")
    spin = training.editor("training", "micro_batch")

    def choice(i: int) -> None:
        combo.setCurrentIndex((combo.currentIndex() + 1) % combo.count())

    def tick(i: int) -> None:
        check.setChecked(not check.isChecked())

    def step(i: int) -> None:
        spin.setValue(1 + i % 4)
        while store.pending:  # the typing pause, then the recompute it schedules
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 5)

    rows = (("choice (combo box)", choice), ("check box", tick), ("spin box step", step))
    figures: dict[str, list[float]] = {label: [] for label, _ in rows}
    bares: list[float] = []
    for start in range(0, n, block):
        for label, action in rows:
            for i in range(start, start + block):
                figures[label].append(_timed(app, lambda a=action, i=i: a(i)))
        for _ in range(block):
            bares.append(_timed(app, bare.edit))
    print(f"edits through the widgets, {n} each, alternated (p95; median in brackets):")
    for label, xs in figures.items():
        target = "≤ 30 ms" if label != "spin box step" else "typing debounced as now"
        _vs(f"  {label} [{statistics.median(xs):.1f}]", _p95(xs), _p95(bares), target=target)
    from ftcost_gui.gui.store import DEBOUNCE_MS

    after = [ms - DEBOUNCE_MS for ms in figures["spin box step"]]
    print(
        f"    spin box: the typing pause is {DEBOUNCE_MS} ms; without it p95 {_p95(after):.1f} ms, "
        f"median {statistics.median(after):.1f} ms (recompute + paint + the timer's lateness)"
    )
    store.set_dirty(False)
    w.close()
    bare.window.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="alternated starts of each window")
    parser.add_argument("--only", choices=("startup", "edits", "widgets"))
    args = parser.parse_args()
    precompile()
    if args.only in (None, "startup"):
        bench_startup(args.runs)
    if args.only in (None, "edits"):
        bench_edits()
    if args.only in (None, "widgets"):
        bench_widgets()


if __name__ == "__main__":
    main()
