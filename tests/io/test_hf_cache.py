"""The Hugging Face cache scan: locations, newest snapshot, and never reading weight data."""

from __future__ import annotations

import builtins
import io
import os
import time
from pathlib import Path

import pytest

from ftcost_gui.core.architecture import count_params
from ftcost_gui.io.hf_cache import (
    find_cached,
    hf_cache_dir,
    newest_snapshot,
    repo_id_from_dirname,
    scan_hf_cache,
)

from .hf_fixtures import GPT2, LLAMA_32_1B, QWEN3_8B, make_repo


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def cache(tmp_path):
    root = tmp_path / "hub"
    root.mkdir()
    # refs/main names the older snapshot: it wins over the newer one.
    make_repo(root, "Qwen/Qwen3-8B", {"aaa111": QWEN3_8B, "bbb222": GPT2}, main="aaa111\n")
    # No refs: the most recently modified snapshot wins.
    make_repo(root, "meta-llama/Llama-3.2-1B", {"c1": GPT2, "c2": LLAMA_32_1B}, main=None)
    make_repo(root, "org/broken", {"d1": {**GPT2, "model_type": "mamba"}}, main="d1")
    make_repo(root, "org/noconfig", {"e1": None}, main="e1")
    make_repo(root, "gpt2", {"f1": GPT2}, main="f1", weights=False)
    (root / "models--org--empty").mkdir()
    (root / "datasets--org--data" / "snapshots" / "x").mkdir(parents=True)
    (root / "version.txt").write_text("1")
    return root


@pytest.fixture
def no_weight_reads(monkeypatch, cache):
    """Fail the test if anything opens a weight file (by its snapshot name or its blob)."""
    blobs = {str(p.resolve()) for p in cache.glob("models--*/blobs/w*")}
    real_open = builtins.open

    def guarded(file, *args, **kwargs):
        name = os.fspath(file) if isinstance(file, (str, os.PathLike)) else ""
        if name.endswith(".safetensors") or str(Path(name).resolve()) in blobs:
            raise AssertionError(f"weight file opened: {name}")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded)
    monkeypatch.setattr(io, "open", guarded)


def test_cache_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert hf_cache_dir() == tmp_path / "home" / ".cache" / "huggingface" / "hub"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hf_cache_dir() == tmp_path / "xdg" / "huggingface" / "hub"
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hfhome"))
    assert hf_cache_dir() == tmp_path / "hfhome" / "hub"
    monkeypatch.setenv("HUGGINGFACE_HUB_CACHE", str(tmp_path / "legacy"))
    assert hf_cache_dir() == tmp_path / "legacy"
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hubcache"))
    assert hf_cache_dir() == tmp_path / "hubcache"
    monkeypatch.setenv("HF_HUB_CACHE", "~/elsewhere")
    assert hf_cache_dir() == tmp_path / "home" / "elsewhere"


def test_repo_ids_from_folder_names():
    assert repo_id_from_dirname("models--Qwen--Qwen2.5-7B") == "Qwen/Qwen2.5-7B"
    assert repo_id_from_dirname("models--gpt2") == "gpt2"
    assert repo_id_from_dirname("datasets--org--x") is None
    assert repo_id_from_dirname("models--") is None
    assert repo_id_from_dirname("models--a----b") is None


def test_scan_reads_configs_not_weights(cache, no_weight_reads):
    start = time.monotonic()
    found = {m.repo_id: m for m in scan_hf_cache(cache)}
    assert time.monotonic() - start < 5
    assert list(found) == sorted(found, key=str.lower)
    assert set(found) == {
        "gpt2", "meta-llama/Llama-3.2-1B", "org/broken", "org/empty", "org/noconfig",
        "Qwen/Qwen3-8B",
    }  # fmt: skip

    qwen = found["Qwen/Qwen3-8B"]
    assert qwen.ok and qwen.revision == "aaa111"  # refs/main, though bbb222 is newer
    assert count_params(qwen.spec).total == 8_190_735_360
    assert qwen.spec.name == "Qwen/Qwen3-8B"
    assert [p.name for p in qwen.safetensors] == ["model.safetensors"]
    assert qwen.config_path == qwen.snapshot / "config.json"
    with pytest.raises(AssertionError, match="weight file opened"):  # the guard is live
        qwen.safetensors[0].open("rb")

    llama = found["meta-llama/Llama-3.2-1B"]
    assert llama.revision == "c2"  # no refs/main: the newest snapshot
    assert count_params(llama.spec).total == 1_235_814_400

    broken = found["org/broken"]
    assert broken.spec is None and "mamba" in broken.error
    assert broken.partial["num_layers"] == 12
    assert "no config.json" in found["org/noconfig"].error
    assert "no snapshot" in found["org/empty"].error
    assert found["gpt2"].safetensors == ()


def test_scan_default_location_and_missing_cache(monkeypatch, cache, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    assert len(scan_hf_cache()) == 6
    monkeypatch.setenv("HF_HOME", str(cache.parent))  # HF_HOME/hub is the same folder ...
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "missing"))  # ... but HF_HUB_CACHE wins
    assert scan_hf_cache() == []


def test_find_cached(cache, no_weight_reads):
    assert find_cached("Qwen/Qwen3-8B", cache).revision == "aaa111"
    assert find_cached("qwen/qwen3-8b", cache).repo_id == "Qwen/Qwen3-8B"
    assert find_cached("gpt2", cache).ok
    for missing in ("Qwen/Qwen3-4B", "", "../x", "a--b/c", "datasets/org"):
        assert find_cached(missing, cache) is None


def test_newest_snapshot_ignores_a_bad_ref(tmp_path):
    repo = make_repo(tmp_path, "o/n", {"s1": GPT2, "s2": GPT2}, main="../../etc", weights=False)
    assert newest_snapshot(repo).name == "s2"
    (repo / "refs" / "main").write_text("deadbeef")  # points at a snapshot that is not there
    assert newest_snapshot(repo).name == "s2"
