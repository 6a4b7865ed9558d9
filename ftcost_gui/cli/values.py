"""Parse one flag's text into a field's value: strict, finite, one-line errors.

argparse calls these as ``type=``; an ``ArgumentTypeError`` becomes
``ftcost: error: argument --flag: <message>``. Ranges are not checked here: the pydantic model
checks them (with the field's name) so a flag and a file value are refused by the same rule.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Words that clear an optional field (an empty value is an error: it is usually a typo).
NONE_WORDS = ("none", "null")
_SHOWN = 40  # characters of a bad value quoted back in an error


def quoted(text: str) -> str:
    """The user's text for an error line: repr (no control characters), shortened."""
    if len(text) > _SHOWN:
        text = text[:_SHOWN] + "…"
    return repr(text)


@dataclass(frozen=True, slots=True, eq=False)
class Number:
    """A finite int or float; ``optional`` also takes 'none' (or 'null') for None."""

    integer: bool
    optional: bool = False

    def __call__(self, text: str) -> float | int | None:
        t = text.strip()
        if self.optional and t.lower() in NONE_WORDS:
            return None
        if not t:
            raise argparse.ArgumentTypeError(
                "a number is required" + (" (or 'none')" if self.optional else "")
            )
        return self._whole(t) if self.integer else self._real(t)

    @staticmethod
    def _float(t: str) -> float:
        try:
            x = float(t)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {quoted(t)}") from None
        if not math.isfinite(x):
            raise argparse.ArgumentTypeError(f"not a finite number: {quoted(t)}")
        return x + 0.0  # -0.0 -> 0.0: a sign on zero means nothing here

    def _real(self, t: str) -> float:
        return self._float(t)

    def _whole(self, t: str) -> int:
        try:
            return int(t)
        except ValueError:
            pass  # "2e4" is a whole number too; more digits than int() reads end up infinite
        x = self._float(t)
        if x != math.floor(x):
            raise argparse.ArgumentTypeError(f"not a whole number: {quoted(t)}")
        return int(x)


@dataclass(frozen=True, slots=True, eq=False)
class Choice:
    """One of ``choices`` (any case), or an alias of one (``aliases``: shown name -> value)."""

    choices: Sequence[str]
    aliases: Mapping[str, str]

    @property
    def shown(self) -> tuple[str, ...]:
        """The names help shows: the aliases where there are some, else the values."""
        return tuple(self.aliases) if self.aliases else tuple(self.choices)

    def __call__(self, text: str) -> str:
        key = text.strip().casefold()
        for name, value in self.aliases.items():
            if key == name.casefold():
                return value
        for value in self.choices:
            if key == value.casefold():
                return value
        listed = ", ".join(repr(c) for c in self.shown)
        raise argparse.ArgumentTypeError(f"invalid choice: {quoted(text)} (choose from {listed})")


@dataclass(frozen=True, slots=True, eq=False)
class TextList:
    """Comma-separated names (each checked by the model, which names the bad one)."""

    example: str

    def __call__(self, text: str) -> list[str]:
        items = [t.strip() for t in text.split(",") if t.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"needs at least one name, e.g. {self.example}")
        return items


@dataclass(frozen=True, slots=True, eq=False)
class Text:
    """A non-empty name or key (a GPU, a model, a catalog, a scenario)."""

    what: str

    def __call__(self, text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{self.what} must not be empty")
        return text
