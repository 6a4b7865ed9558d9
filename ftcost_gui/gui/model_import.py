"""Offline model import: File → Import Model Config… and the "Models on This Computer" dialog.

Nothing here uses the network. An import reads a ``config.json`` (``io.hf_config``) and, when the
folder holds ``.safetensors`` files, only their headers (``io.safetensors_header``). The cache
dialog lists ``io.hf_cache.scan_hf_cache()``, which reads directory listings and configs only.
Every failure is a message, never a crash: an unknown ``model_type`` or a missing key fills the
architecture form with what was understood and leaves the model Custom.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.architecture import ModelSpec, count_params
from ..present.text import fmt_count, fmt_exact
from .model_ui import apply_model, spec_from_partial
from .muted_label import MutedLabel
from .panels.model_panel import ModelPanel
from .rich_text import rich_text
from .services import ActionSpec, WindowServices

if TYPE_CHECKING:  # the readers load with the first import or cache scan, not the window
    from ..io.hf_cache import CachedModel
    from ..io.safetensors_header import SafetensorsCount

APP_TITLE = "ftcost"
CONFIG_FILTER = "Model config (config.json *.json);;All files (*)"
SETTINGS_KEY = "models/last_import_dir"


# --- reading a model from disk -------------------------------------------------------------------
@dataclass
class ModelImport:
    """What one config.json (and the checkpoint beside it) says; never raises."""

    source: Path
    spec: ModelSpec | None = None
    error: str = ""  # why there is no spec (one line)
    partial: dict[str, Any] = field(default_factory=dict)  # fields understood when spec is None
    checkpoint: SafetensorsCount | None = None
    checkpoint_error: str = ""

    @property
    def name(self) -> str:
        if self.spec is not None:
            return self.spec.name
        return str(self.partial.get("name") or self.source.name)


def _has_checkpoint(folder: Path) -> bool:
    from ..io.safetensors_header import INDEX_NAME

    try:
        return (folder / INDEX_NAME).is_file() or any(folder.glob("*.safetensors"))
    except OSError:
        return False


def read_model(path: str | os.PathLike[str], name: str = "") -> ModelImport:
    """Read a config.json (or a folder holding one) and count the safetensors beside it."""
    from ..io.hf_config import ModelConfigError, config_path, load_hf_config
    from ..io.safetensors_header import SafetensorsError, count_safetensors

    p = Path(path).expanduser()
    try:
        cfg = config_path(p)
    except ModelConfigError as exc:
        return ModelImport(p, error=str(exc))
    out = ModelImport(cfg)
    try:
        out.spec = load_hf_config(cfg, name=name)
    except ModelConfigError as exc:
        out.error = str(exc).removeprefix(f"{cfg}: ")
        out.partial = dict(exc.partial)
    folder = cfg.parent
    if _has_checkpoint(folder):
        try:
            out.checkpoint = count_safetensors(folder)
        except SafetensorsError as exc:
            out.checkpoint_error = str(exc)
    return out


def config_model_type(path: Path | None) -> str:
    """The ``model_type`` a config.json names ('' when unreadable)."""
    from ..io.hf_config import ModelConfigError, read_hf_config

    if path is None:
        return ""
    try:
        value = read_hf_config(path).get("model_type")
    except ModelConfigError:
        return ""
    return value if isinstance(value, str) else ""


# --- the cache folder ----------------------------------------------------------------------------
def cache_source() -> str:
    """Which setting chose hf_cache_dir(), in words."""
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            return f"from ${var}"
    if os.environ.get("HF_HOME"):
        return "from $HF_HOME/hub"
    if os.environ.get("XDG_CACHE_HOME"):
        return "from $XDG_CACHE_HOME/huggingface/hub"
    return "the default; set $HF_HUB_CACHE or $HF_HOME to look elsewhere"


def short_error(message: str) -> str:
    """The first clause of an import error, for a table cell."""
    return message.split(" (supported:")[0].rstrip(".")


class CachedModelsDialog(QDialog):
    """Lists the models in the local Hugging Face cache; "Use" loads one's architecture."""

    modelChosen = Signal(object)  # CachedModel
    COLUMNS = ("Repository", "Type", "Parameters", "Weights", "Status")

    def __init__(self, parent: QWidget | None = None, root: str | os.PathLike[str] | None = None):
        super().__init__(parent)
        self.setObjectName("cached_models_dialog")
        self.setWindowTitle("Models on This Computer")
        self.root = root
        self.models: list[CachedModel] = []
        lay = QVBoxLayout(self)
        self.location = QLabel(self)
        self.location.setObjectName("cache_location")
        self.location.setWordWrap(True)
        self.location.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.location)

        self.stack = QStackedWidget(self)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("cached_models")
        self.tree.setAccessibleName("Cached models")
        self.tree.setColumnCount(len(self.COLUMNS))
        self.tree.setHeaderLabels(list(self.COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setStyleSheet("QTreeView::item { padding: 1px 8px 1px 2px; }")
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.tree.itemDoubleClicked.connect(self._on_double_clicked)
        self.tree.itemSelectionChanged.connect(self._update_buttons)
        self.empty = QLabel(self)
        self.empty.setObjectName("cache_empty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.empty.setMargin(24)
        self.stack.addWidget(self.tree)
        self.stack.addWidget(self.empty)
        lay.addWidget(self.stack, 1)

        note = MutedLabel(
            "Only folder listings and config.json files are read; weights are never opened. "
            "Use loads the architecture (and counts the checkpoint's safetensors headers).",
            self,
        )
        note.setWordWrap(True)
        lay.addWidget(note)

        buttons = QDialogButtonBox(self)
        self.rescan_button = QPushButton("&Rescan", self)
        self.rescan_button.setObjectName("rescan")
        self.use_button = QPushButton("&Use", self)
        self.use_button.setObjectName("use")
        self.use_button.setDefault(True)
        buttons.addButton(self.rescan_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.use_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.rescan_button.clicked.connect(self.rescan)
        self.use_button.clicked.connect(self.use_selected)
        buttons.rejected.connect(self.close)
        lay.addWidget(buttons)
        self.resize(900, 440)

    # --- content ---------------------------------------------------------------------------------
    def cache_dir(self) -> Path:
        from ..io.hf_cache import hf_cache_dir

        return Path(self.root).expanduser() if self.root is not None else hf_cache_dir()

    def rescan(self) -> list[CachedModel]:
        from ..io.hf_cache import scan_hf_cache

        folder = self.cache_dir()
        self.models = scan_hf_cache(folder)
        source = "chosen folder" if self.root is not None else cache_source()
        exists = "" if folder.is_dir() else " — this folder does not exist"
        self.location.setText(f"Hugging Face cache: <b>{_html(str(folder))}</b> ({source}){exists}")
        self.tree.clear()
        for m in self.models:
            self.tree.addTopLevelItem(self._item(m))
        if self.models:
            self.stack.setCurrentWidget(self.tree)
            for col in range(len(self.COLUMNS) - 1):
                self.tree.resizeColumnToContents(col)
                self.tree.setColumnWidth(col, self.tree.columnWidth(col) + 16)
            ready = next((m for m in self.models if m.ok), self.models[0])
            self.select(ready.repo_id)
        else:
            self.empty.setText(
                f"No downloaded models in {folder}.\n\n"
                "ftcost looks where huggingface_hub keeps downloads: $HF_HUB_CACHE, else "
                "$HF_HOME/hub, else ~/.cache/huggingface/hub. Set one of them and Rescan, or use "
                "File → Import Model Config… for a config.json elsewhere. A config alone is "
                "enough: huggingface-cli download ORG/NAME config.json"
            )
            self.stack.setCurrentWidget(self.empty)
        self._update_buttons()
        return self.models

    def _item(self, m: CachedModel) -> QTreeWidgetItem:
        model_type = config_model_type(m.config_path)
        if m.spec is not None:
            c = count_params(m.spec)
            params = fmt_count(c.total)
            if m.spec.is_moe:
                params += f" ({fmt_count(c.total_active)} active)"
            params_tip = f"{fmt_exact(c.total)} parameters, derived from config.json"
            status, status_tip = "Ready", "config.json understood"
        else:
            params, params_tip = "—", ""
            err = m.error or "unknown"
            status = short_error(err)
            status_tip = err
            if m.partial:
                status_tip += "\nUse fills the architecture form with what was understood."
        n = len(m.safetensors)
        weights = f"{n} safetensors file{'s' if n != 1 else ''}" if n else "config only"
        item = QTreeWidgetItem([m.repo_id, model_type or "?", params, weights, status])
        item.setData(0, Qt.ItemDataRole.UserRole, m.repo_id)
        item.setToolTip(0, rich_text(f"{m.repo_id}\nsnapshot {m.revision or '—'}\n{m.repo_path}"))
        item.setToolTip(2, rich_text(params_tip))
        item.setToolTip(4, rich_text(status_tip))
        item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if m.config_path is None:
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
        return item

    def row_texts(self) -> list[list[str]]:
        """Every row's cell texts (for tests and accessibility checks)."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            it = self.tree.topLevelItem(i)
            out.append([it.text(c) for c in range(self.tree.columnCount())])
        return out

    # --- choosing --------------------------------------------------------------------------------
    def selected_model(self) -> CachedModel | None:
        item = self.tree.currentItem()
        if item is None or not item.isSelected():
            return None
        repo_id = item.data(0, Qt.ItemDataRole.UserRole)
        return next((m for m in self.models if m.repo_id == repo_id), None)

    def select(self, repo_id: str) -> bool:
        for i in range(self.tree.topLevelItemCount()):
            it = self.tree.topLevelItem(i)
            if it.data(0, Qt.ItemDataRole.UserRole) == repo_id:
                self.tree.setCurrentItem(it)
                return True
        return False

    def _update_buttons(self) -> None:
        m = self.selected_model()
        self.use_button.setEnabled(m is not None and m.config_path is not None)

    def _on_double_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        self.tree.setCurrentItem(item)
        self.use_selected()

    def use_selected(self) -> bool:
        m = self.selected_model()
        if m is None or m.config_path is None:
            return False
        self.modelChosen.emit(m)
        return True


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --- the actions on the main window --------------------------------------------------------------
class ModelImportActions(QObject):
    """Import Model Config… and Models on This Computer…: two rows of the window's action table,
    two buttons on the model panel, one undoable edit of the store per import."""

    imported = Signal(object)  # ModelImport, after it was applied (fully or partly)

    def __init__(self, services: WindowServices, panel: ModelPanel):
        super().__init__(services.dialog_parent())
        self.services, self.panel = services, panel
        self.store = services.store
        self.cache_dialog: CachedModelsDialog | None = None
        self.last: ModelImport | None = None
        self.import_action = services.add_action(
            ActionSpec(
                "import_model_config",
                "&Import Model Config…",
                self.import_config,
                tip="Load a model's architecture from a local config.json (offline)",
                menu="file",
                section="import",
            )
        )
        self.cached_action = services.add_action(
            ActionSpec(
                "cached_models",
                "Models on This &Computer…",
                self.show_cached_models,
                tip="List the models in the local Hugging Face cache and load one's architecture",
                menu="file",
                section="import",
            )
        )
        panel.set_model_actions(
            [("Import config.json…", self.import_action), ("On this computer…", self.cached_action)]
        )

    # --- import ----------------------------------------------------------------------------------
    def _ask_model_path(self) -> str:
        """The config.json to import ('' if cancelled); tests monkeypatch this."""
        settings = self.services.settings
        start = str(settings.value(SETTINGS_KEY, "", type=str))
        path, _ = QFileDialog.getOpenFileName(
            self.services.dialog_parent(),
            "Import model config",
            start or str(Path.home()),
            CONFIG_FILTER,
        )
        if path:
            settings.setValue(SETTINGS_KEY, str(Path(path).parent))
        return path

    def import_config(self) -> bool:
        path = self._ask_model_path()
        if not path:
            return False
        return self.import_path(path)

    def import_path(self, path: str | os.PathLike[str], name: str = "") -> bool:
        """Import a config.json or model folder; True when the whole architecture was loaded."""
        result = read_model(path, name)
        self.last = result
        parent = self.services.dialog_parent()
        where = result.source.name if result.source.name != "config.json" else str(result.source)
        if result.spec is not None:
            if not apply_model(self.store, result.spec, f"Import {result.spec.name}"):
                QMessageBox.warning(
                    parent,
                    APP_TITLE,
                    rich_text(f"{result.spec.name} could not be used with the other inputs."),
                )
                return False
            self.panel.show_checkpoint(result.spec, result.checkpoint, result.checkpoint_error)
            self.services.show_panel(self.panel)
            self._status(f"Imported {result.spec.name} from {where}")
            self.imported.emit(result)
            return True
        if not result.partial:
            message = f"Could not import the model.\n\n{result.error}"
            QMessageBox.warning(parent, APP_TITLE, rich_text(message))
            return False
        spec, taken = spec_from_partial(self.store.inputs.model, result.partial)
        apply_model(self.store, spec, f"Import {spec.name} (partly)")
        self.panel.show_checkpoint(spec, result.checkpoint, result.checkpoint_error)
        self.services.show_panel(self.panel)
        understood = ", ".join(k for k in taken if k != "name") or "only the name"
        QMessageBox.warning(
            parent,
            APP_TITLE,
            rich_text(
                f"{result.name} was only partly imported.\n\n{result.error}\n\n"
                f"The architecture form now holds what was understood ({understood}); the "
                "other fields keep their previous values and the model is Custom. Check them "
                "before trusting the estimate."
            ),
        )
        self._status(f"Partly imported {result.name}: check the architecture fields")
        self.imported.emit(result)
        return False

    def _status(self, message: str) -> None:
        self.services.show_status(message, 6000)

    # --- the cache dialog ------------------------------------------------------------------------
    def show_cached_models(self) -> CachedModelsDialog:
        """Open (non-modal) the list of cached models, rescanned."""
        if self.cache_dialog is None:
            self.cache_dialog = CachedModelsDialog(self.services.dialog_parent())
            self.cache_dialog.modelChosen.connect(self._use_cached)
        self.cache_dialog.rescan()
        self.cache_dialog.show()
        self.cache_dialog.raise_()
        self.cache_dialog.activateWindow()
        return self.cache_dialog

    def _use_cached(self, model: CachedModel) -> None:
        if model.snapshot is None:
            return
        ok = self.import_path(model.snapshot, name=model.repo_id)
        if ok and self.cache_dialog is not None:
            self.cache_dialog.hide()
