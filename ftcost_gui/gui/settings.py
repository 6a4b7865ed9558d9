"""QSettings as an ini file inside ``config_dir()`` (so FTCOST_CONFIG_DIR redirects it)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from ..io.paths import config_dir

MAX_RECENT = 10


def open_settings() -> QSettings:
    return QSettings(str(config_dir() / "settings.ini"), QSettings.Format.IniFormat)


def recent_files(settings: QSettings) -> list[str]:
    value = settings.value("recent", [], type=list)
    return [str(v) for v in value if v]


def add_recent(settings: QSettings, path: str | Path) -> list[str]:
    p = str(Path(path).resolve())
    items = [p, *(x for x in recent_files(settings) if x != p)][:MAX_RECENT]
    settings.setValue("recent", items)
    settings.sync()
    return items


def clear_recent(settings: QSettings) -> None:
    settings.setValue("recent", [])
    settings.sync()
