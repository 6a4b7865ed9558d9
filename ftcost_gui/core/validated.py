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

from typing import Any, TypeVar, get_args, get_origin

from pydantic import BaseModel, ValidationError

from .results import _SET_DICT, _SET_EXTRA, _SET_FIELDS, _SET_PRIVATE, _new

# The last inputs validated (EstimateInputs), newest first, each with its document's sections.
VALIDATED_MEMO: list[tuple[Any, dict[str, Any]]] = []
SIZE = 2
_M = TypeVar("_M", bound=BaseModel)


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
        return len(section.__pydantic_fields_set__) == len(raw)  # as validating ``raw`` sets
    structured = _structured(type(section))
    if not structured or raw.keys() != values.keys():
        return False
    trial = None
    for name in structured:
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
    return (
        trial is not None and trial == values and len(section.__pydantic_fields_set__) == len(raw)
    )


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


def _copied_section(raw: dict[str, Any], cls: type[BaseModel]) -> dict[str, Any]:
    """``_copy(raw)`` of a document's section that validated as ``cls``: only the fields that
    may hold a tuple or a section can hold a list or a dict (``_structured``)."""
    out = raw.copy()
    for name in _structured(cls):
        value = out.get(name)
        if type(value) is dict or type(value) is list:
            out[name] = _copy(value)
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


_Shape = tuple[tuple[tuple[str, Any], ...], tuple[Any, ...]]


def _shape(cls: type[BaseModel]) -> _Shape | None:
    """(each field's name and section class, in field order; the model's "after" checks) when
    ``validate`` can make ``cls``: every field a section, no extras or private attributes, no
    validators but "after" model validators taking the model alone. None: it cannot."""
    if cls in _SHAPES:
        return _SHAPES[cls]
    shape: _Shape | None = None
    d = cls.__pydantic_decorators__
    fields = tuple((n, f.annotation) for n, f in cls.model_fields.items())
    after = tuple(v.func for v in d.model_validators.values() if v.info.mode == "after")
    if (
        all(isinstance(c, type) and issubclass(c, BaseModel) for _, c in fields)
        and all(f.alias is None and f.validation_alias is None for f in cls.model_fields.values())
        and cls.model_config.get("extra") == "forbid"
        and not (cls.__private_attributes__ or cls.__pydantic_post_init__)
        and not (d.field_validators or d.root_validators or d.validators)
        and len(after) == len(d.model_validators)
        and all(getattr(f, "__code__", None) and f.__code__.co_argcount == 1 for f in after)
    ):
        shape = (fields, after)
    _SHAPES[cls] = shape
    return shape


_SHAPES: dict[type[BaseModel], _Shape | None] = {}


def validate(cls: type[_M], data: dict[str, Any]) -> _M:
    """``cls.__pydantic_validator__.validate_python(data)`` (lax) for the inputs model ``cls``:
    the same inputs, or the same error. Sections repeated from the last inputs validated are
    those objects; see the module's text."""
    shape = _shape(cls)
    made = None if shape is None or len(data) != len(shape[0]) else _made(cls, shape, data)
    if made is not None:
        return made
    known, raws = known_sections(data)
    inputs = cls.__pydantic_validator__.validate_python(known)
    remember(inputs, raws)
    return inputs


def _made(cls: type[_M], shape: _Shape, data: dict[str, Any]) -> _M | None:
    fields, after = shape
    values: dict[str, Any] = {}
    raws: dict[str, Any] = {}
    memo = [(inputs.__dict__, given) for inputs, given in VALIDATED_MEMO]
    for name, section_cls in fields:
        raw = data.get(name)
        if type(raw) is not dict:
            return None  # missing, or a section object (pydantic runs its checks again)
        for sections, given in memo:  # a section given again as it was given
            known = given.get(name)
            if known is not None and raw == known:
                values[name] = sections[name]
                raws[name] = known
                break
        else:
            # given otherwise (1 for 1.0, lists for tuples…): the newest inputs' section alone
            # is compared field by field; any other is validated again (the same values).
            if memo and _equal(raw, memo[0][0][name]):
                known = memo[0][1].get(name)
                values[name] = memo[0][0][name]
                raws[name] = known if known is not None else _copy(raw)
                continue
            try:
                values[name] = section_cls.__pydantic_validator__.validate_python(raw)
            except ValidationError:
                return None  # the errors as pydantic words them for the whole document
            raws[name] = _copied_section(raw, section_cls)
    inputs = _new(cls)
    _SET_DICT(inputs, values)
    _SET_FIELDS(inputs, set(values))
    _SET_EXTRA(inputs, None)
    _SET_PRIVATE(inputs, None)
    try:
        for check in after:
            if check(inputs) is not inputs:
                return None
    except Exception:  # pydantic words what a check raises
        return None
    remember(inputs, raws)
    return inputs
