"""A label that measures each of its texts once: its size hints and heights are kept per text.

An edit sets the headline's labels (detail lines, ranges) and the status bar's summary, and
``QLabel`` measures the whole text again for its hints: three sizes (the hint, one line, the
widest word), each a full layout of the text, and a selectable label's text document laid out
twice for each (set, restore); a word-wrapped label again for each width a layout asks its
height at. Edits go back and forth (a check box toggled back, a choice cycled, an edit undone),
so a label's texts come back: ~7M instructions of a check-box edit's 60M were these layouts
(callgrind). What ``QLabel`` worked out is kept for the label's last few texts, while everything
else it measures with is the same and no change event (font, style, palette, …) has come in.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QLabel, QWidget

KEPT_TEXTS = 8  # a label's last texts whose measures are kept (a choice cycles ~3)

# Read through the classes' functions: ``label.margin()`` looks the method up on the Qt object
# (~1 µs each, more than the call), and the layouts ask the headline's hints ~80 times an edit.
contents_margins, label_margin, label_text = QWidget.contentsMargins, QLabel.margin, QLabel.text
_minimum_size, _maximum_size = QWidget.minimumSize, QWidget.maximumSize
_indent, _word_wrap = QLabel.indent, QLabel.wordWrap


class KeptHintsLabel(QLabel):
    """``QLabel`` whose ``sizeHint``, ``minimumSizeHint`` and ``heightForWidth`` are QLabel's,
    worked out once per text (for the last ``KEPT_TEXTS`` texts) and width."""

    # Class defaults: QLabel's constructor (and a base's, e.g. MutedLabel's palette) sends
    # change events before a subclass's __init__ could set them. ``_kept`` is set on first use
    # (no look is kept yet).
    _kept: dict[str, tuple[list[QSize], dict[int, int]]]
    _kept_look: tuple[object, ...] | None = None
    hints_measured = 0  # hint pairs worked out by QLabel (tests count them)
    layouts = 0  # heights worked out by QLabel (tests count them)

    def _measures(self) -> tuple[list[QSize], dict[int, int]]:
        """The kept measures of the current text: [sizeHint, minimumSizeHint] (empty until
        asked) and {width: height}."""
        # Read from the label, not tracked through its setters: those are not virtual, so a
        # change made from C++ (a style sheet's padding or min-width) would not pass through an
        # override. Its flags, alignment and format (slow to read: Python enums) are the
        # exception: only their setters below change them, and the direction sends an event.
        look = (
            contents_margins(self), label_margin(self), _indent(self), _word_wrap(self),
            _minimum_size(self), _maximum_size(self),
        )  # fmt: skip
        if look != self._kept_look:
            self._kept = {}
            self._kept_look = look
        text = label_text(self)
        if not text:  # "" is also a label that never had a text (no glyphs: cheap to measure)
            return [], {}
        measures = self._kept.get(text)
        if measures is None:
            if len(self._kept) >= KEPT_TEXTS:
                del self._kept[next(iter(self._kept))]  # the oldest
            measures = self._kept[text] = ([], {})
        return measures

    def _hints(self) -> list[QSize]:
        hints = self._measures()[0]
        if not hints:
            self.hints_measured += 1
            # QLabel works both out at once and keeps them until its text or look changes.
            hints += (QLabel.sizeHint(self), QLabel.minimumSizeHint(self))
        return hints

    def sizeHint(self) -> QSize:
        return QSize(self._hints()[0])

    def minimumSizeHint(self) -> QSize:
        return QSize(self._hints()[1])

    def heightForWidth(self, width: int) -> int:
        heights = self._measures()[1]
        height = heights.get(width)
        if height is None:
            self.layouts += 1
            self.ensurePolished()  # as QLabel's hints do: a style sheet's properties first
            height = heights[width] = super().heightForWidth(width)
        return height

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        self._kept_look = None  # whatever changed (font, style, direction, …): ask QLabel again

    def setTextInteractionFlags(self, flags: Qt.TextInteractionFlag) -> None:
        super().setTextInteractionFlags(flags)
        self._kept_look = None  # selectable: measured in a text document

    def setAlignment(self, alignment: Qt.AlignmentFlag) -> None:
        super().setAlignment(alignment)
        self._kept_look = None

    def setTextFormat(self, text_format: Qt.TextFormat) -> None:
        super().setTextFormat(text_format)
        self._kept_look = None
