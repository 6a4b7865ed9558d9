"""Estimate files (``.ftcost``): versioned JSON holding inputs only, never results.

Version 2 (current) holds named scenarios::

    {"format": "ftcost-estimate", "version": 2, "app": "ftcost 0.1.0", "active": 0,
     "scenarios": [{"name": "Full FT", "inputs": {...}}, ...]}

Version 1 held one ``"inputs"`` object; it still opens and is migrated in memory
(``_migrate_v1_to_v2``). The inputs include the GPU spec and the prices used
(``inputs.hardware.gpu``), so a file reopens with the same numbers anywhere; results are always
recomputed on open.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from .. import __version__
from ..core.document import EstimateDocument
from ..core.errors import first_error
from ..core.inputs import EstimateInputs
from .atomic import atomic_write_text
from .loader import ESTIMATE, FileReadError, read_bytes
from .names import path_name

FORMAT = "ftcost-estimate"
VERSION = 2
SUFFIX = ".ftcost"


class EstimateFileError(Exception):
    """A file that cannot be opened as an estimate; the message says why, in one line."""


def dumps_document(document: EstimateDocument) -> str:
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "app": f"ftcost {__version__}",
        "active": document.active,
        "scenarios": [
            {"name": s.name, "inputs": s.inputs.model_dump(mode="json")} for s in document.scenarios
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


def dumps_estimate(inputs: EstimateInputs) -> str:
    """A one-scenario document."""
    return dumps_document(EstimateDocument.single(inputs))


def _migrate_v1_to_v2(doc: dict[str, Any]) -> dict[str, Any]:
    inputs = doc.get("inputs")
    if not isinstance(inputs, dict):
        raise ValueError("no 'inputs' section")
    return {
        **doc,
        "version": 2,
        "active": 0,
        "scenarios": [{"name": "Scenario 1", "inputs": inputs}],
    }


_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _migrate_v1_to_v2}


def loads_document(text: str | bytes, source: str = "the file") -> EstimateDocument:
    """Parse, migrate and validate; EstimateFileError names what is wrong."""
    try:
        doc: Any = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, bad UTF-8, huge ints, nesting
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
    while version < VERSION:
        try:
            doc = _MIGRATIONS[version](doc)
        except ValueError as exc:
            raise EstimateFileError(f"{source} (format version {version}) has {exc}.") from None
        version = doc["version"]
    if not isinstance(doc.get("scenarios"), list):
        raise EstimateFileError(f"{source} has no 'scenarios' list.")
    try:
        return EstimateDocument.model_validate(
            {"scenarios": doc["scenarios"], "active": doc.get("active", 0)}
        )
    except ValidationError as exc:
        raise EstimateFileError(f"{source} has an invalid value: {first_error(exc)}") from None


def loads_estimate(text: str | bytes, source: str = "the file") -> EstimateInputs:
    """The active scenario's inputs."""
    return loads_document(text, source).current.inputs


def save_document(path: str | os.PathLike[str], document: EstimateDocument) -> None:
    atomic_write_text(path, dumps_document(document))


def save_estimate(path: str | os.PathLike[str], inputs: EstimateInputs) -> None:
    save_document(path, EstimateDocument.single(inputs))


def load_document(path: str | os.PathLike[str]) -> EstimateDocument:
    try:
        data = read_bytes(path, ESTIMATE)
    except FileReadError as exc:
        raise EstimateFileError(str(exc)) from None
    return loads_document(data, source=path_name(path))


def load_estimate(path: str | os.PathLike[str]) -> EstimateInputs:
    return load_document(path).current.inputs
