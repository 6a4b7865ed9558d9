"""A result flattened to rows (section, key, value, unit) for tables, CSV and reports."""

from __future__ import annotations

import functools
from typing import NamedTuple

from pydantic import BaseModel

from .results import EstimateResult

# Units follow the field-name suffix convention of results.py.
_SUFFIX_UNITS = (
    ("_usd_per_hour", "USD/GPU-h"),
    ("_per_1e18_flops", "USD/1e18 FLOPs"),
    ("_flops_per_s", "FLOP/s"),
    ("_per_s_per_gpu", "tokens/s/GPU"),
    ("_per_hour", "1/h"),
    ("_gpu_hours", "GPU-h"),
    ("gpu_hours", "GPU-h"),
    ("_bytes", "bytes"),
    ("_usd", "USD"),
    ("_s", "s"),
    ("_flops", "FLOPs"),
    ("_per_token", "FLOPs/token"),
)


class ResultRow(NamedTuple):
    section: str
    key: str
    value: float | int | bool | str | None
    unit: str


@functools.cache  # a few hundred keys, asked for each row of every result written
def unit_of(key: str) -> str:
    if key == "per_token":
        return "FLOPs/token"
    if "gpu_hours" in key:  # gpu_hours, compute_gpu_hours, gpu_hours_with_attention
        return "GPU-h"
    for suffix, unit in _SUFFIX_UNITS:
        if key.endswith(suffix) or key == suffix:
            return unit
    if key in ("total_flops", "flops", "flops_with_attention"):
        return "FLOPs"
    if key.endswith(("tokens", "tokens_processed")):
        return "tokens"
    return ""


def result_rows(result: EstimateResult) -> list[ResultRow]:
    rows: list[ResultRow] = []
    for section in type(result).model_fields:
        value = getattr(result, section)
        if section == "warnings":
            rows.extend(ResultRow("warnings", f"warning_{i}", w, "") for i, w in enumerate(value))
            continue
        if value is None:
            continue
        if isinstance(value, BaseModel):
            for key in type(value).model_fields:
                rows.append(ResultRow(section, key, getattr(value, key), unit_of(key)))
        else:
            rows.append(ResultRow("result", section, value, unit_of(section)))
    return rows
