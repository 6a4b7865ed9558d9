"""The one loader for every file ftcost reads: regular files only, each kind with a size cap.

A path can name anything: a FIFO (reading blocks forever), a device or a link to ``/dev/zero``
(reading never ends), a folder, a socket, or a file far too large to be what it claims. Every
reader goes through :func:`read_bytes` (or :func:`open_regular` when it reads pieces, as the
safetensors header reader does), which

- looks at the path with ``stat`` first and refuses anything but a regular file without opening
  it (opening a device can have effects of its own);
- opens with ``O_NONBLOCK`` (a FIFO swapped in after the check cannot block the open) and checks
  the open file again with ``fstat`` (the thing read is the thing checked);
- refuses a file over its kind's cap, and reads at most cap + 1 bytes (a file growing while
  read cannot make the read unbounded).

Errors are :class:`FileReadError` with one line naming the file and what is wrong; the caller
turns it into its own error type (EstimateFileError, CatalogError, ModelConfigError, …).
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from typing import BinaryIO

from .names import plain

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True, slots=True)
class FileKind:
    """What a file is to the user ("estimate file") and the most bytes it may hold."""

    label: str
    max_bytes: int


# Caps are generous for real files and small enough to read into memory at once.
ESTIMATE = FileKind("estimate file", 64 * MIB)  # ~3 kB per scenario: 10,000+ scenarios
CATALOG = FileKind("GPU catalog", 16 * MIB)
CATALOG_CHOICE = FileKind("catalog choice file", 64 * KIB)
CSV = FileKind("CSV file", 16 * MIB)
HF_CONFIG = FileKind("config.json", 10_000_000)  # a config.json is a few kB
SAFETENSORS = FileKind("safetensors file", 1 << 62)  # pieces are read; the header has its own cap
SAFETENSORS_INDEX = FileKind("safetensors index", 50_000_000)
HF_REF = FileKind("cache reference", KIB)  # refs/main holds a 40-character commit hash
SETTINGS = FileKind("settings file", 4 * MIB)
RESOURCE = FileKind("built-in data file", 64 * MIB)


class FileReadError(Exception):
    """A file that cannot be read as the kind asked for; the message is one line."""


_WHAT = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _what(mode: int) -> str:
    return next((text for test, text in _WHAT if test(mode)), "not a regular file")


def _a(label: str) -> str:
    return f"an {label}" if label[:1].lower() in "aeiou" else f"a {label}"


def shown(path: str | os.PathLike[str] | bytes) -> str:
    """A path as one clean line for a message (any bytes, any control characters)."""
    return plain(os.fsdecode(path))


def _refuse_not_regular(path: str | os.PathLike[str], kind: FileKind, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise FileReadError(
            f"{shown(path)} is {_what(mode)}, not {_a(kind.label)}; only regular files are read."
        )


def _refuse_too_large(path: str | os.PathLike[str], kind: FileKind, size: int) -> None:
    if size > kind.max_bytes:
        raise FileReadError(
            f"{shown(path)} is larger than {kind.max_bytes:,} bytes ({size:,}); "
            f"too large for {_a(kind.label)}."
        )


def _os_error(path: str | os.PathLike[str], exc: OSError) -> FileReadError:
    if isinstance(exc, FileNotFoundError):
        return FileReadError(f"{shown(path)} does not exist.")
    return FileReadError(f"{shown(path)} cannot be read: {exc.strerror or exc}.")


def check_regular(path: str | os.PathLike[str], kind: FileKind) -> os.stat_result:
    """The stat of a regular file within its kind's cap, without opening it."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _os_error(path, exc) from None
    except ValueError:  # a NUL character in the path
        raise FileReadError(f"{shown(path)} is not a valid file name.") from None
    _refuse_not_regular(path, kind, st.st_mode)
    _refuse_too_large(path, kind, st.st_size)
    return st


def open_regular(path: str | os.PathLike[str], kind: FileKind) -> BinaryIO:
    """A regular file opened for binary reading, checked before and after opening."""
    check_regular(path, kind)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _os_error(path, exc) from None
    try:
        st = os.fstat(fd)
        _refuse_not_regular(path, kind, st.st_mode)
        _refuse_too_large(path, kind, st.st_size)
        return os.fdopen(fd, "rb")  # O_NONBLOCK has no effect on a regular file's reads
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise


def read_bytes(path: str | os.PathLike[str], kind: FileKind) -> bytes:
    """The whole content of a regular file of at most ``kind.max_bytes`` bytes."""
    with open_regular(path, kind) as fh:
        try:
            data = fh.read(kind.max_bytes + 1)
        except OSError as exc:
            raise _os_error(path, exc) from None
    _refuse_too_large(path, kind, len(data))  # it grew while being read
    return data


def is_regular_or_absent(path: str | os.PathLike[str]) -> bool:
    """True when nothing is at path or a regular file is (a place a file may be written)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False
