"""The per-user config folder: a clear one-line ConfigDirError when it cannot be used."""

from __future__ import annotations

import pytest

from ftcost_gui.io import paths
from ftcost_gui.io.paths import ConfigDirError, config_dir


def test_created_on_first_use(tmp_path, monkeypatch):
    monkeypatch.setenv("FTCOST_CONFIG_DIR", str(tmp_path / "a" / "b"))
    assert config_dir() == tmp_path / "a" / "b"
    assert (tmp_path / "a" / "b").is_dir()


def test_a_file_in_its_place(tmp_path, monkeypatch):
    (tmp_path / "f").write_text("x")
    monkeypatch.setenv("FTCOST_CONFIG_DIR", str(tmp_path / "f"))
    with pytest.raises(ConfigDirError, match=r"config folder .*f is a file, not a folder$"):
        config_dir()
    monkeypatch.setenv("FTCOST_CONFIG_DIR", str(tmp_path / "f" / "sub"))
    with pytest.raises(ConfigDirError, match="cannot be created: Not a directory"):
        config_dir()
    assert isinstance(ConfigDirError("x"), OSError)  # callers that catch OSError keep working


def test_no_home_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("FTCOST_CONFIG_DIR")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative")  # taken as is by platformdirs on Linux

    class NoHome:
        def __init__(self, *args):
            self.user_config_dir = "~/.config/FtCost"  # what expanduser leaves without a home

    monkeypatch.setattr(paths, "PlatformDirs", NoHome)
    with pytest.raises(ConfigDirError, match="no home folder"):
        config_dir()
    assert not any(tmp_path.iterdir())  # nothing created under the current folder
