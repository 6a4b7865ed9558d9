"""A committed-tier price in the window: the tier is a field of the GPU's prices, and the cost
card, the breakdown and the cost chart word it (issue 16: never "on-demand" for a 1-year rate)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox


def test_a_committed_tier_is_worded_on_the_card_and_the_chart(window):
    editor = window.panels["hardware"].editor("hardware.gpu", "pricing_tier")
    assert isinstance(editor, QComboBox) and editor.currentText() == "On-demand"
    plot = window.charts.cost_plot
    assert plot.legend.getLabel(plot.od_curve).text == "On-demand"

    assert window.store.set_field("hardware.gpu", "pricing_tier", "committed_1y")
    window.store.recompute_now()
    assert editor.currentText() == "1-year committed"
    card = window.results.headline.cards["cost"]
    assert card.value.text().endswith("1-year committed")
    assert "on-demand" not in card.value.text()
    assert plot.legend.getLabel(plot.od_curve).text == "1-year committed"
    assert plot.price_word == "1-year committed"  # the hover box's line
    # the tier chosen by hand is the user's price, as a typed price is
    assert window.store.inputs.hardware.price_origin == "typed by hand"

    assert window.store.set_field("hardware.gpu", "pricing_tier", "on_demand")
    window.store.recompute_now()
    assert plot.legend.getLabel(plot.od_curve).text == "On-demand"


def test_the_compare_tab_words_a_committed_price(window):
    assert window.store.set_field("hardware.gpu", "pricing_tier", "committed_3y")
    window.store.recompute_now()
    window.results.tabs.setCurrentWidget(window.results.compare)
    table = window.results.compare.comparison
    assert table is not None
    assert "Cost per run, 3-year committed" in table.labels
    assert "Cost per run, on-demand" not in table.labels
