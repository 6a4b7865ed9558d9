"""User GPU catalogs on disk: round trip, names and files, the active catalog, corrupt files."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from ftcost_gui.core.catalog import BUILTIN_ORIGIN, CatalogGpu, GpuCatalog
from ftcost_gui.io import catalog_files
from ftcost_gui.io.catalog_store import (
    ACTIVE_FILE,
    CatalogError,
    CatalogStore,
    dumps_catalog,
    move_aside,
)
from ftcost_gui.io.resources import builtin_catalog

CORRUPT_NAME = re.compile(r"^(?P<orig>.+\.json)\.corrupt-\d{8}-\d{6}-\d{6}(-\d+)?$")


@pytest.fixture
def store(tmp_path) -> CatalogStore:
    return CatalogStore()


@pytest.fixture
def root(tmp_path) -> Path:
    return tmp_path / "config" / "catalogs"


def gpu(gpu_id: str = "my-gpu", **kw) -> CatalogGpu:
    base = builtin_catalog().find("h100-sxm").model_dump()
    return CatalogGpu.model_validate({**base, "id": gpu_id, "name": gpu_id.upper(), **kw})


def with_gpus(catalog: GpuCatalog, *gpus: CatalogGpu) -> GpuCatalog:
    return catalog.model_copy(update={"gpus": tuple(gpus)})


def files(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


# --- Location and round trip ----------------------------------------------------------------


def test_default_root_follows_the_config_env(store, root, tmp_path):
    assert store.root == root
    assert store.list() == []
    assert not root.exists()  # reading creates nothing
    store.create("Lab")
    assert files(root) == ["lab.json"]
    assert tmp_path in store.path_of("Lab").parents


def test_round_trip_create_edit_save_reload(store, root):
    created = store.create("Team prices", from_catalog=builtin_catalog())
    assert created.gpus == builtin_catalog().gpus
    rows = list(created.gpus)
    h100 = next(i for i, g in enumerate(rows) if g.id == "h100-sxm")
    rows[h100] = rows[h100].model_copy(update={"on_demand_usd_per_hour": 2.15, "notes": "deal"})
    rows.append(gpu("lab-box", memory_gib=47.5, spot_usd_per_hour=None, year=2021, tdp_w=300.0))
    edited = GpuCatalog(name="Team prices", description="negotiated", gpus=tuple(rows))
    path = store.save(edited)
    assert path == root / "team-prices.json"

    again = CatalogStore().load("team prices")  # a fresh store, any case
    assert again == edited
    assert again.find("h100-sxm").on_demand_usd_per_hour == 2.15
    assert again.find("lab-box").spot_usd_per_hour is None
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert (doc["format"], doc["version"], doc["name"]) == ("ftcost-gpu-catalog", 4, "Team prices")
    assert doc["currency"] == "USD"
    assert doc["app"].startswith("ftcost ")
    assert files(root) == ["team-prices.json"]  # no temp files left behind


def test_save_is_atomic(store, root, monkeypatch):
    store.create("Lab", from_catalog=builtin_catalog())
    before = (root / "lab.json").read_bytes()

    def boom(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    bigger = with_gpus(store.load("Lab"), *builtin_catalog().gpus, gpu("x"))
    with pytest.raises(CatalogError, match=r"cannot write .*No space left"):
        store.save(bigger)
    monkeypatch.undo()
    assert (root / "lab.json").read_bytes() == before
    assert files(root) == ["lab.json"]


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("Lab / A100 ✓", "lab-a100"),
        ("../../etc/passwd", "etc-passwd"),
        ("Café prices", "cafe-prices"),
        ("✓✓✓", "catalog"),
        ("active", "active-2"),
        ("CON", "con-2"),
    ],
)
def test_odd_names_get_safe_files(store, root, name, stem):
    store.create(name)
    assert files(root) == [f"{stem}.json"]
    assert store.list() == [name]
    assert store.load(name).name == name
    assert store.path_of(name) == root / f"{stem}.json"


def test_names_with_the_same_slug_get_their_own_files(store, root):
    for n in ("A-B", "a b", "A/B"):
        store.create(n)
    assert files(root) == ["a-b-2.json", "a-b-3.json", "a-b.json"]
    assert store.list() == ["a b", "A-B", "A/B"]  # case-insensitive order
    store.save(with_gpus(store.load("a b"), gpu("only-in-a-b")))
    assert [g.id for g in CatalogStore().load("a b").gpus] == ["only-in-a-b"]
    assert CatalogStore().load("A/B").gpus == ()


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("", "must not be empty"),
        ("   ", "must not be empty"),
        ("built-IN", "built-in catalog's name"),
        ("x" * 81, "at most 80"),
        ("tab\there", "control characters"),
    ],
)
def test_bad_names_refused(store, name, needle):
    with pytest.raises(CatalogError, match=needle):
        store.create(name)
    assert store.list() == []


def test_create_refuses_an_existing_name(store):
    store.create("Lab")
    with pytest.raises(CatalogError, match="'LAB' already exists"):
        store.create("LAB")


def test_save_refuses_duplicate_and_empty_ids(store, root):
    with pytest.raises(CatalogError, match="duplicate id 'H100-SXM'"):
        store.save(GpuCatalog(name="Lab", gpus=(gpu("h100-sxm"), gpu("H100-SXM"))))
    with pytest.raises(CatalogError, match="empty id"):
        store.save(GpuCatalog(name="Lab", gpus=(gpu(" "),)))
    assert files(root) == []


def test_duplicate_from_builtin_and_from_user(store):
    copy = store.duplicate("Built-in", "Mine")
    assert copy.name == "Mine"
    assert copy.gpus == builtin_catalog().gpus
    store.save(with_gpus(copy, gpu("extra")))
    second = store.duplicate("mine", "Mine 2")
    assert [g.id for g in second.gpus] == ["extra"]
    assert store.list() == ["Mine", "Mine 2"]
    with pytest.raises(CatalogError, match="already exists"):
        store.duplicate("Mine", "mine 2")
    with pytest.raises(CatalogError, match="no user catalog named 'Nope'"):
        store.duplicate("Nope", "X")


def test_rename(store, root):
    store.create("Old", from_catalog=GpuCatalog(name="x", gpus=(gpu("a"),)))
    store.create("Other")
    store.set_active("Old")
    renamed = store.rename("old", "New name")
    assert renamed.name == "New name"
    assert files(root) == [ACTIVE_FILE, "new-name.json", "other.json"]
    assert store.get_active() == "New name"
    assert [g.id for g in store.load("New name").gpus] == ["a"]
    with pytest.raises(CatalogError, match="cannot rename 'New name': 'other' already exists"):
        store.rename("New name", "other")
    with pytest.raises(CatalogError, match="no user catalog named 'Gone'"):
        store.rename("Gone", "Whatever")
    store.rename("New name", "NEW NAME")  # only the case: same file
    assert files(root) == [ACTIVE_FILE, "new-name.json", "other.json"]
    assert store.list() == ["NEW NAME", "Other"]


def test_delete(store, root):
    store.create("Lab")
    store.create("Keep")
    store.set_active("lab")
    store.delete("LAB")
    assert store.list() == ["Keep"]
    assert store.get_active() is None
    assert files(root) == [ACTIVE_FILE, "keep.json"]
    with pytest.raises(CatalogError, match="no user catalog named 'Lab'"):
        store.delete("Lab")


# --- Active catalog -------------------------------------------------------------------------


def test_active_catalog_persists(store, root):
    assert store.get_active() is None
    store.create("Lab")
    store.set_active("lab")
    assert CatalogStore().get_active() == "Lab"
    doc = json.loads((root / ACTIVE_FILE).read_text())
    assert doc == {"format": "ftcost-active-catalog", "version": 1, "active": "Lab"}
    store.set_active("Built-in")
    assert CatalogStore().get_active() is None
    store.set_active("Lab")
    store.set_active(None)
    assert CatalogStore().get_active() is None
    with pytest.raises(CatalogError, match="no user catalog named 'Nope'"):
        store.set_active("Nope")


def test_dangling_active_is_told_and_kept(store, root):
    """Reading never rewrites active.json: the user's choice survives a missing catalog."""
    store.create("Lab")
    store.set_active("Lab")
    (root / "lab.json").unlink()  # removed behind the app's back
    before = (root / ACTIVE_FILE).read_bytes()
    rows, problems = store.effective_catalog()
    assert [r.origin for r in rows] == [BUILTIN_ORIGIN] * len(builtin_catalog().gpus)
    assert len(problems) == 1
    assert "active catalog 'Lab' no longer exists" in problems[0].message
    assert CatalogStore().get_active() is None  # nothing usable is active
    assert (root / ACTIVE_FILE).read_bytes() == before
    # The catalog comes back (restored from a backup): it is active again, as chosen.
    store.create("Lab")
    assert store.get_active() == "Lab" and store.effective_catalog()[1] == []


def test_corrupt_active_file_is_set_aside(store, root):
    root.mkdir(parents=True)
    (root / ACTIVE_FILE).write_text("{nope")
    assert store.get_active() is None
    assert (root / ACTIVE_FILE).exists()  # a plain query moves nothing
    scan = store.scan()
    assert scan.active is None
    problems = scan.problems
    assert len(problems) == 1
    assert problems[0].moved_to is not None and problems[0].moved_to.exists()
    assert CORRUPT_NAME.match(problems[0].moved_to.name).group("orig") == ACTIVE_FILE
    assert not (root / ACTIVE_FILE).exists()


# --- Corrupt files --------------------------------------------------------------------------


def _bad_documents() -> dict[str, tuple[bytes, str]]:
    good = json.loads(dumps_catalog(GpuCatalog(name="Good", gpus=(gpu("a"),))))

    def doc(**changes) -> bytes:
        return json.dumps({**good, **changes}).encode()

    text = dumps_catalog(GpuCatalog(name="Cut", gpus=builtin_catalog().gpus)).encode()
    row = {**good["gpus"][0]}
    assert row["tdp_w"] == 700.0
    return {
        "malformed": (b"{not json", "not valid JSON"),
        "truncated": (text[: len(text) // 2], "not valid JSON"),
        "empty": (b"", "not valid JSON"),
        "binary": (b"\xff\xfe\x00garbage", "not valid JSON"),
        "foreign": (b'{"format": "something-else", "name": "x"}', "not an ftcost GPU catalog"),
        "a list": (b"[1, 2]", "not an ftcost GPU catalog"),
        "no version": (doc(name="NoVer", version="1"), "no valid format version"),
        "zero memory": (
            doc(name="Zero", gpus=[{**row, "memory_gib": 0}]),
            "gpus.0.memory_gib: Input should be greater than or equal to 1",
        ),
        "negative price": (
            doc(name="Neg", gpus=[{**row, "on_demand_usd_per_hour": -1}]),
            "on_demand_usd_per_hour: Input should be greater than or equal to 0",
        ),
        "NaN": (doc(name="NaN").replace(b'"tdp_w": 700.0', b'"tdp_w": NaN'), "non-finite"),
        "duplicate ids": (doc(name="Dup", gpus=[row, {**row, "id": "A"}]), "duplicate id 'A'"),
        "reserved name": (doc(name="Built-in"), "built-in catalog's name"),
        "same name": (doc(name="good"), "has the same name as good.json"),
    }


@pytest.mark.parametrize("case", sorted(_bad_documents()))
def test_corrupt_file_is_set_aside_and_told_once(store, root, case):
    data, needle = _bad_documents()[case]
    store.create("Good", from_catalog=GpuCatalog(name="x", gpus=(gpu("a"),)))
    bad = root / "zz-bad.json"
    bad.write_bytes(data)

    catalogs, problems = store.load_all()
    assert [c.name for c in catalogs] == ["Good"]  # the rest still loads
    assert len(problems) == 1
    p = problems[0]
    assert p.path == bad
    assert needle in p.message
    assert str(p.moved_to) in p.message
    assert not bad.exists()
    assert p.moved_to.parent == root
    assert CORRUPT_NAME.match(p.moved_to.name).group("orig") == "zz-bad.json"
    assert p.moved_to.read_bytes() == data  # moved, not rewritten or deleted
    # Told once: the same store and a fresh one find nothing more to say.
    assert store.load_all()[1] == []
    assert CatalogStore().load_all() == ([store.load("Good")], [])
    assert store.effective_catalog()[1] == []


def test_corrupt_file_problems_reach_every_entry_point(store, root):
    root.mkdir(parents=True)
    (root / "a.json").write_bytes(b"{")
    assert store.list() == []
    (root / "b.json").write_bytes(b"{")
    rows, problems = store.effective_catalog()
    assert len(rows) == len(builtin_catalog().gpus)
    assert sorted(p.path.name for p in problems) == ["a.json", "b.json"]
    assert store.effective_catalog()[1] == []  # both set aside: nothing more to tell


def test_active_catalog_that_turns_corrupt(store, root):
    store.create("Lab", from_catalog=GpuCatalog(name="x", gpus=(gpu("h100-sxm", notes="mine"),)))
    store.set_active("Lab")
    (root / "lab.json").write_bytes(b'{"format": "ftcost-gpu-catalog", "version": 1, "na')
    rows, problems = CatalogStore().effective_catalog()
    messages = " | ".join(p.message for p in problems)
    assert "lab.json is not valid JSON" in messages
    assert "active catalog 'Lab' no longer exists; using the built-in catalog" in messages
    assert all(r.origin == BUILTIN_ORIGIN for r in rows)


def test_move_aside_never_overwrites(tmp_path, monkeypatch):
    monkeypatch.setattr(catalog_files, "_timestamp", lambda: "20260101-120000-000001")
    first = tmp_path / "x.json"
    first.write_text("one")
    taken = tmp_path / "x.json.corrupt-20260101-120000-000001"
    taken.write_text("already here")
    moved = move_aside(first)
    assert moved.name == "x.json.corrupt-20260101-120000-000001-1"
    assert moved.read_text() == "one"
    assert taken.read_text() == "already here"
    assert not first.exists()


def test_move_aside_without_hard_links(tmp_path, monkeypatch):
    def no_link(*_a):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_link)
    monkeypatch.setattr(catalog_files, "_timestamp", lambda: "20260101-120000-000002")
    f = tmp_path / "y.json"
    f.write_text("data")
    (tmp_path / "y.json.corrupt-20260101-120000-000002").write_text("keep")
    moved = move_aside(f)
    assert moved.name.endswith("-000002-1")
    assert moved.read_text() == "data"
    assert (tmp_path / "y.json.corrupt-20260101-120000-000002").read_text() == "keep"


def _deny(monkeypatch, file_name: str) -> None:
    real = os.open

    def deny(path, *args, **kwargs):
        if os.fspath(path).endswith(file_name):
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", deny)


def test_unreadable_file_is_skipped_not_set_aside(store, root, monkeypatch):
    """A permission problem says nothing about the content: the file stays where it is."""
    store.create("Locked")
    store.create("Good")
    store.set_active("Locked")
    bad = root / "locked.json"
    data = bad.read_bytes()
    active = (root / ACTIVE_FILE).read_bytes()
    with monkeypatch.context() as m:
        _deny(m, "locked.json")
        rows, problems = store.effective_catalog()
        assert all(r.origin == BUILTIN_ORIGIN for r in rows)
        messages = [p.message for p in problems]
        assert len(problems) == 2
        assert "locked.json cannot be read: Permission denied" in messages[0]
        assert "left as it is" in messages[0] and problems[0].moved_to is None
        assert (
            "active catalog 'Locked' is not among the catalog files that could be read"
            in (messages[1])
        )
        assert store.load_all()[0] == [store.load("Good")]
    assert bad.read_bytes() == data and sorted(files(root)) == [
        ACTIVE_FILE,
        "good.json",
        "locked.json",
    ]
    assert (root / ACTIVE_FILE).read_bytes() == active  # the choice is kept
    assert store.get_active() == "Locked"  # readable again: active again


def test_a_real_unreadable_file(store, root):
    if os.name != "posix" or os.geteuid() == 0:
        pytest.skip("needs POSIX permissions and a non-root user")
    store.create("Locked")
    bad = root / "locked.json"
    bad.chmod(0)
    try:
        catalogs, problems = store.load_all()
        assert catalogs == [] and len(problems) == 1 and problems[0].moved_to is None
        assert bad.exists()
    finally:
        bad.chmod(0o644)


def test_file_that_cannot_be_moved_is_skipped_and_told_once(store, root, monkeypatch):
    store.create("Good")
    (root / "stuck.json").write_bytes(b"{")

    def refuse(*_a):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "link", refuse)
    monkeypatch.setattr(os, "rename", refuse)
    catalogs, problems = store.load_all()
    assert [c.name for c in catalogs] == ["Good"]
    assert len(problems) == 1
    assert problems[0].moved_to is None
    assert "could not be set aside (Permission denied): skipped" in problems[0].message
    assert (root / "stuck.json").read_bytes() == b"{"  # never deleted
    # The store keeps nothing: the next read says it again (the window tells it once).
    assert store.load_all() == ([store.load("Good")], problems)


def test_other_files_are_left_alone(store, root):
    store.create("Lab")
    for name in ("notes.txt", ".lab.json.abc.tmp", "old.json.corrupt-20250101-000000-000000"):
        (root / name).write_text("whatever")
    (root / "folder.json").mkdir()
    assert store.load_all() == ([store.load("Lab")], [])
    assert "notes.txt" in files(root) and "folder.json" in files(root)


# --- The effective catalog --------------------------------------------------------------------


def test_user_rows_override_builtin_rows(store):
    builtin = builtin_catalog()
    mine = (
        gpu("H100-SXM", name="H100 SXM (ours)", on_demand_usd_per_hour=1.85),
        gpu("lab-box", memory_gib=24.0),
    )
    store.create("Ours", from_catalog=GpuCatalog(name="x", gpus=mine))
    store.set_active("Ours")
    rows, problems = store.effective_catalog()
    assert problems == []
    assert len(rows) == len(builtin.gpus) + 1
    ids = [r.gpu.id for r in rows]
    h100 = [g.id for g in builtin.gpus].index("h100-sxm")
    assert rows[h100].gpu == mine[0]
    assert rows[h100].origin == "user:Ours"
    assert rows[h100].overrides_builtin
    assert rows[h100].builtin == builtin.find("h100-sxm")
    assert rows[-1].gpu == mine[1] and not rows[-1].overrides_builtin
    assert ids.count("h100-sxm") == 0 and ids.count("H100-SXM") == 1
    others = [r for i, r in enumerate(rows[:-1]) if i != h100]
    assert [r.gpu for r in others] == [g for g in builtin.gpus if g.id != "h100-sxm"]
    assert all(r.origin == BUILTIN_ORIGIN and not r.overrides_builtin for r in others)
    # --catalog style: a named catalog, or the built-in one alone.
    assert store.effective_catalog("built-in")[0][h100].gpu == builtin.find("h100-sxm")
    assert store.effective_name() == "Ours"
    assert store.effective_name("BUILT-IN") == "Built-in"
    with pytest.raises(CatalogError, match="no user catalog named 'Nope'"):
        store.effective_catalog("Nope")


def test_entries_pair_catalogs_with_files(store, root):
    store.create("b")
    store.create("A")
    assert [(c.name, p.name) for c, p in store.entries()] == [("A", "a.json"), ("b", "b.json")]


def test_a_newer_versions_catalog_is_left_in_place_and_told(store, root):
    """Not corrupt: a newer ftcost wrote it. Skip it, say so, never rename it."""
    store.create("Good", from_catalog=GpuCatalog(name="x", gpus=(gpu("a"),)))
    newer = root / "team.json"
    data = json.dumps(
        {"format": "ftcost-gpu-catalog", "version": 99, "name": "Team", "gpus": []}
    ).encode()
    newer.write_bytes(data)
    catalogs, problems = store.load_all()
    assert [c.name for c in catalogs] == ["Good"]
    assert len(problems) == 1 and problems[0].moved_to is None
    assert "newer ftcost (format version 99" in problems[0].message
    assert "left as it is" in problems[0].message
    assert newer.read_bytes() == data  # untouched
    # Creating a catalog of the same name never overwrites the newer file.
    store.create("Team", from_catalog=GpuCatalog(name="x", gpus=(gpu("b"),)))
    assert newer.read_bytes() == data


@pytest.mark.parametrize(
    "data",
    [b'{"format": "ftcost-gpu-catalog", "version": 1' + b"0" * 5000 + b"}", b"[" * 100_000],
    ids=["huge int", "deep nesting"],
)
def test_hostile_catalog_and_active_files_are_set_aside(store, root, data):
    root.mkdir(parents=True, exist_ok=True)
    (root / "evil.json").write_bytes(data)
    (root / "active.json").write_bytes(data)
    rows, problems = store.effective_catalog()
    assert len(rows) == len(builtin_catalog().gpus)  # the app starts with the built-in rows
    assert sorted(p.path.name for p in problems) == ["active.json", "evil.json"]
    for p in problems:
        if p.moved_to is not None:  # set aside whole
            assert p.moved_to.read_bytes() == data
        else:  # larger than an active-catalog file may be: never read, left alone
            assert p.path.name == "active.json" and "too large" in p.message
            assert p.path.read_bytes() == data
    assert next(p for p in problems if p.path.name == "evil.json").moved_to is not None
