"""The Help menu's add-on: user guide, "What is …?", keyboard shortcuts, What's This, and the
example banner (installed by ``gui/app.build_window``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, SignalInstance
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLabel, QWhatsThis

from ...io.guide import GLOSSARY_PAGE, resolve
from ..panels import FormPanel, FormTabs
from ..services import ActionSpec, WindowServices
from ..window.actions import ActionTable
from .example_banner import ExampleBanner
from .field_help import FieldHelp

if TYPE_CHECKING:  # the guide and the shortcut list load when first opened (start-up: issue 17)
    from .guide_window import GuideWindow
    from .shortcuts import ShortcutsDialog


class HelpUi(QObject):
    def __init__(
        self,
        services: WindowServices,
        forms: FormTabs,
        figures: dict[str, QLabel],
        actions: ActionTable,
        document_reset: SignalInstance,
    ):
        super().__init__(services.dialog_parent())
        self.services = services
        self._actions = actions
        self.guide: GuideWindow | None = None
        self.field_help = FieldHelp(self.open_guide_link, self)
        for panel in forms.built_panels():  # the others get theirs when they are built
            self._add_rows(panel)
        forms.panelBuilt.connect(self._add_rows)
        for key, caption in figures.items():
            self.field_help.add_figure(key, caption)
        sk = QKeySequence.StandardKey
        A = ActionSpec
        rows = (
            A("user_guide", "User &Guide", self.show_guide, (sk.HelpContents,),
              "Read the user guide (offline)", "help", "guide"),
            A("glossary", "What &Is …?", lambda: self.show_guide(GLOSSARY_PAGE), (),
              "Short answers: MFU, usable memory, spot factor, GPU-hours…", "help", "guide"),
            A("shortcuts", "&Keyboard Shortcuts", self.show_shortcuts, (),
              "Every key of the window", "help", "guide"),
        )  # fmt: skip
        for spec in rows:
            services.add_action(spec)
        services.add_action(
            A("whats_this", "What's &This?", QWhatsThis.enterWhatsThisMode, (sk.WhatsThis,),
              "Then click a field or figure to read what it means", "help", "guide")
        )  # fmt: skip
        self.banner = ExampleBanner()
        services.add_banner(self.banner)
        self.banner.openRequested.connect(lambda: services.action("open").trigger())
        store = services.store
        store.dirtyChanged.connect(self._on_dirty)
        services.documentOpened.connect(self._on_opened)
        # File → New starts from the example again; an open resets too, then documentOpened
        # (which follows it) decides.
        document_reset.connect(self._on_reset)
        if store.path is None and not store.dirty:
            self.banner.show_for(store.inputs)

    def _add_rows(self, panel: FormPanel) -> None:
        for section, spec, label, editor in panel.field_rows():
            self.field_help.add_row(section, spec, label, editor)

    # --- the example banner --------------------------------------------------------------------
    def _on_reset(self) -> None:
        store = self.services.store
        if store.path is None:
            self.banner.show_for(store.inputs)
        else:
            self.banner.hide()

    def _on_opened(self, _path: Path) -> None:
        # Opened on purpose (an example from File → Open Example, or one's own file): the
        # person knows what it is, and a short screen keeps the room for the figures.
        self.banner.hide()

    def _on_dirty(self, dirty: bool) -> None:
        if dirty:
            self.banner.hide()

    # --- guide and shortcuts -------------------------------------------------------------------
    def show_guide(self, page: str = "README.md", anchor: str = "") -> GuideWindow:
        if self.guide is None:
            from .guide_window import GuideWindow

            self.guide = GuideWindow(self.services.dialog_parent())
        self.guide.show_page(page, anchor)
        self.guide.show()
        self.guide.raise_()
        self.guide.activateWindow()
        return self.guide

    def open_guide_link(self, href: str) -> None:
        target = resolve("", href)
        if target.kind == "page":
            self.show_guide(target.page, target.anchor)

    def show_shortcuts(self) -> ShortcutsDialog:
        from .shortcuts import ShortcutsDialog, shortcut_rows

        rows = shortcut_rows(self._actions.rows(), self._actions.menu_titles())
        dialog = ShortcutsDialog(rows, self.services.dialog_parent())
        dialog.show()
        return dialog
