"""A results tab whose view (pyqtgraph inside) is built the first time it is shown."""

from __future__ import annotations

from typing import Generic, TypeVar

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ..services import WindowServices

V = TypeVar("V", bound=QWidget)


class LazyTab(QObject, Generic[V]):
    """The page is added at once; ``make_view`` builds its view on first use (``ensure_view``)."""

    def __init__(self, services: WindowServices, name: str, title: str, tip: str):
        super().__init__(services.dialog_parent())
        self.services = services
        self.view: V | None = None
        self.page = QWidget()
        self.page.setObjectName(name)
        QVBoxLayout(self.page).setContentsMargins(0, 0, 0, 0)
        services.add_result_tab(self.page, title, tip)

    def make_view(self, parent: QWidget) -> V:
        raise NotImplementedError

    def visible(self) -> bool:
        return self.services.result_tab_shown(self.page)

    def show(self) -> None:
        self.services.show_result_tab(self.page)

    def ensure_view(self) -> V:
        if self.view is None:
            self.view = self.make_view(self.page)
            layout = self.page.layout()
            layout.addWidget(self.view)
            if self.page.isVisible():  # shown and laid out now, not on the next event
                self.view.show()
                layout.activate()
        return self.view
