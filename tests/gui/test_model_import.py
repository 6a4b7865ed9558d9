"""File → Import Model Config…, safetensors header counts, and "Models on This Computer"."""

import json
import struct
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from ftcost_gui.core.architecture import ModelSpec
from ftcost_gui.gui.model_ui import CUSTOM
from ftcost_gui.io.resources import builtin_presets

# Qwen/Qwen2.5-7B's published config.json (the keys that matter, and some that do not).
QWEN25_7B = {
    "architectures": ["Qwen2ForCausalLM"], "hidden_size": 3584, "intermediate_size": 18944,
    "max_position_embeddings": 131072, "max_window_layers": 28, "model_type": "qwen2",
    "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
    "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "use_sliding_window": False, "vocab_size": 152064,
}  # fmt: skip
QWEN25_7B_TOTAL = 7_615_616_512
DEEPSEEK_V3 = {  # not a supported family: the shape keys it shares are still understood
    "model_type": "deepseek_v3", "hidden_size": 7168, "num_hidden_layers": 61,
    "num_attention_heads": 128, "num_key_value_heads": 128, "intermediate_size": 18432,
    "vocab_size": 129280, "max_position_embeddings": 163840,
}  # fmt: skip
ITEMSIZE = {"BF16": 2, "F32": 4}
ARCH_FIELDS = [n for n in ModelSpec.model_fields if n != "name"]


def write_safetensors(path: Path, tensors: dict[str, tuple[str, list[int]]]) -> Path:
    """8-byte little-endian header length, the JSON header, then a sparse data region."""
    header, offset = {}, 0
    for name, (dtype, shape) in tensors.items():
        size = ITEMSIZE[dtype]
        for d in shape:
            size *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    header["__metadata__"] = {"format": "pt"}
    raw = json.dumps(header).encode()
    with path.open("wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw)
        f.truncate(8 + len(raw) + offset)  # never read: sparse on disk
    return path


def qwen_tensors(extra: int = 0) -> dict[str, tuple[str, list[int]]]:
    embed = 152064 * 3584
    tensors = {
        "model.embed_tokens.weight": ("BF16", [152064, 3584]),
        "lm_head.weight": ("BF16", [152064, 3584]),
        "model.layers.all": ("BF16", [QWEN25_7B_TOTAL - 2 * embed]),
    }
    if extra:
        tensors["rotary.inv_freq"] = ("F32", [extra])
    return tensors


def model_folder(root: Path, name: str, config: dict | None, tensors=None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config))
    if tensors is not None:
        write_safetensors(folder / "model.safetensors", tensors)
    return folder


def fake_cache(root: Path, repos: dict[str, tuple[dict | None, object]]) -> Path:
    """models--org--name/{refs/main, snapshots/<hash>/...} as huggingface_hub lays it out."""
    for i, (repo_id, (config, tensors)) in enumerate(repos.items()):
        repo = root / ("models--" + repo_id.replace("/", "--"))
        commit = f"{i:040x}"
        model_folder(repo / "snapshots", commit, config, tensors)
        (repo / "refs").mkdir()
        (repo / "refs" / "main").write_text(commit)
    return root


@pytest.fixture
def hub(tmp_path, monkeypatch):
    root = tmp_path / "hub"
    root.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(root))
    return root


def _file_action(window, text):
    file_menu = next(
        a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "File"
    )
    return next(a for a in file_menu.actions() if a.text().replace("&", "") == text)


def _assert_fields(window, spec):
    panel = window.panels["model"]
    for name in ARCH_FIELDS:
        assert panel.editor("model", name).field_value() == getattr(spec, name), name


def test_file_menu_has_the_model_actions(window):
    assert (
        _file_action(window, "Import Model Config…") is window.addons["model_import"].import_action
    )
    assert (
        _file_action(window, "Models on This Computer…")
        is window.addons["model_import"].cached_action
    )


def test_import_config_json_loads_the_architecture(window, tmp_path, monkeypatch):
    window.panels["model"].select_preset("llama-2-7b")
    count = window.undo_stack.count()
    folder = model_folder(tmp_path, "Qwen2.5-7B", QWEN25_7B)
    monkeypatch.setattr(
        window.addons["model_import"], "_ask_model_path", lambda: str(folder / "config.json")
    )
    _file_action(window, "Import Model Config…").trigger()
    preset = builtin_presets().find("qwen2.5-7b")
    model = window.store.inputs.model
    assert model.model_dump(exclude={"name"}) == preset.spec.model_dump(exclude={"name"})
    assert model.name == "Qwen2.5-7B"  # the folder's name
    _assert_fields(window, preset.spec)
    panel = window.panels["model"]
    assert panel.preset_combo.currentData() == "qwen2.5-7b"  # same architecture
    assert panel.params_label.text() == "7,615,616,512 parameters (7.62B) = published total ✓"
    assert not panel.checkpoint_label.isVisibleTo(panel)  # no weights in the folder
    assert window.undo_stack.count() == count + 1
    window.undo_stack.undo()
    assert window.store.inputs.model == builtin_presets().find("llama-2-7b").spec


def test_import_folder_counts_safetensors_headers(window, tmp_path):
    panel = window.panels["model"]
    folder = model_folder(tmp_path, "Qwen2.5-7B", QWEN25_7B, qwen_tensors())
    assert window.addons["model_import"].import_path(folder)
    assert panel.checkpoint_label.isVisibleTo(panel)
    assert panel.checkpoint_label.text() == "safetensors: 7,615,616,512 params (bf16) — matches"
    # Another checkpoint that also stores 1,234 fp32 buffer values.
    other = model_folder(tmp_path, "with-buffers", QWEN25_7B, qwen_tensors(extra=1234))
    assert window.addons["model_import"].import_path(other / "config.json")
    assert panel.checkpoint_label.text() == (
        "safetensors: 7,615,617,746 params (bf16, f32) — differs by +1,234 (+0.00%)"
    )
    panel.select_preset("llama-2-7b")  # another model: the count no longer applies
    assert not panel.checkpoint_label.isVisibleTo(panel)
    window.undo_stack.undo()
    assert panel.checkpoint_label.isVisibleTo(panel)


def test_unknown_model_type_warns_and_fills_what_was_understood(window, tmp_path, dialogs):
    count = window.undo_stack.count()
    folder = model_folder(tmp_path, "DeepSeek-V3", DEEPSEEK_V3)
    assert not window.addons["model_import"].import_path(folder)
    assert len(dialogs["warning"]) == 1
    message = dialogs["warning"][0][2]
    assert "deepseek_v3" in message and "not supported" in message
    model = window.store.inputs.model
    assert (model.hidden_size, model.num_layers, model.num_attention_heads) == (7168, 61, 128)
    assert (model.vocab_size, model.intermediate_size, model.max_context) == (129280, 18432, 163840)
    panel = window.panels["model"]
    assert panel.editor("model", "hidden_size").value() == 7168
    assert panel.editor("model", "num_layers").value() == 61
    assert panel.preset_combo.currentData() == CUSTOM
    assert panel.preset_combo.lineEdit().text() == "Custom"
    assert window.undo_stack.count() == count + 1


def test_missing_key_is_named_and_the_rest_is_kept(window, tmp_path, dialogs):
    config = {k: v for k, v in QWEN25_7B.items() if k != "intermediate_size"}
    config["hidden_size"] = 4096
    config["num_attention_heads"] = 32
    folder = model_folder(tmp_path, "qwen-no-mlp", config)
    assert not window.addons["model_import"].import_path(folder)
    message = dialogs["warning"][0][2]
    assert "'intermediate_size'" in message
    model = window.store.inputs.model
    assert (model.hidden_size, model.num_attention_heads, model.num_kv_heads) == (4096, 32, 4)
    assert model.intermediate_size == 18944  # not understood: the previous value stays
    assert window.panels["model"].preset_combo.currentData() == CUSTOM


def test_unreadable_config_changes_nothing(window, tmp_path, dialogs, monkeypatch):
    before = window.store.inputs
    bad = tmp_path / "config.json"
    bad.write_text("{ not json")
    monkeypatch.setattr(window.addons["model_import"], "_ask_model_path", lambda: str(bad))
    assert not window.addons["model_import"].import_config()
    assert "not valid JSON" in dialogs["warning"][0][2]
    monkeypatch.setattr(window.addons["model_import"], "_ask_model_path", lambda: "")  # cancelled
    assert not window.addons["model_import"].import_config()
    assert len(dialogs["warning"]) == 1
    assert window.store.inputs == before
    assert window.undo_stack.count() == 0


def test_cache_dialog_lists_models_and_use_loads_one(window, hub, qtbot):
    fake_cache(
        hub,
        {
            "Qwen/Qwen2.5-7B": (QWEN25_7B, qwen_tensors()),
            "deepseek-ai/DeepSeek-V3": (DEEPSEEK_V3, None),
            "someone/no-config": (None, None),
        },
    )
    dialog = window.addons["model_import"].show_cached_models()
    assert dialog.isVisible() and not dialog.isModal()
    assert str(hub) in dialog.location.text() and "HF_HUB_CACHE" in dialog.location.text()
    rows = {r[0]: r for r in dialog.row_texts()}
    assert rows["Qwen/Qwen2.5-7B"] == [
        "Qwen/Qwen2.5-7B",
        "qwen2",
        "7.62B",
        "1 safetensors file",
        "Ready",
    ]
    assert rows["deepseek-ai/DeepSeek-V3"][1] == "deepseek_v3"
    assert "not supported" in rows["deepseek-ai/DeepSeek-V3"][4]
    assert "no config.json" in rows["someone/no-config"][4]
    assert dialog.selected_model().repo_id == "Qwen/Qwen2.5-7B"  # the first usable one
    # Rescan picks up a model downloaded meanwhile.
    model_folder(hub / "models--Qwen--Qwen2.5-0.5B" / "snapshots", "abc", QWEN25_7B)
    qtbot.mouseClick(dialog.rescan_button, Qt.MouseButton.LeftButton)
    assert "Qwen/Qwen2.5-0.5B" in [r[0] for r in dialog.row_texts()]
    assert dialog.select("Qwen/Qwen2.5-7B")
    qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)
    model = window.store.inputs.model
    assert model.name == "Qwen/Qwen2.5-7B"
    _assert_fields(window, builtin_presets().find("qwen2.5-7b").spec)
    panel = window.panels["model"]
    assert panel.checkpoint_label.text().endswith("— matches")
    assert not dialog.isVisible()
    assert window.undo_stack.count() == 1


def test_cache_dialog_double_click_on_an_unsupported_model(window, hub, dialogs):
    fake_cache(hub, {"deepseek-ai/DeepSeek-V3": (DEEPSEEK_V3, None)})
    dialog = window.addons["model_import"].show_cached_models()
    item = dialog.tree.topLevelItem(0)
    dialog.tree.itemDoubleClicked.emit(item, 0)
    assert "deepseek_v3" in dialogs["warning"][0][2]
    assert window.store.inputs.model.hidden_size == 7168
    assert window.panels["model"].preset_combo.currentData() == CUSTOM
    assert dialog.isVisible()  # stays open: the import was partial


def test_cache_dialog_empty_state_names_where_it_looked(window, tmp_path, monkeypatch):
    missing = tmp_path / "nowhere" / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(missing))
    dialog = window.addons["model_import"].show_cached_models()
    assert dialog.stack.currentWidget() is dialog.empty
    text = dialog.empty.text()
    assert str(missing) in text and "HF_HUB_CACHE" in text and "HF_HOME" in text
    assert "does not exist" in dialog.location.text()
    assert not dialog.use_button.isEnabled()
    assert not dialog.use_selected()
