"""The GPU catalog file format: one versioned JSON document per catalog (docs/catalogs.md).

``{"format": "ftcost-gpu-catalog", "version": 2, "app": "ftcost 0.1.0", "name": ...,
"description": ..., "currency": "USD", "gpus": [...]}``. Reading is strict: every field of the
document and of every row must be present with a value of its type (a missing field is an error
naming it; defaults belong to rows made new in the editor, not to reading), unknown fields are
refused, and prices in another currency are refused in one line. Older versions are migrated to
what they meant when they were written; a newer version is refused (``CatalogTooNewError``).

Version history: 1, the first release. 2 adds ``currency`` to the document and ``provider``,
``region`` and ``pricing_tier`` to each row (a version 1 row was an on-demand USD price of no
stated provider or region). 3 adds the time model's columns to each row: ``gpus_per_node``,
``network``, ``network_gbit_s``, ``rent_unit_gpus`` and the achievable matmul fraction with its
source and date (a version 2 row takes the documented rule for its vendor and generation, marked
as such; see ``_migrate_v2``). 4 adds the range of on-demand offers, ``on_demand_low_usd_per_hour``
and ``on_demand_high_usd_per_hour`` (the cost band; a version 3 row has none: ``null``).
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from pydantic import ValidationError

from .. import __version__
from ..core.catalog import (
    BUILTIN_NAME,
    CURRENCY,
    CatalogGpu,
    GpuCatalog,
    fill_time_columns,
    row_problems,
)

FORMAT = "ftcost-gpu-catalog"
VERSION = 4
MAX_NAME_LEN = 80


class CatalogError(Exception):
    """A catalog operation that cannot be done; the message says why, in one line."""


class CatalogTooNewError(CatalogError):
    """A catalog written by a newer ftcost: skipped, never moved aside."""


def check_name(name: str) -> str:
    """The name, stripped, if a user catalog may have it; else CatalogError saying why."""
    if not isinstance(name, str):
        raise CatalogError("a catalog name must be text")
    n = name.strip()
    if not n:
        raise CatalogError("a catalog name must not be empty")
    if len(n) > MAX_NAME_LEN:
        raise CatalogError(f"a catalog name must be at most {MAX_NAME_LEN} characters")
    if any(unicodedata.category(c).startswith("C") for c in n):
        raise CatalogError("a catalog name must not contain control characters")
    if n.casefold() == BUILTIN_NAME.casefold():
        raise CatalogError(f"{BUILTIN_NAME!r} is the built-in catalog's name; choose another")
    return n


def dumps_catalog(catalog: GpuCatalog) -> str:
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "app": f"ftcost {__version__}",
        "name": catalog.name,
        "description": catalog.description,
        "currency": CURRENCY,
        "gpus": [g.model_dump(mode="json") for g in catalog.gpus],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _no_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


# --- Reading: strict, with migrations ---------------------------------------------------------

_DOC_FIELDS = ("name", "description", "currency", "gpus")
_ENVELOPE = frozenset({"format", "version", "app"})
_ROW_FIELDS: tuple[str, ...] = tuple(CatalogGpu.model_fields)
# What each format version added to a row, with the value that gives an older file its old
# meaning (version 1 rows were on-demand list prices of no stated provider or region).
_ADDED_IN_V2: dict[str, Any] = {"provider": "", "region": "", "pricing_tier": "on_demand"}


def _migrate_v1(doc: dict[str, Any]) -> dict[str, Any]:
    """A version 1 document as version 2: USD prices (v1 had no other), rows on-demand."""
    doc = dict(doc)
    doc.setdefault("description", "")
    doc.setdefault("currency", CURRENCY)  # v1 read every price as USD (a value is checked below)
    gpus = doc.get("gpus")
    if isinstance(gpus, list):
        doc["gpus"] = [{**_ADDED_IN_V2, **row} if isinstance(row, dict) else row for row in gpus]
    return doc


def _migrate_v2(doc: dict[str, Any]) -> dict[str, Any]:
    """A version 2 document as version 3: the time model's columns, the achievable fraction by
    the documented rule for the row's vendor (``core.catalog.fill_time_columns``)."""
    doc = dict(doc)
    gpus = doc.get("gpus")
    if isinstance(gpus, list):
        doc["gpus"] = [
            fill_time_columns(row, " (added to a version 2 catalog row)")
            if isinstance(row, dict)
            else row
            for row in gpus
        ]
    return doc


_ADDED_IN_V4: dict[str, Any] = {
    "on_demand_low_usd_per_hour": None,
    "on_demand_high_usd_per_hour": None,
}


def _migrate_v3(doc: dict[str, Any]) -> dict[str, Any]:
    """A version 3 document as version 4: no range of offers (the price alone)."""
    doc = dict(doc)
    gpus = doc.get("gpus")
    if isinstance(gpus, list):
        doc["gpus"] = [{**_ADDED_IN_V4, **row} if isinstance(row, dict) else row for row in gpus]
    return doc


_MIGRATIONS = {1: _migrate_v1, 2: _migrate_v2, 3: _migrate_v3}


def _quoted(names: list[str], most: int = 3) -> str:
    shown = ", ".join(repr(n) for n in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _row(i: int, row: Any, source: str) -> CatalogGpu:
    """Row ``i`` of a document, every field present and of its exact type (strict)."""
    if not isinstance(row, dict):
        raise CatalogError(f"{source}: gpus.{i} is not a GPU row (an object with named fields)")
    gpu_id = row.get("id")
    which = f"gpus.{i} (id {gpu_id!r})" if isinstance(gpu_id, str) else f"gpus.{i}"
    missing = [f for f in _ROW_FIELDS if f not in row]
    if missing:
        word = "field" if len(missing) == 1 else "fields"
        raise CatalogError(
            f"{source}: {which} has no {word} {_quoted(missing)} (a catalog row names every "
            "field; see docs/catalogs.md)"
        )
    unknown = [k for k in row if k not in CatalogGpu.model_fields]
    if unknown:
        raise CatalogError(f"{source}: {which} has an unknown field {_quoted(unknown)}")
    try:
        return CatalogGpu.model_validate(row, strict=True)
    except ValidationError as exc:
        e = exc.errors()[0]
        where = ".".join(["gpus", str(i), *map(str, e["loc"])])
        msg = str(e["msg"]).removeprefix("Value error, ")
        raise CatalogError(f"{source} has an invalid value: {where}: {msg}") from None


def loads_catalog(text: str | bytes, source: str = "the file") -> GpuCatalog:
    """Parse and validate a catalog document; CatalogError names what is wrong (one line).

    Strict: every field of the document and of every row must be there with a value of its type
    (a missing field is an error naming it, never a default), and unknown fields are refused.
    Older format versions are migrated first, to what they meant when they were written.
    """
    try:
        doc: Any = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, bad UTF-8, huge ints, nesting
        raise CatalogError(f"{source} is not valid JSON (corrupt or truncated): {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CatalogError(f"{source} is not an ftcost GPU catalog (no 'format': '{FORMAT}')")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CatalogError(f"{source} has no valid format version")
    if version > VERSION:
        raise CatalogTooNewError(
            f"{source} was written by a newer ftcost (format version {version}; this one reads up "
            f"to {VERSION})"
        )
    for v in range(version, VERSION):
        doc = _MIGRATIONS[v](doc)
    missing = [k for k in _DOC_FIELDS if k not in doc]
    if missing:
        raise CatalogError(f"{source} has no {_quoted(missing)} (see docs/catalogs.md)")
    unknown = [k for k in doc if k not in _ENVELOPE and k not in _DOC_FIELDS]
    if unknown:
        raise CatalogError(f"{source} has an unknown field {_quoted(unknown)}")
    currency = doc["currency"]
    if currency != CURRENCY:
        raise CatalogError(
            f"{source} has prices in {str(currency)!r}: ftcost reads prices in US dollars only "
            f'(convert them to USD and set "currency": "{CURRENCY}")'
        )
    if not isinstance(doc["name"], str):
        raise CatalogError(f"{source} has no catalog name")
    if not isinstance(doc["description"], str):
        raise CatalogError(f"{source} has an invalid value: description: must be text")
    if not isinstance(doc["gpus"], list):
        raise CatalogError(f"{source} has an invalid value: gpus: must be a list of GPU rows")
    gpus = tuple(_row(i, row, source) for i, row in enumerate(doc["gpus"]))
    catalog = GpuCatalog(name=doc["name"], description=doc["description"], gpus=gpus)
    try:
        check_name(catalog.name)
    except CatalogError as exc:
        raise CatalogError(f"{source}: {exc}") from None
    problems = row_problems(catalog.gpus)
    if problems:
        raise CatalogError(f"{source}: {'; '.join(problems)}")
    return catalog


def peek_name(data: bytes) -> str:
    """The "name" of a catalog document this ftcost cannot read (a newer one), or ""."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return ""
    name = doc.get("name") if isinstance(doc, dict) else None
    return name if isinstance(name, str) else ""
