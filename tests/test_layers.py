"""The core and io layers never load Qt (checked in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys


def test_core_and_io_import_without_qt():
    code = (
        "import sys, ftcost_gui.core, ftcost_gui.io.estimate_file, ftcost_gui.io.resources;"
        "import ftcost_gui.core.estimate;"
        "qt = ('PySide6', 'pyqtgraph', 'shiboken6');"
        "bad = [m for m in sys.modules if m.split('.')[0] in qt];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_core_does_not_import_platformdirs():
    code = "import sys, ftcost_gui.core;sys.exit(1 if 'platformdirs' in sys.modules else 0)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
