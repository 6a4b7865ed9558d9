"""The only module that knows where per-user files live (platformdirs).

``FTCOST_CONFIG_DIR`` overrides the location; every test sets it to a temporary folder.

The folder may be impossible to create: a file in its place, a read-only parent, no home folder
(platformdirs then yields a relative ``~/.config/…`` that would be created in the current folder).
:func:`config_dir` raises :class:`ConfigDirError` (an OSError, one line) in those cases; the window
then starts with settings kept for the session only and the built-in catalog.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import PlatformDirs

from .names import plain

APP_NAME = "FtCost"
APP_AUTHOR = "FtCostProject"
CONFIG_ENV = "FTCOST_CONFIG_DIR"


class ConfigDirError(OSError):
    """The per-user config folder cannot be used; ``str()`` is one line saying why."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "the config folder cannot be used"


def config_dir_path() -> Path:
    """Where the per-user config folder is (or would be); ConfigDirError if nowhere sensible."""
    override = os.environ.get(CONFIG_ENV)
    try:
        if override:
            path = Path(override).expanduser()
        else:
            path = Path(PlatformDirs(APP_NAME, APP_AUTHOR).user_config_dir)
    except (KeyError, RuntimeError, OSError) as exc:  # no HOME and no password entry
        raise ConfigDirError(f"no home folder for the config folder ({exc})") from None
    if not path.is_absolute():
        raise ConfigDirError(
            f"no home folder: the config folder would be {plain(path)!s} under the current folder"
        )
    return path


def config_dir() -> Path:
    """The per-user config folder, created on first use; ConfigDirError if it cannot be."""
    path = config_dir_path()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ConfigDirError(f"the config folder {plain(path)} is a file, not a folder") from None
    except OSError as exc:
        raise ConfigDirError(
            f"the config folder {plain(path)} cannot be created: {exc.strerror or exc}"
        ) from None
    if not path.is_dir():
        raise ConfigDirError(f"the config folder {plain(path)} is not a folder")
    return path
