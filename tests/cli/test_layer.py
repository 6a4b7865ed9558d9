"""The CLI sits beside the window, never above it: it loads no gui module and no Qt to estimate."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import contextlib, io, sys
from ftcost_gui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    rc = main(["estimate", "--gpu", "l4"])
qt = ("PySide6", "pyqtgraph", "shiboken6")
bad = [m for m in sys.modules if m.startswith("ftcost_gui.gui") or m.split(".")[0] in qt]
print(rc, bad)
"""


def test_cli_loads_neither_gui_nor_qt(tmp_path):
    env = {"FTCOST_CONFIG_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.stdout.strip() == "0 []", out.stdout + out.stderr
