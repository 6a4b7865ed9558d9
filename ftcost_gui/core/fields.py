"""Field metadata for forms and CLIs, read from the pydantic models (Qt-free).

The magicgui idea (``_uifield_from_pydantic2``) reduced to what ftcost needs.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel


@dataclass(frozen=True, slots=True)
class FieldSpec:
    name: str
    label: str
    tooltip: str
    unit: str
    kind: Literal["int", "float", "bool", "choice", "str", "other"]
    optional: bool
    default: Any
    minimum: float | None
    maximum: float | None
    exclusive_min: bool
    step: float | None
    decimals: int | None
    choices: tuple[str, ...]
    advanced: bool
    zero_text: str | None = None  # how the form shows 0 when 0 means "derived"
    exclusive_max: bool = False  # the maximum itself is not allowed (``lt``)


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _number(value: object) -> float:
    """A bound or a metadata number as a float (annotated-types types its bounds loosely)."""
    if not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)


def field_spec(model: type[BaseModel], name: str) -> FieldSpec:
    info = model.model_fields[name]
    ann, optional = _unwrap(info.annotation)
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    lo = hi = None
    exclusive = exclusive_hi = False
    for meta in info.metadata:
        if isinstance(meta, Ge):
            lo = _number(meta.ge)
        elif isinstance(meta, Gt):
            lo, exclusive = _number(meta.gt), True
        elif isinstance(meta, Le):
            hi = _number(meta.le)
        elif isinstance(meta, Lt):
            hi, exclusive_hi = _number(meta.lt), True
    choices: tuple[str, ...] = ()
    if typing.get_origin(ann) is Literal:
        kind = "choice"
        choices = tuple(str(a) for a in typing.get_args(ann))
    elif ann is bool:
        kind = "bool"
    elif ann is int:
        kind = "int"
    elif ann is float:
        kind = "float"
    elif ann is str:
        kind = "str"
    else:
        kind = "other"
    step = extra.get("step")
    decimals = extra.get("decimals")
    return FieldSpec(
        name=name,
        label=info.title or name,
        tooltip=info.description or "",
        unit=str(extra.get("unit", "")),
        kind=kind,  # type: ignore[arg-type]
        optional=optional,
        default=info.default,
        minimum=lo,
        maximum=hi,
        exclusive_min=exclusive,
        step=_number(step) if step is not None else None,
        decimals=int(_number(decimals)) if decimals is not None else None,
        choices=choices,
        advanced=bool(extra.get("advanced", False)),
        zero_text=str(extra["zero_text"]) if "zero_text" in extra else None,
        exclusive_max=exclusive_hi,
    )


def field_specs(model: type[BaseModel]) -> list[FieldSpec]:
    return [field_spec(model, n) for n in model.model_fields]
