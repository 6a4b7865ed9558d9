"""The only module that knows where per-user files live (platformdirs).

``FTCOST_CONFIG_DIR`` overrides the location; every test sets it to a temporary folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import PlatformDirs

APP_NAME = "FtCost"
APP_AUTHOR = "FtCostProject"
CONFIG_ENV = "FTCOST_CONFIG_DIR"


def config_dir() -> Path:
    """The per-user config folder, created on first use."""
    override = os.environ.get(CONFIG_ENV)
    path = Path(override) if override else Path(PlatformDirs(APP_NAME, APP_AUTHOR).user_config_dir)
    path.mkdir(parents=True, exist_ok=True)
    return path
