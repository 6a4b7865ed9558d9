"""The window starts whatever state the config folder is in (issue 12): a file in its place, a
parent that is not a folder, no home folder, a FIFO as the settings file. Each case runs the real
start-up (``python -m ftcost_gui``) in a child process that quits after the first paint, with a
timeout: a hang fails the test instead of hanging the suite."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ftcost_gui.gui.app import SMOKE_ENV


def start_window(env_changes: dict[str, str | None], cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", **{SMOKE_ENV: "1"})
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run(
        [sys.executable, "-m", "ftcost_gui"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _cases(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    cases = {
        "config folder is a file": {"FTCOST_CONFIG_DIR": str(a_file)},
        "parent is a file": {"FTCOST_CONFIG_DIR": str(a_file / "ftcost")},
        # platformdirs takes a relative XDG_CONFIG_HOME as it is: nowhere sensible to write
        "no usable home": {"FTCOST_CONFIG_DIR": None, "XDG_CONFIG_HOME": "relative/cfg"},
    }
    if hasattr(os, "mkfifo"):
        cfg = tmp_path / "cfg"
        cfg.mkdir()
        os.mkfifo(cfg / "settings.ini")
        cases["settings.ini is a FIFO"] = {"FTCOST_CONFIG_DIR": str(cfg)}
    return cases


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG and FIFO cases are Linux")
def test_window_starts_without_a_usable_config_folder(tmp_path):
    work = tmp_path / "cwd"
    work.mkdir()
    for name, env in _cases(tmp_path).items():
        done = start_window(env, work)
        assert done.returncode == 0, (name, done.stderr[-2000:])
        assert "window shown" in done.stdout, (name, done.stdout, done.stderr[-2000:])
        assert "Traceback" not in done.stderr, (name, done.stderr[-2000:])
    assert not any(work.iterdir()), "nothing is created under the current folder"


def test_settings_fall_back_to_this_session(tmp_path, monkeypatch):
    from ftcost_gui.gui.settings import add_recent, open_settings, recent_files

    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    monkeypatch.setenv("FTCOST_CONFIG_DIR", str(a_file))
    settings = open_settings()
    assert "kept for this session only" in settings.property("problem")
    assert "is a file, not a folder" in settings.property("problem")
    add_recent(settings, tmp_path / "plan.ftcost")  # works for the session, writes nothing
    assert recent_files(settings) == [str((tmp_path / "plan.ftcost").resolve())]
    assert a_file.read_text() == "x"


def test_window_with_unusable_config_folder_uses_the_builtin_catalog(
    tmp_path, monkeypatch, qtbot, dialogs
):
    from ftcost_gui.gui.app import build_window

    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    monkeypatch.setenv("FTCOST_CONFIG_DIR", str(a_file))
    w = build_window()
    qtbot.addWidget(w)
    assert len(w.panels["hardware"].catalog.rows) > 10  # the built-in GPUs are there to pick
    assert "kept for this session only" in w.settings.property("problem")
    w.show()
    qtbot.waitUntil(lambda: bool(dialogs["warning"]))  # told once, after the window is built
    assert "is a file, not a folder" in str(dialogs["warning"][0])
