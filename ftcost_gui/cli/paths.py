"""Checks on the paths the CLI writes (``--save``, ``--csv``, report files).

Done before anything is written, so a command either writes all it was asked to or nothing. A
target must be a regular file or absent: a folder, FIFO, device or socket is refused (writing a
FIFO waits for a reader forever; an atomic save as root would replace /dev/null itself). Files
read go through ``io.loader``, which refuses the same things.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..io.names import for_terminal
from .common import CliError

_WHAT = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((w for test, w in _WHAT if test(mode)), "not a regular file")


def check_output(path: str, flag: str, *, folder_must_exist: bool = False) -> None:
    """CliError (one line) unless ``path`` can be written as a regular file.

    ``folder_must_exist``: the parent folder must be there already (reports); otherwise it is
    created when the file is written (``--save``, ``--csv``), but must not be a file.
    """
    shown = for_terminal(path)
    if not path.strip():
        raise CliError(f"{flag}: the path is empty")
    try:
        target = Path(path).expanduser()
        try:
            mode = target.stat().st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise CliError(f"{flag}: {shown} is {_kind(mode)}; give a file path")
        parent = Path(os.path.abspath(target)).parent
        existing = next((p for p in (parent, *parent.parents) if p.exists()), None)
        if existing is not None and not existing.is_dir():
            raise CliError(f"{flag}: {for_terminal(existing)} is not a folder")
        if folder_must_exist and existing != parent:
            raise CliError(f"{flag}: the folder {for_terminal(parent)} does not exist")
    except OSError as exc:  # a name too long, a loop of links, a folder that cannot be read
        raise CliError(f"{flag}: cannot write {shown}: {exc.strerror or exc}") from None
    except ValueError as exc:  # an embedded NUL
        raise CliError(f"{flag}: cannot write {shown}: {exc}") from None
