"""Edges the hand calculations had not reached, found by the mutation runs (tools/mutation.py):
the field metadata the form is built from, two catalog row rules, the first validation error's
wording, the length distribution's CDF, the memory split at the step's peak, a ZeRO-3 weight sync
on two GPUs, rollouts the policy generates itself, the scenario comparison's default baseline and
the what-fits curves against the micro-batch, and the saved tensors of GPT-2, of eager MQA and of
q/k norms.
"""

from __future__ import annotations

import math

import pytest
from pydantic import BaseModel, Field, ValidationError

from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.core._field import fld
from ftcost_gui.core.activations import layer_inventory
from ftcost_gui.core.architecture import ModelSpec, effective_counts
from ftcost_gui.core.catalog import duplicate_ids, fill_time_columns
from ftcost_gui.core.errors import first_error
from ftcost_gui.core.fields import field_spec
from ftcost_gui.core.inputs import GpuSpec
from ftcost_gui.core.lengths import LogNormalLengths
from ftcost_gui.core.memory import MemoryModel
from ftcost_gui.core.rollout import weight_sync_s
from ftcost_gui.core.scenarios import compare_scenarios
from ftcost_gui.core.units import GIB
from ftcost_gui.core.what_fits import MICRO_BATCHES, what_fits

from .hand import LLAMA31_8B
from .helpers import gpu, make


def test_field_metadata_reaches_the_form():
    """fld() puts unit, step, decimals, 'advanced' and what 0 means where field_spec reads them."""

    class Form(BaseModel):
        x: float = fld(0.0, "X", "Help.", "GiB", ge=0, le=10, step=0.5, decimals=2,
                       advanced=True, zero_text="auto")  # fmt: skip
        y: int = fld(1, "Y", "Other.")
        z: str = Field("a")

    assert Form.model_fields["x"].json_schema_extra == {
        "unit": "GiB", "step": 0.5, "decimals": 2, "advanced": True, "zero_text": "auto",
    }  # fmt: skip
    x, y, z = (field_spec(Form, n) for n in "xyz")
    assert (x.label, x.tooltip, x.unit, x.step, x.decimals) == ("X", "Help.", "GiB", 0.5, 2)
    assert (x.advanced, x.zero_text, x.minimum, x.maximum) == (True, "auto", 0, 10)
    assert (y.unit, y.step, y.decimals, y.advanced, y.zero_text) == ("", None, None, False, None)
    assert z.unit == ""  # a plain Field has no metadata: no unit


def test_duplicate_ids_are_each_named_once_as_first_repeated():
    rows = [GpuSpec(id=i) for i in ("a100", "H100", "A100", "h100", "a100", "l4")]
    assert duplicate_ids(rows) == ["A100", "h100"]


def test_a_given_achievable_source_is_kept():
    row = {"vendor": "NVIDIA", "name": "H100 SXM", "interconnect": "nvlink"}
    ruled = fill_time_columns(row, note=" (filled)")
    assert ruled["achievable_source"].startswith("rule") and ruled["achievable_source"].endswith(
        " (filled)"
    )
    own = fill_time_columns({**row, "achievable_source": "our benchmark"})
    assert own["achievable_source"] == "our benchmark"
    assert own["achievable_fraction"] == ruled["achievable_fraction"]  # the rule's fraction


def test_a_whole_document_error_has_no_field_path():
    with pytest.raises(ValidationError) as err:
        EstimateInputs.model_validate("not a document")
    assert first_error(err.value) == (
        "Input should be a valid dictionary or instance of EstimateInputs"
    )
    with pytest.raises(ValidationError) as err:
        make(training__micro_batch=0)
    assert (
        first_error(err.value) == "training.micro_batch: Input should be greater than or equal to 1"
    )


def test_length_cdf_by_hand():
    """Log-normal: F(x) = Φ((ln x − μ)/σ), σ² = ln(1 + cv²), μ = ln(mean) − σ²/2; F(median) = ½."""
    d = LogNormalLengths(1000.0, 0.5)
    sigma = math.sqrt(math.log(1.25))
    mu = math.log(1000.0) - sigma**2 / 2
    assert d.cdf(0.0) == d.cdf(-5.0) == 0.0
    assert d.cdf(math.exp(mu)) == pytest.approx(0.5)
    assert d.cdf(math.exp(mu + sigma)) == pytest.approx(0.841344746, rel=1e-8)  # Φ(1)
    point = LogNormalLengths(1000.0, 0.0)
    assert (point.cdf(999.0), point.cdf(1000.0), point.cdf(0.0)) == (0.0, 1.0, 0.0)


def _model(saved: float) -> MemoryModel:
    return MemoryModel(
        weights=100.0, gradients=100.0, master=0.0, optimizer=400.0,
        adapters_weights=0.0, adapters_grads=0.0, adapters_moments=0.0,
        activations_saved=saved, activations_working=0.0, logits=30.0,
        qlora_buffer=0.0, layer_gather=0.0, grad_buckets=0.0, overhead=10.0,
        sharding="none", offload=False, allocator_efficiency=0.5, accumulating=False,
    )  # fmt: skip


def test_memory_split_is_the_peak_moment():
    """Backward: weights 100 + moments 400 + activations + loss path 30 (no gradients without
    accumulation); optimizer step: 100 + 100 gradients + 400. Reserve = allocated (efficiency ½)."""
    step = _model(50.0)  # backward 580, step 600: the step is the peak
    assert step.peak_phase(1) == "optimizer step"
    parts = step.split(1)
    assert (parts["gradients"], parts["activations"], parts["logits"]) == (100.0, 0.0, 0.0)
    assert (parts["reserve"], parts["overhead"]) == (600.0, 10.0)
    assert step.total(1) == 1210.0
    back = _model(200.0)  # backward 730
    assert back.peak_phase(1) == "backward"
    parts = back.split(1)
    assert (parts["gradients"], parts["activations"], parts["logits"]) == (0.0, 200.0, 30.0)
    assert back.total(1) == 2 * 730.0 + 10.0


@pytest.mark.parametrize("n", [1, 2, 4])
def test_weight_sync_gathers_from_the_other_gpus(n):
    """ZeRO-3: each GPU gathers the (n − 1)/n of the bf16 weights it lacks over one direction of
    the link (900 GB/s ÷ 2 on H100 SXM) before the sync: a copy into a colocated engine (read +
    write at 3,350 GB/s) or one broadcast to separate engines."""
    inputs = make("llama-3.1-8b", training__sharding="zero3", hardware__gpu=gpu("H100 SXM"))
    counts = effective_counts(inputs.model)
    w, link = 2 * LLAMA31_8B.total, 900e9 / 2
    gather = w * (n - 1) / n / link
    assert weight_sync_s(inputs, counts, n, "colocated") == pytest.approx(gather + 2 * w / 3350e9)
    assert weight_sync_s(inputs, counts, n, "separate") == pytest.approx(gather + w / link)
    assert weight_sync_s(inputs, counts, n, "policy") == 0.0


def test_the_policy_prefills_every_completion():
    """model.generate prefills each of the G copies of a prompt (no prefix cache), vLLM each
    prompt once: the policy's prefill is G times the separate engines' per prompt."""
    s = LLAMA31_8B
    P, G, PROMPT = 32, 8, 256
    common = dict(
        hardware__gpu=gpu("H100 SXM"), data__num_examples=640, data__epochs=1,
        training__method="lora", training__checkpointing="full", training__auto_gpu_count=False,
        training__num_gpus=4, training__sharding="zero3", efficiency__mfu=0.3,
        objective__objective="grpo", objective__prompts_per_step=P,
        objective__completions_per_prompt=G, objective__mean_prompt_tokens=PROMPT,
        objective__mean_completion_tokens=512,
    )  # fmt: skip
    a = estimate(make(s.preset, objective__rollout_placement="policy", **common)).alignment
    head = 2 * s.V * s.h
    prefill = PROMPT * (2 * s.L * (s.attn + s.mlp_active) + 2 * s.L * PROMPT * s.q) + head
    assert a.prefill_s_per_step == pytest.approx(
        P * G / a.engines * prefill / (989e12 * 0.3 * a.tp), rel=1e-6
    )


def test_the_first_scenario_is_the_default_baseline():
    cheap = estimate(make("llama-3.1-8b", training__method="lora"))
    dear = estimate(make("llama-3.1-8b", training__method="full_amp_adamw"))
    for row in compare_scenarios([cheap, dear]):
        a, b = row.values
        if a is None or b is None:
            continue
        assert row.deltas == (0.0, b - a)
        if a:
            assert row.ratios == (1.0, b / a)


def test_micro_batch_curves_are_each_methods_memory():
    inputs = make(
        "llama-3.1-8b", data__max_seq_len=2048, training__checkpointing="full",
        training__auto_gpu_count=False, training__num_gpus=2, training__sharding="zero3",
    )  # fmt: skip
    w = what_fits(inputs)
    ckpt = "full" if w.checkpointing else "none"
    assert [c.method for c in w.by_micro_batch] == [c.method for c in w.by_seq_len]
    for curve in w.by_micro_batch:
        assert curve.x == MICRO_BATCHES
        for x, gib in zip(curve.x[:3], curve.gib[:3], strict=True):
            doc = inputs.model_dump()
            doc["training"].update(method=curve.method, checkpointing=ckpt, micro_batch=x)
            r = estimate(EstimateInputs.model_validate(doc))
            assert gib == pytest.approx(r.memory.total_bytes / GIB, rel=1e-12)


def _layer(m: ModelSpec, attention: str, full: bool) -> float:
    return sum(s.bytes_per_token for s in layer_inventory(m, attention, 128, full, None))


def test_gpt2_layer_by_hand():
    """GPT-2 (LayerNorm, fused c_attn, plain gelu MLP), full fine-tuning, SDPA, per token: each
    LayerNorm keeps its bf16 input (2h) and fp32 mean and rstd (8), its output is read by the
    linears (2h); q, k, v are views of the c_attn output (2·(q + 2kv)); the attention output
    (2q) and fp32 log-sum-exp (4 per head); c_fc's output and gelu_new's internals (4 · 2i),
    the c_proj input (2i)."""
    h, heads, i = 256, 4, 1024
    m = ModelSpec(
        hidden_size=h, num_attention_heads=heads, num_kv_heads=heads, intermediate_size=i,
        num_layers=2, fused_qkv=True, mlp_kind="plain", norm_kind="layernorm", mlp_bias=True,
        attention_qkv_bias=True, attention_out_bias=True, position_embeddings=1024,
    )  # fmt: skip
    by_hand = 2 * (2 * h + 8 + 2 * h) + 2 * (h + 2 * h) + 2 * h + 4 * heads + 4 * 2 * i + 2 * i
    assert _layer(m, "flash", True) == by_hand


def test_eager_repeats_kv_only_for_grouped_heads():
    """Eager attention, full fine-tuning: with 2 KV heads of 8 the repeated K and V are copies
    kept at q width (3 · 2q for q, k, v); with one KV head (MQA) the repeat stays a view, so
    q, k, v keep their own widths (2q + 2kv + 2kv). Softmax fp32 + bf16: 6 B per head per key."""
    h, heads, i, s = 256, 8, 512, 128
    hd = h // heads
    rest = 2 * (4 * h + 4 + 2 * h + 2 * h) + 6 * heads * s + 2 * h + 3 * 2 * i + 2 * i
    gqa = ModelSpec(hidden_size=h, num_attention_heads=heads, num_kv_heads=2, intermediate_size=i)
    mqa = ModelSpec(hidden_size=h, num_attention_heads=heads, num_kv_heads=1, intermediate_size=i)
    assert _layer(gqa, "eager", True) == rest + 3 * 2 * h
    assert _layer(mqa, "eager", True) == rest + 2 * h + 2 * 2 * hd


@pytest.mark.parametrize("full", [True, False])
def test_qk_norm_keeps_its_input_and_rsqrt(full):
    """Qwen3's per-head q/k RMSNorm: an fp32 copy of q and k (4q + 4kv), the rsqrt per head
    (4·heads + 4·kv_heads), and the bf16 normalised q and k when the weights train (2q + 2kv)."""
    h, heads, kvh, i = 256, 8, 2, 512
    q, kv = h, kvh * (h // heads)
    plain = ModelSpec(hidden_size=h, num_attention_heads=heads, num_kv_heads=kvh,
                      intermediate_size=i)  # fmt: skip
    normed = ModelSpec(hidden_size=h, num_attention_heads=heads, num_kv_heads=kvh,
                       intermediate_size=i, qk_norm="per_head")  # fmt: skip
    extra = (4 + (2 if full else 0)) * (q + kv) + 4 * (heads + kvh)
    assert _layer(normed, "flash", full) - _layer(plain, "flash", full) == extra
