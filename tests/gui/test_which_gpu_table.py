"""The "Which GPU" table's column widths: Qt's widths, measured from the model's texts.

``ComparisonTable.sizeHintForColumn`` replaces Qt's (which measured each sampled cell through
the delegate: eight ``data()`` calls and a text layout a cell). These tests count the work (one
cell a column asked of the model while the columns are sized: the widest, for the style's own
margins) and compare the hints with Qt's own
``QTableView.sizeHintForColumn``, column by column, in the states the window shows.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QTableView

from ftcost_gui.core.catalog import GpuCatalog
from ftcost_gui.gui.catalog import which_gpu_model
from ftcost_gui.io.catalog_store import CatalogStore
from ftcost_gui.io.resources import builtin_catalog

PROVIDERS = ("AWS", "Lambda", "CoreWeave", "Vast.ai", "Paperspace", "Jarvislabs")
REGIONS = ("us-east-1", "eu-central-1", "", "ap-southeast-1")
TIERS = ("on_demand", "spot", "committed_1y", "committed_3y")


def _offers(n: int) -> GpuCatalog:
    """n offers of the built-in GPUs at many providers, regions, tiers and prices."""
    gpus = builtin_catalog().gpus
    rows = []
    for i in range(n):
        g = gpus[i % len(gpus)]
        k, tier = i // len(gpus), TIERS[(i * 5) % len(TIERS)]
        spot = None if i % 3 and tier != "spot" else round(g.on_demand_usd_per_hour / 3, 4)
        rows.append(
            g.model_copy(
                update={
                    "id": f"{g.id}-{i}",
                    "provider": PROVIDERS[k % len(PROVIDERS)],
                    "region": REGIONS[(i * 7) % len(REGIONS)],
                    "pricing_tier": tier,
                    "on_demand_usd_per_hour": round(g.on_demand_usd_per_hour * (0.5 + i / n), 4),
                    "spot_usd_per_hour": spot,
                }
            )
        )
    return GpuCatalog(name="Offers", gpus=tuple(rows))


@pytest.fixture
def asked(monkeypatch):
    """(row, column, role) of each cell the table's model was asked for, in order."""
    roles: list[tuple[int, int, int]] = []
    real = which_gpu_model.ComparisonModel.data

    def counting(self, index, role=0):
        roles.append((index.row(), index.column(), role))
        return real(self, index, role)

    monkeypatch.setattr(which_gpu_model.ComparisonModel, "data", counting)
    return roles


def _shown(window, n: int):
    CatalogStore().save(_offers(n))
    window.panels["hardware"].catalog.set_active("Offers")
    ui = window.addons["catalogs"]
    ui.show_compare()
    ui.which_gpu.refresh_now()
    return ui.which_gpu.view


def _same_as_qts(table) -> None:
    header = table.horizontalHeader()
    for precision in (64, 0, -1, 9):
        header.setResizeContentsPrecision(precision)
        ours = [table.sizeHintForColumn(c) for c in range(13)]
        qts = [QTableView.sizeHintForColumn(table, c) for c in range(13)]
        assert ours == qts, precision
    header.setResizeContentsPrecision(64)


def test_columns_are_sized_asking_the_model_for_one_cell_a_column(window, asked, monkeypatch):
    """A 300-row first show sizes its columns from the cached texts and measures the widest cell
    of each column through the delegate: Qt's sizing asked the model 8 roles for each of 64
    sampled rows × the visible columns (5,632 calls for 11)."""
    from ftcost_gui.gui.catalog import which_gpu_view

    cells_asked: list[set[tuple[int, int]]] = []
    real_fill = which_gpu_view.GpuCompareView._fill

    def fill(self, *args):
        before = len(asked)
        real_fill(self, *args)
        cells_asked.append({(row, col) for row, col, _role in asked[before:]})

    monkeypatch.setattr(which_gpu_view.GpuCompareView, "_fill", fill)
    view = _shown(window, 300)
    t = view.table
    shown = [c for c in range(13) if not t.isColumnHidden(c)]
    assert view.model.rowCount() == 336 and len(shown) >= 10
    assert cells_asked and all(len(cells) <= len(shown) for cells in cells_asked)
    assert any(cells for cells in cells_asked)  # the columns were sized
    for cells in cells_asked:  # one cell of each column at most
        assert len({col for _row, col in cells}) == len(cells)
    # The widths are Qt's: the larger of the header's hint and the cells' (Qt's measure).
    for c in range(13):
        if not t.isColumnHidden(c):
            qt = QTableView.sizeHintForColumn(t, c)
            assert t.columnWidth(c) == max(qt, t.horizontalHeader().sectionSizeHint(c)), c


def test_column_hints_are_qts_in_every_state(window):
    """Rows on screen first, then above and below in turn, as Qt samples them; the bold
    cheapest row; scrolled, filtered, re-ranked, hidden; every precision."""
    view = _shown(window, 400)
    t = view.table
    assert view.cheapest is not None
    _same_as_qts(t)
    for value in (150, 400 - 3, 200):
        t.verticalScrollBar().setValue(value)
        QApplication.processEvents()
        _same_as_qts(t)
    view.set_ranked_by("wall_clock")
    _same_as_qts(t)
    view.set_filter(tier="spot")
    _same_as_qts(t)
    view.set_filter(provider="Paperspace", tier="")
    _same_as_qts(t)
    window.store.set_field("training", "auto_gpu_count", False)  # rows that do not fit
    window.store.set_field("training", "num_gpus", 1)
    window.store.recompute_now()
    window.addons["catalogs"].which_gpu.refresh_now()
    assert any(not r.fits for r in view.rows)
    _same_as_qts(t)
    t.hide()
    _same_as_qts(t)


def _painted(widgets):
    """Paint events per widget (by name) while the filter is installed."""
    from PySide6.QtCore import QEvent, QObject

    counts = dict.fromkeys(widgets, 0)

    class Paints(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                for key, widget in widgets.items():
                    if obj is widget:
                        counts[key] += 1
            return False

    return counts, Paints()


def test_a_large_catalogs_first_show_paints_each_widget_once_per_state(window, qtbot):
    """Sliced first show of 150 rows: while it compares, the page's widgets are painted once
    (the updates and layouts showing them posted are delivered before the tab switch's paint;
    3179654 painted the header and the empty viewport twice); once the table is complete, its
    viewport is painted once (the reset's items layout and the columns' resize are done before
    that paint; 3179654 painted it twice, ~30 ms each with 5,036 rows)."""
    CatalogStore().save(_offers(150))
    window.panels["hardware"].catalog.set_active("Offers")
    ui = window.addons["catalogs"]
    tab = ui.which_gpu
    view = tab.ensure_view()
    t = view.table
    widgets = {
        "header": t.horizontalHeader().viewport(),
        "tab bar": window.results.tabs.tabBar(),
        "viewport": t.viewport(),
    }
    counts, counter = _painted(widgets)
    QApplication.instance().installEventFilter(counter)
    try:
        ui.show_compare()
        assert tab._job is not None  # sliced
        while tab._job is not None:
            QApplication.processEvents()
        comparing = dict(counts)
        for key in counts:
            counts[key] = 0
        for _ in range(4):
            QApplication.processEvents()
    finally:
        QApplication.instance().removeEventFilter(counter)
    assert view.model.rowCount() == 186
    assert comparing == {"header": 1, "tab bar": 1, "viewport": 1}, comparing
    assert counts["viewport"] == 1, counts
