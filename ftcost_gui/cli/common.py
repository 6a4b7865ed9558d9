"""What every command shares: exit statuses, the one-line error and warning, the parser class."""

from __future__ import annotations

import argparse
from typing import NoReturn, TextIO

from ..io.names import for_terminal

EXIT_OK = 0
EXIT_USAGE = 2


class CliError(Exception):
    """Bad input the user can fix; the message is one line."""


def one_line(message: object) -> str:
    """A message as one clean terminal line: no control characters, no escape sequences."""
    return " ".join(for_terminal(message).split())


def warn(err: TextIO, message: object) -> None:
    err.write(f"ftcost: warning: {one_line(message)}\n")


def fail(err: TextIO, message: object) -> int:
    err.write(f"ftcost: error: {one_line(message)}\n")
    return EXIT_USAGE


class Parser(argparse.ArgumentParser):
    """argparse with its errors in the same one-line form as ours (the user's text cleaned)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"ftcost: error: {one_line(message)} (see '{self.prog} --help')\n")
