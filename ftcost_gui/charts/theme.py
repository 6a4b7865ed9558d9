"""Colours that follow the application's palette: plots, headline states, secondary text.

One ``Theme`` is read from a ``QPalette`` (``theme_for``): the plot paper is the palette's base
(white in a light palette, near-black in a dark one), ink its text colour, and every colour that
carries text (status greens and reds, captions, notes) is adjusted until it reads at WCAG AA
contrast (4.5:1) on the background it sits on. ``PAPER`` is the fixed light theme of reports.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from PySide6.QtGui import QColor, QPalette

AA_TEXT = 4.5  # WCAG 2.x AA for normal text (1.4.3)
AA_GRAPHICS = 3.0  # WCAG 2.x AA for lines and marks that carry meaning (1.4.11)


def _channel(c: float) -> float:
    # WCAG 2.x relative luminance: sRGB channel to linear light.
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(color: QColor | str) -> float:
    """Relative luminance (WCAG 2.x definition), 0 black … 1 white."""
    c = QColor(color)
    r, g, b = (_channel(x) for x in (c.redF(), c.greenF(), c.blueF()))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: QColor | str, b: QColor | str) -> float:
    """WCAG contrast ratio (L1 + 0.05) / (L2 + 0.05), 1 … 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def is_dark(color: QColor | str) -> bool:
    """A background on which light text reads better than dark text."""
    return contrast_ratio(color, "#ffffff") > contrast_ratio(color, "#000000")


def mix(a: QColor | str, b: QColor | str, t: float) -> QColor:
    """``a`` moved a fraction ``t`` towards ``b`` (0: a, 1: b)."""
    ca, cb = QColor(a), QColor(b)
    return QColor.fromRgbF(
        ca.redF() + (cb.redF() - ca.redF()) * t,
        ca.greenF() + (cb.greenF() - ca.greenF()) * t,
        ca.blueF() + (cb.blueF() - ca.blueF()) * t,
    )


def readable(color: QColor | str, background: QColor | str, ratio: float = AA_TEXT) -> str:
    """``color``, or the nearest step of it towards black or white that reaches ``ratio`` on
    ``background`` (towards white on a dark background, towards black on a light one)."""
    target = "#ffffff" if is_dark(background) else "#000000"
    for step in range(21):
        c = mix(color, target, step / 20)
        if contrast_ratio(c, background) >= ratio:
            return c.name()
    return QColor(target).name()


@dataclass(frozen=True)
class Theme:
    """Colours by meaning; hex strings, so the pyqtgraph calls take them as they are."""

    dark: bool
    background: str  # plot paper
    foreground: str  # axes, titles, labels
    muted: str  # secondary text: captions, notes, references
    good: str  # fits / well-tuned (text and lines)
    warn: str  # near the limit
    bad: str  # does not fit, the usable-memory line
    neutral: str  # the total-memory line, cursors
    band: str  # the well-tuned MFU band, drawn translucent under the curves

    def legend_brush(self) -> QColor:
        """The inner legends' box: the paper, slightly transparent."""
        c = QColor(self.background)
        c.setAlpha(210)
        return c


PAPER = Theme(
    dark=False,
    background="#ffffff",
    foreground="#000000",
    muted="#595959",
    good="#1b5e20",
    warn="#8a4b00",
    bad="#b71c1c",
    neutral="#424242",
    band="#2e7d32",
)
NIGHT = Theme(
    dark=True,
    background="#1e1e1e",
    foreground="#e8e8e8",
    muted="#b0b0b0",
    good="#81c784",
    warn="#ffb74d",
    bad="#ef9a9a",
    neutral="#bdbdbd",
    band="#81c784",
)


def theme_for(palette: QPalette, role: QPalette.ColorRole = QPalette.ColorRole.Base) -> Theme:
    """The theme of text and plots drawn on ``palette``'s ``role`` (Base: plots, text views;
    Window: labels on the window itself)."""
    background = palette.color(QPalette.ColorGroup.Active, role)
    r = QPalette.ColorRole
    ink_role = r.Text if role == r.Base else r.WindowText
    ink = palette.color(QPalette.ColorGroup.Active, ink_role)
    return _theme(background.name(), ink.name())


@lru_cache(maxsize=32)
def _theme(bg: str, ink: str) -> Theme:
    # Once per pair of colours: every card, muted label and plot asks at start-up and after
    # each edit (~0.5 ms each: 21 contrast steps per colour).
    base = NIGHT if is_dark(bg) else PAPER
    fg = readable(ink, bg)
    return replace(
        base,
        background=bg,
        foreground=fg,
        muted=readable(mix(fg, bg, 0.35), bg),
        good=readable(base.good, bg),
        warn=readable(base.warn, bg),
        bad=readable(base.bad, bg),
        neutral=readable(base.neutral, bg, AA_GRAPHICS),
    )
