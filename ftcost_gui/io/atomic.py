"""Atomic file writes: temp file in the target folder, fsync, os.replace (ecosystem-notes §4.2).

A save killed half-way (``kill -9``, power loss) leaves the old file intact and its hidden temp
file ``.NAME.XXXXXXXX.tmp`` behind. The next save of the same target sweeps those: a temp file is
stale when no living process holds it. Each save holds an exclusive ``flock`` on its own temp
file while writing it; the kernel drops the lock when the process dies, so a temp whose lock can
be taken belongs to a dead save. (Where ``flock`` does not exist, e.g. Windows, a temp still open
by its writer cannot be deleted, and one that can is stale.)
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

_TEMP_SUFFIX = ".tmp"
# mkstemp's random part: 8 characters of [a-z0-9_] (tempfile._RandomNameSequence)
_RANDOM = r"[a-z0-9_]{8}"


def _temp_pattern(target: Path) -> re.Pattern[str]:
    return re.compile(rf"\.{re.escape(target.name)}\.{_RANDOM}{re.escape(_TEMP_SUFFIX)}")


def _lock(fd: int, blocking: bool) -> bool:
    """An exclusive lock on fd; False if another process holds one (non-blocking)."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except OSError:
        return False
    return True


def sweep_stale_temps(path: str | os.PathLike[str]) -> int:
    """Remove temp files of interrupted saves of ``path``; how many were removed."""
    target = Path(os.path.realpath(path))
    pattern = _temp_pattern(target)
    try:
        names = [n for n in os.listdir(target.parent) if pattern.fullmatch(n)]
    except OSError:
        return 0
    removed = 0
    for name in names:
        temp = target.parent / name
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(temp, flags)
        except OSError:
            continue  # gone already, a link, or not ours to open
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode) or not _lock(fd, blocking=False):
                continue  # a save in progress holds it
            os.unlink(temp)
            removed += 1
        except OSError:
            continue
        finally:
            os.close(fd)
    return removed


def _install(tmp: str, target: Path, mode: int) -> None:
    os.chmod(tmp, mode)  # mkstemp creates 0600; keep the document's usual mode
    os.replace(tmp, target)


def _write_once(target: Path, data: bytes, mode: int) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=_TEMP_SUFFIX, dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            _lock(fh.fileno(), blocking=True)  # our own new file: taken at once
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            if fcntl is not None:  # still locked: a sweeper never takes a live temp
                _install(tmp, target, mode)
        if fcntl is None:  # Windows replaces only closed files
            _install(tmp, target, mode)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write data to path so that readers see the old file or the new one, never a mix."""
    # Write through a symbolic link to the file it points at, never replacing the link itself.
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        st = target.stat()
        if not stat.S_ISREG(st.st_mode):
            # os.replace would put a file in place of /dev/null (as root) or a FIFO
            raise OSError(
                errno.EINVAL, "not a regular file; ftcost writes only regular files", str(target)
            )
        mode = st.st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    sweep_stale_temps(target)
    try:
        _write_once(target, data, mode)
    except FileNotFoundError:
        # Another process's sweep took our temp between mkstemp and flock (a window of a few
        # instructions): write it again.
        _write_once(target, data, mode)
    if hasattr(os, "O_DIRECTORY"):
        with contextlib.suppress(OSError):
            dir_fd = os.open(target.parent, os.O_DIRECTORY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
