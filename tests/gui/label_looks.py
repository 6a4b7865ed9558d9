"""Changes to what QLabel measures a text with, shared by the tests of labels that keep their
measures (test_label_hints.py, test_kept_hints.py): each must make them ask QLabel again."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel


def look_changes(plain: QLabel) -> list[Callable[[QLabel], None]]:
    """None first; then a bigger font than ``plain``'s, contents margins, margin and indent."""
    big = QFont(plain.font())
    big.setPointSizeF(big.pointSizeF() * 1.7)
    return [
        lambda label: None,
        lambda label: label.setFont(big),
        lambda label: label.setContentsMargins(3, 2, 7, 1),
        lambda label: label.setMargin(4),
        lambda label: label.setIndent(9),
    ]
