"""Help → User Guide: the README and docs/*.md rendered in the app, offline.

A page list on the left, the page on the right (Qt's Markdown rendering), Back/Forward and Find.
Links between pages and to headings work (GitHub's anchors, ``io/guide.py``); a link to another
site is never opened: its address is copied and the status line says so.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...io.guide import (
    GLOSSARY_PAGE,
    PAGES,
    anchor_for,
    guide_root,
    headings,
    page_path,
    read_page,
    resolve,
    slug,
)
from ...io.loader import FileReadError
from ...present.glossary import glossary_markdown

TITLE = "ftcost — User Guide"


def glossary_page() -> str:
    """The generated "What is …?" page, its links pointing at the guide's headings."""

    def link(page: str, heading: str) -> str:
        try:
            return f"{page}#{anchor_for(page, heading)}"
        except (KeyError, OSError, FileReadError):
            return ""

    return glossary_markdown(link)


class GuideWindow(QWidget):
    """The user guide in its own window; ``show_page(page, anchor)`` opens a page."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("user_guide")
        self.setWindowTitle(TITLE)
        self.page = ""
        self.anchor = ""
        self._history: list[tuple[str, str]] = []
        self._future: list[tuple[str, str]] = []
        self.pages = QListWidget(self)
        self.pages.setObjectName("guide_pages")
        self.pages.setAccessibleName("Guide pages")
        for page, title in PAGES:
            item = QListWidgetItem(title)
            item.setData(Qt.ItemDataRole.UserRole, page)
            self.pages.addItem(item)
        self.browser = QTextBrowser(self)
        self.browser.setObjectName("guide_browser")
        self.browser.setAccessibleName("User guide page")
        self.browser.setOpenLinks(False)  # every link goes through follow(): never the network
        self.back_button = QToolButton(self)
        self.back_button.setText("◀ Back")
        self.back_button.setToolTip("Back (Alt+Left)")
        self.forward_button = QToolButton(self)
        self.forward_button.setText("Forward ▶")
        self.forward_button.setToolTip("Forward (Alt+Right)")
        self.find_field = QLineEdit(self)
        self.find_field.setObjectName("guide_find")
        self.find_field.setPlaceholderText("Find in page (Ctrl+F, Enter for the next)")
        self.find_field.setClearButtonEnabled(True)
        self.status = QLabel("", self)
        self.status.setObjectName("guide_status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        bar = QHBoxLayout()
        bar.addWidget(self.back_button)
        bar.addWidget(self.forward_button)
        bar.addWidget(self.find_field, 1)
        right = QWidget(self)
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(bar)
        column.addWidget(self.browser, 1)
        column.addWidget(self.status)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.pages)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([200, 700])
        QVBoxLayout(self).addWidget(split)
        self.resize(960, 720)
        self.pages.currentItemChanged.connect(self._on_page_picked)
        self.browser.anchorClicked.connect(self.follow)
        self.back_button.clicked.connect(self.back)
        self.forward_button.clicked.connect(self.forward)
        self.find_field.returnPressed.connect(self.find_next)
        keys = (
            (QKeySequence.StandardKey.Back, self.back),
            (QKeySequence.StandardKey.Forward, self.forward),
            (QKeySequence.StandardKey.Find, self._focus_find),
            (QKeySequence.StandardKey.FindNext, self.find_next),
            (QKeySequence.StandardKey.Close, self.close),
        )
        for key, slot in keys:
            shortcut = QShortcut(key, self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        self._update_buttons()

    # --- pages ----------------------------------------------------------------------------------
    def show_page(self, page: str, anchor: str = "", record: bool = True) -> None:
        """Show ``page`` scrolled to ``anchor`` (a heading's anchor; '' for the top)."""
        if record and self.page and (page, anchor) != (self.page, self.anchor):
            self._history.append((self.page, self.anchor))
            self._future.clear()
        if page != self.page:
            try:
                text = read_page(page, glossary_page)
            except (KeyError, OSError, FileReadError) as exc:
                self.status.setText(f"This page cannot be shown: {exc}")
                return
            base = guide_root() if page == GLOSSARY_PAGE else page_path(page).parent
            self.browser.document().setBaseUrl(QUrl.fromLocalFile(f"{base}/"))
            self.browser.setMarkdown(text)
            self._name_headings(text)
            self.page = page
        self.anchor = anchor
        self.status.setText("")
        self._select_in_list(page)
        if anchor:
            self.browser.scrollToAnchor(anchor)
        else:
            self.browser.moveCursor(QTextCursor.MoveOperation.Start)
            self.browser.verticalScrollBar().setValue(0)
        self._update_buttons()

    def _name_headings(self, markdown: str) -> None:
        """Give each heading block its GitHub anchor, so '#anchor' links land on it."""
        anchors = [h.anchor for h in headings(markdown)]
        block = self.browser.document().begin()
        i = 0
        while block.isValid():
            if block.blockFormat().headingLevel() > 0:
                name = anchors[i] if i < len(anchors) else slug(block.text())
                i += 1
                cursor = QTextCursor(block)
                cursor.select(QTextCursor.SelectionType.BlockUnderCursor)
                fmt = cursor.charFormat()
                fmt.setAnchor(True)
                fmt.setAnchorNames([name])
                cursor.mergeCharFormat(fmt)
            block = block.next()

    def heading_anchors(self) -> list[str]:
        """The anchors named in the page shown (tests, and what links can reach)."""
        names: list[str] = []
        block = self.browser.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel() > 0:
                it = block.begin()
                here: list[str] = []
                while not it.atEnd():  # a heading with code in it is several fragments
                    here += [n for n in it.fragment().charFormat().anchorNames() if n not in here]
                    it += 1
                names += here
            block = block.next()
        return names

    def _select_in_list(self, page: str) -> None:
        self.pages.blockSignals(True)
        for row in range(self.pages.count()):
            if self.pages.item(row).data(Qt.ItemDataRole.UserRole) == page:
                self.pages.setCurrentRow(row)
        self.pages.blockSignals(False)

    def _on_page_picked(self, item: QListWidgetItem | None, _previous: object) -> None:
        if item is not None:
            self.show_page(str(item.data(Qt.ItemDataRole.UserRole)))

    # --- links and history ----------------------------------------------------------------------
    def follow(self, url: QUrl | str) -> None:
        href = url.toString() if isinstance(url, QUrl) else url
        target = resolve(self.page, href)
        if target.kind == "page":
            self.show_page(target.page, target.anchor)
        elif target.kind == "external":
            QGuiApplication.clipboard().setText(target.address)
            self.status.setText(
                f"Not opened: ftcost works offline. The address is copied: {target.address}"
            )
        else:
            self.status.setText(
                f"{target.address} is not part of the guide shipped with ftcost (it lives in the "
                "source repository)."
            )

    def back(self) -> None:
        if self._history:
            self._future.append((self.page, self.anchor))
            self.show_page(*self._history.pop(), record=False)

    def forward(self) -> None:
        if self._future:
            self._history.append((self.page, self.anchor))
            self.show_page(*self._future.pop(), record=False)

    def _update_buttons(self) -> None:
        self.back_button.setEnabled(bool(self._history))
        self.forward_button.setEnabled(bool(self._future))

    # --- find -----------------------------------------------------------------------------------
    def _focus_find(self) -> None:
        self.find_field.setFocus()
        self.find_field.selectAll()

    def find_next(self) -> bool:
        """The next match of the find text, from the top again after the last one."""
        text = self.find_field.text()
        if not text:
            return False
        if self.browser.find(text):
            return True
        self.browser.moveCursor(QTextCursor.MoveOperation.Start)
        found = self.browser.find(text)
        self.status.setText("" if found else f"'{text}' is not on this page.")
        return found
