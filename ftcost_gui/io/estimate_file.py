"""Estimate files (``.ftcost``): versioned JSON holding inputs only, never results.

Version 3 (current) holds named scenarios, every input field written out::

    {"format": "ftcost-estimate", "version": 3, "app": "ftcost 0.2.0", "active": 0,
     "scenarios": [{"name": "Full FT", "inputs": {"model": {...}, "data": {...}, ...}}, ...]}

The inputs include the GPU spec and the prices used (``inputs.hardware.gpu``), so a file reopens
with the same numbers anywhere; results are always recomputed on open.

Reading is strict. Defaults belong to new documents, not to reading: a hand-edited or partly
written file with a scenario without ``inputs`` or a model without ``num_layers`` would otherwise
be estimated with the defaults of another model. So every field must be present (optional ones
as ``null``), no unknown field is accepted, and values are validated in pydantic's strict mode
(``true`` is not 1 layer, ``"1e8"`` is not a number, ``32.0`` is not a layer count); ``NaN``,
``Infinity`` and numbers beyond a float are refused while parsing. The error is one line naming the
field: ``plan.ftcost is incomplete: scenarios[0].inputs.model.num_layers is missing``.

Older versions still open, migrated in memory, one version at a time (``_MIGRATIONS``):

- version 1 held one ``"inputs"`` object (``_migrate_v1_to_v2``);
- version 2 is version 3 without the input fields added since (``_migrate_v2_to_v3``).

Adding an input field (the rule of PROTOCOL.md)
-----------------------------------------------
A new field makes every older file incomplete, so it MUST be added to ``V3_NEW_FIELDS`` below,
keyed by its dotted path inside ``inputs`` (``"training.some_field"``), with the value that
reproduces how files written before it were estimated: the OLD behaviour, which is not
necessarily the new default. Then add a test that a version-2 file gives the same figures as
before (see ``tests/io/test_estimate_file.py``: the v2 fixture and ``test_v2_to_v3_*``).
``tests/io/test_estimate_file.py::test_every_input_field_is_written_or_migrated`` fails until the
field is listed.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

from .. import __version__
from ..core.document import EstimateDocument
from ..core.inputs import EstimateInputs
from . import migrate_objective
from .atomic import atomic_write_text
from .loader import ESTIMATE, FileReadError, read_bytes
from .migrate_objective import OBJECTIVE_V2_VALUES
from .names import path_name, storable

FORMAT = "ftcost-estimate"
VERSION = 3
SUFFIX = ".ftcost"


class EstimateFileError(Exception):
    """A file that cannot be opened as an estimate; the message says why, in one line."""


def _storable(value: Any) -> Any:
    """Every string of a dumped document as a UTF-8 file can hold it (``names.storable``)."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {k: _storable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_storable(v) for v in value]
    return value


def dumps_document(document: EstimateDocument) -> str:
    """The file's text. A name holding a lone surrogate (a non-UTF-8 file name decoded with
    surrogateescape) is written with U+FFFD in its place: the reader refuses lone surrogates,
    and a saved file must always open again."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "app": f"ftcost {__version__}",
        "active": document.active,
        "scenarios": [
            {"name": s.name, "inputs": s.inputs.model_dump(mode="json")} for s in document.scenarios
        ],
    }
    return json.dumps(_storable(doc), indent=2) + "\n"


def dumps_estimate(inputs: EstimateInputs) -> str:
    """A one-scenario document."""
    return dumps_document(EstimateDocument.single(inputs))


# --- Migrations: version n -> n + 1, in memory --------------------------------------------------

# Input fields added in version 3, by dotted path inside ``inputs``, with the value that gives
# files written before them their OLD behaviour (see the module docstring). Keep the comment
# that says who added each and why that value.
V3_NEW_FIELDS: dict[str, Any] = {
    # rl (issue 15): the objective section; SFT with generation by article 000's rule is what
    # version 2 did (io/migrate_objective.py, which also replaces overheads.rl_generation_ratio).
    **{f"objective.{name}": value for name, value in OBJECTIVE_V2_VALUES.items()},
    # time (issue 11). Format 2 files padded every unpacked example to the max length at the mean
    # length (no spread), billed the GPUs used, took the node size from hardware.gpus_per_node
    # (always written), applied their MFU to the vendor peak (achievable 1.0 keeps that exact),
    # and charged the articles' flat communication table. data.padding comes from data.packing
    # (``_packing_to_padding``); the value here is only for a file without it.
    "data.padding": "max_length",
    "data.length_cv": 0.0,
    "hardware.rent_whole_units": False,
    "hardware.near_limit_fraction": 0.05,  # a flag, no figure depends on it
    "hardware.price_origin": "",  # unknown: the report says the prices are the file's own
    "hardware.gpu.gpus_per_node": 8,  # unused: hardware.gpus_per_node is in every format 2 file
    "hardware.gpu.network": "infiniband",  # unused by the flat table
    "hardware.gpu.network_gbit_s": 3200.0,
    "hardware.gpu.rent_unit_gpus": 1,
    "hardware.gpu.achievable_fraction": 1.0,
    "hardware.gpu.achievable_source": "not in the file (format 2): its MFU is of the vendor peak",
    "hardware.gpu.achievable_as_of": "",
    # ux (issue 16): the catalog row's tier travels with its price; format 2 priced on-demand.
    "hardware.gpu.pricing_tier": "on_demand",
    "efficiency.stack_efficiency": None,
    "efficiency.communication": "table",
    "efficiency.comm_overlap": None,
    # measure (issue 10): PEFT's default fp32 adapters (16 B per parameter) and separate q/k/v
    # projections, which the old core assumed for every file.
    "training.adapter_dtype": "fp32",
    "model.fused_qkv": False,
    # dataset (issue 14): a measured length histogram; format 2 files had none (their length
    # spread, or no spread, decides the padding as before).
    "data.length_histogram": None,
    # dataset (issue 14): the GPU's range of on-demand offers (the cost band); none before.
    "hardware.gpu.on_demand_low_usd_per_hour": None,
    "hardware.gpu.on_demand_high_usd_per_hour": None,
}


def _packing_to_padding(inputs: dict[str, Any]) -> None:
    """time (issue 11): packing on/off became the batching rule; off padded every row to the max
    length."""
    data = inputs.get("data")
    if isinstance(data, dict) and "packing" in data:
        data.setdefault("padding", "pack" if data.pop("packing") is True else "max_length")


# Rewrites of one scenario's inputs before the new fields are filled (fields removed or replaced).
V3_REWRITES: tuple[Callable[[dict[str, Any]], None], ...] = (
    migrate_objective.v2_inputs,
    _packing_to_padding,
)
# Version-2 fields those rewrites take away.
# Each with what version 2 allowed: checked as strictly as any field before a rewrite reads it
# (a lax rewrite would read "packing": 1 as off, or skip a missing ratio silently).
V3_REMOVED_FIELD_KINDS: dict[str, tuple[str, float, float]] = {
    "overheads.rl_generation_ratio": ("number", 0.0, 1000.0),
    "data.packing": ("bool", 0.0, 0.0),
}
V3_REMOVED_FIELDS = frozenset(V3_REMOVED_FIELD_KINDS)


def _check_removed_fields(inputs: dict[str, Any], where: str) -> None:
    """Version-2 fields the rewrites consume: present and of their version-2 type and range."""
    for path, (kind, lo, hi) in V3_REMOVED_FIELD_KINDS.items():
        *parents, name = path.split(".")
        section: Any = inputs
        for part in parents:
            section = section.get(part) if isinstance(section, dict) else None
        if not isinstance(section, dict):
            continue  # the missing section is reported after migration
        if name not in section:
            raise ValueError(f"no {where}.{path}")
        value = section[name]
        if kind == "bool" and not isinstance(value, bool):
            raise ValueError(f"{where}.{path} = {value!r}, which is not true or false")
        if kind == "number" and (
            isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi
        ):
            raise ValueError(f"{where}.{path} = {value!r}, which is not a number from {lo} to {hi}")


def _migrate_v1_to_v2(doc: dict[str, Any]) -> dict[str, Any]:
    inputs = doc.get("inputs")
    if not isinstance(inputs, dict):
        raise ValueError("no 'inputs' section")
    rest = {k: v for k, v in doc.items() if k != "inputs"}
    return {
        **rest,
        "version": 2,
        "active": 0,
        "scenarios": [{"name": "Scenario 1", "inputs": inputs}],
    }


def _migrate_v2_to_v3(doc: dict[str, Any]) -> dict[str, Any]:
    scenarios = doc.get("scenarios")
    if isinstance(scenarios, list):
        for i, scenario in enumerate(scenarios):
            inputs = scenario.get("inputs") if isinstance(scenario, dict) else None
            if isinstance(inputs, dict):
                _check_removed_fields(inputs, f"scenarios[{i}].inputs")
                for rewrite in V3_REWRITES:
                    rewrite(inputs)
                for path, old_value in V3_NEW_FIELDS.items():
                    *parents, name = path.split(".")
                    section: Any = inputs
                    for part in parents:
                        section = section.get(part) if isinstance(section, dict) else None
                    if isinstance(section, dict):  # a missing section is reported, not made up
                        section.setdefault(name, old_value)
    return {**doc, "version": 3}


_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _migrate_v1_to_v2,
    2: _migrate_v2_to_v3,
}


# --- Strict reading ------------------------------------------------------------------------------

_TOP_LEVEL = {"format", "version", "app", "active", "scenarios"}


class _NotANumber(ValueError):
    pass


def _no_constant(name: str) -> float:
    raise _NotANumber(f"holds {name}, which is not a number ftcost reads")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotANumber(f"holds the number {text[:40]}, beyond the range of a float")
    return value


def _parse(text: str | bytes, source: str) -> Any:
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except _NotANumber as exc:
        raise EstimateFileError(f"{source} {exc}.") from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, bad UTF-8, huge ints, nesting
        raise EstimateFileError(
            f"{source} is not valid JSON (corrupt or truncated): {exc}"
        ) from None


def _where(loc: tuple[Any, ...] | list[Any]) -> str:
    """('scenarios', 0, 'inputs', 'model') -> 'scenarios[0].inputs.model'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
    return out


def _nested_model(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """(the model a field holds, whether it holds a sequence of them), else (None, False)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _nested_model(args[0]) if len(args) == 1 else (None, False)
    if origin is tuple:
        items = typing.get_args(annotation)
        if len(items) == 2 and items[1] is Ellipsis:
            inner, _ = _nested_model(items[0])
            return inner, inner is not None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    return None, False


_Field = tuple[str, type[BaseModel] | None, bool]  # name, the model it holds, a sequence of them


@functools.cache
def _fields(model: type[BaseModel]) -> tuple[tuple[_Field, ...], frozenset[str]]:
    """The model's fields as ``_Field``s, and their names: worked out once per model, not per
    object read (a 200-scenario file has ~2,600 nested objects, ~31,000 fields; issue 17)."""
    fields = model.model_fields
    return (
        tuple((name, *_nested_model(info.annotation)) for name, info in fields.items()),
        frozenset(fields),
    )


def _completeness(model: type[BaseModel], value: Any, loc: tuple[Any, ...]) -> Iterator[str]:
    """Every field of the model missing from value, and every key it does not know."""
    if not isinstance(value, dict):
        return  # the wrong type is the validator's to report
    fields, known = _fields(model)
    for name, inner, many in fields:
        if name not in value:
            yield f"{_where((*loc, name))} is missing"
            continue
        if inner is None:
            continue
        if many and isinstance(value[name], list):
            for i, item in enumerate(value[name]):
                yield from _completeness(inner, item, (*loc, name, i))
        elif not many:
            yield from _completeness(inner, value[name], (*loc, name))
    for key in value:
        if key not in known:
            yield f"{_where((*loc, str(key)))} is not a field ftcost knows"  # no " is missing"


# In JSON written with ``ensure_ascii`` every character outside ASCII is a \uXXXX escape, lower
# case, so any surrogate of any string (or key) shows as "\ud8".."\udf" (a pair too: then the
# walk below decides).
_SURROGATE_ESCAPE = re.compile(r"\\ud[89a-f]")


def _broken_text(value: Any, loc: tuple[Any, ...]) -> str | None:
    """Where a string holds a lone surrogate (JSON's "\\udcff"): not text, and not writable."""
    if isinstance(value, str):
        return _where(loc) if any("\ud800" <= c <= "\udfff" for c in value) else None
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        found = _broken_text(item, (*loc, key))
        if found is not None:
            return found
    return None


def loads_document(text: str | bytes, source: str = "the file") -> EstimateDocument:
    """Parse, migrate and validate strictly; EstimateFileError names what is wrong, in one line."""
    doc = _parse(text, source)
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
    unknown = sorted(str(k) for k in doc if k not in _TOP_LEVEL)
    if unknown:
        raise EstimateFileError(f"{source} has {unknown[0]!r}, which is not a field ftcost knows.")
    body = {k: doc[k] for k in ("scenarios", "active") if k in doc}
    problems = list(_completeness(EstimateDocument, body, ()))
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        what = (
            "is incomplete" if problems[0].endswith(" is missing") else "is not as ftcost wrote it"
        )
        raise EstimateFileError(f"{source} {what}: {problems[0]}{more}.")
    encoded = json.dumps(body)  # ensure_ascii: what the validator reads, and the quick test
    broken = _broken_text(body, ()) if _SURROGATE_ESCAPE.search(encoded) else None
    if broken is not None:
        raise EstimateFileError(
            f"{source} has an invalid value: {broken}: a lone UTF-16 surrogate is not text."
        )
    try:
        return EstimateDocument.model_validate_json(encoded, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _where(first["loc"])
        msg = str(first["msg"]).removeprefix("Value error, ")
        raise EstimateFileError(
            f"{source} has an invalid value: {where + ': ' if where else ''}{msg}"
        ) from None


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
