"""The core against every measured record (docs/data/measured/, made by validation/measure.py).

No torch at test time: the records are JSON. Tolerances (issue 10): parameter and LoRA counts
exact; FLOPs of one training step within 2% (attention counted causal, validation/compare.py);
bytes saved for backward within 10% per record. The accuracy table in docs/accuracy.md must be
the one these records give (``python -m validation.report`` writes it).
"""

from __future__ import annotations

import json

import pytest

from ftcost_gui.core import estimate
from ftcost_gui.core.activations import LoraActs, layer_inventory
from ftcost_gui.core.architecture import ModelSpec
from ftcost_gui.core.memory import (
    FOREACH_TEMP_BYTES,
    LOGITS_CHUNKED_BYTES,
    LOGITS_STANDARD_BYTES,
    OPTIMIZER_TEMP_BYTES,
)
from ftcost_gui.core.memory_step import MemoryInputs, memory_model
from ftcost_gui.core.remembered import adapters_of, counts_of
from validation import compare as C
from validation import report

RECORDS = list(C.records())
ROWS = [row for record in RECORDS for row in C.compare(record)]
TOLERANCE = {"params": 0.0, "lora": 0.0, "flops": 0.02, "saved": 0.10, "peak": 0.10}
# Every row, the backward's allocated peak with checkpointing included (the recomputed layer's
# peak, core/recompute.py): before that model the checkpointed peaks were left untested at
# −12…−39% (LoRA) and to −29% (full); now within −6.8…+1.8% (docs/accuracy.md).
TESTED = ROWS


def test_every_family_has_a_record():
    assert [r["family"] for r in RECORDS] == list(C.FAMILY_ORDER)
    loss = json.loads((C.RECORDS / "loss.json").read_text())
    assert {run["kind"] for run in loss["runs"]} == {"standard", "chunked"}


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["family"])
def test_records_are_versioned_with_their_environment(record):
    assert record["format"] == "ftcost-measured"
    assert record["version"] == 1
    assert {"torch", "transformers", "peft"} <= set(record["software"])
    assert record["machine"] and record["date"]
    assert record["flops"] and record["saved"] and record["lora_params"]


@pytest.mark.parametrize("row", TESTED, ids=lambda r: f"{r.family}-{r.kind}-{r.mode}")
def test_core_matches_record(row):
    tol = TOLERANCE[row.kind]
    if tol == 0.0:
        assert row.ours == row.measured
    else:
        assert abs(row.error) <= tol, f"{row.ours:.6g} vs measured {row.measured:.6g}"


def test_loss_path_record_gives_the_core_constants():
    """Standard loss: 12 B per token per vocabulary entry at the peak, of which the fp32
    log-softmax output (4 B) is a saved activation; chunked: 14 B per chunk token."""
    runs = json.loads((C.RECORDS / "loss.json").read_text())["runs"]
    for run in runs:
        expected = (
            LOGITS_STANDARD_BYTES + 4.0 if run["kind"] == "standard" else LOGITS_CHUNKED_BYTES
        )
        assert run["bytes_per_token_vocab"] == pytest.approx(expected, abs=0.01), run


def test_optimizer_record_gives_the_core_constants():
    """AdamW foreach: one temporary of the parameters' size in their dtype; fused: none."""
    runs = json.loads((C.RECORDS / "optimizer.json").read_text())["runs"]
    size = {"bfloat16": 2.0, "float32": 4.0}
    for run in runs:
        expected = size[run["dtype"]] if run["impl"] == "foreach" else 0.0
        assert run["temporary_bytes_per_param"] == pytest.approx(expected, abs=0.01), run
    assert FOREACH_TEMP_BYTES == size
    # The core models the fused step (HF Trainer's default): no temporaries.
    assert set(OPTIMIZER_TEMP_BYTES.values()) == {0.0}


def test_accuracy_table_is_current():
    text = C.ACCURACY_DOC.read_text()
    assert report.table(ROWS) in text, "run: python -m validation.report"


def _case(family: str, mode: str, attention: str, ckpt: bool) -> tuple[dict, dict]:
    record = next(r for r in RECORDS if r["family"] == family)
    case = next(
        c
        for c in record["saved"]
        if c["mode"] == mode
        and c["attention"] == attention
        and c["checkpointing"] == ckpt
        and (c["lora"] or {}).get("adapter_dtype", "fp32") == "fp32"
        and (c["batch"], c["seq"]) == (1, 128)
    )
    return record, case


def test_llama_layer_by_hand():
    """One Llama-style layer, full fine-tuning, SDPA, against the record's own per-layer bytes.

    Shrunk Llama: h 256, q 256, kv 64 (8 heads, 2 KV heads of 32), i 896. Per token: two
    RMSNorms each keep an fp32 copy of the input (4h), the rsqrt (4), the bf16 normalised
    tensor (2h) and their output read by the linears (2h); q and k after rotary (2q + 2kv),
    v (2kv), the attention output (2q), the fp32 log-sum-exp (4 per head); gate, up,
    activation and product (4 · 2i).
    """
    h, q, kv, heads, i = 256, 256, 64, 8, 896
    by_hand = 2 * (4 * h + 4 + 2 * h + 2 * h) + 2 * q + 2 * kv + 2 * kv + 2 * q + 4 * heads + 8 * i
    assert by_hand == 12584
    _, case = _case("llama", "full", "sdpa", False)
    assert case["per_layer_bytes"][-1] == by_hand * 128
    m = ModelSpec(
        hidden_size=h, num_attention_heads=8, num_kv_heads=2, intermediate_size=i, num_layers=2
    )
    assert sum(s.bytes_per_token for s in layer_inventory(m, "flash", 128, True, None)) == by_hand


def test_lora_frozen_layers_keep_less_by_hand():
    """LoRA on every linear, fp32 adapters (PEFT's default), r = 8: frozen linears and norms keep
    no bf16 inputs; each adapted module keeps its own fp32 copy of its input and lora_A's output.
    Per token: norms 2 · (4h + 4); q/k/v/gate/up copies 5 · 4h; o copy 4q; down copy 4i; seven
    lora_A outputs 7 · 4r; q, k, v, attention output, log-sum-exp as in full; gate, up, act 3 · 2i.
    """
    h, q, kv, heads, i, r = 256, 256, 64, 8, 896, 8
    by_hand = (
        2 * (4 * h + 4) + 5 * 4 * h + 4 * q + 4 * i + 7 * 4 * r
        + 2 * q + 4 * kv + 2 * q + 4 * heads + 3 * 2 * i
    )  # fmt: skip
    _, case = _case("llama", "lora", "sdpa", False)
    assert case["lora"]["set"] == "all"
    assert case["per_layer_bytes"][-1] == by_hand * 128


def test_checkpointing_recomputes_less_than_2n_by_hand():
    """Llama-3.1-8B, full fine-tuning, one 512-token sequence: the checkpointed step's matmuls
    exceed the plain step's by 2 × (decoder linears − down projections) per token, not 2N."""
    record = next(r for r in RECORDS if r["family"] == "llama")
    full = [c for c in record["flops"] if c["mode"] == "full" and c["attention"] == "sdpa"]
    plain, ckpt = (
        next(c for c in full if c["checkpointing"] == k and (c["batch"], c["seq"]) == (1, 512))
        for k in (False, True)
    )
    layer = 4096 * 4096 * 2 + 2 * 4096 * 1024 + 3 * 4096 * 14336  # q, o; k, v; gate, up, down
    down = 4096 * 14336
    assert ckpt["by_op"]["mm"] - plain["by_op"]["mm"] == 2 * 32 * (layer - down) * 512
    r = estimate(C.inputs_for(record, ckpt))
    assert r.flops.recompute_per_token == 2 * 32 * (layer - down)


def test_mixtral_expert_lora_layer_by_hand():
    """Mixtral under PEFT's expert LoRA (target_parameters on the 3D expert weights), fp32
    adapters, SDPA: the record's last layer, tensor by tensor, and the core's inventory.

    Shrunk Mixtral: h 256, q 256, kv 64 (8 heads), 4 experts of width 512, top-2, r = 8. Per
    token: attention norm's fp32 copy and rsqrt (4h + 4; frozen weight); q, k, v, output, log-sum-
    exp (2q + 2kv + 2kv + 2q + 4 · 8); MLP norm (4h + 4); router softmax (4E), top-k indices,
    weights and sum (8k + 4k + 4); expert sort and token index (8k + 8k); gathered rows (2kh);
    gate_up output (2k · 2i); activation and product (2ki each); down output (2kh); routing
    weights (4k); inverse permutation (8k). Per layer, whatever the tokens: the merged weights
    W + B·A in bf16 (2E · h · 2i and 2E · i · h), the bf16 casts of the fp32 factors
    (2E · r · (h + 2i) and 2E · r · (i + h)) and the int32 expert offsets (4E).
    """
    h, q, kv, heads, i, n_exp, k, r = 256, 256, 64, 8, 512, 4, 2, 8
    per_token = (
        (4 * h + 4) + (2 * q + 2 * kv + 2 * kv + 2 * q + 4 * heads) + (4 * h + 4)
        + 4 * n_exp + (8 * k + 4 * k + 4) + 8 * k + 8 * k
        + 2 * k * h + 2 * k * 2 * i + 2 * k * i + 2 * k * i + 2 * k * h + 4 * k + 8 * k
    )  # fmt: skip
    fixed = (
        2 * n_exp * h * 2 * i + 2 * n_exp * i * h
        + 2 * n_exp * r * (h + 2 * i) + 2 * n_exp * r * (i + h) + 4 * n_exp
    )  # fmt: skip
    assert (per_token, fixed) == (13708, 3276816)
    record, case = _case("mixtral", "lora", "sdpa", False)
    assert case["lora"]["set"] == "experts"
    assert case["per_layer_bytes"][-1] == per_token * 128 + fixed
    m = C.spec_of(record, "shrunk")
    lora = LoraActs(frozenset({"gate_up_proj", "down_proj"}), r, 4.0)
    items = layer_inventory(m, "flash", 128, False, lora)
    assert sum(s.bytes_per_token for s in items) == per_token
    assert sum(s.fixed_bytes for s in items) == fixed


def test_mixtral_expert_lora_flops_by_hand():
    """One step of the shrunk Mixtral (2 layers, 4 experts, top-2), LoRA r = 16 on the experts
    only, one 256-token sequence, no checkpointing, by op:

    - grouped_mm (the experts, k · T = 512 rows): forward 2 · 3hi per row per layer; backward
      the merged weights' gradients (2 · 3hi) and input gradients (2 · 3hi), except layer 0's
      gate_up input gradient (its input needs none): (6 + 12) + (6 + 4 + 4) = 32 · rows · h · i;
    - baddbmm: W + B·A for each expert stack, 2 · r · E · d_in · d_out, twice per forward (PEFT
      registers the parametrization, which evaluates it once to check it); backward: two bmm of
      the same size for the adapters' gradients;
    - mm: every frozen linear forward (2 per weight per token), input gradients of the head and
      of layer 1 only (layer 0 needs none: no adapter before its experts);
    - attention: forward in both layers, backward in layer 1 only (halved: causal).
    """
    h, q, kv, i, n_exp, k, r, vocab, tokens = 256, 256, 64, 512, 4, 2, 16, 512, 256
    rows = k * tokens
    attn_linear = h * q + 2 * h * kv + q * h
    router = h * n_exp
    grouped = 32 * rows * h * i
    stacks = n_exp * (h * 2 * i + i * h)  # merged weights per layer
    merge = 2 * r * stacks * 2  # both layers
    mm = 2 * tokens * (2 * (attn_linear + router) + vocab * h) + 2 * tokens * (
        vocab * h + attn_linear + router
    )
    # q·kᵀ and p·v, 2 · s² · q each: forward in both layers, backward (four) in layer 1 only.
    attention = 0.5 * (2 * 2 * 2 * tokens**2 * q + 4 * 2 * tokens**2 * q)  # causal: half
    record = next(x for x in RECORDS if x["family"] == "mixtral")
    case = next(
        c for c in record["flops"]
        if c["mode"] == "lora" and c["lora"]["set"] == "experts" and not c["checkpointing"]
        and (c["batch"], c["seq"]) == (1, tokens)
    )  # fmt: skip
    by_op = case["by_op"]
    assert by_op["_grouped_mm"] == grouped
    assert by_op["baddbmm"] == 2 * merge
    assert case["merge_backward_bmm"] == 2 * merge
    assert by_op["mm"] == mm
    by_hand = grouped + 4 * merge + mm + attention
    assert C.measured_flops(case) == by_hand
    ours = estimate(C.inputs_for(record, case))
    assert ours.flops.per_token * tokens == pytest.approx(by_hand, rel=1e-12)


def _ckpt_peak_case(family: str, mode: str, batch: int, seq: int) -> tuple[dict, dict]:
    record = next(r for r in RECORDS if r["family"] == family)
    case = next(
        c
        for c in record["saved"]
        if c["mode"] == mode and c["checkpointing"] and (c["batch"], c["seq"]) == (batch, seq)
    )
    return record, case


def test_checkpointed_lora_peak_is_the_up_station_by_hand():
    """Shrunk Llama, LoRA on every linear (fp32, r 8), checkpointing, one 256-token sequence.

    The live-storage trace (validation/backward_trace.py) puts the backward's peak where the
    last layer's recomputation runs up_proj's LoRA path. Per token, written out:
    - the recomputed layer's saved tensors (as test_lora_frozen_layers_keep_less_by_hand, with
      the first norm's: its input needs a gradient under checkpointing): 18,696;
    - the layer output's gradient: bf16 2h, and the fp32 gradient of the adapters' input casts
      with its bf16 sum, 4h + 2h: 2,048;
    - the up station: the base output 2i, lora_B's fp32 output and its scaled copy 4i + 4i, the
      bf16 MLP input 2h, less what is not recomputed yet (up output 2i, down's fp32 input copy
      4i and lora_A output 4r): 4,064 (beats the down station 2i + 2i = 3,584).
    Beside it: the checkpointed inputs L·2h and, of the outside tensors, only rotary cos/sin
    (2·2·32): the labels (8), the frozen final norm's fp32 copy and rsqrt (4h + 4) and the fp32
    log-softmax (4V) were freed by the loss path. The CPU record also holds a 4i fp32 copy the
    CPU makes of the bf16 base output to add the fp32 LoRA output (compare.cpu_promotion_bytes).
    """
    h, i, r, hd, v, layers, tokens = 256, 896, 8, 32, 512, 2, 256
    layer = (
        2 * (4 * h + 4) + 5 * 4 * h + 4 * h + 4 * i + 7 * 4 * r
        + 2 * h + 4 * 64 + 2 * h + 4 * 8 + 3 * 2 * i
    )  # fmt: skip
    assert layer == 18696
    grad_in = 2 * h + (4 + 2) * h
    up = 2 * i + 4 * i + 4 * i + 2 * h - (2 * i + 4 * i + 4 * r)
    assert up > 2 * i + 2 * i
    working = (layer + grad_in + up) * tokens
    outside = 8 + 2 * 2 * hd + 4 * h + 4 + 4 * v
    moment = (layers * 2 * h + outside) * tokens - (outside - 2 * 2 * hd) * tokens + working
    assert moment > 8 * v * tokens  # beyond the loss path's transient
    record, case = _ckpt_peak_case("llama", "lora", 1, tokens)
    inputs = C.inputs_for(record, case)
    assert estimate(inputs).memory.activations_working_bytes == working
    cpu_copy = 4 * i * tokens
    assert C.backward_peak_bytes(estimate(inputs).memory, inputs) == moment + cpu_copy
    measured = case["allocator"]["backward_peak"]
    assert (moment + cpu_copy) / measured - 1 == pytest.approx(-0.0193, abs=0.0005)


def test_checkpointed_full_peak_is_the_down_backward_by_hand():
    """Shrunk Llama, full fine-tuning, checkpointing, one 128-token sequence: the peak is in the
    down projection's backward — the recomputed layer (12,584 B per token, as
    test_llama_layer_by_hand), the layer output's bf16 gradient 2h, the down input's gradient
    2i, and the down weight's gradient before it is added to .grad (2·h·i, whatever the tokens;
    the record's run follows another step, so .grad exists)."""
    h, i, hd, v, layers, tokens = 256, 896, 32, 512, 2, 128
    working = (12584 + 2 * h + 2 * i) * tokens + 2 * h * i
    outside = 8 + 8 + 2 * 2 * hd + (4 * h + 4 + 2 * h) + 2 * h + 4 * v  # labels, ids, norm, head
    moment = (layers * 2 * h + outside) * tokens - (outside - 2 * 2 * hd) * tokens + working
    record, case = _ckpt_peak_case("llama", "full", 1, tokens)
    inputs = C.inputs_for(record, case)
    assert estimate(inputs).memory.activations_working_bytes == working
    assert C.backward_peak_bytes(estimate(inputs).memory, inputs) == moment
    assert moment / case["allocator"]["backward_peak"] - 1 == pytest.approx(-0.0044, abs=0.0005)


TRACE = json.loads((C.RECORDS / "backward_peak.json").read_text())


def _trace_id(r: dict) -> str:
    first = "" if r["warm"] else "-first-step"
    return f"{r['family']}-{r['mode']}-{r['adapter_dtype']}-{r['seq']}{first}"


@pytest.mark.parametrize("run", TRACE["runs"], ids=_trace_id)
def test_recomputed_layer_peak_matches_the_live_storage_trace(run):
    """The live-storage trace (validation/backward_trace.py) sees what a GPU allocates (no CPU
    kernel temporaries): the core's checkpointed backward moment — saved, less what the loss
    path freed, plus the recomputed layer's peak, plus (a first step of full fine-tuning, no
    accumulation) the gradients made before layer 0 is recomputed — within 10% for every
    family, full and LoRA with fp32 and bf16 adapters (the allocator records have no bf16
    checkpointed run and no first step)."""
    record = next(r for r in RECORDS if r["family"] == run["family"])
    base = next(c for c in record["saved"] if c["checkpointing"] and c["mode"] == run["mode"])
    case = dict(base, batch=run["batch"], seq=run["seq"])
    if run["mode"] == "lora":
        case["lora"] = dict(base["lora"], adapter_dtype=run["adapter_dtype"])
    inputs = C.inputs_for(record, case)
    accum = 2 if run["warm"] else 1  # warm: .grad exists, new gradients are added into it
    inputs = inputs.model_copy(
        update={"training": inputs.training.model_copy(update={"grad_accum": accum})}
    )
    mi = MemoryInputs.of(inputs)
    counts = counts_of(mi.model)
    model = memory_model(mi, counts, adapters_of(mi.model, counts, mi.training))
    parts = model.phase_parts(1, "backward")
    existing = model.gradients if run["warm"] else 0.0  # in .grad before the step
    ours = parts["activations"] + parts["logits"] + parts["gradients"] - existing
    assert abs(ours / run["backward_peak"] - 1) <= 0.10, (ours, run["backward_peak"])
