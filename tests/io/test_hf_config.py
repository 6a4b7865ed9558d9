"""Import from config.json: each supported family gives the published exact parameter count."""

from __future__ import annotations

import json

import pytest

from ftcost_gui.core.architecture import count_params
from ftcost_gui.io.hf_config import (
    SUPPORTED_MODEL_TYPES,
    ModelConfigError,
    load_hf_config,
    read_hf_config,
    spec_from_hf_config,
)
from ftcost_gui.io.resources import builtin_presets

from .hf_fixtures import (
    GEMMA2_9B,
    GEMMA_7B,
    GPT2,
    LLAMA_2_7B,
    LLAMA_31_8B,
    LLAMA_32_1B,
    MISTRAL_7B_V03,
    MIXTRAL_8X7B,
    MIXTRAL_8X22B,
    OLMOE_0924,
    PHI3_MINI_4K,
    PHI4,
    QWEN3_06B,
    QWEN3_8B,
    QWEN3_30B_A3B,
    QWEN15_MOE_A27B,
    QWEN25_05B,
    QWEN25_7B,
)

CASES = [
    # (config, preset id or published total, context)
    (LLAMA_2_7B, "llama-2-7b", 4096),
    (LLAMA_31_8B, "llama-3.1-8b", 131072),
    (LLAMA_32_1B, "llama-3.2-1b", 131072),
    (MISTRAL_7B_V03, "mistral-7b-v0.3", 32768),
    (MIXTRAL_8X7B, "mixtral-8x7b", 32768),
    (MIXTRAL_8X22B, "mixtral-8x22b", 65536),
    (QWEN25_05B, "qwen2.5-0.5b", 32768),
    (QWEN25_7B, "qwen2.5-7b", 131072),
    (QWEN15_MOE_A27B, 14_315_784_192, 8192),
    (QWEN3_06B, "qwen3-0.6b", 40960),
    (QWEN3_8B, "qwen3-8b", 40960),
    (QWEN3_30B_A3B, "qwen3-30b-a3b", 40960),
    (GEMMA_7B, 8_537_680_896, 8192),
    (GEMMA2_9B, "gemma-2-9b", 8192),
    (PHI3_MINI_4K, "phi-3-mini-4k", 4096),
    (PHI4, "phi-4", 16384),
    (OLMOE_0924, "olmoe-1b-7b-0924", 4096),
    (GPT2, "gpt2", 1024),
]


def _expected(target):
    if isinstance(target, int):
        return target, None
    preset = builtin_presets().find(target)
    return preset.expected_total, preset.spec


@pytest.mark.parametrize(("config", "target", "context"), CASES, ids=lambda x: str(x)[:20])
def test_config_gives_published_total(tmp_path, config, target, context):
    (tmp_path / "config.json").write_text(json.dumps(config))
    spec = load_hf_config(tmp_path)
    total, preset_spec = _expected(target)
    c = count_params(spec)
    assert c.total == total
    assert spec.max_context == context
    assert spec.name == tmp_path.name
    if preset_spec is not None:  # same shapes as the preset, so the same active count too
        p = count_params(preset_spec)
        assert (c.total_active, c.lm_head, c.layer) == (p.total_active, p.lm_head, p.layer)


def test_every_supported_model_type_has_a_case():
    tested = {cfg["model_type"] for cfg, _, _ in CASES}
    assert tested == set(SUPPORTED_MODEL_TYPES)


def test_family_defaults_differ():
    gemma = spec_from_hf_config(GEMMA_7B)
    assert gemma.tied_embeddings and gemma.head_dim_eff == 256
    no_head_dim = {k: v for k, v in GEMMA2_9B.items() if k != "head_dim"}
    assert spec_from_hf_config(no_head_dim).head_dim_eff == 256  # Gemma2Config default
    assert spec_from_hf_config(GPT2).intermediate_size == 4 * 768
    assert spec_from_hf_config(LLAMA_2_7B).num_kv_heads == 32
    assert not spec_from_hf_config(LLAMA_2_7B).tied_embeddings
    qwen3 = {k: v for k, v in QWEN3_8B.items() if k != "head_dim"}
    assert spec_from_hf_config(qwen3).head_dim_eff == 128  # Qwen3Config default
    untied = spec_from_hf_config({**GEMMA2_9B, "tie_word_embeddings": False})
    assert count_params(untied).lm_head == 256000 * 3584


def test_llama_biases_are_counted():
    plain = count_params(spec_from_hf_config(LLAMA_31_8B)).total
    biased = spec_from_hf_config({**LLAMA_31_8B, "attention_bias": True, "mlp_bias": True})
    q, kv, h, i = 4096, 1024, 4096, 14336
    assert count_params(biased).total - plain == 32 * ((q + 2 * kv + h) + (2 * i + h))


def test_name_and_text_config_nesting():
    assert spec_from_hf_config(QWEN3_8B, "My Qwen").name == "My Qwen"
    hub = {**QWEN3_8B, "_name_or_path": "Qwen/Qwen3-8B"}
    assert spec_from_hf_config(hub).name == "Qwen/Qwen3-8B"
    local = {**QWEN3_8B, "_name_or_path": "/home/me/ckpt"}
    assert spec_from_hf_config(local).name == "qwen3 (config.json)"
    wrapped = {"model_type": "llava", "text_config": LLAMA_31_8B, "vision_config": {}}
    assert count_params(spec_from_hf_config(wrapped)).total == 8_030_261_248


def test_unknown_model_type_names_it_and_keeps_the_shape():
    cfg = {**LLAMA_31_8B, "model_type": "deepseek_v3"}
    with pytest.raises(ModelConfigError, match="deepseek_v3") as err:
        spec_from_hf_config(cfg)
    assert err.value.partial["num_layers"] == 32
    assert err.value.partial["hidden_size"] == 4096
    assert err.value.partial["vocab_size"] == 128256
    with pytest.raises(ModelConfigError, match="model_type"):
        spec_from_hf_config({k: v for k, v in LLAMA_31_8B.items() if k != "model_type"})


@pytest.mark.parametrize(
    ("config", "drop", "word"),
    [
        (LLAMA_31_8B, "intermediate_size", "'intermediate_size'"),
        (LLAMA_31_8B, "num_hidden_layers", "'num_hidden_layers'"),
        (MIXTRAL_8X7B, "num_local_experts", "'num_local_experts'"),
        (QWEN3_30B_A3B, "moe_intermediate_size", "'moe_intermediate_size'"),
        (GPT2, "n_layer", "'n_layer'"),
        (GPT2, "vocab_size", "'vocab_size'"),
    ],
)
def test_missing_field_is_named(config, drop, word):
    cfg = {k: v for k, v in config.items() if k != drop}
    with pytest.raises(ModelConfigError, match=word) as err:
        spec_from_hf_config(cfg)
    assert err.value.partial  # what was understood is kept
    assert "num_layers" in err.value.partial or drop == "num_hidden_layers" or drop == "n_layer"


def test_missing_fields_are_all_named():
    cfg = {"model_type": "qwen2", "hidden_size": 896}
    with pytest.raises(ModelConfigError) as err:
        spec_from_hf_config(cfg)
    msg = str(err.value)
    for key in ("num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"):
        assert key in msg
    assert err.value.partial["hidden_size"] == 896


@pytest.mark.parametrize(
    ("patch", "word"),
    [
        ({"hidden_size": "4096"}, "hidden_size"),
        ({"num_hidden_layers": True}, "num_hidden_layers"),
        ({"tie_word_embeddings": "yes"}, "tie_word_embeddings"),
        ({"num_key_value_heads": 5}, "num_kv_heads"),
        ({"num_hidden_layers": 0}, "num_layers"),
    ],
)
def test_bad_values_are_config_errors(patch, word):
    with pytest.raises(ModelConfigError, match=word):
        spec_from_hf_config({**LLAMA_31_8B, **patch})


@pytest.mark.parametrize(
    ("config", "patch", "word"),
    [
        (QWEN3_30B_A3B, {"mlp_only_layers": [0, 1]}, "mlp_only_layers"),
        (QWEN3_30B_A3B, {"decoder_sparse_step": 2}, "decoder_sparse_step"),
        (QWEN15_MOE_A27B, {"mlp_only_layers": [3]}, "mlp_only_layers"),
    ],
)
def test_partly_dense_moe_is_refused_with_the_reason(config, patch, word):
    with pytest.raises(ModelConfigError, match=word) as err:
        spec_from_hf_config({**config, **patch})
    assert "dense" in str(err.value)
    assert err.value.partial["num_experts"] == config["num_experts"]


def test_float_integers_are_accepted():
    spec = spec_from_hf_config({**LLAMA_31_8B, "hidden_size": 4096.0})
    assert spec.hidden_size == 4096


def test_malformed_files(tmp_path):
    bad = tmp_path / "bad" / "config.json"
    bad.parent.mkdir()
    bad.write_text('{"model_type": "llama", "hidden_size": 4096')
    with pytest.raises(ModelConfigError, match="not valid JSON"):
        load_hf_config(bad)
    bad.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ModelConfigError, match="not valid JSON"):
        read_hf_config(bad.parent)
    bad.write_text("[1, 2, 3]")
    with pytest.raises(ModelConfigError, match="JSON object"):
        load_hf_config(bad)
    with pytest.raises(ModelConfigError, match=r"has no config\.json"):
        load_hf_config(tmp_path)
    with pytest.raises(ModelConfigError, match="does not exist"):
        load_hf_config(tmp_path / "nope" / "config.json")
    with pytest.raises(ModelConfigError, match="JSON object"):
        spec_from_hf_config([1, 2])  # type: ignore[arg-type]


def test_load_error_names_the_file(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA_31_8B, "model_type": "mamba"}))
    with pytest.raises(ModelConfigError, match="mamba") as err:
        load_hf_config(path)
    assert str(path) in str(err.value)
    assert err.value.partial["num_layers"] == 32
