"""Plot data matches estimate() of the same inputs; hover; PNG/SVG export."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from ftcost_gui.core import estimate, sweep_mfu
from ftcost_gui.core.results import MEMORY_PART_LABELS
from ftcost_gui.core.series import SWEEP_MFUS as MFUS
from ftcost_gui.core.units import GIB
from ftcost_gui.core.variants import COMPARED_METHODS as COMPARED
from ftcost_gui.core.variants import variant_inputs


def test_memory_bars_match_estimate(window):
    inputs, result = window.store.inputs, window.store.result
    plot = window.charts.memory_plot
    assert plot.methods == COMPARED
    for i, method in enumerate(COMPARED):
        r = (
            result
            if method == inputs.training.method
            else estimate(variant_inputs(inputs, result, method))
        )
        parts = dict(r.memory.parts())
        for key in MEMORY_PART_LABELS:
            assert plot.heights_gib[key][i] == pytest.approx(parts[key] / GIB)
        assert plot.totals_gib()[i] == pytest.approx(r.memory.total_bytes / GIB)
        assert plot.gpus_needed[method] == r.memory.gpus_needed
    # Stacked: each part starts where the previous ended.
    weights = plot.bars["weights"].opts
    grads = plot.bars["gradients"].opts
    assert np.allclose(np.asarray(grads["y0"]), np.asarray(weights["height"]))
    assert plot.usable_line.value() == pytest.approx(result.memory.usable_bytes / GIB)
    assert plot.total_line.value() == pytest.approx(result.memory.capacity_bytes / GIB)
    labels = [t.textItem.toPlainText() for t in plot.count_labels[: len(COMPARED)]]
    assert labels[0].startswith("▶") and "GPU" in labels[0]
    assert plot.highlight.opts["x"][0] == 0.0
    assert plot.highlight.opts["height"][0] == pytest.approx(result.memory.total_bytes / GIB)


def test_memory_plot_follows_method_and_adds_current(window):
    window.store.set_field("training", "method", "full_bf16_adamw")
    window.store.recompute_now()
    plot = window.charts.memory_plot
    assert plot.methods == (*COMPARED, "full_bf16_adamw")
    assert plot.current_method == "full_bf16_adamw"
    assert plot.highlight.opts["x"][0] == 4.0
    assert plot.count_labels[4].isVisible()


def test_memory_plot_na_label(window):
    window.store.set_field("training", "sharding", "none")
    window.store.set_field("model", "num_layers", 200)
    window.store.recompute_now()
    plot = window.charts.memory_plot
    assert plot.gpus_needed["full_amp_adamw"] is None
    assert plot.count_labels[0].textItem.toPlainText().endswith("n/a")


def test_cost_curves_match_sweep(window):
    inputs, result = window.store.inputs, window.store.result
    plot = window.charts.cost_plot
    points = sweep_mfu(inputs, MFUS)
    x, y = plot.od_curve.getData()
    assert np.allclose(x, [p.mfu * 100 for p in points])
    assert np.allclose(y, [p.on_demand_usd for p in points])
    _xs, ys = plot.spot_curve.getData()
    assert np.allclose(ys, [p.spot_usd for p in points])
    assert MFUS[0] == 0.10 and MFUS[-1] == 0.60
    spots = plot.marker.data
    assert spots["x"][0] == pytest.approx(inputs.efficiency.mfu * 100)
    assert spots["y"][0] == pytest.approx(result.cost.on_demand_usd)
    assert plot.band.getRegion() == (35.0, 55.0)
    assert not plot.band.movable
    assert plot.plot_item.getAxis("bottom").labelText == "MFU (%)"
    assert "USD" in plot.plot_item.getAxis("left").labelText


def test_cost_hover_shows_values(window, qtbot):
    plot = window.charts.cost_plot
    qtbot.waitUntil(lambda: plot.view_box.width() > 10, timeout=2000)
    scene_pos = plot.view_box.mapViewToScene(QPointF(40.0, 5.0))
    plot._on_scene_mouse_moved(scene_pos)
    assert plot.hover_text.startswith("MFU 40")
    _mfu, od, _spot = plot.values_at(40.0)
    from ftcost_gui.core.units import fmt_usd

    assert fmt_usd(od) in plot.hover_text
    plot._on_scene_mouse_moved(QPointF(-100, -100))
    assert plot.hover_text == ""


@pytest.mark.parametrize("which", ["memory", "cost"])
def test_export_png_and_svg(window, tmp_path, which):
    png = tmp_path / f"{which}.png"
    svg = tmp_path / f"{which}.svg"
    assert window.exports.export_plot(which, "png", str(png))
    assert window.exports.export_plot(which, "svg", str(svg))
    assert png.stat().st_size > 1000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text()
    assert "<svg" in text
    root = ET.fromstring(text)
    assert root.tag.endswith("svg")


def test_export_via_menu_asks_for_path(window, tmp_path, monkeypatch):
    target = tmp_path / "via-menu.svg"
    monkeypatch.setattr(window.exports, "_ask_export_path", lambda fmt: str(target))
    window.charts.memory_plot.svg_action.trigger()
    assert target.exists() and target.stat().st_size > 0


def test_plots_are_built_after_first_paint(qtbot):
    from ftcost_gui.gui.window.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    assert w.charts.memory_plot is None
    w.show()
    qtbot.waitUntil(lambda: w.charts.memory_plot is not None, timeout=3000)
    assert w.charts.cost_plot.x.size == len(MFUS)
