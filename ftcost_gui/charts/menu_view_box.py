"""A pyqtgraph ViewBox whose right-click menu is built when first asked for.

pyqtgraph builds each view's ``ViewBoxMenu`` (View All, the X/Y axis forms, Mouse Mode) with the
view: ~7 ms of CPU per plot while the window's plots first load (issue 17, start-up), for a menu
most sessions never open. ``MenuViewBox.menu`` builds the same menu on first use (a right-click,
``getContextMenus``, an export action asked for) and then runs the ``on_menu`` callbacks in the
order they were given, so actions added to it come where they would have. A menu built late
reads the view's state when built and again when it pops up (``ViewBoxMenu.popup`` when the
state changed since), as one built early does: it shows the same.

A callback that is a bound method is kept by a weak reference: the view box is an item of its
plot widget's scene, so a strong one made a cycle (widget → scene → view box → widget) that the
garbage collector broke from the middle: an item's destructor released the widget, whose scene
was then destroyed under the item (a segfault in ``QGraphicsScene::clear``, one test run in
several, tests/gui/test_menu_view_box.py).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from types import MethodType
from typing import Any

import pyqtgraph as pg
from pyqtgraph.graphicsItems.ViewBox.ViewBoxMenu import ViewBoxMenu
from PySide6.QtWidgets import QMenu


class MenuViewBox(pg.ViewBox):
    """``pg.ViewBox`` with ``menu`` built on first use (``enableMenu`` as pyqtgraph's)."""

    _built: QMenu | None = None
    _on_menu: list[Callable[[], Callable[[QMenu], None] | None]]  # each callback, dereferenced

    def __init__(self, *args: Any, enableMenu: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, enableMenu=False, **kwargs)  # no menu made now
        self._on_menu = []
        self.state["enableMenu"] = enableMenu  # menuEnabled() as asked; the menu on first use

    @property  # type: ignore[override]
    def menu(self) -> QMenu | None:
        if self._built is None and self.state.get("enableMenu", True):
            self._built = ViewBoxMenu(self)
            self.updateViewLists()  # what ViewBox does after making its menu (linked views)
            for ref in self._on_menu:
                add = ref()
                if add is not None:  # (None: its widget is gone)
                    add(self._built)
        return self._built

    @menu.setter
    def menu(self, value: QMenu | None) -> None:
        self._built = value

    def on_menu(self, add: Callable[[QMenu], None]) -> None:
        """Call ``add(menu)`` once the menu is built (now, if it is); a bound method only while
        its object lives."""
        if isinstance(add, MethodType):
            self._on_menu.append(weakref.WeakMethod(add))
        else:
            self._on_menu.append(lambda: add)
        if self._built is not None:
            add(self._built)

    @property
    def menu_built(self) -> bool:
        return self._built is not None
