"""Help → About: name, version, licence, the dates of the built-in data, and the icon.

Qt-only and self-contained (no other gui modules): ``show_about(parent)`` opens it modally.
``about_facts()`` gathers the text without Qt so it can be tested and reused (e.g. ``--version``).
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from .. import __version__
from ..io.resources import builtin_catalog, builtin_presets, resource_path

APP_NAME = "ftcost"
LICENSE = "MIT"
SUMMARY = "What a fine-tuning run will need and cost, before you rent anything."


def about_facts() -> dict[str, str]:
    """The dialog's facts as plain strings; data that cannot be read says so instead of failing."""
    facts = {"name": APP_NAME, "version": __version__, "license": LICENSE, "summary": SUMMARY}
    try:
        gpus = builtin_catalog().gpus
        dates = sorted(g.price_as_of for g in gpus if g.price_as_of)
        if not dates:
            facts["gpu_prices"] = f"{len(gpus)} GPUs; prices undated"
        elif dates[0] == dates[-1]:
            facts["gpu_prices"] = f"{len(gpus)} GPUs; prices as of {dates[0]}"
        else:
            facts["gpu_prices"] = f"{len(gpus)} GPUs; prices as of {dates[0]} to {dates[-1]}"
    except Exception as exc:  # a broken install must still show About
        facts["gpu_prices"] = f"unavailable ({type(exc).__name__})"
    try:
        models = builtin_presets().models
        families = sorted({m.family for m in models})
        facts["model_presets"] = (
            f"{len(models)} presets ({', '.join(families)}); architectures from each "
            "publisher's config.json on the model hub"
        )
    except Exception as exc:
        facts["model_presets"] = f"unavailable ({type(exc).__name__})"
    return facts


def app_icon() -> QIcon:
    """The application icon (SVG plus the rendered PNG sizes); empty if the files are missing."""
    icon = QIcon()
    try:
        icons = resource_path("icons")
    except FileNotFoundError:
        return icon
    svg = icons / "ftcost.svg"
    if svg.is_file():
        icon.addFile(str(svg))
    for png in sorted(icons.glob("hicolor/*/apps/ftcost.png")):
        icon.addFile(str(png))
    return icon


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"About {APP_NAME}")
        self.setObjectName("aboutDialog")
        facts = about_facts()
        icon = app_icon()
        if not icon.isNull():
            self.setWindowIcon(icon)

        self.icon_label = QLabel()
        self.icon_label.setObjectName("aboutIcon")
        self.icon_label.setPixmap(icon.pixmap(96, 96))
        self.icon_label.setAlignment(Qt.AlignmentFlag.AlignTop)

        rows = [
            ("Version", facts["version"]),
            ("Licence", facts["license"]),
            ("GPU catalog", facts["gpu_prices"]),
            ("Model presets", facts["model_presets"]),
        ]
        table = "".join(
            f"<tr><td style='padding-right:12px'><b>{escape(k)}</b></td><td>{escape(v)}</td></tr>"
            for k, v in rows
        )
        self.text_label = QLabel(
            f"<h2>{escape(facts['name'])} {escape(facts['version'])}</h2>"
            f"<p>{escape(facts['summary'])}</p><table>{table}</table>"
            "<p>Built-in prices are suggested defaults and age quickly: check them, or set "
            "your own rates.</p>"
        )
        self.text_label.setObjectName("aboutText")
        self.text_label.setTextFormat(Qt.TextFormat.RichText)
        self.text_label.setWordWrap(True)
        self.text_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text_label.setMinimumWidth(380)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)

        top = QHBoxLayout()
        top.addWidget(self.icon_label)
        top.addWidget(self.text_label, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(buttons)


def show_about(parent: QWidget | None = None) -> int:
    """Open the About dialog modally; returns the dialog's result code."""
    dialog = AboutDialog(parent)
    try:
        return dialog.exec()
    finally:
        dialog.deleteLater()
