"""Guard against a reference-count bug in PySide6 6.12.0 on Python < 3.12.

Seen here (PySide6-Essentials 6.12.0, CPython 3.11): every call of a void Qt method from Python
(``QLabel.setText``, ``QTimer.start``…) returns ``None`` without a new reference, and
``SignalInstance.emit`` does the same with ``True``. Python 3.12+ makes these singletons immortal,
so it only bites 3.11: after some thousands of calls the interpreter aborts with
``Fatal Python error: none_dealloc`` / ``bool_dealloc``. The guard probes for the leak once and,
only if it is present, gives the three singletons a huge reference count (what 3.12 does). The
real fix is a PySide6 that is not affected (pin ``PySide6-Essentials!=6.12.0`` on 3.11).
"""

from __future__ import annotations

import ctypes
import sys

_applied = False
_BOOST = 1 << 40


def leaks_none() -> bool:
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(8):
        probe.setObjectName("probe")
    return sys.getrefcount(None) < before


def guard_refcount_leak() -> bool:
    """Apply the guard once if the leak is present; True when applied."""
    global _applied
    if _applied or sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return _applied
    if not leaks_none():
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += _BOOST
    _applied = True
    return True
