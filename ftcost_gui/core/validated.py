"""Input sections already validated, recognized in a new document (issue 10).

An edit changes one section of the inputs; a document validated after it (a file read again, the
CLI, a benchmark's next document) repeats the others. ``known_sections`` puts the section objects
of the last inputs validated in place of the document's sections that equal them, so pydantic
takes those objects as they are (the window's store does the same with its own sections:
gui/store._with_change) and validates the rest. The result is the one validating the whole
document gives: a section equal, field for field, to a validated one validates to it again —
pydantic's lax conversions give equal values for equal inputs (1 == 1.0 == True validate alike
for int, float and bool fields), a validated value validates to itself, and the sections' own
checks passed for those values. A section that differs in any field, misses a field or has one
more is validated in full (its errors as before). The sections are frozen, so sharing them is
safe; the estimate's memos then find them by identity.
"""

from __future__ import annotations

from typing import Any, get_args, get_origin

from pydantic import BaseModel

# The last inputs validated (EstimateInputs), newest first, each with its document's sections.
VALIDATED_MEMO: list[tuple[Any, dict[str, Any]]] = []
SIZE = 2


def _structured(cls: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``cls`` that may hold a tuple or a section (a document gives a list or a
    dict for those): every other field holds a plain value."""
    known = _STRUCTURED.get(cls)
    if known is None:

        def holds(annotation: Any) -> bool:
            if annotation is tuple or get_origin(annotation) is tuple:
                return True
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                return True
            return any(holds(a) for a in get_args(annotation))

        fields = cls.model_fields.items()
        known = _STRUCTURED[cls] = tuple(n for n, f in fields if holds(f.annotation))
    return known


_STRUCTURED: dict[type[BaseModel], tuple[str, ...]] = {}


def _equal(raw: dict[str, Any], section: BaseModel) -> bool:
    """Whether a document's section holds the validated ``section``'s values (lists for its
    tuples, dicts for its nested sections)."""
    values = section.__dict__
    if raw == values:
        return True
    if raw.keys() != values.keys():
        return False
    trial = None
    for name in _structured(type(section)):
        given, value = raw[name], values[name]
        if given == value:
            continue
        if isinstance(value, BaseModel):
            if type(given) is not dict or not _equal(given, value):
                return False
        elif type(value) is tuple and type(given) is list:
            if tuple(given) != value and not _equal_items(given, value):
                return False
        else:
            return False
        if trial is None:
            trial = dict(raw)
        trial[name] = value
    return trial is not None and trial == values


def _equal_items(given: list[Any], value: tuple[Any, ...]) -> bool:
    """A list of a document's values (dicts for sections) against a validated tuple."""
    if len(given) != len(value):
        return False
    for g, v in zip(given, value, strict=True):
        if g != v and not (isinstance(v, BaseModel) and type(g) is dict and _equal(g, v)):
            return False
    return True


def _copy(value: dict[str, Any] | list[Any]) -> Any:
    """A copy of a document's dict or list that later changes to the document do not reach."""
    out: Any = value.copy()
    for k, v in out.items() if type(out) is dict else enumerate(out):
        if type(v) is dict or type(v) is list:
            out[k] = _copy(v)
    return out


def known_sections(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``data`` with each section equal to the one of a recently validated inputs replaced by
    that section object (``data`` itself when none is), and the document's sections as given
    (copies), for ``remember``: a later document that repeats one is compared with it at once
    (dict ==), before its values are compared with the section's."""
    out = None
    raws: dict[str, Any] = {}
    for name, raw in data.items():
        if type(raw) is not dict:
            continue
        for inputs, given in VALIDATED_MEMO:
            known = given.get(name)
            section = inputs.__dict__.get(name)
            if section is None:
                continue
            if not ((known is not None and raw == known) or _equal(raw, section)):
                continue
            if out is None:
                out = dict(data)
            out[name] = section
            raws[name] = known if known is not None else _copy(raw)
            break
        else:
            raws[name] = _copy(raw)
    return (data if out is None else out), raws


def remember(inputs: Any, raws: dict[str, Any]) -> None:
    """Keep ``inputs`` (just validated from a document whose sections were ``raws``) for the
    next documents' sections."""
    VALIDATED_MEMO.insert(0, (inputs, raws))
    del VALIDATED_MEMO[SIZE:]
