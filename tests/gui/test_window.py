"""Drive the real window like a person: type, pick, switch; compare with estimate()."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.core.units import GIB, fmt_gib, fmt_usd
from ftcost_gui.gui.defaults import article_000
from ftcost_gui.gui.results_view import breakdown_rows, headline_texts


def _type(qtbot, widget, text):
    widget.setFocus()
    widget.selectAll() if hasattr(widget, "selectAll") else None
    if hasattr(widget, "lineEdit") and widget.lineEdit() is not None:
        widget.lineEdit().selectAll()
    qtbot.keyClicks(widget, text)
    qtbot.keyClick(widget, Qt.Key.Key_Return)


def _assert_views_match(window, inputs):
    r = estimate(inputs)
    assert window.store.result == r
    for key, (value, detail, _tip) in headline_texts(inputs, r).items():
        card = window.results.headline.cards[key]
        assert card.value.text() == value
        assert card.detail.text() == detail
    window.results.show_tab(window.results.breakdown)  # filled while on screen
    assert window.results.breakdown.values() == [(b, c) for _a, b, c in breakdown_rows(inputs, r)]
    return r


def test_first_launch_is_the_clis_new_estimate(qtbot, tmp_path, monkeypatch, capsys):
    """Issue 11 observation 7: the window's first estimate and the CLI's new estimate are the
    same inputs (the MFU left to the default, the active catalog's GPU and prices), so they give
    the same figures."""
    import json

    from ftcost_gui.cli import main
    from ftcost_gui.gui.app import build_window

    monkeypatch.setenv("FTCOST_CONFIG_DIR", str(tmp_path / "config"))
    w = build_window(build_plots_now=True)
    qtbot.addWidget(w)
    assert main(["estimate", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert w.store.inputs == EstimateInputs.model_validate(doc["inputs"])
    assert w.store.inputs.efficiency.mfu is None
    assert w.store.inputs.hardware.price_origin == "built-in"
    r = w.store.recompute_now()
    assert r.time.compute_gpu_hours == doc["result"]["time"]["compute_gpu_hours"]
    assert r.cost.on_demand_usd == doc["result"]["cost"]["on_demand_usd"]


def test_first_launch_shows_article_000(window):
    assert window.store.inputs == article_000()
    r = _assert_views_match(window, article_000())
    card = window.results.headline.cards["memory"]
    # The card says which figure it shows: the device total (nvidia-smi) against the GPU's
    # memory, with the allocated and reserved peaks beside it.
    total = f"{r.memory.total_bytes / 2**30:,.1f}"
    assert card.value.text() == f"{total} of {fmt_gib(r.memory.capacity_bytes)}"
    assert "device total (nvidia-smi)" in card.detail.text()
    assert f"allocated {r.memory.peak_allocated_bytes / 2**30:,.1f}" in card.detail.text()
    assert f"reserved {fmt_gib(r.memory.peak_reserved_bytes)}" in card.detail.text()
    assert "max_memory_allocated()" in card.toolTip()
    assert fmt_usd(r.cost.on_demand_usd) in window.summary_label.text()
    assert not window.isWindowModified()
    assert window.windowTitle() == "Untitled[*] — ftcost"


def test_typing_a_token_count_updates_results(window, qtbot):
    window.form_tabs.setCurrentIndex(1)
    edit = window.panels["data"].editor("data", "total_tokens")
    assert edit.text() == "60M"
    edit.clear()
    _type(qtbot, edit, "1.2e8")
    assert window.store.inputs.data.total_tokens == 1.2e8
    qtbot.waitUntil(lambda: not window.store.pending, timeout=1000)
    _assert_views_match(window, window.store.inputs)
    assert edit.text() == "120M"
    assert window.isWindowModified()


def test_typing_into_a_spin_box(window, qtbot):
    window.form_tabs.setCurrentIndex(3)
    spin = window.panels["hardware"].editor("efficiency", "mfu")
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin, "0.5")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert window.store.inputs.efficiency.mfu == 0.5
    window.store.recompute_now()
    _assert_views_match(window, window.store.inputs)


def test_pick_preset_and_switch_method(window, qtbot):
    model_panel = window.panels["model"]
    combo = model_panel.preset_combo
    idx = combo.findData("llama-2-7b")
    combo.setCurrentIndex(idx)
    combo.activated.emit(idx)
    assert window.store.inputs.model.name.lower().startswith("llama")
    assert window.undo_stack.count() == 1  # one set_inputs, one command
    method = window.panels["training"].editor("training", "method")
    method.setCurrentIndex(method.findData("lora"))
    assert window.store.inputs.training.method == "lora"
    window.store.recompute_now()
    _assert_views_match(window, window.store.inputs)
    # Editing an architecture field makes the preset 'Custom'.
    layers = model_panel.editor("model", "num_layers")
    layers.setValue(30)
    assert combo.currentData() == "__custom__"


def test_applicability_rules(window):
    tp = window.panels["training"]
    assert not tp.editor("training", "lora_rank").isVisibleTo(window)  # full FT
    window.store.set_field("training", "method", "qlora")
    assert tp.editor("training", "lora_rank").isVisibleTo(tp)
    assert tp.editor("training", "lora_targets").isVisibleTo(tp)
    assert not tp.editor("training", "num_gpus").isEnabled()  # auto count on
    window.store.set_field("training", "auto_gpu_count", False)
    assert tp.editor("training", "num_gpus").isEnabled()
    dp = window.panels["data"]
    assert dp.editor("data", "total_tokens").isVisibleTo(dp)
    assert not dp.editor("data", "num_examples").isVisibleTo(dp)
    window.store.set_field("data", "mode", "examples")
    assert dp.editor("data", "num_examples").isVisibleTo(dp)
    assert not dp.editor("data", "total_tokens").isVisibleTo(dp)


def test_lora_targets_checkboxes(window):
    window.store.set_field("training", "method", "lora")
    editor = window.panels["training"].editor("training", "lora_targets")
    editor.boxes["down_proj"].setChecked(True)
    assert "down_proj" in window.store.inputs.training.lora_targets
    for name in ("q_proj", "k_proj", "v_proj", "o_proj", "down_proj"):
        editor.boxes[name].setChecked(False)
    # Unchecking all is rejected (min_length=1): the last valid tuple stays.
    assert window.store.inputs.training.lora_targets == ("down_proj",)
    assert window.panels["training"].bindings[("training", "lora_targets")].error


def test_gpu_picker_writes_catalog_spec(window):
    from ftcost_gui.io.resources import builtin_catalog

    hp = window.panels["hardware"]
    hp.select_gpu("a100-80gb-sxm")
    assert window.store.inputs.hardware.gpu == builtin_catalog().find("a100-80gb-sxm").to_spec()
    price = hp.editor("hardware.gpu", "on_demand_usd_per_hour")
    assert price.isEnabled()
    price.setValue(1.75)
    assert window.store.inputs.hardware.gpu.on_demand_usd_per_hour == 1.75
    assert hp.gpu_combo.currentData() == "a100-80gb-sxm"  # prices edited, still that GPU
    spot = hp.editor("hardware.gpu", "spot_usd_per_hour")
    spot.setValue(spot.minimum())
    assert window.store.inputs.hardware.gpu.spot_usd_per_hour is None
    window.store.recompute_now()
    assert window.results.headline.cards["cost"].detail.text().startswith("no spot price")


def test_invalid_value_marks_field_and_keeps_result(window, qtbot):
    before = window.store.result
    inputs_before = window.store.inputs
    kv = window.panels["model"].editor("model", "num_kv_heads")
    kv.lineEdit().selectAll()
    qtbot.keyClicks(kv, "5")
    qtbot.keyClick(kv, Qt.Key.Key_Return)
    binding = window.panels["model"].bindings[("model", "num_kv_heads")]
    assert binding.error and "must divide" in binding.error
    assert "Not applied" in kv.toolTip()
    assert kv.styleSheet()
    assert window.store.inputs == inputs_before
    window.store.recompute_now()
    assert window.store.result == before
    assert (
        window.results.headline.cards["memory"].value.text()
        == headline_texts(inputs_before, before)["memory"][0]
    )
    kv.setValue(4)
    assert not binding.error and not kv.styleSheet()


def test_unreadable_number_is_marked(window, qtbot):
    edit = window.panels["data"].editor("data", "total_tokens")
    edit.setText("1e")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert window.panels["data"].bindings[("data", "total_tokens")].error
    assert window.store.inputs.data.total_tokens == 6e7


def test_undo_redo_restores_values(window, qtbot):
    spin = window.panels["hardware"].editor("efficiency", "mfu")
    spin.setValue(0.45)
    spin.setValue(0.5)
    assert window.undo_stack.count() == 2
    assert window.isWindowModified()
    window.action("undo").trigger()
    assert window.store.inputs.efficiency.mfu == 0.45
    assert spin.value() == 0.45
    window.action("undo").trigger()
    assert window.store.inputs == article_000()
    assert not window.isWindowModified()  # back at the clean state
    window.action("redo").trigger()
    assert window.store.inputs.efficiency.mfu == 0.45
    window.store.recompute_now()
    _assert_views_match(window, window.store.inputs)
    assert any(s.matches(QKeySequence("Ctrl+Shift+Z")) for s in window.action("redo").shortcuts())
    assert window.action("undo").shortcuts()


def test_explain_view_shows_current_numbers(window):
    window.store.set_field("efficiency", "mfu", 0.3)
    window.store.recompute_now()
    window.results.tabs.setCurrentWidget(window.results.explain)
    text = window.results.explain.toPlainText()
    assert "× 0.300)" in text and "MFU used = 30.0%" in text
    from ftcost_gui.present.text import sci

    assert sci(window.store.result.flops.total_flops) in text


def test_window_says_which_memory_figure_it_shows(window):
    """Issue 10: allocated (max_memory_allocated), reserved (max_memory_reserved) and the device
    total (nvidia-smi) in the breakdown table; the explanation lists the activation tensors the
    figure comes from, each with its bytes per token and the record that measured it."""
    r = window.store.recompute_now()
    m = r.memory
    window.results.tabs.setCurrentWidget(window.results.breakdown)  # hidden views refresh shown
    rows = dict(window.results.breakdown.values())
    assert (
        rows["Peak allocated (max_memory_allocated)"] == f"{m.peak_allocated_bytes / GIB:,.2f} GiB"
    )
    assert rows["Peak reserved (expected) (max_memory_reserved)"] == (
        f"{m.peak_reserved_bytes / GIB:,.2f} GiB"
    )
    assert rows["Device total (nvidia-smi)"] == f"{m.total_bytes / GIB:,.2f} GiB"
    assert rows["GPU memory"] == f"{m.capacity_bytes / GIB:,.2f} GiB"
    window.results.tabs.setCurrentWidget(window.results.explain)
    text = window.results.explain.toPlainText()
    assert "Activations, tensor by tensor" in text
    assert "max_memory_allocated()" in text and "nvidia-smi" in text
    # Article 000's Qwen2.5-7B, full fine-tuning: each RMSNorm keeps an fp32 copy of its input,
    # 4 B × hidden 3584 = 14,336 B per token, as docs/data/measured/qwen2.json shows.
    assert window.store.inputs.model.hidden_size == 3584
    row = text[text.index("each layer: attention norm: fp32 copy of the input") :].split()
    assert row[9:11] == ["14,336.0", "qwen2.json"], row[:11]


def test_status_bar_and_tooltips(window):
    assert "GPU-h" in window.summary_label.text()
    for panel in window.panels.values():
        for binding in panel.bindings.values():
            assert binding.widget.toolTip(), binding.spec.name


def test_rows_are_generated_from_metadata(window):
    from ftcost_gui.core.fields import field_spec
    from ftcost_gui.core.inputs import DataSpec

    panel = window.panels["data"]
    label = panel._labels[("data", "max_seq_len")]
    assert label.text() == f"{field_spec(DataSpec, 'max_seq_len').label}:"
    assert panel.editor("data", "max_seq_len").suffix() == " tokens"


def test_tab_order_follows_rows(window):
    panel = window.panels["data"]
    a = panel.editor("data", "mode")
    b = panel.editor("data", "num_examples")
    assert a.nextInFocusChain() is not None
    # QFormLayout adds rows in order, so focus moves down the form.
    chain, w = [], a
    for _ in range(10):
        w = w.nextInFocusChain()
        chain.append(w)
    assert b in chain or panel.editor("data", "total_tokens") in chain


def test_estimate_inputs_default_window(qtbot):
    from ftcost_gui.gui.store import EstimateStore
    from ftcost_gui.gui.window.main_window import MainWindow

    w = MainWindow(EstimateStore(EstimateInputs()))
    qtbot.addWidget(w)
    w.charts.ensure_plots()
    assert w.charts.memory_plot.methods
