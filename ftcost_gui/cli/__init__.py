"""``ftcost``, the headless command line: the same core as the window, flags made from its fields.

Modules: ``commands`` (parser and commands), ``flags`` (input flags from the field metadata),
``values`` (parsing one flag's text), ``lookup`` (GPU, model, catalog), ``estimate_text`` and
``tables`` (text output), ``documents`` (JSON), ``csv_out``, ``report_cmd``, ``outputs`` (checks
on written paths), ``reference`` (docs/cli.md's flag reference). Layers: core, io, present and
report below; never gui.

This package's own import is light: ``main`` imports ``commands`` (every subcommand) when it runs,
so that a report can fork its plots' child first (below).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

__all__ = ["build_parser", "main"]


def main(argv: list[str] | None = None) -> int:
    """Run the CLI (``commands.main``); the exit status. As the process's entry (no ``argv``), a
    report forks its plots' child before the commands' modules are imported
    (report/plot_child.start_early): the child's Qt imports (~0.5 s CPU at 200 scenarios) then
    run beside those imports, the file's reading and the estimates (issue 17)."""
    if argv is not None:
        from .commands import main as run

        return run(argv)
    from ..report.plot_child import start_early, stop_early

    start_early(sys.argv[1:])
    try:
        from .commands import main as run

        return run()
    finally:
        stop_early()  # a child no report took (an error, a PDF): stopped, not left importing


def build_parser() -> argparse.ArgumentParser:
    from .commands import build_parser as build

    return build()
