"""QSettings as an ini file inside ``config_dir()`` (so FTCOST_CONFIG_DIR redirects it).

When the config folder cannot be used, or ``settings.ini`` is not a regular file (a FIFO there
would block start-up in QSettings' read), the settings live in a temporary folder for this
session only; ``settings.property("problem")`` says why.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QTemporaryDir

from ..io.loader import SETTINGS, FileReadError, check_regular
from ..io.paths import ConfigDirError, config_dir

MAX_RECENT = 10
SETTINGS_NAME = "settings.ini"


def _usable_settings_file() -> tuple[Path | None, str | None]:
    """(settings.ini path, None), or (None, why the settings cannot be kept)."""
    try:
        path = config_dir() / SETTINGS_NAME
    except ConfigDirError as exc:
        return None, str(exc)
    if not path.exists() and not path.is_symlink():
        return path, None
    try:
        check_regular(path, SETTINGS)
    except FileReadError as exc:
        return None, str(exc)
    return path, None


def open_settings() -> QSettings:
    path, problem = _usable_settings_file()
    if path is not None:
        return QSettings(str(path), QSettings.Format.IniFormat)
    session = QTemporaryDir()  # removed with the settings object
    settings = QSettings(session.filePath(SETTINGS_NAME), QSettings.Format.IniFormat)
    settings._session_dir = session  # type: ignore[attr-defined]  # keep it alive
    settings.setProperty("problem", f"settings are kept for this session only: {problem}")
    return settings


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
