"""Moved to ``ftcost_gui.qt_compat`` (charts and the window both need it); import it from there."""

from ..qt_compat import guard_refcount_leak, leaks_none

__all__ = ["guard_refcount_leak", "leaks_none"]
