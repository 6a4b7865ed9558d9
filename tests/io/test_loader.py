"""The one loader: regular files only, a size cap per kind, never blocking, one clear line."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from ftcost_gui.io.estimate_file import EstimateFileError, load_document
from ftcost_gui.io.hf_config import ModelConfigError, load_hf_config
from ftcost_gui.io.loader import (
    ESTIMATE,
    FileKind,
    FileReadError,
    check_regular,
    is_regular_or_absent,
    read_bytes,
)
from ftcost_gui.io.safetensors_header import SafetensorsError, count_safetensors

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")


def no_hang(fn, timeout_s: float = 10.0):
    """fn() in a thread; fails (instead of hanging the suite) if it does not return in time."""
    box: dict = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # re-raised in the test's thread
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout_s)
    assert not t.is_alive(), f"{fn} blocked for {timeout_s} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe.ftcost"
    os.mkfifo(path)
    return path


@needs_fifo
def test_fifo_is_refused_without_blocking(fifo):
    with pytest.raises(FileReadError, match=r"pipe\.ftcost is a FIFO \(named pipe\), not an est"):
        no_hang(lambda: read_bytes(fifo, ESTIMATE))


@needs_fifo
@pytest.mark.parametrize("name", ["plan.ftcost", "config.json", "model.safetensors"])
def test_every_reader_refuses_a_fifo(tmp_path, name):
    path = tmp_path / name
    os.mkfifo(path)
    readers = {
        "plan.ftcost": (load_document, EstimateFileError),
        "config.json": (load_hf_config, ModelConfigError),
        "model.safetensors": (count_safetensors, SafetensorsError),
    }
    read, error = readers[name]
    with pytest.raises(error, match="FIFO"):
        no_hang(lambda: read(path))
    # a model folder whose config.json / weights are FIFOs: refused, not skipped nor blocked
    if name != "plan.ftcost":
        with pytest.raises(error, match="FIFO"):
            no_hang(lambda: read(tmp_path))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_link_to_dev_zero_is_refused(tmp_path):
    link = tmp_path / "zero.ftcost"
    link.symlink_to("/dev/zero")
    with pytest.raises(EstimateFileError, match="is a character device"):
        no_hang(lambda: load_document(link))
    (tmp_path / "config.json").symlink_to("/dev/zero")
    with pytest.raises(ModelConfigError, match="character device"):
        no_hang(lambda: load_hf_config(tmp_path))


def test_folder_and_socket_are_refused(tmp_path):
    with pytest.raises(FileReadError, match="is a folder"):
        read_bytes(tmp_path, ESTIMATE)
    if hasattr(socket, "AF_UNIX"):
        path = tmp_path / "s.ftcost"
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(str(path))
            with pytest.raises(FileReadError, match="is a socket"):
                read_bytes(path, ESTIMATE)


def test_size_cap_per_kind(tmp_path):
    small = FileKind("test file", 100)
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 101)
    with pytest.raises(FileReadError, match=r"larger than 100 bytes \(101\); too large for a test"):
        read_bytes(path, small)
    path.write_bytes(b"x" * 100)
    assert read_bytes(path, small) == b"x" * 100


def test_huge_sparse_estimate_file_is_refused_without_reading(tmp_path):
    path = tmp_path / "huge.ftcost"
    with path.open("wb") as f:
        f.truncate(ESTIMATE.max_bytes + 1)
    with pytest.raises(EstimateFileError, match="too large for an estimate file"):
        load_document(path)


def test_missing_unreadable_and_odd_names(tmp_path):
    with pytest.raises(FileReadError, match=r"nope\.ftcost does not exist\.$"):
        read_bytes(tmp_path / "nope.ftcost", ESTIMATE)
    with pytest.raises(FileReadError, match="not a valid file name"):
        read_bytes("a\0b", ESTIMATE)
    with pytest.raises(FileReadError, match="cannot be read: File name too long"):
        read_bytes(tmp_path / ("x" * 5000), ESTIMATE)
    odd = tmp_path / "\x1b[31mred\nname.ftcost"
    with pytest.raises(FileReadError) as info:
        read_bytes(odd, ESTIMATE)
    message = str(info.value)
    assert "\x1b" not in message and "\n" not in message and "red name.ftcost" in message
    if os.geteuid() != 0:
        locked = tmp_path / "locked.ftcost"
        locked.write_text("{}")
        locked.chmod(0)
        with pytest.raises(FileReadError, match="cannot be read: Permission denied"):
            read_bytes(locked, ESTIMATE)


def test_check_regular_and_is_regular_or_absent(tmp_path):
    f = tmp_path / "a"
    f.write_text("x")
    assert check_regular(f, ESTIMATE).st_size == 1
    assert is_regular_or_absent(f) and is_regular_or_absent(tmp_path / "none")
    assert not is_regular_or_absent(tmp_path)
