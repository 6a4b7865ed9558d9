"""The window's actions as one declarative table, and the menus built from it.

Every command a person can trigger is one :class:`ActionSpec` row: id, text, handler, shortcuts,
tip, and where it sits (menu and section). :class:`ActionTable` turns rows into ``QAction``s on
the window and lays out the menu bar from :data:`MENUS`; a row added later (an add-on's) lands in
its section at once. A shortcut may be bound once: a second row asking for a key that is already
taken is refused (``ValueError``), so no key is ever ambiguous ("Ctrl+Q" beside the standard Quit
key is the same key on Linux and is bound once).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from ..services import ActionSpec, Key

if TYPE_CHECKING:  # add-ons import the table's mechanism, not the window's collaborators
    from .exports import Exports
    from .files import FileController
    from .scenario_bar import ScenarioBar


@dataclass(frozen=True)
class MenuSpec:
    id: str
    title: str
    sections: tuple[str, ...]


#: The menu bar, left to right; each menu's sections top to bottom.
MENUS: tuple[MenuSpec, ...] = (
    MenuSpec("file", "&File", ("open", "import", "save", "export", "quit")),
    MenuSpec("edit", "&Edit", ("undo", "catalogs")),
    MenuSpec("scenario", "&Scenario", ("edit", "move", "compare")),
    MenuSpec("help", "&Help", ("guide", "about")),
)


def key_sequences(keys: Iterable[Key]) -> list[QKeySequence]:
    """The distinct key sequences of ``keys`` on this platform (standard keys expanded)."""
    out: list[QKeySequence] = []
    for key in keys:
        seqs = (
            QKeySequence.keyBindings(key)
            if isinstance(key, QKeySequence.StandardKey)
            else [QKeySequence(key)]
        )
        out += [s for s in seqs if not s.isEmpty() and s not in out]
    return out


class ActionTable:
    """The window's actions by id, and its menu bar laid out from :data:`MENUS`."""

    def __init__(self, window: QMainWindow, menus: Sequence[MenuSpec] = MENUS):
        self._window = window
        self._menus = {m.id: m for m in menus}
        self._specs: dict[str, ActionSpec] = {}
        self._actions: dict[str, QAction] = {}
        # The keys bound so far (portable text → action id), kept as rows are added: reading
        # every action's keys again for each new row cost ~1 ms a row (~33 ms of start-up).
        self._keys: dict[str, str] = {}
        self._bar_menus: dict[str, QMenu] = {}
        for m in menus:
            self._bar_menus[m.id] = window.menuBar().addMenu(m.title)

    def __getitem__(self, action_id: str) -> QAction:
        return self._actions[action_id]

    def __contains__(self, action_id: str) -> bool:
        return action_id in self._actions

    def ids(self) -> list[str]:
        return list(self._actions)

    def menu(self, menu_id: str) -> QMenu:
        """A menu of the menu bar ('file', 'edit', …)."""
        return self._bar_menus[menu_id]

    def submenu(self, action_id: str) -> QMenu:
        """The submenu of a ``submenu=True`` row, for its owner to fill."""
        menu = self._actions[action_id].menu()
        assert isinstance(menu, QMenu), f"{action_id} is not a submenu"
        return menu

    def rows(self) -> list[tuple[ActionSpec, QAction]]:
        """Every row with its action, in the order added (the shortcut list, tests)."""
        return [(self._specs[i], self._actions[i]) for i in self._actions]

    def menu_titles(self) -> dict[str, str]:
        return {menu_id: spec.title for menu_id, spec in self._menus.items()}

    def bound_keys(self) -> dict[str, str]:
        """Every bound key sequence (portable text) → the id of the action it triggers."""
        return {
            s.toString(): action_id
            for action_id, act in self._actions.items()
            for s in act.shortcuts()
        }

    def add(self, spec: ActionSpec, action: QAction | None = None) -> QAction:
        """Make (or adopt) the row's action, bind its keys and place it in its menu."""
        if spec.id in self._actions:
            raise ValueError(f"action {spec.id!r} is already in the table")
        menu = self._menus.get(spec.menu) if spec.menu else None
        if spec.menu and (menu is None or spec.section not in menu.sections):
            raise ValueError(f"{spec.id}: no section {spec.section!r} in menu {spec.menu!r}")
        seqs = key_sequences(spec.shortcuts)
        taken = self._keys
        clashes = [s.toString() for s in seqs if s.toString() in taken]
        if clashes:
            owner = taken[clashes[0]]
            raise ValueError(f"{spec.id}: {', '.join(clashes)} already triggers {owner!r}")
        if action is None:
            if spec.submenu:
                action = QMenu(spec.text, self._window).menuAction()
            else:
                action = QAction(spec.text, self._window)
        action.setObjectName(spec.id)
        if seqs:
            action.setShortcuts(seqs)
        if spec.tip:
            action.setStatusTip(spec.tip)
            action.setToolTip(spec.tip)
        action.setMenuRole(spec.role)
        if spec.handler is not None:
            handler = spec.handler
            action.triggered.connect(lambda _checked=False: handler())
        self._window.addAction(action)  # its keys work wherever focus is in the window
        self._specs[spec.id] = spec
        self._actions[spec.id] = action
        for seq in action.shortcuts():  # (an adopted action may bring keys of its own)
            self._keys[seq.toString()] = spec.id  # (as bound_keys reads them: the last wins)
        if menu is not None:
            self._lay_out(menu)
        return action

    def _lay_out(self, spec: MenuSpec) -> None:
        """(Re)fill one menu: its rows by section, in the order they were added."""
        menu = self._bar_menus[spec.id]
        for act in menu.actions():  # not clear(): it would delete the submenus' actions
            menu.removeAction(act)
            if act.isSeparator():
                act.deleteLater()
        first = True
        for section in spec.sections:
            rows = [
                self._actions[i]
                for i, s in self._specs.items()
                if s.menu == spec.id and s.section == section
            ]
            if not rows:
                continue
            if not first:
                menu.addSeparator()
            menu.addActions(rows)
            first = False


def window_actions(
    files: FileController,
    exports: Exports,
    scenarios: ScenarioBar,
    quit: Callable[[], object],
    about: Callable[[], object],
) -> tuple[ActionSpec, ...]:
    """The window's own rows (add-ons add theirs through ``WindowServices.add_action``).

    Undo and redo have no handler: the window adopts the undo stack's own actions for them.
    """
    sk = QKeySequence.StandardKey
    A = ActionSpec
    return (
        A("new", "&New", files.new, (sk.New,), "Start from the example estimate", "file", "open"),
        A("open", "&Open…", files.open, (sk.Open,), "Open an estimate file", "file", "open"),
        A("examples", "Open &Example", menu="file", section="open", submenu=True),
        A("recent", "Open &Recent", menu="file", section="open", submenu=True),
        A("save", "&Save", files.save, (sk.Save,), "Save the estimate", "file", "save"),
        A("save_as", "Save &As…", files.save_as, (sk.SaveAs,),
          "Save the estimate under a new name", "file", "save"),
        A("export_report", "Export Re&port…", exports.export_report, (),
          "Write a PDF, HTML or Markdown report of every scenario", "file", "export"),
        A("export_results", "Export &Results…", exports.export_results, (),
          "Write every scenario's results as CSV", "file", "export"),
        A("export_plot", "E&xport Plot", menu="file", section="export", submenu=True),
        # The standard Quit key is Ctrl+Q on Linux, none on Windows: "Ctrl+Q" is bound once.
        A("quit", "&Quit", quit, (sk.Quit, "Ctrl+Q"), "Quit ftcost", "file", "quit",
          role=QAction.MenuRole.QuitRole),
        A("undo", "&Undo", None, (sk.Undo,), "", "edit", "undo"),
        A("redo", "&Redo", None, (sk.Redo, "Ctrl+Shift+Z"), "", "edit", "undo"),
        A("add_scenario", "&Add Scenario", scenarios.add, ("Ctrl+T",),
          "Add a scenario from the example", "scenario", "edit"),
        A("duplicate_scenario", "&Duplicate Scenario", scenarios.duplicate, ("Ctrl+D",),
          "Copy the selected scenario", "scenario", "edit"),
        A("rename_scenario", "&Rename Scenario…", scenarios.rename, ("F2",),
          "Rename the scenario", "scenario", "edit"),
        A("delete_scenario", "De&lete Scenario", scenarios.delete, (),
          "Remove the selected scenario (Undo brings it back)", "scenario", "edit"),
        A("move_scenario_left", "Move &Left", lambda: scenarios.move(-1), ("Ctrl+Shift+PgUp",),
          "Move the tab left", "scenario", "move"),
        A("move_scenario_right", "Move Ri&ght", lambda: scenarios.move(1), ("Ctrl+Shift+PgDown",),
          "Move the tab right", "scenario", "move"),
        A("previous_scenario", "&Previous Scenario", lambda: scenarios.step(-1), ("Ctrl+PgUp",),
          "Edit the one before", "scenario", "move"),
        A("next_scenario", "&Next Scenario", lambda: scenarios.step(1), ("Ctrl+PgDown",),
          "Edit the next one", "scenario", "move"),
        A("compare_methods", "Compare &Methods", scenarios.compare_methods, ("Ctrl+M",),
          "Add Full FT, LoRA and QLoRA copies of the selected scenario and compare them",
          "scenario", "compare"),
        A("about", "&About ftcost", about, (), "", "help", "about",
          role=QAction.MenuRole.AboutRole),
    )  # fmt: skip
