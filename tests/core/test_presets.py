"""Every built-in preset's derived parameter count equals its published exact total.

The data file carries each preset's expected_total and the source naming it; a second, hard-coded
table below pins a selection of those totals so that an accidental edit of the data file (of the
shape or of the expected total) fails here too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ftcost_gui.core.architecture import count_params
from ftcost_gui.io.resources import builtin_presets

PRESETS = builtin_presets().models
ORIGINAL_IDS = ("qwen2.5-0.5b", "qwen2.5-7b", "qwen2.5-72b", "llama-2-7b", "llama-2-70b")

# Published exact totals, checked by hand against their sources (independent of models.json).
PUBLISHED = {
    # transformers num_parameters(); PEFT's print_trainable_parameters for Llama-2-7b-hf
    "llama-2-7b": 6_738_415_616,
    # transformers num_parameters(); DeepSpeed zero_to_fp32 "13015864320 elements"
    "llama-2-13b": 13_015_864_320,
    # Hub API safetensors.total, meta-llama/Llama-3.1-8B (index total_size 16,060,522,496 B, bf16)
    "llama-3.1-8b": 8_030_261_248,
    # Hub API safetensors.total, meta-llama/Llama-3.1-70B
    "llama-3.1-70b": 70_553_706_496,
    # Hub API safetensors.total, meta-llama/Llama-3.1-405B
    "llama-3.1-405b": 405_853_388_800,
    # Hub API safetensors.total, meta-llama/Llama-3.2-1B (tied embeddings)
    "llama-3.2-1b": 1_235_814_400,
    # Hub API safetensors.total, meta-llama/Llama-3.2-3B
    "llama-3.2-3b": 3_212_749_824,
    # Hub API safetensors.total, mistralai/Mistral-7B-v0.3
    "mistral-7b-v0.3": 7_248_023_552,
    # mistralai/Mixtral-8x7B-v0.1 index total_size 93,405,585,408 bytes / 2 (bf16)
    "mixtral-8x7b": 46_702_792_704,
    # mistralai/Mixtral-8x22B-v0.1: 281,241,268,224 bytes of bf16 tensors / 2
    "mixtral-8x22b": 140_620_634_112,
    # Hub API safetensors.total, Qwen/Qwen2.5-7B(-Instruct); article 000's N = 7.62e9
    "qwen2.5-7b": 7_615_616_512,
    # Qwen/Qwen2.5-14B index total_size 29,540,067,328 bytes / 2; llama.cpp n_params
    "qwen2.5-14b": 14_770_033_664,
    # transformers num_parameters() for Qwen/Qwen3-0.6B (tied head counted once)
    "qwen3-0.6b": 596_049_920,
    # Hub API safetensors.total, Qwen/Qwen3-8B
    "qwen3-8b": 8_190_735_360,
    # sum of the Qwen/Qwen3-30B-A3B checkpoint's tensor sizes; llama.cpp n_params
    "qwen3-30b-a3b": 30_532_122_624,
    # Hub API safetensors.total, google/gemma-2-9b; KerasHub gemma2_9b_en
    "gemma-2-9b": 9_241_705_984,
    # Hub API safetensors.total, google/gemma-2-27b(-it); KerasHub gemma2_27b_en
    "gemma-2-27b": 27_227_128_320,
    # Hub API safetensors.total, microsoft/Phi-3-mini-4k-instruct
    "phi-3-mini-4k": 3_821_079_552,
    # Hub API safetensors.total, microsoft/phi-4
    "phi-4": 14_659_507_200,
    # Hub API safetensors.total (F32), allenai/OLMoE-1B-7B-0924
    "olmoe-1b-7b-0924": 6_919_161_856,
    # transformers num_parameters() for openai-community/gpt2
    "gpt2": 124_439_808,
}

# MoE: (total, active per token). Active: model cards round these to 12.9B, 39B, 3.3B and 1.3B.
MOE = {
    "mixtral-8x7b": (46_702_792_704, 12_879_925_248),
    "mixtral-8x22b": (140_620_634_112, 39_152_031_744),
    "qwen3-30b-a3b": (30_532_122_624, 3_353_032_704),
    "olmoe-1b-7b-0924": (6_919_161_856, 1_282_017_280),
}


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.id)
def test_derived_total_equals_published_total(preset):
    assert preset.expected_total is not None, f"{preset.id}: no published total"
    assert count_params(preset.spec).total == preset.expected_total
    # The source names the number it gives (and where the architecture comes from).
    assert f"{preset.expected_total:,}" in preset.source
    assert "config.json" in preset.source


@pytest.mark.parametrize(("preset_id", "total"), PUBLISHED.items())
def test_hard_coded_published_totals(preset_id, total):
    preset = builtin_presets().find(preset_id)
    assert preset is not None, preset_id
    assert preset.expected_total == total
    assert count_params(preset.spec).total == total


@pytest.mark.parametrize(("preset_id", "counts"), MOE.items())
def test_moe_total_and_active(preset_id, counts):
    spec = builtin_presets().find(preset_id).spec
    c = count_params(spec)
    assert spec.is_moe
    assert (c.total, c.total_active) == counts
    assert c.total_active < c.total / 3


def test_dense_presets_are_fully_active():
    for p in PRESETS:
        if not p.spec.is_moe:
            c = count_params(p.spec)
            assert c.total_active == c.total, p.id


def test_library_covers_the_issue_list():
    ids = [p.id for p in PRESETS]
    assert len(ids) == len(set(ids)) == 30
    assert set(ORIGINAL_IDS) <= set(ids)
    names = [p.spec.name.lower() for p in PRESETS]
    assert len(names) == len(set(names))
    for p in PRESETS:
        assert p.family and p.size and p.license and p.hf_id, p.id
        assert p.spec.max_context >= 1024, p.id
        assert p.spec.param_count_override is None, p.id
        found = builtin_presets().find(p.spec.name.upper())
        assert found is p
        assert builtin_presets().find_hf_id(p.hf_id.upper()) is p


@pytest.mark.parametrize(
    ("preset_id", "fields"),
    [
        ("llama-3.2-1b", {"tied_embeddings": True, "head_dim_eff": 64, "max_context": 131072}),
        ("qwen2.5-1.5b", {"tied_embeddings": True, "attention_qkv_bias": True}),
        ("qwen3-8b", {"qk_norm": "per_head", "head_dim_eff": 128, "tied_embeddings": False}),
        ("qwen3-4b", {"tied_embeddings": True, "q_dim": 4096}),  # 32 x 128 != 2560
        ("qwen3-30b-a3b", {"num_shared_experts": 0, "experts_per_token": 8}),
        ("gemma-2-9b", {"norms_per_layer": 4, "head_dim_eff": 256, "tied_embeddings": True}),
        ("gemma-2-27b", {"head_dim_eff": 128, "q_dim": 4096}),  # 32 x 128 != 4608
        ("olmoe-1b-7b-0924", {"qk_norm": "full", "num_experts": 64}),
        ("phi-3-mini-4k", {"attention_qkv_bias": False, "tied_embeddings": False}),
        ("gpt2", {"norm_kind": "layernorm", "mlp_kind": "plain", "position_embeddings": 1024}),
        ("mixtral-8x22b", {"max_context": 65536, "num_experts": 8}),
        ("llama-3.1-405b", {"num_layers": 126, "num_kv_heads": 8}),
    ],
)
def test_architecture_details(preset_id, fields):
    spec = builtin_presets().find(preset_id).spec
    for name, value in fields.items():
        assert getattr(spec, name) == value, name


def test_tied_heads_and_licences():
    by_id = {p.id: p for p in PRESETS}
    assert count_params(by_id["llama-3.2-3b"].spec).lm_head == 0
    assert count_params(by_id["llama-3.1-8b"].spec).lm_head == 128256 * 4096
    assert by_id["qwen2.5-3b"].license == "Qwen Research"
    assert by_id["gemma-2-2b"].license == "Gemma"
    assert by_id["llama-3.1-70b"].license == "Llama 3.1 Community"
    assert by_id["phi-4"].license == "MIT"


def test_docs_table_lists_every_preset():
    docs = (Path(__file__).resolve().parents[2] / "docs" / "models.md").read_text(encoding="utf-8")
    table = [line for line in docs.splitlines() if line.startswith("| `")]
    rows = {line.split("|")[1].strip(" `"): line for line in table}
    assert set(rows) == {p.id for p in PRESETS}
    for p in PRESETS:
        c = count_params(p.spec)
        assert f"| {int(c.total):,} |" in rows[p.id], p.id
        assert f"| {p.spec.max_context:,} |" in rows[p.id], p.id
        if p.spec.is_moe:
            assert f"| {int(c.total_active):,} |" in rows[p.id], p.id
