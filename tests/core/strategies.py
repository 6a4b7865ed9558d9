"""Hypothesis strategies for the whole input space, built from the field metadata.

Every field of every input model is drawn from its declared type and range (bounds included), so
a field someone adds tomorrow is covered by the property suite without touching this file: its
range comes from ``core.fields.field_spec`` and a numeric field without one fails
``test_every_numeric_field_has_a_practical_range``.

Speed: Hypothesis spends ~70 µs per draw, and the inputs have well over 100 fields, so drawing
each field separately costs ~15 ms an example (minutes for the CI profile's 10,000). Instead one
``st.binary`` gives 4 bytes per field, decoded here by the field's metadata: ~1 ms an example,
and shrinking still works (bytes shrink towards zero, i.e. every field towards its lower bound,
``False`` and its first choice). Each field's 4 bytes pick, in their low 3 bits: the lower bound,
the upper bound, a log-uniform draw (orders of magnitude), or a uniform draw (optional fields:
``None`` too); the other 29 bits are the position within the range.

The few cross-field rules of the models (KV heads divide the query heads, a head width when the
hidden size does not split evenly, top-k within the experts) are repaired inside the fields' own
ranges; a draw that a model validator still refuses is filtered out.
"""

from __future__ import annotations

import copy
import functools
import math
import random
import types
import typing
from collections.abc import Callable
from typing import Any, Literal

from hypothesis import settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from ftcost_gui.core.fields import field_spec
from ftcost_gui.core.histogram import MAX_BINS, MAX_COUNT, MAX_EDGE, LengthHistogram
from ftcost_gui.core.inputs import EstimateInputs

# Names are data from strangers: drawn from these (io/names.py's tests draw arbitrary text).
NAMES = (
    "Llama-3.1 8B",
    '=HYPERLINK("http://e.vil")',
    "<script>alert(1)</script> **bold** | cell",
    "\x1b[2J\x1b]0;pwned\x07 name",
    "abc\u202edcba",
    "\udcff\udcfe not utf-8",
    "-1+2",
    "@SUM(A1)",
    "",
    "中文 · é",
    "x" * 300,
    "line\nbreak\ttab",
)

BYTES_PER_FIELD = 4
_FRACTION_BITS = 29
Decoder = Callable[[int], Any]


def _nested(annotation: Any) -> type[BaseModel] | None:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _literal_tuple(annotation: Any) -> tuple[str, ...] | None:
    """The choices of a ``tuple[Literal[...], ...]`` field (LoRA targets), else None."""
    if typing.get_origin(annotation) is tuple:
        args = typing.get_args(annotation)
        if len(args) == 2 and args[1] is Ellipsis and typing.get_origin(args[0]) is Literal:
            return tuple(typing.get_args(args[0]))
    return None


def bounds(model: type[BaseModel], name: str) -> tuple[float, float]:
    """The closed range a numeric field accepts (exclusive bounds moved to the next float)."""
    spec = field_spec(model, name)
    assert spec.minimum is not None and spec.maximum is not None, (
        f"{model.__name__}.{name} has no practical range: give it ge/le (issue 12)"
    )
    lo, hi = spec.minimum, spec.maximum
    if spec.exclusive_min:
        lo = math.nextafter(lo, math.inf)
    if spec.exclusive_max:
        hi = math.nextafter(hi, -math.inf)
    return lo, hi


def _position(lo: float, hi: float, how: int, fraction: float) -> float:
    """A value in [lo, hi]: a bound, log-uniform, or uniform."""
    if how == 0:
        return lo
    if how == 1:
        return hi
    if how in (2, 3, 4):  # log-uniform: every order of magnitude as likely
        low = lo if lo > 0 else min(1e-12, hi)
        if hi > low:
            return min(hi, max(lo, math.exp(math.log(low) + fraction * math.log(hi / low))))
    return min(hi, max(lo, lo + fraction * (hi - lo)))


def _numeric_decoder(lo: float, hi: float, integer: bool, optional: bool) -> Decoder:
    def decode(code: int) -> Any:
        how = code & 7
        if optional and how == 7:
            return None
        value = _position(lo, hi, how, (code >> 3) / (1 << _FRACTION_BITS))
        if integer:
            return min(math.floor(hi), max(math.ceil(lo), round(value)))
        return value

    return decode


def _histogram(code: int) -> dict[str, Any] | None:
    """A length histogram (core/histogram.py) seeded by the field's 4 bytes: None (no
    measurement, the default) when the low 3 bits are 0; else bins anywhere in the allowed range,
    edges and counts at their bounds included."""
    how = code & 7
    if how == 0:
        return None
    rng = random.Random(code)
    bins = 1 if how == 1 else MAX_BINS if how == 2 else rng.randint(1, 64)
    top = MAX_EDGE if how in (2, 3) else rng.choice((bins, 100, 10_000, 10**6))
    top = max(top, bins)
    edges = (
        sorted(rng.sample(range(top + 1), bins + 1))
        if how != 2
        else [round(i * MAX_EDGE / bins) for i in range(bins + 1)]
    )
    if how == 4:
        edges[0] = 0  # a bin of empty examples
    counts = [rng.choice((0, 1, rng.randint(0, 10**6), MAX_COUNT)) for _ in range(bins)]
    counts[rng.randrange(bins)] = max(1, counts[0])
    return {"edges": edges, "counts": counts, "source": NAMES[code % len(NAMES)]}


# Input fields that are whole models with rules between their parts: drawn as one field.
COMPOSITE: dict[type[BaseModel], Decoder] = {LengthHistogram: _histogram}


def _field_decoder(model: type[BaseModel], name: str) -> Decoder | list[tuple[str, Any]]:
    info = model.model_fields[name]
    nested = _nested(info.annotation)
    if nested in COMPOSITE:
        return COMPOSITE[nested]
    targets = _literal_tuple(info.annotation)
    if targets is not None:
        return lambda code: [t for i, t in enumerate(targets) if code >> i & 1] or [targets[0]]
    spec = field_spec(model, name)
    if spec.kind in ("int", "float"):
        lo, hi = bounds(model, name)
        return _numeric_decoder(lo, hi, spec.kind == "int", spec.optional)
    if spec.kind == "bool":
        return lambda code: bool(code & 1)
    if spec.kind == "choice":
        choices = spec.choices
        return lambda code: choices[code % len(choices)]
    if spec.kind == "str":
        return lambda code: NAMES[code % len(NAMES)]
    raise AssertionError(f"{model.__name__}.{name}: no strategy for {info.annotation!r}")


@functools.cache
def layout(model: type[BaseModel] = EstimateInputs) -> tuple[tuple[tuple[str, ...], Decoder], ...]:
    """(path inside the document, decoder) of every leaf field, in a fixed order."""
    out: list[tuple[tuple[str, ...], Decoder]] = []

    def walk(m: type[BaseModel], path: tuple[str, ...]) -> None:
        for name, info in m.model_fields.items():
            nested = _nested(info.annotation)
            if nested is not None and nested not in COMPOSITE:
                walk(nested, (*path, name))
            else:
                out.append(((*path, name), _field_decoder(m, name)))  # type: ignore[arg-type]

    walk(model, ())
    return tuple(out)


def decode(raw: bytes) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for i, (path, decoder) in enumerate(layout()):
        code = int.from_bytes(raw[i * BYTES_PER_FIELD : (i + 1) * BYTES_PER_FIELD], "little")
        node = doc
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = decoder(code)
    return doc


def _largest_divisor_at_most(n: int, k: int) -> int:
    return max(d for d in range(1, min(n, max(k, 1)) + 1) if n % d == 0)


def repair(doc: dict[str, Any]) -> dict[str, Any]:
    """Make the model's cross-field rules hold, staying inside every field's range."""
    m = doc["model"]
    heads = m["num_attention_heads"]
    m["num_kv_heads"] = _largest_divisor_at_most(heads, m["num_kv_heads"])
    if m["head_dim"] == 0 and m["hidden_size"] % heads:
        m["head_dim"] = max(1, m["hidden_size"] // heads)
    if m["num_experts"]:
        m["experts_per_token"] = min(max(m["experts_per_token"], 1), m["num_experts"])
        m["expert_intermediate_size"] = max(m["expert_intermediate_size"], 1)
    return doc


def input_docs() -> st.SearchStrategy[dict[str, Any]]:
    """A dict of every input field (before validation), over the whole declared space."""
    size = BYTES_PER_FIELD * len(layout())
    return st.binary(min_size=size, max_size=size).map(decode).map(repair)


def section_docs(*section: str) -> st.SearchStrategy[dict[str, Any]]:
    """The fields of one section (e.g. ``"objective"``), drawn as ``input_docs`` draws them."""
    return input_docs().map(lambda doc: functools.reduce(dict.__getitem__, section, doc))


def _validated(doc: dict[str, Any]) -> EstimateInputs | None:
    try:
        return EstimateInputs.model_validate(doc)
    except ValidationError:
        return None


def one_field_edited(
    doc: dict[str, Any], index: int, code: int
) -> tuple[EstimateInputs, EstimateInputs] | None:
    """(the inputs of ``doc``, the same with the field ``layout()[index]`` decoded from
    ``code``: the window's edit of one field); None where either is not valid."""
    first = _validated(copy.deepcopy(doc))
    path, decode = layout()[index]
    node = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = decode(code)
    edited = _validated(repair(doc))
    return None if first is None or edited is None else (first, edited)


def one_field_edits() -> st.SearchStrategy[tuple[EstimateInputs, EstimateInputs]]:
    """``one_field_edited`` pairs drawn over the whole space, each field in turn."""
    pairs = st.builds(
        one_field_edited, input_docs(), st.integers(0, len(layout()) - 1),
        st.integers(0, 2**32 - 1),
    )  # fmt: skip
    return pairs.filter(lambda x: x is not None)  # type: ignore[return-value]


def inputs_anywhere() -> st.SearchStrategy[EstimateInputs]:
    """Valid inputs from anywhere in the declared space."""
    return input_docs().map(_validated).filter(lambda x: x is not None)  # type: ignore[return-value]


def replaced(inputs: EstimateInputs, **values: Any) -> EstimateInputs:
    """A validated copy with fields replaced, by dotted path with ``__`` for the dots
    (``hardware__gpu__memory_gib=80``)."""
    doc = inputs.model_dump()
    for key, value in values.items():
        *path, name = key.split("__")
        functools.reduce(dict.__getitem__, path, doc)[name] = value
    return EstimateInputs.model_validate(doc)


def examples(share: float, least: int = 50) -> int:
    """A property's example count: ``share`` of the active profile's (tests/conftest.py: the
    whole-input-space property runs the profile's full count, each narrower property a share)."""
    return max(least, round(settings.default.max_examples * share))


def numeric_fields() -> list[tuple[tuple[str, ...], type[BaseModel], str]]:
    """(path of the section, model, field) of every int/float input field, nested included."""
    out: list[tuple[tuple[str, ...], type[BaseModel], str]] = []

    def walk(model: type[BaseModel], path: tuple[str, ...]) -> None:
        for name, info in model.model_fields.items():
            nested = _nested(info.annotation)
            if nested in COMPOSITE:
                continue
            if nested is not None:
                walk(nested, (*path, name))
            elif field_spec(model, name).kind in ("int", "float"):
                out.append((path, model, name))

    walk(EstimateInputs, ())
    return out
