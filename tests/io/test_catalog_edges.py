"""Catalog file and cell behaviour the mutation run (tools/mutation.py) found unpinned: the cell
kinds and texts the editor and CSV use, the CSV error records, the catalog JSON's text, an
active-catalog file of version 0, deleting the active catalog, a store under folders that do not
exist yet, and a temporary file named so the sweeper can find it after a crash.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ftcost_gui.core.catalog import GpuCatalog
from ftcost_gui.io import atomic
from ftcost_gui.io.catalog_cells import column
from ftcost_gui.io.catalog_csv import RowError, loads_csv
from ftcost_gui.io.catalog_store import (
    ACTIVE_FILE,
    ACTIVE_FORMAT,
    CatalogError,
    CatalogStore,
    dumps_catalog,
    loads_catalog,
)
from ftcost_gui.io.resources import builtin_catalog

from .test_catalog_csv import csv_text, row


def _catalog(name: str = "Mine") -> GpuCatalog:
    return GpuCatalog(name=name, gpus=builtin_catalog().gpus[:2])


# --- Cells ------------------------------------------------------------------------------------
def test_each_field_type_has_its_cell_kind():
    """Built from the row model when called (not only at import): int → integer, bool → yes/no,
    float → number; a number the time model does not fill is required in a CSV row."""
    assert column("year").kind == "integer" and column("gpus_per_node").kind == "integer"
    assert column("bf16_supported").kind == "yes_no"
    assert column("memory_gib").kind == "number" and column("memory_gib").required
    assert column("on_demand_usd_per_hour").required
    assert not column("spot_usd_per_hour").required  # optional: empty means none
    assert column("year").parse("2023.0") == 2023


@pytest.mark.parametrize(
    ("field", "value", "text"),
    [
        ("bf16_supported", True, "yes"),
        ("bf16_supported", False, "no"),
        ("memory_gib", 80.0, "80"),  # a whole float without '.0'
        ("memory_gib", 79.6, "79.6"),
        ("memory_gib", 1e21, "1e+21"),
        ("year", 2023, "2023"),
        ("spot_usd_per_hour", None, ""),
    ],
)
def test_cell_texts(field, value, text):
    c = column(field)
    assert c.format(value) == text
    assert c.parse(text) == value or (value is None and c.parse(text) is None)


# --- CSV errors -------------------------------------------------------------------------------
def test_a_value_under_a_nameless_column_is_a_row_error_without_a_column():
    header, cells = csv_text([row(id="a")]).splitlines()
    gpus, errors = loads_csv(f"{header},\n{cells},stray\n")  # the last column has no name
    assert gpus == []
    assert errors == [RowError(2, "", "a value under a column without a name")]
    assert str(errors[0]) == "line 2: a value under a column without a name"


def test_a_bad_cell_is_reported_with_what_it_holds():
    _, errors = loads_csv(csv_text([row(memory_gib=" lots ")]))
    assert errors == [RowError(2, "memory_gib", "not a valid number", "lots")]
    assert str(errors[0]) == "line 2, column memory_gib: not a valid number (got 'lots')"


# --- Catalog JSON -----------------------------------------------------------------------------
def test_names_are_written_as_readable_utf8():
    text = dumps_catalog(_catalog("Laboratoire Ünïcode — 東京"))
    assert '"name": "Laboratoire Ünïcode — 東京"' in text
    assert loads_catalog(text).name == "Laboratoire Ünïcode — 東京"


@pytest.mark.parametrize(
    ("drop", "said"),
    [
        (["tdp_w", "year", "notes"], "has no fields 'tdp_w', 'year', 'notes' (a catalog row"),
        (
            ["tdp_w", "year", "notes", "region"],
            "has no fields 'tdp_w', 'year', 'notes' and 1 more (a catalog row",
        ),
    ],
)
def test_missing_row_fields_are_named_three_at_most(drop, said):
    doc = json.loads(dumps_catalog(_catalog()))
    for field in drop:
        del doc["gpus"][0][field]
    with pytest.raises(CatalogError) as err:
        loads_catalog(json.dumps(doc))
    assert said in str(err.value)


# --- The store --------------------------------------------------------------------------------
@pytest.mark.parametrize("version", [0, -1])
def test_an_active_file_of_no_valid_version_is_set_aside(version):
    store = CatalogStore()
    store.save(_catalog())
    store.active_path.write_text(
        json.dumps({"format": ACTIVE_FORMAT, "version": version, "active": "Mine"}),
        encoding="utf-8",
    )
    scan = store.scan()
    assert scan.stored_active is None and scan.active is None
    (problem,) = scan.problems
    assert f"{ACTIVE_FILE} is not a valid active-catalog file" in problem.message
    assert not store.active_path.exists()  # renamed aside


def test_deleting_the_active_catalog_makes_the_builtin_active():
    store = CatalogStore()
    store.save(_catalog("Mine"))
    store.save(_catalog("Other"))
    store.set_active("Mine")
    store.delete("Other")  # not the active one: the choice stays
    assert store.get_active() == "Mine"
    store.delete("Mine")
    assert store.get_active() is None
    assert store.list() == []


def test_deleting_with_no_active_choice():
    store = CatalogStore()
    store.save(_catalog("Mine"))
    assert not store.active_path.exists()
    store.delete("Mine")
    assert store.list() == [] and store.get_active() is None


def test_a_file_that_cannot_be_deleted_says_so(monkeypatch):
    store = CatalogStore()
    path = store.save(_catalog("Mine"))

    def refuse(self, missing_ok=False):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "unlink", refuse)
    with pytest.raises(CatalogError) as err:
        store.delete("Mine")
    assert str(err.value) == f"cannot delete {path}: Permission denied"


def test_a_store_creates_its_missing_parent_folders(tmp_path):
    store = CatalogStore(root=tmp_path / "a" / "b" / "catalogs")
    path = store.save(_catalog())
    assert path.parent == tmp_path / "a" / "b" / "catalogs" and path.is_file()


# --- Atomic writes ----------------------------------------------------------------------------
def test_the_temporary_file_is_named_for_the_sweeper(tmp_path, monkeypatch):
    """A crash between writing and renaming leaves '.<name>.<random>.tmp' beside the target:
    the name the sweeper (sweep_stale_temps) looks for."""
    seen: list[str] = []
    install = atomic._install

    def spy(tmp, target, mode):
        seen.append(Path(tmp).name)
        install(tmp, target, mode)

    monkeypatch.setattr(atomic, "_install", spy)
    target = tmp_path / "estimate.ftcost.json"
    atomic.atomic_write_bytes(target, b"{}")
    (name,) = seen
    assert atomic._temp_pattern(target).fullmatch(name), name
    assert target.read_bytes() == b"{}"
