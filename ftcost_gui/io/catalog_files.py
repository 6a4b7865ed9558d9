"""Files of the catalogs folder: set a corrupt one aside, create a new one exclusively.

Nothing here reads a catalog; ``catalog_store`` decides what to do with which file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from datetime import datetime
from pathlib import Path

CORRUPT_TAG = ".corrupt-"


def _timestamp() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-%f")


def move_aside(path: Path) -> Path:
    """Rename ``path`` to ``<path>.corrupt-<timestamp>``, never replacing an existing file."""
    base = path.with_name(f"{path.name}{CORRUPT_TAG}{_timestamp()}")
    for i in range(1000):
        target = base if i == 0 else base.with_name(f"{base.name}-{i}")
        try:
            os.link(path, target)  # fails if target exists: nothing is overwritten
        except FileExistsError:
            continue
        except OSError:
            # No hard links here (some file systems): check, then rename.
            if target.exists():
                continue
            os.rename(path, target)
            return target
        os.unlink(path)
        return target
    raise OSError(f"no free name to set {path.name} aside")


def create_exclusive(path: Path, data: bytes) -> None:
    """Write a new file at ``path`` whole, or FileExistsError if the name is taken.

    Another process creating a file of the same name at the same time gets FileExistsError,
    never a mix and never an overwrite: the content goes to a temporary file first, which is
    then hard-linked to its name (the link fails if the name exists).
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; a catalog has the usual mode
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise
        except OSError:
            # No hard links on this file system: reserve the name, then replace it whole.
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
