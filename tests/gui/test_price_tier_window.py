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
    window.results.show_tab(window.results.compare)
    table = window.results.compare.comparison
    assert table is not None
    assert "Cost per run, 3-year committed" in table.labels
    assert "Cost per run, on-demand" not in table.labels


def _price_label(window) -> str:
    panel = window.panels["hardware"]
    return panel._labels[("hardware.gpu", "on_demand_usd_per_hour")].text()


def test_the_price_field_is_labelled_by_its_tier(window):
    assert _price_label(window) == "On-demand price:"
    assert window.store.set_field("hardware.gpu", "pricing_tier", "committed_3y")
    assert _price_label(window) == "3-year committed price:"
    assert window.store.set_field("hardware.gpu", "pricing_tier", "spot")
    assert _price_label(window) == "On-demand price:"  # a spot row keeps its on-demand price
    window.action("undo").trigger()
    assert _price_label(window) == "3-year committed price:"


def test_the_stages_line_words_the_sum_by_tier(window):
    assert window.store.set_field("hardware.gpu", "pricing_tier", "committed_1y")
    window.store.duplicate_scenario()
    window.store.recompute_now()
    window.results.show_tab(window.results.compare)
    text = window.results.compare.stages.text()
    assert text.startswith("As project stages") and "1-year committed (" in text
    assert "on-demand" not in text


def test_a_tier_alone_raises_the_price_bar(window, tmp_path):
    from ftcost_gui.io.estimate_file import save_estimate

    path = tmp_path / "committed.ftcost"
    assert window.store.set_field("hardware.gpu", "pricing_tier", "committed_1y")
    save_estimate(path, window.store.inputs)  # H100 at the built-in prices, billed 1-year
    assert window.files.load_path(path)
    bar = window.addons["catalogs"].price_bar
    assert bar.isVisible()
    assert bar.text.text() == (
        "This estimate uses $3.00/h 1-year committed; your catalog 'Built-in' says $3.00/h "
        "on-demand (H100 SXM)."
    )
