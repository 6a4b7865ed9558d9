"""Every input field has a practical range the core can compute (issue 12): `gt=0` admitted
5e-324, which overflowed to infinite held time and NaN GPU counts."""

from __future__ import annotations

import math

import pytest
from pydantic import BaseModel, ValidationError

from ftcost_gui.core import EstimateInputs, estimate

from .strategies import bounds, numeric_fields, repair

FIELDS = numeric_fields()


def _walk(obj, path=""):
    if isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            yield from _walk(getattr(obj, name), f"{path}.{name}")
    elif isinstance(obj, tuple | list):
        for i, v in enumerate(obj):
            yield from _walk(v, f"{path}[{i}]")
    else:
        yield path, obj


def finite_figures(inputs: EstimateInputs) -> list[str]:
    """The result's numbers that are not finite (their paths)."""
    return [
        path
        for path, v in _walk(estimate(inputs))
        if isinstance(v, int | float) and not isinstance(v, bool) and not math.isfinite(v)
    ]


def _with(path: tuple[str, ...], name: str, value) -> dict:
    doc = EstimateInputs().model_dump()
    node = doc
    for part in path:
        node = node[part]
    node[name] = value
    return repair(doc)


def test_every_numeric_field_has_a_practical_range():
    for path, model, name in FIELDS:
        lo, hi = bounds(model, name)  # asserts both exist
        assert math.isfinite(lo) and math.isfinite(hi) and lo < hi, (path, name)
        assert lo == 0 or lo >= 1e-6, f"{'.'.join(path)}.{name}: lower bound {lo} is not practical"


@pytest.mark.parametrize(
    ("path", "model", "name"), FIELDS, ids=[".".join((*p, n)) for p, _, n in FIELDS]
)
def test_each_field_at_its_bounds_gives_finite_figures(path, model, name):
    lo, hi = bounds(model, name)
    integer = model.model_fields[name].annotation in (int, int | None)
    for value in (lo, hi):
        doc = _with(path, name, round(value) if integer else value)
        inputs = EstimateInputs.model_validate(doc)
        assert finite_figures(inputs) == [], (name, value)


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (("data",), "epochs"),
        (("data",), "useful_fraction_override"),
        (("hardware", "gpu"), "memory_gib"),
        (("hardware", "gpu"), "memory_bandwidth_gb_s"),
        (("hardware", "gpu"), "interconnect_gb_s"),
        (("efficiency",), "measured_tokens_per_s"),
        (("efficiency",), "step_time_s"),
        (("overheads",), "download_gb_per_s"),
        (("overheads",), "checkpoint_interval_min"),
        (("overheads",), "checkpoint_write_gb_per_s"),
    ],
)
def test_the_smallest_positive_float_is_refused(path, name):
    """5e-324 passed `gt=0`; the core then divided by it."""
    with pytest.raises(ValidationError) as info:
        EstimateInputs.model_validate(_with(path, name, 5e-324))
    assert name in str(info.value)
