"""Application entry: QApplication, the store and the main window."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Start the window; ``argv[1]`` (if given) is an estimate file to open."""
    argv = list(sys.argv if argv is None else argv)
    from PySide6.QtWidgets import QApplication

    from .. import __version__

    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("ftcost")
    app.setApplicationDisplayName("ftcost")
    app.setOrganizationName("FtCostProject")
    app.setApplicationVersion(__version__)
    from .main_window import MainWindow

    window = MainWindow()
    files = [a for a in argv[1:] if not a.startswith("-")]
    if files:
        window.load_path(files[0])
    window.show()
    return app.exec()
