""" "What is …?" one click from the field or figure that uses it.

Every form row gets a What's This text (Help → What's This?, Shift+F1, then a click): the field's
own help from its metadata, and the glossary's answer where a term explains it (``present/
glossary.py``). A label whose field has such a term is a click target itself: the cursor says
so, its tooltip names the question, and a click shows the answer beside it, with a link into the
user guide. The headline cards' captions do the same for their figures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from html import escape

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QLabel, QWhatsThis, QWidget

from ...core.fields import FieldSpec
from ...io.guide import anchor_for
from ...io.loader import FileReadError
from ...present.glossary import Term, term_html, terms_for_field, terms_for_headline


def guide_href(t: Term) -> str:
    """``guide:page#anchor`` for a term's section of the user guide ('' if it cannot be found)."""
    try:
        return f"guide:{t.page}#{anchor_for(t.page, t.heading)}"
    except (KeyError, OSError, FileReadError):
        return ""


def field_html(spec: FieldSpec, terms: Iterable[Term]) -> str:
    unit = f" ({escape(spec.unit, quote=False)})" if spec.unit else ""
    label, tip = escape(spec.label, quote=False), escape(spec.tooltip, quote=False)
    own = f"<p><b>{label}</b>{unit}</p><p>{tip}</p>"
    return own + "".join(term_html(t, guide_href(t)) for t in terms)


def terms_html(terms: Iterable[Term]) -> str:
    return "".join(term_html(t, guide_href(t)) for t in terms)


class FieldHelp(QObject):
    """Answers on click (labels with a term) and What's This texts (every row); a link in an
    answer opens the guide through ``open_guide(href)``."""

    def __init__(self, open_guide: Callable[[str], None], parent: QObject | None = None):
        super().__init__(parent)
        self.open_guide = open_guide
        self.answers: dict[QWidget, str] = {}  # click targets → their answer (rich text)
        self.shown = ""  # the last answer shown (tests)

    def add_row(self, section: str, spec: FieldSpec, label: QLabel, editor: QWidget) -> None:
        terms = terms_for_field(section, spec.name)
        html = field_html(spec, terms)
        for w in (label, editor):
            w.setWhatsThis(html)
            w.installEventFilter(self)  # links in What's This balloons
        if terms:
            self._clickable(label, html, terms)

    def add_figure(self, key: str, caption: QLabel) -> None:
        terms = terms_for_headline(key)
        if terms:
            html = terms_html(terms)
            caption.setWhatsThis(html)
            caption.installEventFilter(self)
            self._clickable(caption, html, terms)

    def _clickable(self, target: QWidget, html: str, terms: tuple[Term, ...]) -> None:
        self.answers[target] = html
        target.setCursor(Qt.CursorShape.WhatsThisCursor)
        question = " / ".join(f"What is {t.title}?" for t in terms)
        tip = target.toolTip()
        target.setToolTip(f"{tip}\n\nClick: {question}" if tip else f"Click: {question}")

    def show_answer(self, target: QWidget) -> None:
        html = self.answers[target]
        self.shown = html
        QWhatsThis.showText(target.mapToGlobal(QPoint(0, target.height())), html, target)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        kind = event.type()
        if (
            kind == QEvent.Type.MouseButtonRelease
            and obj in self.answers
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.LeftButton
            and isinstance(obj, QWidget)
        ):
            self.show_answer(obj)
            return True
        if kind == QEvent.Type.WhatsThisClicked:
            href = event.href()  # type: ignore[attr-defined]
            QWhatsThis.hideText()
            self.open_guide(href)
            return True
        return False
