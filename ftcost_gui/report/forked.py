"""Some of a report's plot images drawn in a forked child while this process does the rest.

Issue 17: ``ftcost report`` at 200 scenarios spends ~1 s CPU drawing the cost plot's 400 curves
at 2× and another ~1.5 s on the plan search, the other plots and the HTML. Neither Qt's painting
nor its PNG encoder releases the GIL, so threads do not overlap them; a child process does. The
child is forked (POSIX ``fork``, Linux only) once the data are computed, before any
QApplication exists: it inherits the report (and Qt's modules, where they are loaded) as they
are in memory, creates its own QApplication, draws its images with the same ``plot_images`` and
sends back only PNG bytes through a pipe, framed by name and length. What this process computes
after the fork reaches the child only through ``send`` (report/plot_child.py: what the plots
draw, as JSON). Nothing from a file crosses the pipes; nothing is pickled.

Where forking is not safe or does not pay (not Linux; a QApplication exists, e.g. a report from
the window or a test; other Python threads; one CPU, or a machine already busy)
``start_images`` returns None and the caller draws every image itself, as before. If the child
fails, hangs or sends anything unexpected, ``result`` returns None and the caller draws those
images itself: the report is the same either way.
"""

from __future__ import annotations

import contextlib
import gc
import os
import select
import sys
import threading
import time
from collections.abc import Callable, Collection

_HEADER = 8  # bytes of each length field
_TIMEOUT_S = 120.0  # a child that sends nothing for this long is stopped; the parent draws


def can_fork() -> bool:
    """True where a child may be forked and has a CPU to run on beside this process: Linux, one
    Python thread, no QApplication yet (Qt's modules may be loaded: the child creates its own),
    two CPUs or more for this process and the machine not already busy (load average below its
    CPUs: on a busy machine the child's work only takes CPU from the others)."""
    if not (sys.platform.startswith("linux") and hasattr(os, "fork")):
        return False
    if not hasattr(os, "memfd_create"):  # send()'s memory file
        return False
    if threading.active_count() != 1 or _has_qt_application():
        return False
    cpus = len(os.sched_getaffinity(0))
    return cpus >= 2 and os.getloadavg()[0] < cpus


def _has_qt_application() -> bool:
    qt_core = sys.modules.get("PySide6.QtCore")
    return qt_core is not None and qt_core.QCoreApplication.instance() is not None


class ImageWorker:
    """The child drawing ``names``; ``send()`` gives it what it waits for, if it takes anything;
    ``result()`` waits for its images."""

    def __init__(
        self, pid: int, fd: int, names: tuple[str, ...], inbox: int = -1, data: int = -1
    ) -> None:
        self.pid, self._fd, self.names, self._inbox, self._data = pid, fd, names, inbox, data
        self._sent = 0  # bytes written to the memory file ``data`` so far
        self._ending = False  # its images were taken; not reaped yet

    def send(self, data: bytes) -> None:
        """Give the child ``data``: what its next ``receive()`` returns. The bytes go into a
        memory file the child shares, and the pipe carries only where they lie (16 bytes), so
        this never waits for the child to read, whatever their size (issue 17: a 200-scenario
        report's series are ~0.5 MB, sent while the child is still importing Qt)."""
        if self._inbox < 0:
            return
        at = self._sent
        view = memoryview(data)
        try:
            while view:
                n = os.pwrite(self._data, view, self._sent)
                self._sent += n
                view = view[n:]
            os.write(self._inbox, at.to_bytes(_HEADER, "big") + len(data).to_bytes(_HEADER, "big"))
        except OSError:  # the child is gone: result() tells
            self._close_inbox()

    def result(self) -> dict[str, bytes] | None:
        """{name: png} for every name asked for, or None when the child did not deliver them.
        Whole images of every name asked for are all there is to check: the child then ends on
        its own, and is reaped by ``close`` (issue 17: a child's exit, its memory handed back,
        took ~10 ms that the report's last step waited for)."""
        if self._fd < 0:
            return None
        self._close_inbox()
        try:
            data = _read_all(self._fd, _TIMEOUT_S)
        finally:
            os.close(self._fd)
            self._fd = -1
        images = None if data is None else _unframe(data)
        if images is None or sorted(images) != sorted(self.names):  # in the child's order
            _reap(self.pid, stop=True)
            gc.unfreeze()
            return None
        self._ending = True
        _ending.append(self.pid)
        gc.unfreeze()
        return images

    def close(self) -> None:
        """Stop the child if its images were not taken (the report failed on the way); reap it
        if they were (it has sent them: it ends)."""
        self._close_inbox()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
            _reap(self.pid, stop=True)
            gc.unfreeze()
        elif self._ending:
            self._ending = False
            _reap_ended(self.pid)

    def _close_inbox(self) -> None:
        if self._inbox >= 0:  # nothing more to send: the child's next receive() ends with EOF
            os.close(self._inbox)
            os.close(self._data)
            self._inbox = self._data = -1


_in_child = False  # this process is a forked child: its own children stay in its group
_images_out = -1  # in a child: the pipe its images go to (its own children close theirs)
_ending: list[int] = []  # children whose images were taken, not reaped yet


def start_images(
    draw: Callable[..., dict[str, bytes]], names: Collection[str], *, inbox: bool = False
):
    """Fork a child that calls ``draw(names=names)`` and sends its PNGs back; None where one
    cannot be forked. ``inbox``: the child is also given ``receive``, which waits for what this
    process passes to the worker's ``send`` (and raises ``EOFError`` if nothing comes).

    The child leads a process group of its own, which stopping it stops whole: a child that
    forks a child in turn (report/plot_child.py) leaves no orphan drawing on."""
    global _in_child, _images_out
    if not can_fork():
        return None
    names = tuple(names)
    r, w = os.pipe()
    ri, wi = os.pipe() if inbox else (-1, -1)
    data = os.memfd_create("ftcost-inbox") if inbox else -1  # send()'s bytes; shared by both
    gc.freeze()  # neither collector walks (so copies) the pages shared until the child is done
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        code = 1
        try:
            if not _in_child:
                os.setpgid(0, 0)
            _in_child = True
            if _images_out >= 0:  # the parent's own pipe to its parent: only the parent's
                os.close(_images_out)  # (the grandparent's end-of-file must not wait for us)
            _images_out = w
            _ending.clear()
            os.close(r)
            if inbox:
                os.close(wi)
            _silence_stderr()
            extra = {"receive": lambda: _receive(ri, data)} if inbox else {}
            payload = _frame(draw(names=names, **extra))
            with open(w, "wb", closefd=True) as out:
                out.write(payload)
            code = 0
            for pid in list(_ending):  # its own children, once its images are sent
                _reap_ended(pid)
        finally:
            os._exit(code)  # no atexit, no flushing the parent's buffers twice
    if not _in_child:
        with contextlib.suppress(OSError):  # both sides set it: no race with a kill
            os.setpgid(pid, pid)
    os.close(w)
    if inbox:
        os.close(ri)
    return ImageWorker(pid, r, names, wi, data)


def _receive(fd: int, data: int) -> bytes:
    """What the parent sent next (``ImageWorker.send``): where it lies in the memory file
    ``data``, read from the pipe ``fd`` (waiting for it), then the bytes."""
    where = b""
    while len(where) < 2 * _HEADER:
        chunk = os.read(fd, 2 * _HEADER - len(where))
        if not chunk:
            raise EOFError("nothing more came from the parent")
        where += chunk
    at, n = int.from_bytes(where[:_HEADER], "big"), int.from_bytes(where[_HEADER:], "big")
    parts = []
    while n:
        chunk = os.pread(data, n, at)
        if not chunk:
            raise EOFError("the parent's data were cut short")
        parts.append(chunk)
        at, n = at + len(chunk), n - len(chunk)
    return b"".join(parts)


def _silence_stderr() -> None:
    """The parent reports errors (it redraws what the child could not): Qt's chatter in the
    child (offscreen plugin notes) would only repeat or confuse them."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)


def _frame(images: dict[str, bytes]) -> bytes:
    parts = []
    for name, png in images.items():
        key = name.encode("ascii")
        parts += [len(key).to_bytes(_HEADER, "big"), key, len(png).to_bytes(_HEADER, "big"), png]
    return b"".join(parts)


def _unframe(data: bytes) -> dict[str, bytes] | None:
    images: dict[str, bytes] = {}
    at = 0
    while at < len(data):
        fields = []
        for _ in range(2):
            if at + _HEADER > len(data):
                return None
            n = int.from_bytes(data[at : at + _HEADER], "big")
            at += _HEADER
            if at + n > len(data):
                return None
            fields.append(data[at : at + n])
            at += n
        try:
            name = fields[0].decode("ascii")
        except UnicodeDecodeError:
            return None
        images[name] = fields[1]
    return images


def _read_all(fd: int, timeout_s: float) -> bytes | None:
    """Everything the child writes until it closes the pipe; None after ``timeout_s`` of silence."""
    chunks = []
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        deadline = time.monotonic() + timeout_s


def _reap_ended(pid: int) -> None:
    """Reap a child that sent its images (it ends on its own)."""
    if pid in _ending:
        _ending.remove(pid)
        _reap(pid, stop=False)


def _reap(pid: int, *, stop: bool) -> int:
    """The child's exit status (stopped first when ``stop``); -1 when it did not exit cleanly."""
    if stop:
        if not _in_child:  # it and what it forked: its group (see start_images)
            with contextlib.suppress(OSError):
                os.killpg(pid, 9)
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return -1
    return os.waitstatus_to_exitcode(status)
