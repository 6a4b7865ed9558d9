"""Shared by every test: offscreen Qt, and a temporary config dir (never the real one)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any QApplication exists

import pytest


@pytest.fixture(autouse=True)
def _tmp_config_dir(tmp_path, monkeypatch):
    """Point io.paths.config_dir() (and QSettings' ini file) at a per-test folder."""
    cfg = tmp_path / "config"
    monkeypatch.setenv("FTCOST_CONFIG_DIR", str(cfg))
    return cfg
