"""``ftcost-gui [FILE.ftcost]`` / ``python -m ftcost_gui``: the desktop window.

Qt is imported only when the window starts, so ``--version`` and package imports stay light.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()  # first thing: packaging/smoke.sh reports time to first window

import sys  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv if argv is None else argv)
    if "--version" in args[1:]:
        from . import __version__

        print(f"ftcost-gui {__version__}")
        return 0
    if "-h" in args[1:] or "--help" in args[1:]:
        print("usage: ftcost-gui [FILE.ftcost] [--version]")
        return 0
    from .gui.app import main as gui_main

    return gui_main(args, started=STARTED)


if __name__ == "__main__":
    sys.exit(main())
