"""resolve_model: preset, then config.json or folder, then the local Hugging Face cache."""

from __future__ import annotations

import json

import pytest

from ftcost_gui.core.architecture import count_params
from ftcost_gui.io.models import ModelConfigError, resolve_model, suggest_presets
from ftcost_gui.io.resources import builtin_presets

from .hf_fixtures import GPT2, MISTRAL_7B_V03, QWEN3_30B_A3B, make_repo


@pytest.fixture(autouse=True)
def empty_cache(tmp_path, monkeypatch):
    """Every test sees an empty Hugging Face cache unless it fills this one."""
    root = tmp_path / "hub"
    root.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(root))
    return root


@pytest.mark.parametrize("key", ["qwen3-8b", "Qwen3-8B", "  QWEN3-8B  "])
def test_presets_by_id_or_name_any_case(key):
    assert resolve_model(key) == builtin_presets().find("qwen3-8b").spec


def test_config_file_and_folder(tmp_path):
    folder = tmp_path / "my-mistral"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(MISTRAL_7B_V03))
    (folder / "model-00001-of-00003.safetensors").write_bytes(b"\xff" * 8)  # never opened
    by_folder = resolve_model(str(folder))
    by_file = resolve_model(str(folder / "config.json"))
    assert by_folder == by_file
    assert by_folder.name == "my-mistral"
    assert count_params(by_folder).total == 7_248_023_552


def test_cached_repo_id(empty_cache):
    make_repo(empty_cache, "Qwen/Qwen3-30B-A3B", {"abc": QWEN3_30B_A3B}, main="abc")
    spec = resolve_model("Qwen/Qwen3-30B-A3B")
    assert spec.name == "Qwen/Qwen3-30B-A3B"
    c = count_params(spec)
    assert (c.total, c.total_active) == (30_532_122_624, 3_353_032_704)
    assert resolve_model("qwen/qwen3-30b-a3b") == spec


def test_cache_root_argument(tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    make_repo(other, "openai-community/gpt2-copy", {"s": GPT2}, main="s", weights=False)
    assert resolve_model("openai-community/gpt2-copy", cache_root=other).vocab_size == 50257
    with pytest.raises(ModelConfigError):
        resolve_model("openai-community/gpt2-copy")  # not in the default (empty) cache


def test_cached_repo_that_cannot_be_read(empty_cache):
    make_repo(empty_cache, "org/odd", {"s": {**GPT2, "model_type": "rwkv"}}, main="s")
    with pytest.raises(ModelConfigError, match="org/odd is in the Hugging Face cache") as err:
        resolve_model("org/odd")
    assert "rwkv" in str(err.value)
    assert err.value.partial["num_layers"] == 12


def test_uncached_hub_id_of_a_preset():
    spec = resolve_model("meta-llama/Llama-3.1-8B")
    assert spec == builtin_presets().find("llama-3.1-8b").spec


def test_unknown_names_suggest_presets():
    with pytest.raises(ModelConfigError, match=r"did you mean 'llama-3\.1-8b'"):
        resolve_model("llama3.1-8b")
    with pytest.raises(ModelConfigError, match="unknown model 'zzzz'") as err:
        resolve_model("zzzz")
    assert "did you mean" not in str(err.value)
    assert suggest_presets("qwen-2.5-7b")[0] == "qwen2.5-7b"


@pytest.mark.parametrize("key", ["/no/such/config.json", "./nope", "~/nope/model", "a/b/c"])
def test_missing_paths(key):
    with pytest.raises(ModelConfigError, match="does not exist"):
        resolve_model(key)


def test_empty_key():
    with pytest.raises(ModelConfigError, match="No model given"):
        resolve_model("   ")


def test_folder_without_config(tmp_path):
    with pytest.raises(ModelConfigError, match=r"has no config\.json"):
        resolve_model(str(tmp_path))
