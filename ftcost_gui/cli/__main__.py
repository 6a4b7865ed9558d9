"""``python -m ftcost_gui.cli``: the same program as ``ftcost``."""

from __future__ import annotations

from . import main

raise SystemExit(main())
