"""PyInstaller entry point for the desktop window (``ftcost-gui``)."""

import sys

from ftcost_gui.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
