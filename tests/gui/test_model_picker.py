"""The preset picker (search, pick, Custom), the parameter count and the LoRA target counts."""

from PySide6.QtCore import Qt

from ftcost_gui.core import estimate
from ftcost_gui.core.architecture import ModelSpec
from ftcost_gui.gui.model_ui import CUSTOM, preset_label
from ftcost_gui.gui.results_view import headline_texts
from ftcost_gui.io.resources import builtin_presets
from ftcost_gui.present.text import fmt_count, fmt_share

ARCH_FIELDS = [n for n in ModelSpec.model_fields if n != "name"]


def _search(qtbot, combo, text):
    edit = combo.lineEdit()
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def _assert_model_shown(window, spec):
    panel = window.panels["model"]
    for name in ARCH_FIELDS:
        assert panel.editor("model", name).field_value() == getattr(spec, name), name
    assert panel.editor("model", "name").text() == spec.name


def _assert_headline_matches(window, qtbot):
    qtbot.waitUntil(lambda: not window.store.pending, timeout=2000)
    inputs = window.store.inputs
    r = estimate(inputs)
    assert window.store.result == r
    for key, (value, detail, _tip) in headline_texts(inputs, r).items():
        assert window.results.headline.cards[key].value.text() == value
        assert window.results.headline.cards[key].detail.text() == detail


def test_labels_are_grouped_by_family_and_end_with_custom(window):
    combo = window.panels["model"].preset_combo
    presets = {p.id: p for p in builtin_presets().models}
    llama = presets["llama-3.1-8b"]
    assert preset_label(llama) == "Llama 3.1 · 8B · 128k ctx · Llama 3.1 Community"
    assert combo.itemText(combo.findData("llama-3.1-8b")) == preset_label(llama)
    assert combo.itemText(combo.findData("gpt2")) == "GPT-2 · 124M · 1k ctx · MIT"
    ids = [combo.itemData(i) for i in range(combo.count()) if combo.itemData(i)]
    assert ids[-1] == CUSTOM and combo.itemText(combo.count() - 1) == "Custom"
    families = [presets[i].family for i in ids[:-1]]
    assert sorted(set(ids[:-1])) == sorted(presets)
    runs = [f for k, f in enumerate(families) if k == 0 or families[k - 1] != f]
    assert len(runs) == len(set(families))  # each family in one contiguous block


def test_typing_filters_and_enter_picks(window, qtbot):
    combo = window.panels["model"].preset_combo
    _search(qtbot, combo, "llama 8b")
    assert combo.matches() == ["llama-3.1-8b"]
    assert combo.search.popup().isVisible()
    assert combo.search.completionModel().rowCount() == 1
    _search(qtbot, combo, "APACHE 64k")  # any order, any case, licence and context too
    assert combo.matches() == ["mixtral-8x22b"]
    _search(qtbot, combo, "qwen3")
    assert combo.matches() == ["qwen3-0.6b", "qwen3-4b", "qwen3-8b", "qwen3-32b", "qwen3-30b-a3b"]
    _search(qtbot, combo, "llama 8b")
    qtbot.keyClick(combo.lineEdit(), Qt.Key.Key_Return)
    preset = builtin_presets().find("llama-3.1-8b")
    assert window.store.inputs.model == preset.spec
    assert window.undo_stack.count() == 1  # the whole section in one edit
    assert combo.currentData() == "llama-3.1-8b"
    assert combo.lineEdit().text() == preset_label(preset)
    _assert_model_shown(window, preset.spec)
    _assert_headline_matches(window, qtbot)
    window.undo_stack.undo()
    assert window.store.inputs.model == builtin_presets().find("qwen2.5-7b").spec
    assert combo.currentData() == "qwen2.5-7b"


def test_picking_from_the_search_popup(window, qtbot):
    combo = window.panels["model"].preset_combo
    _search(qtbot, combo, "qwen3")
    popup = combo.search.popup()
    qtbot.keyClick(popup, Qt.Key.Key_Down)
    qtbot.keyClick(popup, Qt.Key.Key_Down)
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    preset = builtin_presets().find("qwen3-4b")
    assert window.store.inputs.model == preset.spec
    assert window.undo_stack.count() == 1
    _assert_model_shown(window, preset.spec)
    _assert_headline_matches(window, qtbot)


def test_unfinished_search_restores_the_current_preset(window, qtbot):
    combo = window.panels["model"].preset_combo
    before = combo.lineEdit().text()
    _search(qtbot, combo, "no such model")
    assert combo.matches() == []
    qtbot.keyClick(combo.lineEdit(), Qt.Key.Key_Return)
    assert combo.lineEdit().text() == before
    assert window.undo_stack.count() == 0


def test_editing_hidden_size_shows_custom(window, qtbot):
    panel = window.panels["model"]
    combo = panel.preset_combo
    assert combo.currentData() == "qwen2.5-7b"
    assert panel.params_label.text() == "7,615,616,512 parameters (7.62B) = published total ✓"
    spin = panel.editor("model", "hidden_size")
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin, "3136")  # 28 heads of 112
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert window.store.inputs.model.hidden_size == 3136
    assert combo.currentData() == CUSTOM
    assert combo.lineEdit().text() == "Custom"
    assert "published" not in panel.params_label.text()
    window.undo_stack.undo()
    assert combo.currentData() == "qwen2.5-7b"


def test_parameter_count_label_for_moe_and_bare_counts(window):
    panel = window.panels["model"]
    panel.select_preset("mixtral-8x7b")
    assert panel.params_label.text() == (
        "46,702,792,704 parameters (46.7B) = published total ✓\n"
        "12,879,925,248 active per token (12.9B; top-2 of 8 experts)"
    )
    window.store.set_field("model", "param_count_override", 5e10)
    assert panel.params_label.text().startswith("Bare count of 50.0B parameters")
    assert panel.preset_combo.currentData() == CUSTOM


def test_number_formats():
    assert [fmt_count(n) for n in (950, 12_288, 2_097_152, 16_777_216, 999_600, 7.6e9)] == [
        "950",
        "12.3k",
        "2.10M",
        "16.8M",
        "1.00M",
        "7.60B",
    ]
    assert [fmt_share(a, 100) for a in (0.249, 1.55, 12.4)] == ["0.25%", "1.6%", "12%"]


def test_lora_target_labels_follow_rank_and_model(window, qtbot):
    panel = window.panels["model"]
    tp = window.panels["training"]
    panel.select_preset("llama-2-7b")
    window.store.set_field("training", "method", "lora")
    window.store.set_field("training", "lora_rank", 8)
    editor = tp.editor("training", "lora_targets")
    # Llama-2-7B at r = 8: q_proj adds 8 · (4096 + 4096) · 32 = 2,097,152.
    assert editor.counts["q_proj"].text() == "+2.10M"
    assert "2,097,152" in editor.counts["q_proj"].toolTip()
    assert editor.counts["o_proj"].text() == "+2.10M"
    assert editor.counts["gate_proj"].text() == "+3.87M"  # 8 · (4096 + 11008) · 32 = 3,866,624
    assert editor.field_value() == ("q_proj", "k_proj", "v_proj", "o_proj")
    assert editor.total.text() == "+8.39M trainable, 0.12% of the model"
    editor.boxes["down_proj"].setChecked(True)  # + 3,866,624
    assert editor.total.text() == "+12.3M trainable, 0.18% of the model"
    rank = tp.editor("training", "lora_rank")
    rank.lineEdit().selectAll()
    qtbot.keyClicks(rank, "64")
    qtbot.keyClick(rank, Qt.Key.Key_Return)
    assert window.store.inputs.training.lora_rank == 64
    assert editor.counts["q_proj"].text() == "+16.8M"  # 64 · 8192 · 32 = 16,777,216
    assert editor.counts["down_proj"].text() == "+30.9M"  # 64 · 15104 · 32 = 30,932,992
    assert editor.total.text() == "+98.0M trainable, 1.5% of the model"
    panel.select_preset("qwen2.5-7b")  # 64 · (3584 + 3584) · 28 = 12,845,056
    assert editor.counts["q_proj"].text() == "+12.8M"
    panel.select_preset("gpt2")
    assert editor.counts["gate_proj"].text() == "n/a"  # a plain MLP has no gate
