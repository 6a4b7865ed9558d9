"""``ftcost report --html`` at scale (issue 17: 200 scenarios ≤ 2 s). Prints figures; not a test.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_report.py [--scenarios 20,200]

Writes documents of N scenarios that all differ (bench_scale.scenario_document) into a temporary
folder and times the whole command in a fresh process, as a user runs it (imports, Qt, the
estimates, the plan search, the plots, the HTML): wall-clock and the process's CPU time, the
median of ``--repeats`` runs, with and without the recommendation (``--no-plan``). Beside them,
``--version`` in a fresh process: what starting Python and the package costs. Bytecode is
compiled first and written by the runs (as an installed package has it), and a first run of each
size is discarded, so no run recompiles or reads cold files.

The report draws its plots in forked children (report/plot_child.py: a child that loads Qt while
the report's process searches the plan and builds the text, and forks a grandchild for part of
the images) where a CPU is free: on Linux, with the 1-minute load average below the CPUs this
process may use. Each row prints that load ("load L/CPUS", read as its runs start): at or above,
the runs drew in one process. CPU is the children's user + system time, the forked children's
included.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


_CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
_ENV = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
_ENV.pop("PYTHONDONTWRITEBYTECODE", None)  # a run that cannot write bytecode recompiles each time


def _run(args: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of ``python -m ftcost_gui.cli ARGS`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from ftcost_gui.cli import main; sys.exit(main())",
            *args,
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=_ENV,
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", default="20,200", help="sizes, comma-separated")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from bench_gui import precompile
    from bench_scale import scenario_document

    from ftcost_gui.core import EstimateInputs
    from ftcost_gui.io.estimate_file import save_document

    print(f"# bench_report: ftcost report --html (python {sys.version[:6]}), medians")
    precompile()
    with tempfile.TemporaryDirectory() as tmp:
        _ENV["FTCOST_CONFIG_DIR"] = tmp
        wall, cpu = zip(*(_run(["--version"]) for _ in range(args.repeats)), strict=True)
        base = statistics.median(wall)
        print(f"{'--version (start-up)':<36}{base:7.2f} s wall {statistics.median(cpu):6.2f} s CPU")
        for n in (int(x) for x in args.scenarios.split(",") if x):
            _, doc = scenario_document(EstimateInputs(), n)
            path = Path(tmp) / f"s{n}.ftcost"
            save_document(path, doc)
            out = str(Path(tmp) / f"s{n}.html")
            _run(["report", str(path), "--html", out])  # warm-up: files cached, bytecode written
            for label, extra in (("", []), (", --no-plan", ["--no-plan"])):
                load = os.getloadavg()[0]
                runs = [
                    _run(["report", str(path), "--html", out, *extra]) for _ in range(args.repeats)
                ]
                wall, cpu = zip(*runs, strict=True)
                w = statistics.median(wall)
                print(
                    f"{f'{n:,} scenarios{label}':<36}{w:7.2f} s wall "
                    f"{statistics.median(cpu):6.2f} s CPU   {w / n * 1e3:6.1f} ms a scenario"
                    f"   load {load:.2f}/{_CPUS}"
                    f"{'   (target ≤ 2 s)' if n == 200 and not extra else ''}"
                )


if __name__ == "__main__":
    main()
