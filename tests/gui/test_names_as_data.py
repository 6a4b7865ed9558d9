"""Names from files shown as written in the window's labels, tooltips and dialogs, never as
markup and without bidi or control marks (brief: names from files are data, escaped for each
output). Qt guesses rich text for a label in its default format and for every tooltip: a GPU
name such as '<b>H100</b>' from an opened estimate file had its tag applied."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox

from ftcost_gui.gui.catalog.editor import CatalogEditor
from ftcost_gui.gui.catalog.service import CatalogService
from ftcost_gui.io.estimate_file import save_estimate
from tests.gui.test_catalog_editor import _user_catalog

HOSTILE = "<b>H100</b> & <i>x</i>\u202e"  # a tag, an ampersand, a right-to-left override
SHOWN = "<b>H100</b> & <i>x</i>"  # what the user reads: the characters, no bidi mark
ESCAPED = "&lt;b&gt;H100&lt;/b&gt; &amp; &lt;i&gt;x&lt;/i&gt;"  # the same, as rich text


def _with_gpu(inputs, **update):
    gpu = inputs.hardware.gpu.model_copy(update=update)
    return inputs.model_copy(update={"hardware": inputs.hardware.model_copy(update={"gpu": gpu})})


def _plain(label: QLabel) -> str:
    assert label.textFormat() == Qt.TextFormat.PlainText, label.objectName()
    return label.text()


def test_a_gpu_name_from_an_opened_file_is_shown_as_written(window, tmp_path):
    path = tmp_path / "job.ftcost"
    # The built-in H100 row's id and prices, another name, no BF16, a free-text "as of".
    save_estimate(
        path, _with_gpu(window.store.inputs, name=HOSTILE, bf16_supported=False, price_as_of="x")
    )
    _user_catalog(price=2.5, spot=2.0)  # the user's catalog prices it otherwise: the bar shows
    window.panels["hardware"].catalog.reload()
    assert window.files.load_path(path)
    window.store.recompute_now()
    QApplication.processEvents()
    bar = window.addons["catalogs"].price_bar
    assert bar.isVisible() and _plain(bar.text).endswith(f" ({SHOWN}).")
    warnings = _plain(window.findChild(QLabel, "warnings"))
    assert f"{SHOWN} has no BF16" in warnings and "\u202e" not in warnings
    note = _plain(window.findChild(QLabel, "price_note"))
    assert "\u202e" not in note
    picked = window.panels["hardware"].gpu_combo.currentText()  # the file's GPU (no BF16)
    assert picked == f"{SHOWN} (custom)"


def test_the_which_gpu_summary_escapes_the_names_it_shows_in_bold(window, qtbot):
    ui = window.addons["catalogs"]
    ui.show_compare()
    view = ui.which_gpu.ensure_view()
    qtbot.waitUntil(lambda: bool(view.comparisons))
    hostile = {"gpu_name": HOSTILE, "provider": "<i>p</i>"}
    rows = [r.model_copy(update=hostile) for r in view.comparisons]
    view.catalog_name = "<b>Mine</b>"
    text = view._summary(rows, rows[0], rows[0])
    assert "of catalog '&lt;b&gt;Mine&lt;/b&gt;'" in text and "<b>Mine" not in text
    assert f"<b>{ESCAPED}</b> (&lt;i&gt;p&lt;/i&gt;)" in text  # the bold is ours, the name data


def test_compare_tooltips_show_the_names_as_written(window):
    window.scenarios.duplicate()
    assert window.store.rename_scenario(1, HOSTILE) == ""
    window.store.recompute_now()
    compare = window.results.compare
    window.results.show_tab(compare)
    QApplication.processEvents()
    model = compare.model
    tip = model.data(model.index(0, 1), Qt.ItemDataRole.ToolTipRole)
    assert ESCAPED in tip and "<b>H100" not in tip
    said = model.data(model.index(0, 1), Qt.ItemDataRole.AccessibleTextRole)
    assert said.startswith(f"{SHOWN}: ")  # a screen reader reads the characters


def test_a_cut_status_line_tooltip_shows_the_names_as_written(window):
    line = window.summary_label
    line.setText(SHOWN + " " + "long " * 200)
    assert line.shown_text() != line.text()  # cut: the whole line is its tooltip
    assert ESCAPED in line.toolTip() and "<b>H100" not in line.toolTip()


@pytest.fixture
def editor(qtbot):
    ed = CatalogEditor(CatalogService())
    qtbot.addWidget(ed)
    return ed


def test_the_catalog_editor_shows_catalog_names_as_written(editor, monkeypatch):
    for name in ("status", "heading", "effective_note", "import_errors_label"):
        assert getattr(editor, name).textFormat() == Qt.TextFormat.PlainText, name
    asked: list[str] = []
    answer = QMessageBox.StandardButton.No

    def question(_parent, _title, text, *_args):
        asked.append(text)
        return answer

    monkeypatch.setattr(QMessageBox, "question", question)
    assert editor._confirm(f"Delete the catalog '{SHOWN}'?") is False
    assert ESCAPED in asked[0] and "<b>H100" not in asked[0]


def test_the_edit_menu_and_recent_files_show_names_as_written(window, tmp_path):
    """Menu texts take '&' as a keyboard mnemonic ('R&D' read 'RD', D underlined)."""
    assert window.store.rename_scenario(0, "R&D\u202e plan") == ""
    undo = window.action("undo")
    assert undo.text().endswith(" to R&&D plan")  # shown 'R&D plan', no bidi mark
    path = tmp_path / "R&D\u202e.ftcost"
    assert window.files.write(path)
    window.files.rebuild_recent_menu()
    assert window.files.recent_menu.actions()[0].text() == "R&&D.ftcost"


def _hostile_catalog_row():
    """The active user catalog 'Mine': one H100-like row, cheapest of all, named by a file."""
    from ftcost_gui.core.catalog import CatalogGpu, GpuCatalog
    from ftcost_gui.io.catalog_store import CatalogStore
    from ftcost_gui.io.resources import builtin_catalog

    h100 = builtin_catalog().find("h100-sxm")
    update = {"id": "file-gpu", "name": HOSTILE, "provider": "<i>Acme</i>\u202e"}
    update |= {"on_demand_usd_per_hour": 0.5, "spot_usd_per_hour": 0.25, "notes": "<b>n</b>"}
    row = CatalogGpu.model_validate({**h100.model_dump(), **update})
    store = CatalogStore()
    store.save(GpuCatalog(name="Mine", gpus=(row,)))
    store.set_active("Mine")
    return row


def test_gpu_names_from_a_catalog_file_show_as_written_in_which_gpu(window, qtbot):
    # A user catalog's GPU name and provider are free text: a right-to-left override in either
    # turned the rest of the table cell, the chart's axis name and the provider filter around.
    from ftcost_gui.gui.catalog.which_gpu_model import COL_GPU, COL_PROVIDER

    _hostile_catalog_row()
    window.panels["hardware"].catalog.reload()
    ui = window.addons["catalogs"]
    ui.show_compare()
    view = ui.which_gpu.ensure_view()
    qtbot.waitUntil(lambda: any(r.gpu_name == HOSTILE for r in view.comparisons))
    model = view.table.model()
    row = next(i for i, r in enumerate(model.rows) if r.gpu_name == HOSTILE)
    name = model.data(model.index(row, COL_GPU), Qt.ItemDataRole.DisplayRole)
    provider = model.data(model.index(row, COL_PROVIDER), Qt.ItemDataRole.DisplayRole)
    assert name.endswith(SHOWN) and provider == "<i>Acme</i>"
    axis_names = view.chart.name_axis.names  # the cheapest offer: among the chart's bars
    assert f"{SHOWN} · <i>Acme</i>" in axis_names
    assert not any("\u202e" in n for n in axis_names)
    combo = view.provider_combo
    entries = [combo.itemText(i) for i in range(combo.count())]
    assert "<i>Acme</i>" in entries and not any("\u202e" in e for e in entries)


def test_the_catalog_editor_shows_a_rows_texts_as_written(window, qtbot):
    _hostile_catalog_row()
    editor = window.addons["catalogs"].open_editor()
    qtbot.addWidget(editor)
    assert editor.select_catalog("Mine")
    model = editor.model
    name = model.index(0, model.column_of("name"))
    assert model.data(name, Qt.ItemDataRole.DisplayRole) == SHOWN
    assert model.data(name, Qt.ItemDataRole.EditRole) == HOSTILE  # edited as stored
    notes = model.index(0, model.column_of("notes"))
    tip = model.data(notes, Qt.ItemDataRole.ToolTipRole)
    assert "&lt;b&gt;n&lt;/b&gt;" in tip and "<b>n" not in tip
    editor.refresh_effective()  # the merged view: every catalog's rows
    table = editor.effective_table
    texts = [
        table.item(r, c).text()
        for r in range(table.rowCount())
        for c in range(table.columnCount())
        if table.item(r, c) is not None
    ]
    assert SHOWN in texts and "<i>Acme</i>" in texts
    assert not any("\u202e" in t for t in texts)
