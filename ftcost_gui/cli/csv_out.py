"""``ftcost estimate --csv [PATH|-]``: the result as CSV (Qt-free helpers for cli.py).

The CSV is ``io.export_csv``'s (scenario, section, key, value, unit), floats written with repr so
they read back exactly. ``--csv`` alone or ``--csv -`` writes to standard output instead of the
table; ``--csv PATH`` writes the file and still prints the table (or the JSON).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..core.results import EstimateResult
from ..io.estimate_file import SUFFIX, EstimateFileError, load_document
from ..io.export_csv import results_csv, write_results_csv

STDOUT = "-"


class CsvOutputError(Exception):
    """The CSV cannot be written; the message is one line."""


def add_csv_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--csv",
        nargs="?",
        const=STDOUT,
        default=None,
        metavar="PATH",
        help="write the result as CSV (scenario, section, key, value, unit) to PATH, or to "
        "standard output instead of the table with '-' or no PATH",
    )


def scenario_name(args: argparse.Namespace, default: str = "estimate") -> str:
    """The name of FILE's selected scenario (the one estimated), else ``default``."""
    path = getattr(args, "file", None)
    if not path:
        return default
    try:
        return load_document(path).current.name
    except EstimateFileError:
        return default


def emit_csv(target: str | None, named: list[tuple[str, EstimateResult]], out: Any) -> bool:
    """Write the CSV; True when it went to ``out`` (then print nothing else)."""
    if target is None:
        return False
    if target == STDOUT:
        out.write(results_csv(named))
        return True
    try:
        write_results_csv(target, named)
    except OSError as exc:
        raise CsvOutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    return False


def check_csv_args(args: argparse.Namespace) -> None:
    """``--csv -`` and ``--json`` both want standard output."""
    target = getattr(args, "csv", None)
    if target == STDOUT and getattr(args, "json", False):
        raise CsvOutputError("--csv to standard output and --json cannot be combined")
    if target and target.endswith(SUFFIX) and not getattr(args, "file", None):
        raise CsvOutputError(
            f"--csv takes the output path: put FILE before --csv ('ftcost estimate {target} --csv')"
        )
