"""The window estimates each needed input set once per edit, and redraws only changed series."""

from __future__ import annotations

import pytest


def _edit(window, section, name, value):
    assert window.store.set_field(section, name, value)
    window.store.recompute_now()


@pytest.mark.parametrize(
    ("section", "name", "value", "expected"),
    [
        # The selected inputs once, and the memory of the three other methods on the same GPUs.
        # (Before core/series.py: five estimates, one per method and one more for the cost sweep.)
        ("data", "max_seq_len", 4096, {"plan": 1, "memory": 3}),
        ("efficiency", "mfu", 0.31, {"plan": 1, "memory": 0}),
        ("data", "num_examples", 31_000, {"plan": 1, "memory": 0}),
    ],
)
def test_estimates_per_edit(window, counted, section, name, value, expected):
    assert window.charts.memory_plot is not None
    counted.update(plan=0, memory=0)
    _edit(window, section, name, value)
    assert counted == expected
    # Undo-like return to a set seen before: nothing is estimated again while it is cached…
    counted.update(plan=0, memory=0)
    window.store.recompute_now()
    assert counted == {"plan": 0, "memory": 0}


def test_plots_show_the_stores_outcome(window):
    _edit(window, "data", "max_seq_len", 4096)
    outcome = window.store.outcome
    memory, cost = window.charts.memory_plot, window.charts.cost_plot
    assert memory.methods == outcome.memory_by_method.keys
    assert memory.totals_gib() == pytest.approx(list(outcome.memory_by_method.totals_gib))
    assert tuple(cost.od) == outcome.cost_curve.on_demand_usd
    assert cost.current == (
        outcome.cost_now.mfu_pct,
        outcome.cost_now.on_demand_usd,
        outcome.cost_now.spot_usd,
    )


def test_outcome_is_emitted_only_when_it_changed(window):
    seen = []
    window.store.outcomeChanged.connect(seen.append)
    window.store.recompute_now()  # nothing changed
    assert seen == []
    window.store.rename_scenario(0, "Renamed")  # a name is not part of the outcome
    assert seen == []
    _edit(window, "efficiency", "mfu", 0.33)
    assert len(seen) == 1 and seen[0] is window.store.outcome


def test_an_mfu_edit_moves_the_marker_and_redraws_no_bar_or_curve(window, monkeypatch):
    memory, cost = window.charts.memory_plot, window.charts.cost_plot
    drawn = []
    monkeypatch.setattr(memory.bars["activations"], "take", lambda *a, **kw: drawn.append("bars"))
    monkeypatch.setattr(cost.od_curve, "setData", lambda *a, **kw: drawn.append("curve"))
    _edit(window, "efficiency", "mfu", 0.29)
    assert drawn == []
    assert cost.current[0] == pytest.approx(29.0)
    _edit(window, "data", "max_seq_len", 3072)
    assert drawn == ["bars", "curve"]
