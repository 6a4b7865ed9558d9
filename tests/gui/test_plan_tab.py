"""The Plan and What fits tabs: search only while shown and only when what they search changed
(searches counted per edit), the table and plot show the core's search, a click or Enter adopts a
plan as ONE undoable edit, the constraints are editable from the keyboard."""

from __future__ import annotations

from itertools import pairwise

import pytest
from PySide6.QtCore import QPoint, Qt

from ftcost_gui.core.plan_space import PlanConstraints, plan_inputs, search_key
from ftcost_gui.core.planner import search_plans
from ftcost_gui.core.units import SECONDS_PER_HOUR
from ftcost_gui.core.what_fits import what_fits
from ftcost_gui.present.blocks import inline_text
from ftcost_gui.present.plan_texts import fits_rows, hover_text, plan_cells

FAST = PlanConstraints(methods=("lora",), deadline_h=48.0)  # one method: quick searches


def _tabs(window):
    ui = window.addons["plan"]
    ui.plan.set_constraints(FAST)
    return ui.plan, ui.fits


def _charts(window):
    window.results.tabs.setCurrentIndex(0)


def _show_plan(qtbot, tab):
    tab.show()
    qtbot.waitUntil(lambda: tab.view is not None and tab.search is not None)
    return tab.view


def test_searches_only_while_shown_and_only_when_the_search_changed(window, qtbot):
    tab, _ = _tabs(window)
    store = window.store
    _charts(window)
    store.set_field("data", "epochs", 2.0)  # hidden: nothing searched
    store.recompute_now()
    assert tab.searches == 0
    _show_plan(qtbot, tab)
    assert tab.searches == 1
    _charts(window)
    tab.show()  # shown again, nothing changed: no search
    assert tab.searches == 1
    store.set_field("data", "epochs", 3.0)  # shown: one search per edit, after the debounce
    store.recompute_now()
    qtbot.waitUntil(lambda: tab.searches == 2)
    # what every plan chooses itself (the GPU and its prices, the billing): no new search
    store.set_field("hardware.gpu", "on_demand_usd_per_hour", 9.5)
    store.set_field("project", "billing", "spot")
    store.recompute_now()
    qtbot.wait(300)
    assert tab.searches == 2
    tab.set_constraints(FAST.model_copy(update={"deadline_h": 24.0}))
    assert tab.searches == 3


def test_the_tab_shows_the_cores_search(window, qtbot):
    tab, _ = _tabs(window)
    view = _show_plan(qtbot, tab)
    inputs, result = window.store.inputs, window.store.result
    tr = inputs.training
    c = FAST.model_copy(update={"effective_batch": tr.micro_batch * tr.grad_accum *
                                result.time.num_gpus})  # fmt: skip
    offers = window.addons["catalogs"].service.offers
    want = search_plans(search_key(inputs), offers, c)
    assert [o.cost_usd for o in tab.search.front] == [o.cost_usd for o in want.front]
    cells = plan_cells(want)
    model = view.model
    assert model.rowCount() == len(cells)
    for row, cell in enumerate(cells[:3]):
        assert model.item(row, 3).text() == cell.cost
        assert model.item(row, 1).text() == inline_text(cell.gpu)
    # the plot: the front's points, the chosen plan's star, hover text from present/
    points = view.plot.points
    assert points is not None and set(points.front) == set(tab.search.ranked)
    best = tab.search.ranked[0]
    assert points.best == best
    view.plot.show_hover(best)
    assert view.plot.hover_text == hover_text(tab.search, best)
    # the scenario's own point is its estimate, on-demand
    assert points.current == pytest.approx(
        (result.time.held_wall_s / SECONDS_PER_HOUR, result.cost.on_demand_usd)
    )
    assert view.why.count() == len(offers)


def test_click_adopts_a_plan_as_one_undoable_edit(window, qtbot):
    tab, _ = _tabs(window)
    view = _show_plan(qtbot, tab)
    store = window.store
    before = store.inputs
    searches = tab.searches
    option = tab.search.options[tab.search.ranked[1]]
    view.plot.planClicked.emit(option.index)
    store.recompute_now()
    after = store.inputs
    k = option.knobs
    assert after.training.method == k.method and after.training.num_gpus == k.num_gpus
    assert after.training.micro_batch == k.micro_batch and after.training.grad_accum == k.grad_accum
    assert after.hardware.gpu.id == option.offer.spec.id
    assert after == plan_inputs(before, option.offer, k, option.billing)
    assert store.result.cost.on_demand_usd == pytest.approx(option.cost_usd, rel=1e-12)
    qtbot.wait(300)
    assert tab.searches == searches  # adopting a plan searches nothing
    window.action("undo").trigger()
    assert store.inputs == before  # one undo step takes all of it back


def test_keyboard_enter_on_a_row_adopts_it(window, qtbot):
    tab, _ = _tabs(window)
    view = _show_plan(qtbot, tab)
    view.table.setFocus()
    view.table.selectRow(2)
    qtbot.keyClick(view.table, Qt.Key.Key_Return)
    option = tab.search.options[tab.search.ranked[2]]
    assert window.store.inputs.hardware.gpu.id == option.offer.spec.id
    assert window.store.inputs.training.num_gpus == option.knobs.num_gpus


def test_constraints_from_the_editors(window, qtbot):
    tab, _ = _tabs(window)
    view = _show_plan(qtbot, tab)
    bar = view.bar
    n = tab.searches
    bar.deadline.setValue(6.0)  # committed: one search with the new deadline
    assert tab.constraints.deadline_h == 6.0 and tab.searches == n + 1
    assert all(o.wall_s <= 6 * 3600 for o in tab.search.front)
    bar.methods["qlora"].setChecked(True)
    assert tab.constraints.methods == ("lora", "qlora") and tab.searches == n + 2
    bar.methods["lora"].setChecked(False)
    bar.methods["qlora"].setChecked(False)  # the last method stays: one is needed
    assert tab.constraints.methods == ("qlora",)
    assert bar.methods["qlora"].isChecked()
    bar.goal.setCurrentIndex(bar.goal.findData("fastest"))
    assert tab.constraints.cost_weight == 0.0
    assert bar.margin.isChecked() and tab.constraints.memory_margin
    n = tab.searches
    bar.margin.setChecked(False)  # plans may fill the GPU's near-limit margin: one search
    assert tab.constraints.memory_margin is False and tab.searches == n + 1
    assert tab.search.verdicts["near_limit"] == 0
    bar.margin.setChecked(True)
    walls = [o.wall_s for o in tab.search.front]
    assert walls == sorted(walls)
    # remembered for the next session
    assert PlanConstraints.model_validate_json(
        window.settings.value("plan/constraints")
    ) == tab.constraints  # fmt: skip


def test_what_fits_tab(window, qtbot):
    _, fits = _tabs(window)
    _charts(window)
    window.store.set_field("data", "max_seq_len", 4096)
    window.store.recompute_now()
    assert fits.computations == 0  # hidden
    fits.show()
    qtbot.waitUntil(lambda: fits.computations == 1)
    want = what_fits(window.store.inputs)
    view = fits.view
    assert view.table.rowCount() == len(fits_rows(want))
    assert view.table.item(0, 2).text() == fits_rows(want)[0][2]
    assert view.by_seq.fits == want and view.by_batch.fits == want
    fits.set_others(("a100-80gb-sxm",))
    assert fits.computations == 2
    assert [g.gpu_id for g in view.by_seq.fits.gpus][1] == "a100-80gb-sxm"
    window.store.recompute_now()  # the same inputs: nothing computed
    assert fits.computations == 2


def _keyboard_order(first, wanted):
    """The widgets of ``wanted`` in the order Tab reaches them, from ``first`` on."""
    seen, w = [], first
    for _ in range(500):
        if w in wanted and w not in seen:
            seen.append(w)
        w = w.nextInFocusChain()
    return seen


def test_the_plan_page_never_scrolls_sideways(window, qtbot):
    """Three pairs of editors to a row on a wide page, two on a narrow one, where "Keep memory
    margin" takes its own row: nothing runs past the page's right edge (1024 px windows)."""
    tab, _ = _tabs(window)
    view = _show_plan(qtbot, tab)
    bar = view.bar
    sideways = view.scroll.horizontalScrollBar()
    reading = [bar.deadline, bar.budget, bar.max_gpus, bar.goal, bar.billing, bar.batch,
               *bar.methods.values(), bar.margin]  # fmt: skip
    room_for_two = bar.width_for(2) + 40  # the page's margins and its vertical scroll bar
    seen = set()
    for width in (1920, *range(1200, 700, -20), 1440):
        window.resize(width, 700)
        qtbot.wait(5)
        if view.scroll.width() < room_for_two:
            continue  # narrower than any arrangement: scrolling is the way left
        seen.add(bar.columns)
        if view.scroll.width() >= bar.width_for(3) + 40:  # room for three pairs
            assert bar.columns == 3, width
        elif view.scroll.width() < bar.width_for(3):
            assert bar.columns == 2, width
        qtbot.waitUntil(lambda: sideways.maximum() == 0, timeout=1000)
        assert bar.width() <= view.scroll.viewport().width()
        # the recommendation wraps inside the page rather than run past its edge
        assert view.summary.geometry().right() < view.scroll.viewport().width()
        # the same editors in the same reading order, which is also the keyboard's
        boxes = [x.geometry().translated(x.parentWidget().mapTo(bar, QPoint())) for x in reading]
        for a, b in pairwise(boxes):  # to the right on its row, or below
            same_row = b.top() <= a.bottom() and b.bottom() >= a.top()
            assert (same_row and b.left() > a.right()) or b.top() > a.bottom(), (width, a, b)
        assert _keyboard_order(bar.deadline, reading) == reading
        if bar.columns == 2:
            row, col, _, span = bar.grid.getItemPosition(bar.grid.indexOf(bar.margin))
            assert (row, col, span) == (4, 1, 3)  # under the methods, a row of its own
        else:  # at the end of the methods' row
            assert bar.methods_row.indexOf(bar.margin) == bar.methods_row.count() - 1
    assert seen == {2, 3}
