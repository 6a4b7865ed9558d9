"""Window benchmarks (prints figures; not a test). Run from the repo root:

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gui.py

1. Start-up: process start → the window's first paint event, measured inside a child process by
   an event filter, against a bare PySide6 + pyqtgraph window (QMainWindow with one PlotWidget)
   measured the same way. ftcost paints its forms and figures first and builds the plots
   (importing pyqtgraph) right after that first paint.
2. Edit → results and both plots redrawn: median and p95 over 200 edits.
3. Resident memory after start (ru_maxrss).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD_COMMON = r"""
import os, sys, time, resource
T0 = float(sys.argv[1])
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])


class FirstPaint(QObject):
    # Time of the first paint event of any widget of the window (the moment it is on screen).
    def __init__(self, window, then):
        super().__init__()
        self.window, self.then = window, then
        app.installEventFilter(self)

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and getattr(obj, "window", None) is not None:
            if obj.window() is self.window:
                app.removeEventFilter(self)
                elapsed = time.time() - T0
                QTimer.singleShot(0, lambda: self.then(elapsed))
        return False
"""

CHILD_APP = (
    _CHILD_COMMON
    + r"""
from ftcost_gui.gui.app import build_window
w = build_window()
def painted(elapsed):
    w.charts.ensure_plots()  # the plots follow the first paint; count their memory too
    app.processEvents()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{elapsed:.4f} {rss:.1f}")
    w.store.set_dirty(False)
    QTimer.singleShot(0, app.quit)
probe = FirstPaint(w, painted)
w.show()
app.exec()
"""
)

CHILD_BARE = (
    _CHILD_COMMON
    + r"""
import pyqtgraph as pg
from PySide6.QtWidgets import QMainWindow
w = QMainWindow()
pw = pg.PlotWidget()
pw.plot([0, 1, 2], [0, 1, 0])
w.setCentralWidget(pw)
w.resize(1440, 900)
def painted(elapsed):
    app.processEvents()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{elapsed:.4f} {rss:.1f}")
    QTimer.singleShot(0, app.quit)
probe = FirstPaint(w, painted)
w.show()
app.exec()
"""
)


def _start(code: str) -> tuple[float, float]:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("FTCOST_CONFIG_DIR", tempfile.mkdtemp(prefix="ftcost-bench-"))
    out = subprocess.run(
        [sys.executable, "-c", code, repr(time.time())],
        capture_output=True, text=True, env=env, check=True, cwd=ROOT,
    )  # fmt: skip
    line = [ln for ln in out.stdout.splitlines() if ln.strip()][-1]
    t, rss = line.split()
    return float(t), float(rss)


def bench_startup(runs: int = 5) -> None:
    app, bare = [], []
    for _ in range(runs):
        bare.append(_start(CHILD_BARE))
        app.append(_start(CHILD_APP))
    a = statistics.median(t for t, _ in app)
    b = statistics.median(t for t, _ in bare)
    print(
        f"start → first paint (median of {runs}): ftcost {a * 1000:.0f} ms, "
        f"bare PySide6+pyqtgraph {b * 1000:.0f} ms, ratio {a / b:.2f}×"
    )
    print(
        "resident memory after start (maxrss): "
        f"ftcost {statistics.median(r for _, r in app):.0f} MiB, "
        f"bare {statistics.median(r for _, r in bare):.0f} MiB"
    )


def bench_edits(n: int = 200) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("FTCOST_CONFIG_DIR", tempfile.mkdtemp(prefix="ftcost-bench-"))
    sys.path.insert(0, str(ROOT))
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from ftcost_gui.gui.app import build_window

    w = build_window(build_plots_now=True)
    w.resize(1440, 900)
    w.show()
    for _ in range(5):
        app.processEvents()
    times = []
    by_kind: dict[str, list[float]] = {"mfu": [], "tokens": [], "seq len": []}
    for i in range(n):
        t0 = time.perf_counter()
        if i % 3 == 1:  # an MFU edit: results, the cost marker; the bars stay
            w.store.set_field("efficiency", "mfu", 0.30 + (i % 20) * 0.01)
            kind = "mfu"
        elif i % 3 == 2:  # a token edit: every figure and the cost curves; memory is unchanged
            w.store.set_field("data", "total_tokens", 5e7 + (i % 20) * 1e6)
            kind = "tokens"
        else:  # a sequence-length edit: every figure, all four memory bars and the cost curves
            w.store.set_field("data", "max_seq_len", 2048 + (i % 6) * 512)
            kind = "seq len"
        w.store.recompute_now()
        app.processEvents()  # paints the dirty regions (offscreen backing store)
        dt = (time.perf_counter() - t0) * 1000
        times.append(dt)
        by_kind[kind].append(dt)

    def p95(xs: list[float]) -> float:
        xs = sorted(xs)
        return xs[int(0.95 * (len(xs) - 1))]

    print(
        f"edit → results + both plots redrawn ({n} edits: MFU, tokens, sequence length): median "
        f"{statistics.median(times):.1f} ms, p95 {p95(times):.1f} ms (target p95 ≤ 16 ms)"
    )
    for kind, xs in by_kind.items():
        print(f"  {kind:6s} edits: median {statistics.median(xs):.1f} ms, p95 {p95(xs):.1f} ms")
    w.store.set_dirty(False)
    w.close()


if __name__ == "__main__":
    bench_startup()
    bench_edits()
