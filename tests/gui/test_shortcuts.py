"""No ambiguous key on any platform (issue 16): "Ctrl+Q did nothing on Linux".

Qt expands a standard key (New, Quit, Redo …) into the platform's own keys at run time, so a
test run on one platform cannot see a clash on another by asking Qt. ``STANDARD`` below is Qt's
table for the standard keys the window binds (qtbase, src/gui/kernel/qplatformtheme.cpp,
``QPlatformThemePrivate::keyBindings``) for the four keyboard schemes; every action of the
window, add-ons included, is expanded with it and no key may reach two actions. "Ctrl" is ⌘ on
macOS in Qt's notation, on both sides. The table is checked against the Qt running the test.
"""

from __future__ import annotations

import re

import pytest
from PySide6.QtGui import QAction, QKeySequence, QShortcut

from ftcost_gui.gui.window.actions import key_sequences

SK = QKeySequence.StandardKey
SCHEMES = ("windows", "mac", "kde", "gnome")

STANDARD: dict[QKeySequence.StandardKey, dict[str, tuple[str, ...]]] = {
    SK.New: {s: ("Ctrl+N",) for s in SCHEMES},
    SK.Open: {s: ("Ctrl+O",) for s in SCHEMES},
    SK.Save: {s: ("Ctrl+S",) for s in SCHEMES},
    SK.SaveAs: {"windows": (), "mac": ("Ctrl+Shift+S",), "kde": (), "gnome": ("Ctrl+Shift+S",)},
    SK.Quit: {"windows": (), "mac": ("Ctrl+Q",), "kde": ("Ctrl+Q",), "gnome": ("Ctrl+Q",)},
    SK.Undo: {
        "windows": ("Ctrl+Z", "Alt+Backspace"),
        "mac": ("Ctrl+Z",),
        "kde": ("Ctrl+Z", "F14"),
        "gnome": ("Ctrl+Z", "F14"),
    },
    SK.Redo: {
        "windows": ("Ctrl+Y", "Ctrl+Shift+Z", "Alt+Shift+Backspace"),
        "mac": ("Ctrl+Shift+Z",),
        "kde": ("Ctrl+Shift+Z",),
        "gnome": ("Ctrl+Shift+Z",),
    },
    SK.HelpContents: {"windows": ("F1",), "mac": ("Ctrl+?",), "kde": ("F1",), "gnome": ("F1",)},
    SK.WhatsThis: {s: ("Shift+F1",) for s in SCHEMES},
}


def expand(keys, scheme: str) -> set[str]:
    out: set[str] = set()
    for key in keys:
        if isinstance(key, QKeySequence.StandardKey):
            assert key in STANDARD, f"add {key} from Qt's table to STANDARD"
            out |= set(STANDARD[key][scheme])
        else:
            out.add(QKeySequence(key).toString())
    return out


def test_the_table_matches_the_qt_running_this_test(qapp):
    """One scheme's keys are all bound by this Qt (which adds device keys such as 'New')."""
    bound = {key: {s.toString() for s in QKeySequence.keyBindings(key)} for key in STANDARD}
    matches = [s for s in SCHEMES if all(set(STANDARD[k][s]) <= bound[k] for k in STANDARD)]
    assert matches, {k.name: sorted(v) for k, v in bound.items()}


@pytest.mark.parametrize("scheme", SCHEMES)
def test_no_key_reaches_two_actions_on_any_platform(window, scheme):
    owners: dict[str, str] = {}
    rows = window.action_table.rows()
    assert len(rows) >= 25  # the window's, the catalogs', the model import's and help's rows
    for spec, _action in rows:
        for key in expand(spec.shortcuts, scheme):
            assert owners.setdefault(key, spec.id) == spec.id, (
                f"{scheme}: {key} is bound to {owners[key]!r} and {spec.id!r}"
            )
    # The keys people look for, where the platform has them.
    assert owners["Ctrl+Q"] == "quit"
    assert owners["Shift+F1"] == "whats_this"
    assert owners[STANDARD[SK.HelpContents][scheme][0]] == "user_guide"


def test_quit_is_one_unambiguous_key_on_linux():
    """The standard Quit key and 'Ctrl+Q' are the same key on Linux: one binding, not two."""
    for scheme in ("kde", "gnome"):
        assert expand((SK.Quit, "Ctrl+Q"), scheme) == {"Ctrl+Q"}
    assert [s.toString() for s in key_sequences((SK.Quit, "Ctrl+Q"))].count("Ctrl+Q") == 1


def test_every_action_and_shortcut_of_the_window_has_distinct_keys(window):
    """At run time, on this platform: actions and QShortcuts of the main window, once each."""
    owners: dict[str, list[str]] = {}
    for act in window.findChildren(QAction):
        for seq in act.shortcuts():
            owners.setdefault(seq.toString(), []).append(act.objectName() or act.text())
    for sc in window.findChildren(QShortcut):
        if sc.parent().window() is window:
            owners.setdefault(sc.key().toString(), []).append(f"shortcut of {sc.parent()}")
    assert {k: v for k, v in owners.items() if len(v) > 1} == {}


def _mnemonic(text: str) -> str | None:
    """The letter Alt reaches in a title ("Com&pare" -> "p"; "&&" is a literal ampersand)."""
    found = re.search(r"&(\w)", text.replace("&&", ""))
    return found.group(1).lower() if found else None


def test_menus_and_tabs_each_have_their_own_alt_letter(window):
    """The menu bar's menus, the form tabs and the result tabs are always on screen together:
    one Alt+letter each (Alt+F was both File and What Fits, Alt+H Help and Hardware, Alt+P
    Compare and Plan: Qt then alternated or did nothing)."""
    from PySide6.QtWidgets import QTabWidget

    titles = [a.text() for a in window.menuBar().actions()]
    for tabs in (window.findChild(QTabWidget, "form_tabs"), window.results.tabs):
        titles += [tabs.tabText(i) for i in range(tabs.count())]
    letters = [_mnemonic(t) for t in titles]
    assert None not in letters, titles
    assert len(set(letters)) == len(letters), sorted(zip(letters, titles, strict=True))


def _alt_letters_on_screen(window) -> dict[str, list[str]]:
    """Every Alt letter the window answers to now: menus, the tabs of the tab bars shown, the
    buttons, group boxes and buddied labels shown."""
    from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QTabBar

    found: dict[str, list[str]] = {}

    def add(text: str, what: str) -> None:
        letter = _mnemonic(text)
        if letter:
            found.setdefault(letter, []).append(f"{what} {text!r}")

    for action in window.menuBar().actions():
        add(action.text(), "menu")
    for bar in window.findChildren(QTabBar):
        if bar.isVisibleTo(window):
            for i in range(bar.count()):
                if bar.isTabVisible(i) and bar.isTabEnabled(i):
                    add(bar.tabText(i), "tab")
    for button in window.findChildren(QAbstractButton):
        if button.isVisibleTo(window) and button.isEnabled():
            add(button.text(), "button")
    for box in window.findChildren(QGroupBox):
        if box.isVisibleTo(window):
            add(box.title(), "group")
    for label in window.findChildren(QLabel):
        if label.buddy() is not None and label.isVisibleTo(window):
            add(label.text(), "label")
    return found


def test_no_alt_letter_reaches_two_things_in_any_pair_of_tabs(window, qtbot):
    """Every form tab beside every result tab (the Plan page's fields once shared Alt+D with
    Data, Alt+M with Model, Alt+E with Edit ...; Charts show Alt+S with the Scenario menu)."""
    from PySide6.QtWidgets import QTabWidget

    from ftcost_gui.core.plan_space import PlanConstraints

    window.addons["plan"].plan.set_constraints(PlanConstraints(methods=("lora",)))
    forms = window.findChild(QTabWidget, "form_tabs")
    results = window.results.tabs
    seen = set()
    for j in range(results.count()):
        results.setCurrentIndex(j)
        for i in range(forms.count()):
            forms.setCurrentIndex(i)
            qtbot.wait(1)
            letters = _alt_letters_on_screen(window)
            seen.update(letters)
            clashes = {k: v for k, v in letters.items() if len(v) > 1}
            assert not clashes, (forms.tabText(i), results.tabText(j))
    # the pages' own letters were looked at: the Plan page's, Which GPU's, the forms'
    assert {"x", "k", "y", "u", "g", "l"} <= seen
