"""The effective catalog (user rows override built-in rows), price checks and cell validation."""

from __future__ import annotations

import pytest

from ftcost_gui.core.catalog import (
    BUILTIN_ORIGIN,
    CatalogGpu,
    EffectiveRow,
    GpuCatalog,
    PriceUpdate,
    cell_error,
    duplicate_ids,
    find_row,
    merge_catalogs,
    price_differences,
    row_problems,
    validate_row,
    with_catalog_prices,
)
from ftcost_gui.io.resources import builtin_catalog


def gpu(gpu_id: str, **kw) -> CatalogGpu:
    base = builtin_catalog().find("l4").model_dump()
    return CatalogGpu.model_validate({**base, "id": gpu_id, "name": f"GPU {gpu_id}", **kw})


BUILTIN = GpuCatalog(name="Built-in", gpus=(gpu("a"), gpu("b"), gpu("c")))


def test_builtin_only():
    rows = merge_catalogs(BUILTIN)
    assert [r.gpu for r in rows] == list(BUILTIN.gpus)
    assert all(r.origin == BUILTIN_ORIGIN and not r.overrides_builtin for r in rows)
    assert merge_catalogs(BUILTIN, None) == rows


def test_user_rows_override_by_id_and_new_ones_come_last():
    user = GpuCatalog(
        name="Lab",
        gpus=(gpu("new-1"), gpu("B", on_demand_usd_per_hour=0.1), gpu("new-2")),
    )
    rows = merge_catalogs(BUILTIN, user)
    assert [r.gpu.id for r in rows] == ["a", "B", "c", "new-1", "new-2"]
    assert [r.origin for r in rows] == ["built-in", "user:Lab", "built-in", "user:Lab", "user:Lab"]
    assert [r.overrides_builtin for r in rows] == [False, True, False, False, False]
    assert rows[1].gpu.on_demand_usd_per_hour == 0.1
    assert rows[1].builtin == BUILTIN.gpus[1]
    assert rows[3].builtin is None and rows[3].is_user and not rows[0].is_user


def test_real_builtin_catalog_with_an_override():
    builtin = builtin_catalog()
    mine = builtin.find("a100-80gb-sxm").model_copy(update={"on_demand_usd_per_hour": 0.99})
    rows = merge_catalogs(builtin, GpuCatalog(name="Mine", gpus=(mine,)))
    assert len(rows) == len(builtin.gpus)
    assert find_row(rows, "A100 80GB SXM").gpu.on_demand_usd_per_hour == 0.99
    assert find_row(rows, " a100-80gb-sxm ").origin == "user:Mine"
    assert find_row(rows, "nope") is None


def test_duplicate_and_empty_ids():
    assert duplicate_ids([gpu("a"), gpu("A"), gpu("b"), gpu("a ")]) == ["A"]
    assert row_problems([gpu("a"), gpu("b")]) == []
    assert row_problems([gpu("a"), gpu(""), gpu("A")]) == [
        "row 2 has an empty id",
        "duplicate id 'A'",
    ]


def test_price_differences():
    builtin = builtin_catalog()
    rows = merge_catalogs(builtin)
    spec = builtin.find("h100-sxm").to_spec()
    assert price_differences(spec, rows) is None
    stale = spec.model_copy(update={"on_demand_usd_per_hour": 4.0})
    assert price_differences(stale, rows) == PriceUpdate(3.0, 2.0, "on_demand")
    no_spot = spec.model_copy(update={"spot_usd_per_hour": None})
    assert price_differences(no_spot, rows) == (3.0, 2.0, "on_demand")
    custom = spec.model_copy(update={"id": "my-own"})
    assert price_differences(custom, rows) is None
    # A user row that overrides the prices: the estimate's snapshot differs from the catalog.
    user = builtin.find("h100-sxm").model_copy(update={"spot_usd_per_hour": None})
    rows = merge_catalogs(builtin, GpuCatalog(name="U", gpus=(user,)))
    on_demand, spot, tier = price_differences(spec, rows)
    assert (on_demand, spot, tier) == (3.0, None, "on_demand")
    # Catalog rows work too; the date and source alone do not count as a difference.
    dated = spec.model_copy(update={"price_as_of": "1999-01-01"})
    assert price_differences(dated, builtin.gpus) is None


def test_with_catalog_prices():
    spec = builtin_catalog().find("h100-sxm").to_spec()
    old = spec.model_copy(update={"on_demand_usd_per_hour": 9.0, "price_as_of": "2020-01-01"})
    row = builtin_catalog().find("h100-sxm")
    updated = with_catalog_prices(old, row)
    assert updated == spec
    assert type(updated) is type(spec)


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("memory_gib", 0, "greater than or equal to 1"),
        ("on_demand_usd_per_hour", -1, "greater than or equal to 0"),
        ("spot_usd_per_hour", -0.01, "greater than or equal to 0"),
        ("bf16_tflops", 200_000, "less than or equal to 100000"),
        ("bf16_tflops", "fast", "valid number"),
        ("interconnect", "wifi", "'nvlink'"),
        ("tdp_w", float("nan"), "finite number greater than 0"),
        ("memory_vendor_gb", -3, "finite number greater than 0"),
        ("id", "  ", "must not be empty"),
        ("colour", "red", "unknown field"),
    ],
)
def test_cell_errors(field, value, needle):
    row = builtin_catalog().find("h100-sxm")
    reason = cell_error(row, field, value)
    assert reason is not None and needle in reason


@pytest.mark.parametrize(
    ("field", "value"),
    [("memory_gib", 141.0), ("spot_usd_per_hour", None), ("bf16_tflops", "990"), ("year", 2030)],
)
def test_valid_cells(field, value):
    assert cell_error(builtin_catalog().find("h100-sxm"), field, value) is None


def test_validate_row():
    ok, errors = validate_row(builtin_catalog().find("l4").model_dump())
    assert errors == [] and ok == builtin_catalog().find("l4")
    bad, errors = validate_row({**ok.model_dump(), "memory_gib": 0, "on_demand_usd_per_hour": -1})
    assert bad is None
    assert [f for f, _ in errors] == ["memory_gib", "on_demand_usd_per_hour"]


def test_effective_row_is_frozen():
    row = EffectiveRow(gpu("a"), BUILTIN_ORIGIN)
    with pytest.raises(AttributeError):
        row.origin = "user:x"  # type: ignore[misc]
