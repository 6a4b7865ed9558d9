"""File actions: save/reopen, dirty prompts, corrupt files, drops, recent files, settings."""

import json
import os

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QMessageBox

from ftcost_gui.core import estimate
from ftcost_gui.gui.settings import open_settings, recent_files
from ftcost_gui.gui.window.files import example_paths
from ftcost_gui.gui.window.main_window import MainWindow
from ftcost_gui.io.estimate_file import load_estimate, save_estimate


def _edit(window, mfu=0.47):
    window.store.set_field("efficiency", "mfu", mfu)
    window.store.recompute_now()


def test_save_as_then_reopen(window, tmp_path, monkeypatch):
    _edit(window)
    target = tmp_path / "plan.ftcost"
    monkeypatch.setattr(window.files, "_ask_save_path", lambda: str(target))
    window.action("save_as").trigger()
    assert target.exists()
    assert window.windowTitle() == "plan.ftcost[*] — ftcost"
    assert not window.isWindowModified()
    saved_inputs = window.store.inputs
    assert load_estimate(target) == saved_inputs

    window.files.new()
    assert window.store.inputs != saved_inputs
    monkeypatch.setattr(window.files, "_ask_open_path", lambda: str(target))
    window.action("open").trigger()
    assert window.store.inputs == saved_inputs
    assert window.store.result == estimate(saved_inputs)
    assert window.store.path == target
    assert window.undo_stack.count() == 0
    assert str(target.resolve()) in recent_files(open_settings())


def test_save_uses_current_path_without_dialog(window, tmp_path):
    target = tmp_path / "a.ftcost"
    window.files.load_path(_write(tmp_path, "a.ftcost", window.store.inputs))
    _edit(window, 0.33)
    assert window.isWindowModified()
    window.action("save").trigger()  # no dialog: the autouse stub would raise
    assert load_estimate(target).efficiency.mfu == 0.33
    assert not window.isWindowModified()


def _write(tmp_path, name, inputs):
    p = tmp_path / name
    save_estimate(p, inputs)
    return p


def test_dirty_close_cancel_keeps_window(window, monkeypatch, qtbot):
    _edit(window)
    asked = []

    def cancel(*a, **k):
        asked.append(a)
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", staticmethod(cancel))
    assert window.close() is False
    assert window.isVisible() and asked
    assert window.files.new() is False
    assert window.store.inputs.efficiency.mfu == 0.47


def test_dirty_discard_proceeds(window, dialogs):
    _edit(window)
    assert window.files.new() is True  # stub answers Discard
    assert dialogs["question"]
    assert window.store.inputs.efficiency.mfu == 0.4
    assert not window.isWindowModified()


def test_dirty_save_on_close_writes_file(window, tmp_path, monkeypatch):
    _edit(window)
    target = tmp_path / "on-close.ftcost"
    monkeypatch.setattr(
        QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Save)
    )
    monkeypatch.setattr(window.files, "_ask_save_path", lambda: str(target))
    assert window.close() is True
    assert load_estimate(target).efficiency.mfu == 0.47


def test_clean_window_closes_without_prompt(window, dialogs):
    assert window.close() is True
    assert dialogs["question"] == []


def test_corrupt_and_foreign_files_leave_document(window, tmp_path, dialogs):
    _edit(window)
    before = window.store.inputs
    cases = {
        "truncated.ftcost": '{"format": "ftcost-estimate", "version": 1, "inp',
        "foreign.ftcost": json.dumps({"hello": 1}),
        "newer.ftcost": json.dumps({"format": "ftcost-estimate", "version": 99, "inputs": {}}),
        "bad-value.ftcost": json.dumps(
            {"format": "ftcost-estimate", "version": 1, "inputs": {"efficiency": {"mfu": 7}}}
        ),
    }
    for name, text in cases.items():
        p = tmp_path / name
        p.write_text(text)
        assert window.files.load_path(p) is False
        assert window.store.inputs == before
        assert window.isWindowModified()
    assert len(dialogs["warning"]) == len(cases)
    messages = " ".join(str(a[2]) for a in dialogs["warning"])
    assert "newer" in messages and "not valid JSON" in messages
    assert window.files.load_path(tmp_path / "missing.ftcost") is False


def test_drop_a_file_opens_it(window, tmp_path):
    doc = window.store.inputs.model_dump()
    doc["efficiency"]["mfu"] = 0.22
    from ftcost_gui.core import EstimateInputs

    path = _write(tmp_path, "dropped.ftcost", EstimateInputs.model_validate(doc))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    pos = QPointF(50, 50)
    enter = QDragEnterEvent(
        pos.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    window.dragEnterEvent(enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    window.dropEvent(drop)
    assert window.store.inputs.efficiency.mfu == 0.22
    assert window.store.path == path
    other = QMimeData()
    other.setUrls([QUrl.fromLocalFile(str(tmp_path / "notes.txt"))])
    reject = QDragEnterEvent(
        pos.toPoint(), Qt.DropAction.CopyAction, other, Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    reject.setAccepted(False)
    window.dragEnterEvent(reject)
    assert not reject.isAccepted()


def test_examples_menu_opens_each(window):
    paths = example_paths()
    names = {p.name for p in paths}
    assert {
        "article-000-qwen2.5-7b-full.ftcost",
        "article-001-7b-lora.ftcost",
        "article-003-70b-qlora.ftcost",
        "article-004-7b-lora-a100.ftcost",
    } <= names
    actions = window.files.examples_menu.actions()
    assert len(actions) == len(paths)
    for act in actions:
        act.trigger()
        assert window.store.path is None  # examples open as untitled copies
        assert window.store.result == estimate(load_estimate(act.data()))
    assert window.store.inputs.training.micro_batch == 16  # article 004 last


def test_recent_menu_and_clear(window, tmp_path):
    for name in ("one.ftcost", "two.ftcost"):
        window.files.load_path(_write(tmp_path, name, window.store.inputs))
    window.files.rebuild_recent_menu()
    texts = [a.text() for a in window.files.recent_menu.actions()]
    assert texts[:2] == ["two.ftcost", "one.ftcost"]
    window.files.recent_menu.actions()[1].trigger()
    assert window.store.path.name == "one.ftcost"
    clear = next(a for a in window.files.recent_menu.actions() if "Clear" in a.text())
    clear.trigger()
    assert recent_files(open_settings()) == []


def test_settings_live_in_config_dir(window, _tmp_config_dir):
    window.resize(900, 650)
    window.close()
    ini = _tmp_config_dir / "settings.ini"
    assert ini.exists()
    assert "geometry" in ini.read_text()


def test_geometry_round_trip(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(700, 520)
    w.show()
    qtbot.waitExposed(w)
    size = (w.width(), w.height())
    w.close()
    w2 = MainWindow()
    qtbot.addWidget(w2)
    assert (w2.width(), w2.height()) == size != (1440, 900)


def test_main_version_and_no_qt_at_import(capsys):
    import subprocess
    import sys

    from ftcost_gui.__main__ import main

    assert main(["ftcost-gui", "--version"]) == 0
    assert "ftcost-gui 0.1.0" in capsys.readouterr().out
    code = (
        "import sys, ftcost_gui, ftcost_gui.__main__, ftcost_gui.present.explain;"
        "import ftcost_gui.gui.defaults;"
        "print(any(m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_app_main_opens_file_argument(tmp_path, monkeypatch, qapp):
    from ftcost_gui.gui import app as app_mod
    from ftcost_gui.gui.defaults import article_001

    path = _write(tmp_path, "arg.ftcost", article_001())
    seen = {}

    def fake_exec():
        seen["windows"] = [
            w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()
        ]
        for w in seen["windows"]:
            w.close()
        return 0

    monkeypatch.setattr(qapp, "exec", fake_exec)
    assert app_mod.main(["ftcost-gui", str(path)]) == 0
    assert any(w.store.inputs == article_001() for w in seen["windows"])


def test_macos_file_open_event_opens_the_file(window, qapp, tmp_path):
    """A .ftcost double-clicked in Finder arrives as a QFileOpenEvent to the application."""
    from PySide6.QtGui import QFileOpenEvent

    from ftcost_gui.core import EstimateInputs
    from ftcost_gui.gui.app import open_files_from_the_desktop

    doc = window.store.inputs.model_dump()
    doc["efficiency"]["mfu"] = 0.27
    path = _write(tmp_path, "finder.ftcost", EstimateInputs.model_validate(doc))
    handler = open_files_from_the_desktop(qapp, window)
    try:
        qapp.sendEvent(qapp, QFileOpenEvent(str(path)))
        assert window.store.inputs.efficiency.mfu == 0.27
        assert window.store.result == estimate(window.store.inputs)
    finally:
        qapp.removeEventFilter(handler)


def test_a_file_whose_estimate_fails_shows_no_figures_of_the_previous_one(
    window, tmp_path, monkeypatch
):
    """Issue 12: the new title and inputs never sit beside the previous file's figures."""
    import importlib

    from ftcost_gui.core import EstimateInputs

    series_mod = importlib.import_module("ftcost_gui.core.series")  # what the store estimates with
    real = series_mod.plan

    def plan(inputs):  # a file that validates but that the core cannot estimate
        if inputs.efficiency.mfu == 0.23:
            raise ArithmeticError("the step time is not finite")
        return real(inputs)

    monkeypatch.setattr(series_mod, "plan", plan)
    before = window.summary_label.text()
    assert window.results.stack.currentWidget() is window.results.results_page
    doc = window.store.inputs.model_dump()
    doc["efficiency"]["mfu"] = 0.23
    path = _write(tmp_path, "broken.ftcost", EstimateInputs.model_validate(doc))
    monkeypatch.setattr(window.files, "_ask_open_path", lambda: str(path))
    window.action("open").trigger()

    assert window.windowTitle() == "broken.ftcost[*] — ftcost"
    assert window.store.inputs.efficiency.mfu == 0.23
    assert window.results.stack.currentWidget() is window.results.failed_page
    assert not window.results.headline.isVisible() and not window.results.tabs.isVisible()
    assert window.results.failed_page.isVisible()
    assert "the step time is not finite" in window.results.failed_page.text.text()
    assert window.summary_label.text() != before
    assert "estimate failed" in window.summary_label.text()

    # An edit the core can estimate brings the figures back, those of the edited inputs.
    window.store.set_field("efficiency", "mfu", 0.3)
    window.store.recompute_now()
    assert window.results.stack.currentWidget() is window.results.results_page
    assert window.results.headline.isVisible()
    assert window.store.result == estimate(window.store.inputs)
    assert "$" in window.summary_label.text() and window.summary_label.text() != before


def test_settings_that_cannot_be_kept_are_told(tmp_path, monkeypatch, qtbot):
    fifo = tmp_path / "config"
    fifo.mkdir()
    os.mkfifo(fifo / "settings.ini")  # would block QSettings' read
    monkeypatch.setenv("FTCOST_CONFIG_DIR", str(fifo))
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    message = w.statusBar().currentMessage
    qtbot.waitUntil(
        lambda: message().startswith("Settings are kept for this session"), timeout=2000
    )
