"""Built-in data: the GPU catalog and the model presets load and are sane."""

from __future__ import annotations

import pytest

from ftcost_gui.core.architecture import count_params
from ftcost_gui.core.inputs import GpuSpec
from ftcost_gui.io.resources import builtin_catalog, builtin_presets, resources_root

REQUIRED_GPUS = (
    "H100 SXM", "H200 SXM", "A100 80GB SXM", "A100 40GB", "L40S", "L4", "RTX 4090", "MI300X",
)  # fmt: skip
PRESET_IDS = ("qwen2.5-0.5b", "qwen2.5-7b", "qwen2.5-72b", "llama-2-7b", "llama-2-70b")


def test_resources_folder():
    root = resources_root()
    assert (root / "gpus.json").is_file()
    assert (root / "models.json").is_file()


def test_catalog_size_and_unique_ids():
    gpus = builtin_catalog().gpus
    assert len(gpus) >= 30
    ids = [g.id for g in gpus]
    assert len(set(ids)) == len(ids)
    names = [g.name.lower() for g in gpus]
    assert len(set(names)) == len(names)
    assert builtin_catalog() is builtin_catalog()  # cached, loaded once


@pytest.mark.parametrize("gpu", builtin_catalog().gpus, ids=lambda g: g.id)
def test_every_gpu_is_sane(gpu):
    assert gpu.bf16_tflops > 0
    assert gpu.memory_gib > 0
    assert gpu.memory_bandwidth_gb_s > 0
    assert gpu.on_demand_usd_per_hour >= 0
    if gpu.spot_usd_per_hour is not None:
        assert 0 <= gpu.spot_usd_per_hour <= gpu.on_demand_usd_per_hour
    spec = gpu.to_spec()
    assert type(spec) is GpuSpec
    assert (spec.id, spec.name, spec.memory_gib, spec.bf16_tflops) == (
        gpu.id, gpu.name, gpu.memory_gib, gpu.bf16_tflops,
    )  # fmt: skip


@pytest.mark.parametrize("name", REQUIRED_GPUS)
def test_required_gpus_found_by_name_and_id(name):
    catalog = builtin_catalog()
    gpu = catalog.find(name)
    assert gpu is not None and gpu.name == name
    assert catalog.find(gpu.id) is gpu
    assert catalog.find(f"  {name.upper()} ") is gpu


def test_known_gpu_figures():
    catalog = builtin_catalog()
    h100 = catalog.find("H100 SXM")
    assert (h100.bf16_tflops, h100.memory_gib) == (989.0, 79.6)
    assert catalog.find("MI300X").memory_gib == 192.0
    assert catalog.find("no such gpu") is None


def test_presets_exact_totals():
    presets = builtin_presets()
    ids = [p.id for p in presets.models]
    assert set(PRESET_IDS) <= set(ids)  # the first five ids stay (saved settings name them)
    assert len(set(ids)) == len(ids) >= 30
    for p in presets.models:
        assert p.expected_total is not None, p.id
        assert count_params(p.spec).total == p.expected_total, p.id
    assert presets.find("qwen2.5-7b").expected_total == 7_615_616_512
    assert presets.find("Llama-2-7B").expected_total == 6_738_415_616
    assert presets.find("gpt-5") is None
