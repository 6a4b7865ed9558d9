"""Atomic writes: all or nothing, no temp files left, the file's mode kept."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from ftcost_gui.io import atomic
from ftcost_gui.io.atomic import atomic_write_bytes, atomic_write_text

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")


def test_writes_new_file_without_leftovers(tmp_path):
    target = tmp_path / "deep" / "er" / "doc.ftcost"
    atomic_write_bytes(target, b"hello \x00 world")
    assert target.read_bytes() == b"hello \x00 world"
    assert sorted(p.name for p in target.parent.iterdir()) == ["doc.ftcost"]


def test_replaces_existing_file(tmp_path):
    target = tmp_path / "doc.ftcost"
    target.write_text("old")
    atomic_write_text(target, "new – ünïcode ✓")
    assert target.read_bytes() == "new – ünïcode ✓".encode()
    assert [p.name for p in tmp_path.iterdir()] == ["doc.ftcost"]


@posix_only
def test_preserves_existing_mode(tmp_path):
    target = tmp_path / "doc.ftcost"
    target.write_text("old")
    target.chmod(0o640)
    atomic_write_text(target, "new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.read_text() == "new"


@posix_only
def test_new_file_follows_umask(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "doc.ftcost", "x")
    finally:
        os.umask(old)
    # mkstemp makes 0600; the document gets the usual 0666 & ~umask instead.
    assert stat.S_IMODE((tmp_path / "doc.ftcost").stat().st_mode) == 0o640


def test_failed_replace_keeps_old_file(tmp_path, monkeypatch):
    target = tmp_path / "doc.ftcost"
    target.write_text("precious")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_text(target, "replacement")
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["doc.ftcost"]


def test_failed_write_keeps_old_file(tmp_path, monkeypatch):
    target = tmp_path / "doc.ftcost"
    target.write_text("precious")

    def boom(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(atomic.os, "fsync", boom)
    with pytest.raises(OSError, match="Input/output error"):
        atomic_write_bytes(target, b"replacement")
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["doc.ftcost"]


def test_interrupted_write_leaves_nothing(tmp_path, monkeypatch):
    target = tmp_path / "new.ftcost"

    def interrupt(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(target, "data")
    assert list(tmp_path.iterdir()) == []


@posix_only
def test_never_replaces_a_device_or_fifo(tmp_path):
    """A save to /dev/null (as root) replaced the device with a regular file."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file") as info:
        atomic_write_bytes(fifo, b"x")
    assert info.value.strerror.startswith("not a regular file")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    link = tmp_path / "null.md"
    link.symlink_to(os.devnull)
    with pytest.raises(OSError, match="not a regular file"):
        atomic_write_bytes(link, b"x")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null.md", "pipe"]
