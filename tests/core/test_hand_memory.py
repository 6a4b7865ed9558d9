"""MemoryBreakdown by hand: every part of one GPU's memory, sharded or not, at the step's peak.

Article 001 'Memory sets the floor': bytes per parameter by recipe (bf16 weights 2, bf16 grads 2,
fp32 master 4, two fp32 Adam moments 8; 8-bit moments 2); LoRA adapters train in fp32 (PEFT:
weight 4 + grad 4 + moments 8); QLoRA's NF4 with double quantisation is 4 + 8/64 + 32/(64·256)
bits (Dettmers et al. 2023 §3) on the decoder linears, the rest bf16. ZeRO (Rajbhandari et al.
2020): stage 1 shards the optimizer, 2 also the gradients, 3 also the weights.

Activations, tensor by tensor as the measured records (docs/data/measured/*.json, "saved") show
a Llama layer keeps them, per token: each RMSNorm an fp32 copy of its input (4h) and its rsqrt
(4), plus the bf16 normalised tensor when its weight trains (2h); a trainable linear keeps its
bf16 input (shared by the linears reading it), a frozen one nothing; an fp32 LoRA adapter an fp32
copy of its input and its rank-r lora_A output (4·width + 4r); flash attention q, k, v, the
output (2q + 2kv + 2kv + 2q) and the fp32 log-sum-exp per head; eager the fp32 softmax and its
bf16 copy (6 B per head per key position), GQA's k and v repeated to q width, and the o_proj
input; the gated MLP's gate, up and activation outputs (3 × 2·width; MoE: top-k experts' width)
(MoE, Transformers 5 grouped_mm experts, mixtral.json: router softmax 4E, top-k indices, weights
and sum, int64 sort permutations, k expert rows' gate_up/activation/down outputs, 4E B per layer of
int32 offsets). Outside: int64 labels (8) and ids (8, when the embedding trains), bf16 rotary cos
and sin (4·head_dim), the final norm, the fp32 log-softmax (4V); a frozen layer 0 keeps nothing
of its first norm without checkpointing. With recomputation each layer keeps only its bf16 input
(article 001's 2·L·b·s·h) and one layer is recomputed while the loss path is already gone (its
saved tensors freed but the rotary cos/sin), with its output's gradient and one station's
temporaries beside it (_recompute_station).

The loss path beyond the forward: 8 B per token per vocabulary entry (standard), 14 B for one
2,048-token chunk (measured, docs/data/measured/loss.json). Buffers: QLoRA's bf16 dequantised
matrix, ZeRO-3's gathered and prefetched layer (as stored: NF4 for QLoRA), DDP's bucket copy of the
gradients or ZeRO-1/2's 5e8-element bf16 buckets. Two moments of a step (allocator timelines):
the backward (gradients only while they accumulate) and the optimizer step (every gradient and
the DDP/ZeRO buckets, no activations); the peak is the larger. The allocator reserve is
allocated × (1/0.85 − 1), plus the CUDA context; the device total must fit in the card.
"""

from __future__ import annotations

import math

import pytest

from ftcost_gui.core import estimate

from .hand import SHAPES
from .helpers import gpu, make

GIB = 2**30
NF4 = (4 + 8 / 64 + 32 / (64 * 256)) / 8
MB, S, MEM_GIB, OVERHEAD_GIB, EFF = 2, 2048, 79.6, 1.0, 0.85


def _acts_per_token(s, full, rank, attention="flash"):
    """(one decoder layer, outside the layers) bytes per token; LoRA on q, k, v, o in fp32."""
    h, q, kv, heads = s.h, s.q, s.kvd, s.heads
    width = s.i * (s.top_k or 1)
    norm = 4 * h + 4 + (2 * h if full else 0)
    layer = norm + (2 * h if full else 3 * (4 * h + 4 * rank))  # q, k, v read the norm output
    if attention == "flash":
        layer += 2 * q + 2 * kv + 2 * kv + 2 * q + 4 * heads
        layer += 0 if full else 4 * q + 4 * rank  # o_proj's adapter (the output is kept)
    else:
        layer += 3 * 2 * q if 1 < s.kv < s.heads else 2 * q + 2 * 2 * kv
        layer += (4 + 2) * heads * S
        layer += 2 * q if full else 4 * q + 4 * rank
    layer += norm + (2 * h if full else 0)  # MLP norm; gate and up read its output
    if not s.experts:
        layer += 3 * 2 * width  # gate, up, activation outputs
        layer += 2 * width if full else 0  # down_proj's input
    else:  # Transformers 5 grouped_mm experts, k = top_k rows per token (mixtral.json)
        k, i = s.top_k, s.i
        layer += 4 * s.experts + (8 + 4) * k + 4 + 8 * k  # router softmax, top-k + sum, sort
        layer += 8 * k + 2 * k * 2 * i + 2 * k * i  # token index; gate_up and activation outputs
        layer += 2 * k * h + 4 * k + 8 * k  # down output (routing multiply), weights, inverse
        layer += 2 * k * h + 2 * k * i if full else 0  # gathered rows, down input: weights train
    outside = 8 + (8 if full else 0) + 2 * 2 * s.hd + norm + (2 * h if full else 0)  # labels, ids
    return layer, outside


def _recompute_station(s, full, tokens):
    """Beside the recomputed layer's saved tensors at its peak, bytes per token (a per-layer
    term ÷ tokens): the layer output's gradient (bf16 2h; fp32 adapters add their input casts'
    fp32 gradient and its bf16 sum, 4h + 2h) and the larger station (backward_peak.json,
    validation/backward_trace.py). Adapters here sit on q, k, v, o: no up-side LoRA station.
    Dense: the down projection's input gradient (2i) and, when the base trains, the down weight's
    gradient before it is added (2·h·i per layer). MoE: the k routed rows' gate_up and activation
    gradients (2·k·2i + 2·k·i); full fine-tuning may peak in the experts' gate_up backward
    instead: those rows' gate_up and input gradients (2·k·2i + 2·k·h) and every expert's gate_up
    weight gradient (2·E·2i·h per layer), the gate_up to down outputs consumed by then."""
    h, i, k = s.h, s.i, s.top_k
    grad_in = 2 * h + (0 if full else (4 + 2) * h)
    if not s.experts:
        return grad_in + 2 * i + (2 * h * i / tokens if full else 0)
    down = 2 * k * 2 * i + 2 * k * i
    if not full:
        return grad_in + down
    consumed = 2 * k * 2 * i + 2 * k * i + 2 * k * i + 2 * k * h
    up = 2 * k * 2 * i + 2 * k * h - consumed + 2 * s.experts * 2 * i * h / tokens
    return grad_in + max(down, up)


def _parts(s, method, ckpt, sharding, n, rank=16, loss="standard", offload=False, accum=8,
           attention="flash"):  # fmt: skip
    """Every part of the per-GPU memory at the step's peak, written out."""
    total = s.total
    decoder_linear = s.decoder_linear
    full = method.startswith("full")
    recipe = {
        "full_amp_adamw": (2, 2, 4, 8),
        "full_adamw_8bit": (2, 2, 4, 2),
        "full_bf16_adamw": (2, 2, 0, 4),
        "lora": (2, 0, 0, 0),
        "qlora": (0, 0, 0, 0),
    }[method]
    w_div = n if sharding == "zero3" else 1
    g_div = n if sharding in ("zero2", "zero3") else 1
    o_div = n if sharding != "none" else 1
    on_gpu = 0 if offload else 1
    weights = (
        decoder_linear * NF4 + (total - decoder_linear) * 2
        if method == "qlora"
        else total * recipe[0]
    )
    adapters = 0.0
    if not full:  # q, k, v, o
        adapters = s.L * rank * ((s.h + s.q) + 2 * (s.h + s.kvd) + (s.q + s.h))
    tokens = MB * S
    layer, outside = _acts_per_token(s, full, rank, attention)
    fixed = 4 * s.experts  # per layer whatever the tokens: the int32 expert row offsets
    outside += 4 * s.V if loss == "standard" else 2 * s.h  # log-softmax, or the fused loss's grad
    freed = 0.0
    if ckpt == "full":
        saved = (s.L * 2 * s.h + outside) * tokens
        working = (layer + _recompute_station(s, full, tokens)) * tokens + fixed
        freed = (outside - 2 * 2 * s.hd) * tokens  # the loss path's, all but rotary cos/sin
    else:
        outside -= 0 if full else 4 * s.h + 4  # layer 0's first norm: its input needs no grad
        saved, working = (s.L * layer + outside) * tokens + s.L * fixed, 0.0
    logits = 8 * tokens * s.V if loss == "standard" else 14 * min(tokens, 2048) * s.V
    grads = total * 2 if full else adapters * 4
    linear = (s.attn + s.mlp) if method == "qlora" else 0
    stored = linear * NF4 + (s.attn + s.mlp + 2 * s.h - linear) * 2  # one layer as ZeRO-3 gathers
    buckets = 0.0
    if n > 1:
        buckets = {"none": grads, "zero1": min(grads, 2e9), "zero2": min(grads, 2e9)}.get(
            sharding, 0.0
        )
    # Full fine-tuning, checkpointing, no accumulation: while layer 0 is recomputed every gradient
    # but layer 0's and the (untied) input embedding's exists already (backward_peak.json, fresh).
    made = 0.0
    if full and ckpt == "full" and accum == 1:
        made = (total - (s.attn + s.mlp + 2 * s.h) - s.V * s.h) * recipe[1] / g_div
    phases = {}
    for phase in ("backward", "optimizer step"):
        step = phase == "optimizer step"
        g = 1 if step or accum > 1 else 0
        early = 0.0
        if step:
            acts = lost = 0.0
        elif ckpt == "full" and working - freed + made > logits:  # the recomputed layer wins
            acts, lost, early = saved - freed + working, 0.0, made
        else:
            acts, lost = saved, logits
        gather = 2 * stored if n > 1 and sharding == "zero3" and not step else 0.0
        qbuf = 2 * max(s.h * s.i, s.h * s.q) if method == "qlora" and not step else 0.0
        parts = {
            "weights": weights / w_div,
            "gradients": g * total * recipe[1] / g_div + early,
            "master": on_gpu * total * recipe[2] / o_div,
            "optimizer": on_gpu * total * recipe[3] / o_div,
            "adapters": adapters * 4 / w_div
            + g * adapters * 4 / g_div
            + on_gpu * adapters * 8 / o_div,
            "activations": acts,
            "logits": lost,
            "buffers": qbuf + gather + buckets,
        }
        allocated = sum(parts.values())
        parts["reserve"] = allocated * (1 / EFF - 1)
        parts["overhead"] = OVERHEAD_GIB * GIB
        parts["phase"] = phase
        phases[phase] = parts
    peak = max(phases.values(), key=lambda p: sum(v for k, v in p.items() if k != "phase"))
    return {
        **peak,
        "saved": saved,
        "working": working,
        "state": weights + total * sum(recipe[1:]) + adapters * 16,
        "offloaded": (total * (recipe[2] + recipe[3]) + adapters * 8) if offload else 0.0,
    }


PARTS = ("weights", "gradients", "master", "optimizer", "adapters", "activations", "logits",
         "buffers", "reserve", "overhead")  # fmt: skip
CAPACITY = MEM_GIB * GIB


def _device_total(parts):
    return sum(parts[p] for p in PARTS)


def _run(s, method, ckpt, sharding, n, **edits):
    return estimate(
        make(
            s.preset,
            data__max_seq_len=S,
            training__method=method,
            training__checkpointing=ckpt,
            training__sharding=sharding,
            training__micro_batch=MB,
            training__auto_gpu_count=False,
            training__num_gpus=n,
            hardware__gpu=gpu("H100 SXM"),
            hardware__framework_overhead_gib=OVERHEAD_GIB,
            **edits,
        )
    )


CASES = [
    ("full_amp_adamw", "full", "zero3", 8, 8),
    ("full_amp_adamw", "none", "zero2", 4, 8),
    ("full_amp_adamw", "full", "none", 2, 1),
    ("full_adamw_8bit", "full", "zero1", 2, 8),
    ("full_bf16_adamw", "full", "none", 2, 8),
    ("lora", "none", "none", 1, 8),
    ("lora", "full", "none", 2, 8),
    ("lora", "none", "zero2", 2, 1),
    ("qlora", "full", "zero3", 4, 8),
    ("qlora", "none", "none", 1, 1),
]


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize(("method", "ckpt", "sharding", "n", "accum"), CASES)
def test_memory_parts(s, method, ckpt, sharding, n, accum):
    m = _run(s, method, ckpt, sharding, n, training__grad_accum=accum).memory
    want = _parts(s, method, ckpt, sharding, n, accum=accum)
    for part in PARTS:
        assert getattr(m, f"{part}_bytes") == pytest.approx(want[part], rel=1e-9), part
    assert m.peak_phase == want["phase"]
    assert m.overhead_bytes == OVERHEAD_GIB * GIB
    assert m.activations_saved_bytes == pytest.approx(want["saved"])
    assert m.activations_working_bytes == pytest.approx(want["working"])
    total = _device_total(want)
    allocated = total - want["reserve"] - want["overhead"]
    assert m.peak_allocated_bytes == pytest.approx(allocated)
    assert m.peak_reserved_bytes == pytest.approx(allocated / EFF)
    assert m.total_bytes == pytest.approx(allocated / EFF + OVERHEAD_GIB * GIB)
    assert m.capacity_bytes == m.usable_bytes == pytest.approx(CAPACITY)
    assert m.fits is (total <= CAPACITY)
    assert m.headroom_bytes == pytest.approx(CAPACITY - total)
    assert m.state_bytes == pytest.approx(want["state"])
    assert m.bytes_per_param == pytest.approx(want["state"] / s.total)
    assert m.cpu_offloaded_bytes == 0
    assert m.reference_bytes == m.critic_bytes == m.rollout_weights_bytes == 0
    assert m.kv_cache_bytes == 0
    # The fewest GPUs that fit with this sharding: the smallest k whose device total fits.
    need = next(
        (k for k in range(1, 513)
         if _device_total(_parts(s, method, ckpt, sharding, k, accum=accum)) <= CAPACITY),
        None,
    )  # fmt: skip
    assert m.gpus_needed == need


def test_without_accumulation_the_recomputed_first_layer_meets_the_gradients_made_before_it():
    """Full fine-tuning, one micro-batch per step, recomputed: the backward runs from the head
    down, so while layer 0 is recomputed every gradient but layer 0's and the untied input
    embedding's already exists (backward_peak.json, the fresh runs: the step's peak is there).
    Llama-2-7B, 2 × 2,048 tokens: that moment (state, those gradients, the saved inputs, the
    recomputed layer) outweighs the optimizer step (state + every gradient) by the recomputed
    layer less layer 0's and the embedding's gradients."""
    s = SHAPES[0]
    want = _parts(s, "full_amp_adamw", "full", "none", 2, accum=1)
    m = _run(s, "full_amp_adamw", "full", "none", 2, training__grad_accum=1).memory
    assert want["phase"] == m.peak_phase == "backward"
    made = (s.total - (s.attn + s.mlp + 2 * s.h) - s.V * s.h) * 2
    assert m.gradients_bytes == pytest.approx(made)
    assert m.logits_bytes == 0
    assert m.activations_bytes == pytest.approx(want["activations"])


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_offloaded_optimizer_leaves_the_gpu(s):
    m = _run(s, "full_amp_adamw", "full", "zero2", 4, training__cpu_offload_optimizer=True).memory
    want = _parts(s, "full_amp_adamw", "full", "zero2", 4, offload=True)
    assert m.master_bytes == m.optimizer_bytes == 0
    assert m.cpu_offloaded_bytes == pytest.approx(want["offloaded"])
    assert m.cpu_offloaded_bytes == pytest.approx(12 * s.total)
    assert m.total_bytes == pytest.approx(_device_total(want))


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_chunked_loss_holds_one_chunk(s):
    """Fused loss: 14 B per vocabulary entry for one 2,048-token chunk (2 × 2,048 tokens here);
    it is the backward's transient unless the recomputed layer is larger."""
    m = _run(s, "lora", "none", "none", 1, training__loss="chunked").memory
    assert m.logits_bytes == pytest.approx(14 * 2048 * s.V)
    want = _parts(s, "lora", "none", "none", 1, loss="chunked")
    assert m.activations_saved_bytes == pytest.approx(want["saved"])
    assert m.total_bytes == pytest.approx(_device_total(want))


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_eager_attention_keeps_the_softmax(s):
    """Eager attention keeps the fp32 softmax and its bf16 copy (6 B per head per key position)
    instead of the output and log-sum-exp; GQA's K and V repeated to every head."""
    flash = _run(s, "lora", "none", "none", 1).memory
    eager = _run(s, "lora", "none", "none", 1, training__attention="eager").memory
    qkv = 3 * 2 * s.q - (2 * s.q + 4 * s.kvd) if 1 < s.kv < s.heads else 0
    extra = s.L * MB * S * (6 * s.heads * S + qkv - 2 * s.q - 4 * s.heads)
    assert eager.activations_saved_bytes - flash.activations_saved_bytes == pytest.approx(extra)
    want = _parts(s, "lora", "none", "none", 1, attention="eager")
    assert eager.activations_saved_bytes == pytest.approx(want["saved"])


def test_gpu_count_is_the_smallest_that_fits():
    """Mixtral full fine-tuning under ZeRO-3: the device total on k GPUs fits in 79.6 GiB, on
    k − 1 it does not."""
    s = SHAPES[2]
    r = estimate(
        make(
            s.preset,
            data__max_seq_len=S,
            training__method="full_amp_adamw",
            training__checkpointing="full",
            training__sharding="zero3",
            training__micro_batch=MB,
            hardware__gpu=gpu("H100 SXM"),
            hardware__framework_overhead_gib=OVERHEAD_GIB,
        )
    )
    k = r.memory.gpus_needed
    parts = _parts(s, "full_amp_adamw", "full", "zero3", k)
    fewer = _parts(s, "full_amp_adamw", "full", "zero3", k - 1)
    assert _device_total(parts) <= CAPACITY < _device_total(fewer)
    # Beyond a node whole 8-GPU nodes are rented, and the run trains on all of them.
    assert r.time.num_gpus == r.layout.rented_gpus == math.ceil(k / 8) * 8
    assert math.ceil(16 * s.total / CAPACITY) <= k  # more than the article's state-only floor
