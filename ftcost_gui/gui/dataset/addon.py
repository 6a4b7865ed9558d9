"""The Measure Dataset add-on: one row of the window's action table (File → Measure Dataset…)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from ..services import ActionSpec, WindowServices

if TYPE_CHECKING:  # the dialog draws a histogram (pyqtgraph): imported when first opened
    from .dialog import MeasureDatasetDialog

SETTINGS_KEY = "dataset/last_dir"


class DatasetActions(QObject):
    """File → Measure Dataset…: the dialog, modeless, one per window."""

    def __init__(self, services: WindowServices):
        super().__init__(services.dialog_parent())
        self.services = services
        self.dialog: MeasureDatasetDialog | None = None
        self.action = services.add_action(
            ActionSpec(
                "measure_dataset",
                "&Measure Dataset…",
                self.open_dialog,
                tip="Count a dataset's examples and token lengths and use them in this scenario",
                menu="file",
                section="import",
            )
        )

    def open_dialog(self) -> MeasureDatasetDialog:
        if self.dialog is None:
            from .dialog import MeasureDatasetDialog

            settings = self.services.settings
            start = str(settings.value(SETTINGS_KEY, "", type=str)) or str(Path.home())
            self.dialog = MeasureDatasetDialog(
                self.services.store, self.services.dialog_parent(), start
            )
            self.dialog.applied.connect(self._on_applied)
            self.dialog.finished.connect(self._remember_folder)
        self.dialog._update_model_line()
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    def _remember_folder(self, _result: int) -> None:
        if self.dialog is not None and self.dialog.start_dir:
            self.services.settings.setValue(SETTINGS_KEY, self.dialog.start_dir)

    def _on_applied(self, _inputs) -> None:
        m = self.dialog.measure if self.dialog else None
        if m is not None:
            self.services.show_status(
                f"Dataset measured: {m.records:,} examples, mean {m.mean_tokens:,.0f} tokens"
            )
