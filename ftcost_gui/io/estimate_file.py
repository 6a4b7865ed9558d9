"""Estimate files (``.ftcost``): versioned JSON holding the inputs only.

``{"format": "ftcost-estimate", "version": 1, "app": "ftcost 0.1.0", "inputs": {...}}``. The inputs
include the GPU spec and the prices used (``inputs.hardware.gpu``), so a file reopens with the same
numbers anywhere; results are always recomputed, never read from the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .. import __version__
from ..core.inputs import EstimateInputs
from .atomic import atomic_write_text

FORMAT = "ftcost-estimate"
VERSION = 1
SUFFIX = ".ftcost"


class EstimateFileError(Exception):
    """A file that cannot be opened as an estimate; the message says why, in one line."""


def dumps_estimate(inputs: EstimateInputs) -> str:
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "app": f"ftcost {__version__}",
        "inputs": inputs.model_dump(mode="json"),
    }
    return json.dumps(doc, indent=2) + "\n"


def _describe(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else first["msg"]


def loads_estimate(text: str | bytes, source: str = "the file") -> EstimateInputs:
    """Parse and validate an estimate document; EstimateFileError names what is wrong."""
    try:
        doc: Any = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise EstimateFileError(
            f"{source} is not valid JSON (corrupt or truncated): {exc}"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise EstimateFileError(
            f"{source} is not an ftcost estimate file (no 'format': '{FORMAT}')."
        )
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise EstimateFileError(f"{source} has no valid format version.")
    if version > VERSION:
        raise EstimateFileError(
            f"{source} was written by a newer ftcost (format version {version}; this one reads up "
            f"to {VERSION}). Update ftcost to open it."
        )
    inputs = doc.get("inputs")
    if not isinstance(inputs, dict):
        raise EstimateFileError(f"{source} has no 'inputs' section.")
    try:
        return EstimateInputs.model_validate(inputs)
    except ValidationError as exc:
        raise EstimateFileError(f"{source} has an invalid value: {_describe(exc)}") from None


def save_estimate(path: str | os.PathLike[str], inputs: EstimateInputs) -> None:
    atomic_write_text(path, dumps_estimate(inputs))


def load_estimate(path: str | os.PathLike[str]) -> EstimateInputs:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise EstimateFileError(f"cannot read {p}: {exc.strerror or exc}") from None
    return loads_estimate(data, source=p.name)
