"""The action table: menus built from it, every key bound once, add-ons adding rows."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from ftcost_gui.gui.services import ActionSpec
from ftcost_gui.gui.window.actions import key_sequences


def _menu_texts(window, title):
    menu = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == title)
    return [("—" if a.isSeparator() else a.text().replace("&", "")) for a in menu.actions()]


def test_menus_are_laid_out_from_the_table(window):
    assert [a.text() for a in window.menuBar().actions()] == [
        "&File",
        "&Edit",
        "&Scenario",
        "&Help",
    ]
    assert _menu_texts(window, "File") == [
        "New", "Open…", "Open Example", "Open Recent", "—",
        "Import Model Config…", "Models on This Computer…", "Measure Dataset…", "—",
        "Save", "Save As…", "—",
        "Export Report…", "Export Results…", "Export Plot", "—",
        "Quit",
    ]  # fmt: skip
    assert _menu_texts(window, "Scenario") == [
        "Add Scenario", "Duplicate Scenario", "Rename Scenario…", "Delete Scenario", "—",
        "Move Left", "Move Right", "Previous Scenario", "Next Scenario", "—",
        "Compare Methods",
    ]  # fmt: skip
    assert _menu_texts(window, "Edit")[:2] == ["Undo", "Redo"]
    assert _menu_texts(window, "Help") == [
        "User Guide", "What Is …?", "Keyboard Shortcuts", "What's This?", "—", "About ftcost",
    ]  # fmt: skip


def test_no_key_is_bound_twice(window):
    """Every shortcut of every action of the window, add-ons' included, triggers one action."""
    owners: dict[str, list[str]] = {}
    for act in window.findChildren(QAction):
        for seq in act.shortcuts():
            owners.setdefault(seq.toString(), []).append(act.text() or act.objectName())
    twice = {key: names for key, names in owners.items() if len(names) > 1}
    assert twice == {}
    for key in ("Ctrl+N", "Ctrl+O", "Ctrl+S", "Ctrl+Q", "Ctrl+Z", "Ctrl+T", "Ctrl+M", "F2"):
        assert key in owners, key


def test_quit_key_is_bound_once_on_every_platform():
    """'Ctrl+Q' next to the standard Quit key (Ctrl+Q on Linux, none on Windows) is one key."""
    seqs = key_sequences((QKeySequence.StandardKey.Quit, "Ctrl+Q"))
    assert [s.toString() for s in seqs].count("Ctrl+Q") == 1
    assert key_sequences(("Ctrl+Shift+Z", "Ctrl+Shift+Z")) == [QKeySequence("Ctrl+Shift+Z")]


def test_ctrl_q_closes_the_window(window, qtbot):
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    ambiguous = []
    quit_action = window.action("quit")
    quit_action.triggered.connect(lambda *_: ambiguous.append("triggered"))
    qtbot.keyClick(window.form_tabs, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert ambiguous == ["triggered"]
    assert not window.isVisible()


def test_a_row_asking_for_a_taken_key_is_refused(window):
    clash = ActionSpec("mine", "Mine", lambda: None, ("Ctrl+S",), menu="edit", section="catalogs")
    with pytest.raises(ValueError, match="already triggers 'save'"):
        window.add_action(clash)
    assert "mine" not in window.action_table.ids()
    with pytest.raises(ValueError, match="no section"):
        window.add_action(ActionSpec("x", "X", lambda: None, menu="file", section="nowhere"))


def test_an_add_on_row_lands_in_its_section(window):
    seen = []
    act = window.add_action(
        ActionSpec(
            "check_prices", "Check &Prices", lambda: seen.append(1), ("Ctrl+Shift+P",),
            "Compare prices", menu="file", section="save",
        )
    )  # fmt: skip
    texts = _menu_texts(window, "File")
    assert texts[texts.index("Save As…") + 1] == "Check Prices"
    assert window.action("check_prices") is act and act.toolTip() == "Compare prices"
    act.trigger()
    assert seen == [1]
    # The submenus kept their actions through the re-layout.
    assert len(window.files.examples_menu.actions()) >= 4


def test_adding_a_row_reads_no_other_rows_keys(window, monkeypatch):
    """The keys bound so far are kept as rows are added (start-up adds ~33): a new row reads
    its own action's keys once, not every action's again; a clash is still refused, and the
    table's keys are what the actions hold."""
    read = []
    shortcuts = QAction.shortcuts

    def counting(action):
        read.append(action.objectName())
        return shortcuts(action)

    monkeypatch.setattr(QAction, "shortcuts", counting)
    for i in range(5):
        window.add_action(
            ActionSpec(f"row{i}", f"Row {i}", lambda: None, (f"Ctrl+Alt+{i}",), menu="file",
                       section="save")
        )  # fmt: skip
    assert read == [f"row{i}" for i in range(5)]
    with pytest.raises(ValueError, match="already triggers 'row3'"):
        window.add_action(ActionSpec("x", "X", lambda: None, ("Ctrl+Alt+3",), menu="file",
                                     section="save"))  # fmt: skip
    monkeypatch.undo()
    keys = window.action_table.bound_keys()
    assert keys == window.action_table._keys
    assert keys[QKeySequence("Ctrl+Alt+3").toString()] == "row3"
