"""Units, the formatters every view reads, result rows for tables/CSV, and the one-line error."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.core import units as u
from ftcost_gui.core.errors import first_error
from ftcost_gui.core.rows import result_rows, unit_of

from .helpers import make


def test_unit_constants():
    assert (u.GIB, u.GB, u.TERA) == (1_073_741_824, 1_000_000_000, 1e12)
    assert (u.SECONDS_PER_HOUR, u.SECONDS_PER_MINUTE) == (3600.0, 60.0)
    assert u.bytes_to_gib(3 * 2**30) == 3 and u.bytes_to_gb(2.5e9) == 2.5


@pytest.mark.parametrize(
    ("fmt", "value", "text"),
    [
        (u.fmt_gib, 1.5 * 2**30, "1.5 GiB"),
        (u.fmt_gib, 1234.56 * 2**30, "1,234.6 GiB"),
        (u.fmt_gb, 1.68e12, "1.68 TB"),
        (u.fmt_gb, 1e12, "1.00 TB"),
        (u.fmt_gb, 84e9, "84.0 GB"),
        (u.fmt_gb, 1e9, "1.0 GB"),
        (u.fmt_gb, 300e6, "300 MB"),
        (u.fmt_flops, 3.3e18, "3.30e18 FLOPs"),
        (u.fmt_flops, 0, "0 FLOPs"),
        (u.fmt_usd, 1234.4, "$1,234"),
        (u.fmt_usd, 100, "$100"),
        (u.fmt_usd, 5.275, "$5.28"),
        (u.fmt_usd, 1, "$1.00"),
        (u.fmt_usd, 0.1504, "$0.150"),
        (u.fmt_hours, 0.13, "7.8 min"),
        (u.fmt_hours, 1, "1.00 h"),
        (u.fmt_hours, 47.5, "47.50 h"),
        (u.fmt_hours, 48, "2.0 days"),
        (u.fmt_pct, 0.191, "19.1%"),
    ],
)
def test_formatters(fmt, value, text):
    assert fmt(value) == text


def test_fmt_options():
    assert u.fmt_gib(2**30, 0) == "1 GiB"
    assert u.fmt_pct(0.85, 0) == "85%"


@pytest.mark.parametrize(
    ("key", "unit"),
    [
        ("on_demand_usd_per_hour", "USD/GPU-h"),
        ("usd_per_1e18_flops", "USD/1e18 FLOPs"),
        ("achieved_flops_per_s", "FLOP/s"),
        ("tokens_per_s_per_gpu", "tokens/s/GPU"),
        ("job_interruptions_per_hour", "1/h"),
        ("compute_gpu_hours", "GPU-h"),
        ("gpu_hours_with_attention", "GPU-h"),
        ("total_bytes", "bytes"),
        ("training_usd", "USD"),
        ("held_wall_s", "s"),
        ("reference_flops", "FLOPs"),
        ("base_per_token", "FLOPs/token"),
        ("per_token", "FLOPs/token"),
        ("total_flops", "FLOPs"),
        ("flops", "FLOPs"),
        ("flops_with_attention", "FLOPs"),
        ("useful_tokens", "tokens"),
        ("tokens_processed", "tokens"),
        ("num_gpus", ""),
    ],
)
def test_unit_of(key, unit):
    assert unit_of(key) == unit


def test_result_rows_flatten_every_figure():
    r = estimate(make(efficiency__step_time_s=None, efficiency__mfu=0.4))
    rows = result_rows(r)
    sections = {row.section for row in rows}
    assert "step_check" not in sections  # None: left out
    assert {"params", "tokens", "flops", "memory", "time", "cost", "project"} <= sections
    by = {(row.section, row.key): row for row in rows}
    assert by[("cost", "on_demand_usd")].value == r.cost.on_demand_usd
    assert by[("cost", "on_demand_usd")].unit == "USD"
    assert by[("time", "held_wall_s")] == ("time", "held_wall_s", r.time.held_wall_s, "s")
    n = sum(len(type(getattr(r, s)).model_fields) for s in sections & set(type(r).model_fields))
    assert len([row for row in rows if row.section != "warnings"]) == n
    warned = estimate(make(efficiency__step_time_s=1e-3))
    w = [row for row in result_rows(warned) if row.section == "warnings"]
    assert [(row.key, row.value) for row in w] == [
        (f"warning_{i}", text) for i, text in enumerate(warned.warnings)
    ]
    measured = result_rows(estimate(make(efficiency__measured_tokens_per_s=3000.0)))
    assert [row.key for row in measured if row.section == "result"] == ["measured_mfu"]


def test_first_error_names_the_field():
    doc = EstimateInputs().model_dump()
    doc["training"]["micro_batch"] = 0
    with pytest.raises(ValidationError) as exc:
        EstimateInputs.model_validate(doc)
    assert first_error(exc.value).startswith("training.micro_batch: Input should be greater")
    doc = EstimateInputs().model_dump()
    doc["model"]["num_kv_heads"] = 3
    with pytest.raises(ValidationError) as exc:
        EstimateInputs.model_validate(doc)
    assert first_error(exc.value) == "model: num_kv_heads must divide num_attention_heads"
