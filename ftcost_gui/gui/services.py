"""What the window offers an add-on (model import, GPU catalogs), handed to its constructor.

An add-on receives a :class:`WindowServices` and uses nothing else of the window: no menus found
by their text, no layouts reached into, no methods wrapped. It adds commands as
:class:`ActionSpec` rows. ``gui/window/main_window.MainWindow`` implements the protocol and
``gui/app.build_window`` hands it to each add-on. This module sits below both the window and the
add-ons (it imports neither), so neither package imports the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QSettings, SignalInstance
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from .store import EstimateStore

Key = QKeySequence.StandardKey | str


@dataclass(frozen=True)
class ActionSpec:
    """One row of the table. ``handler`` None: the owner wires the action (a submenu, undo)."""

    id: str
    text: str
    handler: Callable[[], object] | None = None
    shortcuts: tuple[Key, ...] = ()
    tip: str = ""
    menu: str = ""  # 'file', 'edit', 'scenario', 'help'; '' keeps it off the menus (keys work)
    section: str = ""  # a section of that menu (window/actions.py MENUS lists them)
    submenu: bool = False  # the row is a submenu (QAction.menu()) filled by its owner
    role: QAction.MenuRole = QAction.MenuRole.TextHeuristicRole


class WindowServices(Protocol):
    @property
    def store(self) -> EstimateStore:
        """The document, the selected inputs and results; every edit goes through it."""
        ...

    @property
    def settings(self) -> QSettings:
        """The per-user settings (an add-on keeps its own keys under its own prefix)."""
        ...

    @property
    def documentOpened(self) -> SignalInstance:
        """(Path) after a file was opened: a file, an example, a recent file, a drop."""
        ...

    @property
    def resultTabChanged(self) -> SignalInstance:
        """(int) another results tab is shown."""
        ...

    def dialog_parent(self) -> QWidget:
        """The widget dialogs and message boxes belong to."""
        ...

    def show_status(self, message: str, timeout_ms: int = 4000) -> None: ...

    def action(self, action_id: str) -> QAction:
        """An action of the table by id ('undo', 'open', …)."""
        ...

    def add_action(self, spec: ActionSpec) -> QAction:
        """Add a row to the action table: it appears in its menu section with its keys."""
        ...

    def add_result_tab(self, page: QWidget, title: str, tip: str = "") -> None: ...

    def show_result_tab(self, page: QWidget) -> None: ...

    def result_tab_shown(self, page: QWidget) -> bool:
        """True while ``page`` is the results tab on screen (refresh it only then)."""
        ...

    def show_panel(self, panel: QWidget) -> None:
        """Bring the form tab that holds ``panel`` to the front."""
        ...

    def add_banner(self, banner: QWidget) -> None:
        """A bar above the results (shown and hidden by its owner)."""
        ...

    def add_close_guard(self, guard: Callable[[], bool]) -> None:
        """``guard()`` runs before the window closes; False keeps the window open."""
        ...

    def set_report_plan(self, provider: Callable[[], object]) -> None:
        """``provider()`` gives File → Export Report its plan section (report.content's
        PlanSection, or None to leave it out)."""
        ...
