"""PyInstaller entry point for the console twin (``ftcost``)."""

import sys

from ftcost_gui.cli import main

if __name__ == "__main__":
    sys.exit(main())
