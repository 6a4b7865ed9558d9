"""The catalog file format: strict reading, version 2 and the migration of version 1, currency,
the active catalog left alone by reading, and exclusive creation (issue 12)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ftcost_gui.core.catalog import BUILTIN_ORIGIN, TIME_COLUMNS, CatalogGpu, GpuCatalog
from ftcost_gui.core.compare import compare_gpus
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.inputs import EstimateInputs, GpuSpec
from ftcost_gui.io.catalog_format import VERSION, CatalogError, dumps_catalog, loads_catalog
from ftcost_gui.io.catalog_store import ACTIVE_FILE, CatalogStore
from ftcost_gui.io.resources import builtin_catalog, resource_path

DATA = Path(__file__).resolve().parents[1] / "data"
V1 = DATA / "catalog_v1.json"  # written by the first release (format version 1)


@pytest.fixture
def root(tmp_path) -> Path:
    return tmp_path / "config" / "catalogs"


def _doc(**changes) -> dict:
    doc = json.loads(dumps_catalog(GpuCatalog(name="Lab", gpus=builtin_catalog().gpus[:2])))
    doc.update(changes)
    return doc


def _text(doc: dict) -> bytes:
    return json.dumps(doc).encode()


# --- Strict reading ---------------------------------------------------------------------------


def test_a_row_with_only_an_id_is_refused_naming_the_field(root):
    """It used to be listed and priced as an H100 at $3.00 (the defaults of a new GPU)."""
    doc = _doc(gpus=[{"id": "x"}])
    with pytest.raises(CatalogError, match=r"gpus\.0 \(id 'x'\) has no fields 'name', 'vendor'"):
        loads_catalog(_text(doc), "lab.json")
    # In the folder: not listed, not priced; set aside with the reason.
    root.mkdir(parents=True)
    (root / "lab.json").write_bytes(_text(doc))
    rows, problems = CatalogStore().effective_catalog("Built-in")
    assert [p.path.name for p in problems] == ["lab.json"]
    assert "has no fields 'name'" in problems[0].message
    assert "x" not in {r.gpu.id for r in rows}
    assert CatalogStore().list() == []


@pytest.mark.parametrize("field", list(CatalogGpu.model_fields))
def test_every_missing_row_field_is_named(field):
    doc = _doc()
    del doc["gpus"][1][field]
    with pytest.raises(CatalogError, match=rf"gpus\.1 .*has no field '{field}'"):
        loads_catalog(_text(doc))


@pytest.mark.parametrize("field", ["name", "description", "currency", "gpus"])
def test_every_missing_document_field_is_named(field):
    doc = _doc()
    del doc[field]
    with pytest.raises(CatalogError, match=f"has no '{field}'"):
        loads_catalog(_text(doc))


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("memory_gib", "80", "gpus.0.memory_gib: Input should be a valid number"),
        ("bf16_supported", 1, "gpus.0.bf16_supported: Input should be a valid boolean"),
        ("year", 2022.0, "gpus.0.year: Input should be a valid integer"),
        ("on_demand_usd_per_hour", True, "gpus.0.on_demand_usd_per_hour: Input should be a valid"),
        ("pricing_tier", "reserved", "gpus.0.pricing_tier: Input should be 'on_demand'"),
    ],
)
def test_values_of_another_type_are_refused(field, value, needle):
    doc = _doc()
    doc["gpus"][0][field] = value
    with pytest.raises(CatalogError) as err:
        loads_catalog(_text(doc))
    assert needle in str(err.value)


def test_unknown_fields_are_refused():
    doc = _doc()
    doc["gpus"][0]["colour"] = "green"
    with pytest.raises(CatalogError, match=r"gpus\.0 \(id 'b300'\) has an unknown field 'colour'"):
        loads_catalog(_text(doc))
    with pytest.raises(CatalogError, match="unknown field 'owner'"):
        loads_catalog(_text(_doc(owner="me")))


def test_a_spot_row_needs_a_spot_price():
    doc = _doc()
    doc["gpus"][0].update(pricing_tier="spot", spot_usd_per_hour=None)
    with pytest.raises(CatalogError, match=r"gpus\.0\.pricing_tier: a spot row needs a spot price"):
        loads_catalog(_text(doc))


def test_the_builtin_catalog_is_a_strict_version_2_file():
    doc = json.loads(resource_path("gpus.json").read_bytes())
    assert doc["version"] == VERSION and doc["currency"] == "USD"
    doc["name"] = "Copy"  # the reserved name aside, it reads like any user catalog
    assert loads_catalog(_text(doc)).gpus == builtin_catalog().gpus


# --- Currency ---------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
def test_prices_in_another_currency_are_refused_in_one_line(root, version):
    doc = _doc(currency="EUR", version=version)
    with pytest.raises(CatalogError) as err:
        loads_catalog(_text(doc), "catalog file eu.json")
    message = str(err.value)
    assert message == (
        "catalog file eu.json has prices in 'EUR': ftcost reads prices in US dollars only "
        '(convert them to USD and set "currency": "USD")'
    )
    root.mkdir(parents=True)
    (root / "eu.json").write_bytes(_text(doc))
    catalogs, problems = CatalogStore().load_all()
    assert catalogs == [] and "prices in 'EUR'" in problems[0].message


# --- Version 1 --------------------------------------------------------------------------------


def test_a_version_1_file_reads_as_it_did():
    raw = json.loads(V1.read_text(encoding="utf-8"))
    assert raw["version"] == 1 and "currency" not in raw
    catalog = loads_catalog(V1.read_bytes())
    assert (catalog.name, catalog.description) == (raw["name"], raw["description"])
    assert len(catalog.gpus) == len(raw["gpus"]) == 3
    for gpu, old in zip(catalog.gpus, raw["gpus"], strict=True):
        # Every field it had keeps its value; the new ones say what v1 meant.
        assert {k: v for k, v in gpu.model_dump(mode="json").items() if k in old} == old
        assert (gpu.provider, gpu.region, gpu.pricing_tier) == ("", "", "on_demand")
        # The same spec, so the same figures as before; the time model's columns (format 3) take
        # the documented rule for the vendor, marked as such.
        new = set(TIME_COLUMNS)
        assert gpu.to_spec().model_dump(exclude=new) == GpuSpec.model_validate(old).model_dump(
            exclude=new
        )
        assert gpu.achievable_source.startswith("rule: ")
    h100 = catalog.find("h100-sxm")
    inputs = EstimateInputs()
    result = estimate(inputs.edited("hardware", gpu=h100.to_spec().model_dump()))
    hours = result.time.held_gpu_hours
    assert result.cost.on_demand_usd == pytest.approx(hours * 2.15)  # the file's own price
    assert result.cost.spot_usd is None  # the file says: no spot price
    rows = compare_gpus(inputs, [h100])
    assert rows[0].on_demand_usd == pytest.approx(hours * 2.15)


def test_a_version_1_file_missing_a_field_is_refused():
    raw = json.loads(V1.read_text(encoding="utf-8"))
    del raw["gpus"][2]["interconnect"]
    with pytest.raises(CatalogError, match=r"gpus\.2 \(id 'lab-box'\) has no field 'interconnect'"):
        loads_catalog(_text(raw))


def test_saving_writes_the_current_version(root):
    root.mkdir(parents=True)
    (root / "team-prices.json").write_bytes(V1.read_bytes())
    store = CatalogStore()
    catalog = store.load("Team prices")
    store.save(catalog.model_copy(update={"description": "v2 now"}))
    doc = json.loads((root / "team-prices.json").read_text(encoding="utf-8"))
    assert doc["version"] == VERSION and doc["currency"] == "USD"
    assert all(g["pricing_tier"] == "on_demand" for g in doc["gpus"])
    assert store.load("Team prices").gpus == catalog.gpus


# --- Reading never writes active.json ---------------------------------------------------------


def _stat(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def test_a_newer_active_catalog_keeps_its_place(root):
    """A catalog from a newer ftcost stays active for that version; this one uses the built-in."""
    store = CatalogStore()
    store.create("Team")
    store.set_active("Team")
    doc = json.loads((root / "team.json").read_text())
    doc["version"] = VERSION + 1
    (root / "team.json").write_text(json.dumps(doc))
    before = _stat(root / ACTIVE_FILE)
    rows, problems = store.effective_catalog()
    assert all(r.origin == BUILTIN_ORIGIN for r in rows)
    assert [p.message for p in problems][-1] == (
        "the active catalog 'Team' was written by a newer ftcost; using the built-in catalog "
        "(the choice is kept: pick a catalog to change it)"
    )
    store.list()
    store.get_active()
    store.load_all()
    assert _stat(root / ACTIVE_FILE) == before
    assert (root / "team.json").exists()


def test_read_only_commands_leave_active_json_alone(root, capsys):
    from ftcost_gui.cli import main

    store = CatalogStore()
    store.create("Gone")
    store.set_active("Gone")
    (root / "gone.json").unlink()
    before = _stat(root / ACTIVE_FILE)
    for argv in (["gpus"], ["gpus", "--json"], ["catalogs"], ["catalogs", "--json"]):
        assert main(argv) == 0
    err = capsys.readouterr().err
    assert "active catalog 'Gone' no longer exists" in err
    assert _stat(root / ACTIVE_FILE) == before


# --- Creating a file never overwrites another one ---------------------------------------------


def test_two_processes_creating_the_same_slug(root, monkeypatch):
    """Another ftcost creates 'lab.json' while this one writes: this one takes 'lab-2.json'."""
    import tempfile

    store = CatalogStore()
    store.create("Other")  # the folder exists
    theirs = dumps_catalog(GpuCatalog(name="LAB", gpus=builtin_catalog().gpus[:1])).encode()
    real_mkstemp = tempfile.mkstemp

    def racing_mkstemp(*args, **kwargs):
        # The other process finishes its file just as this one starts writing its own.
        target = root / "lab.json"
        if str(kwargs.get("prefix", "")).startswith(".lab.json.") and not target.exists():
            target.write_bytes(theirs)
        return real_mkstemp(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", racing_mkstemp)
    store.save(GpuCatalog(name="Lab", gpus=builtin_catalog().gpus[1:2]))
    monkeypatch.setattr(tempfile, "mkstemp", real_mkstemp)
    assert (root / "lab.json").read_bytes() == theirs  # theirs is intact
    ours = json.loads((root / "lab-2.json").read_text())
    assert ours["name"] == "Lab"
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


def test_exclusive_create_without_hard_links(root, monkeypatch):
    store = CatalogStore()
    store.create("Lab")

    def no_link(*_a):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_link)
    store.create("LAB!")  # same slug: lab.json is taken
    assert sorted(p.name for p in root.iterdir()) == ["lab-2.json", "lab.json"]
    assert CatalogStore().list() == ["Lab", "LAB!"]


# --- Only regular files, of a sane size (the one loader) --------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_or_device_in_the_folder_never_hangs(root):
    store = CatalogStore()
    store.create("Good")
    os.mkfifo(root / "pipe.json")
    (root / "zero.json").symlink_to("/dev/zero")
    catalogs, problems = store.load_all()  # returns: neither is opened for reading
    assert [c.name for c in catalogs] == ["Good"]
    messages = sorted(p.message for p in problems)
    assert len(messages) == 2
    assert "pipe.json is a FIFO (named pipe), not a GPU catalog" in messages[0]
    assert "zero.json is a character device" in messages[1]
    assert all(p.moved_to is None for p in problems)  # left alone
    assert (root / "pipe.json").exists() and (root / "zero.json").is_symlink()


def test_a_huge_catalog_file_is_not_read(root):
    store = CatalogStore()
    store.create("Good")
    with open(root / "huge.json", "wb") as fh:
        fh.truncate(64 * 1024 * 1024)  # sparse: no disk used
    catalogs, problems = store.load_all()
    assert [c.name for c in catalogs] == ["Good"]
    assert "too large for a GPU catalog" in problems[0].message
    assert (root / "huge.json").stat().st_size == 64 * 1024 * 1024  # left alone


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_csv_import_refuses_fifos_devices_and_huge_files(tmp_path):
    from ftcost_gui.io.catalog_csv import import_csv

    os.mkfifo(tmp_path / "pipe.csv")
    with pytest.raises(CatalogError, match=r"pipe\.csv is a FIFO"):
        import_csv(tmp_path / "pipe.csv")
    with pytest.raises(CatalogError, match="is a character device"):
        import_csv("/dev/zero")
    with open(tmp_path / "huge.csv", "wb") as fh:
        fh.truncate(64 * 1024 * 1024)
    with pytest.raises(CatalogError, match="too large for a CSV file"):
        import_csv(tmp_path / "huge.csv")


def test_a_version_3_file_reads_with_no_range_of_offers():
    """Format 4 added the range of on-demand offers; a version 3 row had none."""
    doc = _doc(version=3)
    for row in doc["gpus"]:
        del row["on_demand_low_usd_per_hour"], row["on_demand_high_usd_per_hour"]
    catalog = loads_catalog(_text(doc))
    assert [g.on_demand_low_usd_per_hour for g in catalog.gpus] == [None, None]
    assert [g.on_demand_high_usd_per_hour for g in catalog.gpus] == [None, None]
    same = _doc()
    for row in same["gpus"]:
        row["on_demand_low_usd_per_hour"] = row["on_demand_high_usd_per_hour"] = None
    assert catalog == loads_catalog(_text(same))


def test_the_builtin_ranges_hold_the_price():
    """Each built-in range, from reference/gpus.md's listings, holds the row's own price."""
    ranged = [g for g in builtin_catalog().gpus if g.on_demand_low_usd_per_hour is not None]
    assert {g.id for g in ranged} >= {"h100-sxm", "a100-80gb-sxm", "b200", "rtx-4090"}
    for g in ranged:
        assert g.on_demand_high_usd_per_hour is not None
        assert g.on_demand_low_usd_per_hour <= g.on_demand_usd_per_hour
        assert g.on_demand_usd_per_hour <= g.on_demand_high_usd_per_hour
    h100 = builtin_catalog().find("h100-sxm")
    assert (h100.on_demand_low_usd_per_hour, h100.on_demand_high_usd_per_hour) == (2.0, 12.29)
