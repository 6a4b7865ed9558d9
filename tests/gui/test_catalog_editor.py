"""The GPU catalog manager, the hardware picker over the effective catalog, corrupt files, prices.

Every test runs with FTCOST_CONFIG_DIR in tmp_path (tests/conftest.py); message boxes are stubbed
(tests/gui/conftest.py) and the editor's name/path prompts are monkeypatched.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QMessageBox

from ftcost_gui.core.catalog import CatalogGpu, GpuCatalog
from ftcost_gui.gui.catalog.editor import CatalogEditor
from ftcost_gui.gui.catalog.service import CatalogService
from ftcost_gui.gui.rich_text import rich_text
from ftcost_gui.io.catalog_store import CatalogStore, catalogs_dir
from ftcost_gui.io.estimate_file import load_estimate, save_estimate
from ftcost_gui.io.resources import builtin_catalog


@pytest.fixture
def editor(qtbot):
    ed = CatalogEditor(CatalogService())
    qtbot.addWidget(ed)
    ed.show()
    return ed


def _answer(monkeypatch, ed, *names):
    it = iter(names)
    monkeypatch.setattr(ed, "_ask_name", lambda *a, **k: next(it))


def _yes(monkeypatch):
    monkeypatch.setattr(
        QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes)
    )


def _user_catalog(name="My prices", price=2.5, spot=1.5, activate=True):
    h100 = builtin_catalog().find("h100-sxm")
    row = CatalogGpu.model_validate(
        {**h100.model_dump(), "on_demand_usd_per_hour": price, "spot_usd_per_hour": spot}
    )
    store = CatalogStore()
    store.save(GpuCatalog(name=name, gpus=(row,)))
    if activate:
        store.set_active(name)
    return row


def test_create_edit_validate_save_reload(editor, monkeypatch, qtbot):
    _answer(monkeypatch, editor, "My prices")
    assert editor.new_catalog() == "My prices"
    assert editor.current == "My prices" and "My prices" in editor.names()
    assert not editor.dirty and not editor.save_button.isEnabled()
    r = editor.add_row()
    m = editor.model
    assert editor.dirty and editor.save_button.isEnabled() and editor.isWindowModified()

    # Type 0 into the memory cell like a person: refused, reason shown, old value kept.
    mem = m.index(r, m.column_of("memory_gib"))
    editor.table.setCurrentIndex(mem)
    editor.table.edit(mem)
    line = editor.table.viewport().findChild(QLineEdit)
    assert line is not None
    line.selectAll()
    qtbot.keyClicks(line, "0")
    qtbot.keyClick(line, Qt.Key.Key_Return)  # the delegate commits on the next event loop turn
    qtbot.waitUntil(lambda: "greater than or equal to 1" in editor.status.text(), timeout=1000)
    assert m.rows[r].memory_gib == 79.6
    assert "greater than or equal to 1" in editor.status.text()
    assert "greater than or equal to 1" in m.data(mem, Qt.ItemDataRole.ToolTipRole)

    price = m.index(r, m.column_of("on_demand_usd_per_hour"))
    assert not m.setData(price, "-1")
    assert "greater than or equal to 0" in editor.status.text()
    assert m.rows[r].on_demand_usd_per_hour == 3.0
    tflops = m.index(r, m.column_of("bf16_tflops"))
    assert not m.setData(tflops, "1e6")
    assert "less than or equal to 100000" in m.data(tflops, Qt.ItemDataRole.ToolTipRole)
    assert not m.setData(price, "cheap")  # not a number
    assert not m.setData(m.index(r, m.column_of("id")), "  ")

    # Good values go in; the tooltip error clears.
    assert m.setData(price, "2.25")
    assert m.data(price, Qt.ItemDataRole.ToolTipRole) is None
    assert m.setData(mem, "141")
    assert m.setData(m.index(r, m.column_of("id")), "lab-gpu")
    assert m.setData(m.index(r, m.column_of("name")), "Lab GPU")
    assert m.setData(m.index(r, m.column_of("spot_usd_per_hour")), "")  # optional: none
    assert m.setData(m.index(r, m.column_of("interconnect")), "pcie")
    assert m.setData(
        m.index(r, m.column_of("bf16_supported")),
        Qt.CheckState.Unchecked,
        Qt.ItemDataRole.CheckStateRole,
    )
    dup = editor.duplicate_row()
    assert m.rows[dup].id == "lab-gpu-copy"
    assert not m.setData(m.index(dup, m.column_of("id")), "LAB-GPU")  # ids ignore case
    assert "already used on row 1" in editor.status.text()
    editor.table.selectRow(dup)
    assert editor.remove_rows() == 1

    assert editor.save()
    assert not editor.dirty and not editor.isWindowModified()
    saved = CatalogStore().load("My prices")
    assert saved.gpus == tuple(m.rows)
    g = saved.gpus[0]
    assert (g.id, g.name, g.memory_gib) == ("lab-gpu", "Lab GPU", 141)
    assert g.on_demand_usd_per_hour == 2.25
    assert g.spot_usd_per_hour is None and g.interconnect == "pcie" and not g.bf16_supported
    # The effective view (filled when shown): built-in rows, then the new one with its origin.
    editor.tabs.setCurrentIndex(1)
    assert editor.effective_table.rowCount() == len(builtin_catalog().gpus) + 1
    last = editor.effective_table.rowCount() - 1
    assert editor.effective_table.item(last, 0).text() == "user: My prices"


def test_duplicate_builtin_rename_delete(editor, monkeypatch, dialogs):
    assert editor.read_only and editor.current == "Built-in"
    assert not editor.model.flags(editor.model.index(0, 4)) & Qt.ItemFlag.ItemIsEditable
    _answer(monkeypatch, editor, "Team", "Team 2026")
    assert editor.duplicate_catalog() == "Team"
    assert CatalogStore().load("Team").gpus == builtin_catalog().gpus
    assert editor.model.rows == list(builtin_catalog().gpus)
    assert editor.model.data(editor.model.index(0, 0)) == "overrides"
    # Every row overrides a built-in one: marked in the effective view.
    editor.tabs.setCurrentIndex(1)
    assert editor.effective_table.item(0, 1).text().startswith("▲ built-in ($")
    assert editor.rename_catalog() == "Team 2026"
    assert CatalogStore().list() == ["Team 2026"]
    assert (catalogs_dir() / "team-2026.json").exists()
    assert not (catalogs_dir() / "team.json").exists()
    assert editor.set_active()
    assert editor.service.active_name == "Team 2026"
    _yes(monkeypatch)
    assert editor.delete_catalog()
    assert CatalogStore().list() == [] and editor.names() == ["Built-in"]
    assert editor.current == "Built-in" and editor.service.active_name == "Built-in"
    assert not dialogs["warning"]


def test_delete_needs_confirmation(editor, monkeypatch):
    _answer(monkeypatch, editor, "Keep me")
    editor.new_catalog()
    monkeypatch.setattr(
        QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.No)
    )
    assert not editor.delete_catalog()
    assert CatalogStore().list() == ["Keep me"]


def test_csv_export_import_round_trip(editor, monkeypatch, tmp_path):
    path = tmp_path / "prices.csv"
    monkeypatch.setattr(editor, "_ask_save_path", lambda: str(path))
    assert editor.export_csv() == str(path)  # the built-in rows
    _answer(monkeypatch, editor, "Imported")
    editor.new_catalog()
    monkeypatch.setattr(editor, "_ask_open_path", lambda: str(path))
    assert editor.import_csv() == (len(builtin_catalog().gpus), 0)
    assert not editor.import_errors.isVisible()
    assert editor.dirty
    assert editor.save()
    assert CatalogStore().load("Imported").gpus == builtin_catalog().gpus


def test_csv_import_lists_refused_rows(editor, monkeypatch, tmp_path):
    _answer(monkeypatch, editor, "Lab")
    editor.new_catalog()
    h100 = builtin_catalog().find("h100-sxm")
    good = CatalogGpu.model_validate({**h100.model_dump(), "id": "ok-gpu"})
    from ftcost_gui.io.catalog_csv import dumps_csv

    text = dumps_csv([good, good.model_copy(update={"id": "bad-gpu"})])
    lines = text.split("\r\n")
    lines[2] = lines[2].replace(",79.6,", ",0,", 1)  # memory 0 on line 3
    path = tmp_path / "lab.csv"
    path.write_text("\r\n".join(lines), encoding="utf-8")
    monkeypatch.setattr(editor, "_ask_open_path", lambda: str(path))
    assert editor.import_csv() == (1, 1)
    assert [g.id for g in editor.model.rows] == ["ok-gpu"]
    assert editor.import_errors.isVisible()
    shown = editor.import_errors.item(0).text()
    assert shown.startswith("line 3, column memory_gib:") and "greater than or equal to 1" in shown
    assert "1 row(s) refused" in editor.status.text()
    # A file that is not a catalog CSV at all: nothing imported, the reason listed.
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    assert editor.import_csv() is None
    assert "unknown column" in editor.import_errors.item(0).text()


def test_set_active_shows_user_row_in_picker(window, qtbot, monkeypatch):
    hp = window.panels["hardware"]
    _user_catalog(activate=False)
    ed = window.addons["catalogs"].open_editor()
    qtbot.addWidget(ed)
    assert ed.isVisible() and not ed.isModal()
    assert ed.select_catalog("My prices")
    assert ed.set_active()
    assert hp.catalog_combo.currentData() == "My prices"
    idx = hp._catalog_index("h100-sxm")
    text = hp.gpu_combo.itemText(idx)
    assert text.startswith("H100 SXM — user: My prices, overrides built-in")
    assert "$2.50/h" in text
    # The estimate still has the built-in price: the picker says "(custom)".
    assert hp.gpu_combo.currentText() == "H100 SXM — your prices (custom)"
    assert hp.gpu_combo.currentData() == "h100-sxm"
    assert "$2.50/h" in hp.price_note.text()
    hp.select_gpu("h100-sxm")
    assert window.store.inputs.hardware.gpu.on_demand_usd_per_hour == 2.5
    assert window.undo_stack.count() == 1
    assert hp.gpu_combo.currentIndex() == idx
    assert hp.gpu_combo.findText("(custom)", Qt.MatchFlag.MatchContains) == -1
    # Back to the built-in catalog from the panel's combo.
    hp.catalog_combo.setCurrentIndex(0)
    hp.catalog_combo.activated.emit(0)
    assert CatalogStore().get_active() is None
    assert "user:" not in hp.gpu_combo.itemText(hp._catalog_index("h100-sxm"))
    assert ed.active_label.text() == "Active: <b>Built-in</b>"


def test_corrupt_catalog_told_once_and_moved(qtbot, dialogs):
    _user_catalog("Good", activate=True)
    folder = catalogs_dir()
    (folder / "bad.json").write_text("{not json", encoding="utf-8")
    from ftcost_gui.gui.app import build_window

    w = build_window()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: len(dialogs["warning"]) == 1, timeout=2000)
    message = dialogs["warning"][0][2]
    assert "bad.json" in message and "moved to" in message
    assert not (folder / "bad.json").exists()
    assert len(list(folder.glob("bad.json.corrupt-*"))) == 1
    assert "bad.json" in w.statusBar().currentMessage()
    # The rest works: the good catalog is active, the manager opens without telling again.
    hp = w.panels["hardware"]
    assert hp.catalog.active_name == "Good"
    ed = w.addons["catalogs"].open_editor()
    qtbot.addWidget(ed)
    assert ed.names() == ["Built-in", "Good"]
    hp.select_gpu("a100-80gb-sxm")
    assert w.store.recompute_now() is not None
    qtbot.wait(10)
    assert len(dialogs["warning"]) == 1


def test_price_bar_on_open_and_update(window, qtbot, tmp_path):
    path = tmp_path / "job.ftcost"
    save_estimate(path, window.store.inputs)  # H100 at the built-in $3.00/h, $2.00/h spot
    _user_catalog(price=2.5, spot=2.0)
    window.panels["hardware"].catalog.reload()
    ui = window.addons["catalogs"]
    assert not ui.price_bar.isVisible()
    assert window.files.load_path(path)
    assert ui.price_bar.isVisible()
    assert ui.price_bar.text.text() == (
        "This estimate uses $3.00/h; your catalog 'My prices' says $2.50/h (H100 SXM)."
    )
    qtbot.mouseClick(ui.price_bar.update_button, Qt.MouseButton.LeftButton)
    assert not ui.price_bar.isVisible()
    assert window.store.inputs.hardware.gpu.on_demand_usd_per_hour == 2.5
    assert window.undo_stack.count() == 1 and window.isWindowModified()
    assert load_estimate(path).hardware.gpu.on_demand_usd_per_hour == 3.0  # until saved
    window.action("undo").trigger()
    assert window.store.inputs.hardware.gpu.on_demand_usd_per_hour == 3.0
    # Keep: the bar goes, the prices stay.
    assert window.files.load_path(path)
    assert ui.price_bar.isVisible()
    qtbot.mouseClick(ui.price_bar.keep_button, Qt.MouseButton.LeftButton)
    assert not ui.price_bar.isVisible()
    assert window.store.inputs.hardware.gpu.on_demand_usd_per_hour == 3.0


def test_no_price_bar_when_prices_match(window, tmp_path):
    path = tmp_path / "job.ftcost"
    save_estimate(path, window.store.inputs)
    assert window.files.load_path(path)
    assert not window.addons["catalogs"].price_bar.isVisible()


def test_closing_the_window_offers_to_save_the_catalog(window, qtbot, monkeypatch, dialogs):
    _user_catalog(activate=False)
    ed = window.addons["catalogs"].open_editor()
    qtbot.addWidget(ed)
    ed.select_catalog("My prices")
    ed.add_row()
    assert ed.dirty
    monkeypatch.setattr(
        QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Cancel)
    )
    assert not window.close()  # Cancel: the window and the edits stay
    assert window.isVisible() and ed.dirty
    monkeypatch.setattr(
        QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Save)
    )
    assert window.close()
    assert len(CatalogStore().load("My prices").gpus) == 2


def test_price_bar_follows_the_selected_scenario(window, tmp_path):
    """Each scenario keeps its own GPU prices: a stale price in B shows when B is selected."""
    from ftcost_gui.core.document import EstimateDocument, Scenario
    from ftcost_gui.io.estimate_file import save_document

    current = window.store.inputs  # H100 at the built-in $3.00/h
    doc = current.model_dump()
    doc["hardware"]["gpu"]["on_demand_usd_per_hour"] = 9.99
    stale = type(current).model_validate(doc)
    path = tmp_path / "two.ftcost"
    save_document(
        path,
        EstimateDocument(
            scenarios=(Scenario(name="A", inputs=current), Scenario(name="B", inputs=stale)),
            active=0,
        ),
    )
    ui = window.addons["catalogs"]
    assert window.files.load_path(path)
    assert not ui.price_bar.isVisible()  # A matches the built-in catalog
    window.store.select_scenario(1)
    assert ui.price_bar.isVisible()
    assert "$9.99/h" in ui.price_bar.text.text()
    ui.keep_prices()
    window.store.select_scenario(0)
    window.store.select_scenario(1)
    assert not ui.price_bar.isVisible()  # 'Keep' holds while the file is open


# --- Issue 16: override a built-in price, columns sized, provider/region/tier -----------------


def test_override_a_builtin_price_from_the_builtin_catalog(editor, monkeypatch):
    """A price of your own starts from the built-in row, every spec kept (not 'New GPU')."""
    assert editor.read_only
    offered: list[list] = []

    def ask(choices):
        offered.append(choices)
        return "a100-80gb-sxm"

    monkeypatch.setattr(editor, "_ask_builtin_gpu", ask)
    _answer(monkeypatch, editor, "My prices")  # a catalog to keep the price in
    r = editor.override_builtin()
    assert len(offered[0]) == len(builtin_catalog().gpus)
    assert editor.current == "My prices" and not editor.read_only
    m = editor.model
    builtin = builtin_catalog().find("a100-80gb-sxm")
    assert m.rows[r] == builtin  # copied whole: same id, so it overrides
    assert m.data(m.index(r, 0)) == "overrides"
    price = m.index(r, m.column_of("on_demand_usd_per_hour"))
    assert editor.table.currentIndex() == price  # ready to type the price
    assert m.setData(price, "1.19")
    assert m.setData(m.index(r, m.column_of("provider")), "Lab cloud")
    assert m.setData(m.index(r, m.column_of("pricing_tier")), "committed_1y")
    assert editor.save()
    saved = CatalogStore().load("My prices").gpus[0]
    assert saved == builtin.model_copy(
        update={
            "on_demand_usd_per_hour": 1.19,
            "provider": "Lab cloud",
            "pricing_tier": "committed_1y",
        }
    )
    # Offered again: the GPU this catalog overrides already is not in the list; asking for it
    # anyway shows its row.
    offered.clear()
    monkeypatch.setattr(editor, "_ask_builtin_gpu", ask)
    assert editor.override_builtin() == r
    assert "already overrides" in editor.status.text()
    assert len(offered[0]) == len(builtin_catalog().gpus) - 1


def test_override_from_the_effective_view(editor, monkeypatch):
    _answer(monkeypatch, editor, "Lab")
    editor.new_catalog()
    editor.tabs.setCurrentIndex(1)
    rows = editor.effective_rows()
    h100 = next(i for i, r in enumerate(rows) if r.gpu.id == "h100-sxm")
    editor.effective_table.cellDoubleClicked.emit(h100, 2)
    assert editor.tabs.currentIndex() == 0
    assert [g.id for g in editor.model.rows] == ["h100-sxm"]
    editor.tabs.setCurrentIndex(1)
    assert editor.effective_table.item(h100, 1).text().startswith("▲ built-in")


def test_columns_fit_their_content(editor):
    """Every column shows its longest value and its header whole (free text capped, tooltip)."""
    m, hh = editor.model, editor.table.horizontalHeader()
    fm = editor.table.fontMetrics()
    for col in range(1, m.columnCount()):
        c = m.column_at(col)
        if c.long_text:
            assert hh.sectionSize(col) <= 360
            continue
        widest = max(fm.horizontalAdvance(m.index(r, col).data()) for r in range(m.rowCount()))
        assert hh.sectionSize(col) >= widest, c.field
        header = m.headerData(col, Qt.Orientation.Horizontal)
        assert hh.sectionSize(col) >= max(fm.horizontalAdvance(x) for x in header.split("\n"))
    long_row = next(r for r in range(m.rowCount()) if len(m.rows[r].notes) > 60)
    notes = m.index(long_row, m.column_of("notes"))
    # the whole note, shown as written (escaped rich text: it also wraps)
    assert m.data(notes, Qt.ItemDataRole.ToolTipRole) == rich_text(m.rows[long_row].notes)


def test_tier_column_is_a_choice(editor, monkeypatch):
    _answer(monkeypatch, editor, "Tiers")
    editor.new_catalog()
    r = editor.override_builtin("h100-sxm")
    m = editor.model
    tier = m.index(r, m.column_of("pricing_tier"))
    assert not m.setData(tier, "monthly")
    assert "should be one of 'on_demand', 'spot', 'committed_1y', 'committed_3y'" in (
        editor.status.text()
    )
    # A spot row needs a spot price: clearing it on a spot row is refused with the reason.
    assert m.setData(tier, "spot")
    spot = m.index(r, m.column_of("spot_usd_per_hour"))
    assert not m.setData(spot, "")
    assert "a spot row needs a spot price" in editor.status.text()
    assert m.rows[r].spot_usd_per_hour == 2.0
