"""File reading the mutation run (tools/mutation.py) found unpinned: config.json imports per
family (fused projections, Qwen3's head_dim default, OLMoE's tie and bias flags, a Qwen MoE's
null sparse step), the partial spec an import error carries, strict reading inside an optional
nested model, version-2 files with a section of the wrong type or no mean length, model keys
that are paths, and the loader's open flags and read cap.
"""

from __future__ import annotations

import copy
import io
import json
import os
from pathlib import Path

import pytest

from ftcost_gui.io import loader
from ftcost_gui.io.estimate_file import EstimateFileError, dumps_estimate, loads_document
from ftcost_gui.io.hf_config import ModelConfigError, spec_from_hf_config
from ftcost_gui.io.migrate_objective import v2_inputs
from ftcost_gui.io.models import resolve_model

from .hf_fixtures import GPT2, OLMOE_0924, PHI3_MINI_4K, QWEN3_06B, QWEN15_MOE_A27B

DATA = Path(__file__).resolve().parents[1] / "data"


# --- config.json ------------------------------------------------------------------------------
def test_fused_projections_are_marked():
    """Phi-3's qkv_proj and GPT-2's c_attn are one matrix: the LoRA targets and activations
    (a fused output kept whole) follow from fused_qkv."""
    assert spec_from_hf_config(PHI3_MINI_4K).fused_qkv is True
    assert spec_from_hf_config(GPT2).fused_qkv is True


def test_qwen3_head_dim_defaults_to_128_and_a_given_one_stays():
    bare = {k: v for k, v in QWEN3_06B.items() if k != "head_dim"}  # 1024 / 16 heads = 64
    assert spec_from_hf_config(bare).head_dim == 128  # Qwen3Config's default, not h / heads
    assert spec_from_hf_config({**QWEN3_06B, "head_dim": 64}).head_dim == 64


def test_olmoe_flags_default_and_read():
    bare = {k: v for k, v in OLMOE_0924.items() if k not in ("tie_word_embeddings",)}
    spec = spec_from_hf_config(bare)
    assert spec.tied_embeddings is False and spec.attention_qkv_bias is False
    biased = spec_from_hf_config({**OLMOE_0924, "attention_bias": True})
    assert biased.attention_qkv_bias is True and biased.attention_out_bias is True
    assert biased.qk_norm == "full"


def test_a_null_sparse_step_means_every_layer_is_sparse():
    spec = spec_from_hf_config({**QWEN15_MOE_A27B, "decoder_sparse_step": None})
    assert spec.num_experts == 60
    with pytest.raises(ModelConfigError, match=r"\(decoder_sparse_step=2\)"):
        spec_from_hf_config({**QWEN15_MOE_A27B, "decoder_sparse_step": 2})


def test_no_model_type_says_so_and_keeps_the_name():
    config = {k: v for k, v in QWEN3_06B.items() if k != "model_type"}
    with pytest.raises(ModelConfigError) as err:
        spec_from_hf_config(config, name="my-model")
    assert str(err.value) == (
        "config.json has no 'model_type', so the architecture family is unknown."
    )
    assert err.value.partial["name"] == "my-model"
    assert err.value.partial["hidden_size"] == 1024


def test_an_unsupported_family_keeps_the_name_and_shape():
    with pytest.raises(ModelConfigError) as err:
        spec_from_hf_config({**QWEN3_06B, "model_type": "mamba"}, name="m")
    assert err.value.partial["name"] == "m" and err.value.partial["num_layers"] == 28


def test_an_invalid_shape_keeps_what_was_understood():
    with pytest.raises(ModelConfigError) as err:
        spec_from_hf_config({**QWEN3_06B, "num_attention_heads": 0}, name="m")
    assert "describes an invalid shape" in str(err.value)
    assert err.value.partial["name"] == "m" and err.value.partial["hidden_size"] == 1024


# --- Estimate files ---------------------------------------------------------------------------
def _refused(doc: dict) -> str:
    with pytest.raises(EstimateFileError) as info:
        loads_document(json.dumps(doc), source="plan.ftcost")
    return str(info.value)


def test_an_optional_nested_model_is_read_strictly_too():
    """data.length_histogram may be null, but when it is there every field of it must be."""
    from ftcost_gui.core.histogram import from_counts
    from ftcost_gui.core.inputs import EstimateInputs

    inputs = EstimateInputs().edited("data", length_histogram=from_counts({3: 10}, "measured"))
    doc = json.loads(dumps_estimate(inputs))
    del doc["scenarios"][0]["inputs"]["data"]["length_histogram"]["source"]
    assert _refused(doc) == (
        "plan.ftcost is incomplete: scenarios[0].inputs.data.length_histogram.source is missing."
    )


def test_a_v2_section_of_the_wrong_type_is_refused_not_a_crash():
    v2 = json.loads((DATA / "estimate_v2.ftcost").read_text(encoding="utf-8"))
    bad = copy.deepcopy(v2)
    bad["scenarios"][0]["inputs"]["overheads"] = 5
    assert _refused(bad).startswith("plan.ftcost is incomplete: ")  # an error, not a crash


def test_a_v2_rl_ratio_without_a_mean_length_uses_the_max_length():
    """Version 2's RL generation ratio becomes a policy-generated GRPO run (migrate_objective);
    an 'examples' section without a mean takes the max sequence length as the row length."""
    inputs = {
        "overheads": {"rl_generation_ratio": 0.25},
        "data": {"mode": "examples", "max_seq_len": 1000},
    }
    v2_inputs(inputs)
    ob = inputs["objective"]
    assert (ob["objective"], ob["mean_prompt_tokens"]) == ("grpo", 1000 - 0.25 * 1000)


# --- Model keys -------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["models\\llama-x", "~nosuchuser_ftcost/config.json"])
def test_a_key_that_is_a_path_that_does_not_exist(key):
    with pytest.raises(ModelConfigError, match="does not exist"):
        resolve_model(key)


# --- The loader -------------------------------------------------------------------------------
def test_files_are_opened_non_blocking(tmp_path, monkeypatch):
    """O_NONBLOCK: a FIFO swapped in between the check and the open cannot hang the read."""
    path = tmp_path / "f.json"
    path.write_bytes(b"{}")
    seen: list[int] = []
    real = os.open

    def spy(p, flags, *a):
        seen.append(flags)
        return real(p, flags, *a)

    monkeypatch.setattr(os, "open", spy)
    assert loader.read_bytes(path, loader.CATALOG) == b"{}"
    assert seen and all(f & os.O_NONBLOCK and f & os.O_NOCTTY for f in seen)


def test_a_read_never_asks_for_more_than_the_cap_and_one(tmp_path, monkeypatch):
    """A file that grows while it is read is read up to cap + 1 bytes, then refused."""
    asked: list[int | None] = []

    class Growing(io.BytesIO):
        def read(self, n=-1):
            asked.append(n)
            return super().read(n)

    monkeypatch.setattr(loader, "open_regular", lambda p, k: Growing(b"x" * 5000))
    kind = loader.FileKind("test file", 100)
    with pytest.raises(loader.FileReadError, match="larger than 100 bytes"):
        loader.read_bytes(tmp_path / "f", kind)
    assert asked == [101]
