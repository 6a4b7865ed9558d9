"""The window's catalog service: problems told once per session, reading never writes."""

from __future__ import annotations

import json

from ftcost_gui.core.catalog import BUILTIN_NAME, GpuCatalog
from ftcost_gui.gui.catalog.service import CatalogService
from ftcost_gui.io.catalog_format import VERSION
from ftcost_gui.io.catalog_store import ACTIVE_FILE, CatalogStore, catalogs_dir
from ftcost_gui.io.resources import builtin_catalog


def _newer_active_catalog() -> tuple[bytes, int]:
    store = CatalogStore()
    store.save(GpuCatalog(name="Team", gpus=builtin_catalog().gpus[:1]))
    store.set_active("Team")
    path = catalogs_dir() / "team.json"
    doc = json.loads(path.read_text())
    doc["version"] = VERSION + 1
    path.write_text(json.dumps(doc))
    active = catalogs_dir() / ACTIVE_FILE
    return active.read_bytes(), active.stat().st_mtime_ns


def test_showing_the_window_keeps_the_active_choice(qtbot, dialogs):
    before = _newer_active_catalog()
    from ftcost_gui.gui.app import build_window

    w = build_window()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: len(dialogs["warning"]) == 1, timeout=2000)
    message = dialogs["warning"][0][2]
    assert "team.json was written by a newer ftcost" in message
    assert "the active catalog 'Team' was written by a newer ftcost" in message
    assert w.panels["hardware"].catalog.active_name == BUILTIN_NAME
    w.panels["hardware"].catalog.reload()
    active = catalogs_dir() / ACTIVE_FILE
    assert (active.read_bytes(), active.stat().st_mtime_ns) == before
    qtbot.wait(10)
    assert len(dialogs["warning"]) == 1  # the same problems are not told again


def test_problems_that_stay_are_told_once():
    _newer_active_catalog()
    service = CatalogService()
    told: list[list] = []
    service.problemsFound.connect(told.append)
    assert len(service.problems) == 2  # seen at the first load
    assert service.reload() == [] and told == []
    # A new problem is told, alone.
    (catalogs_dir() / "broken.json").write_text("{")
    new = service.reload()
    assert len(new) == 1 and "broken.json" in new[0].message
    assert told == [new]
    assert len(service.problems) == 3
