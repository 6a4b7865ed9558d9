"""MemoryBreakdown by hand: every part of one GPU's memory, sharded or not.

Article 001 'Memory sets the floor': bytes per parameter by recipe (bf16 weights 2, bf16 grads 2,
fp32 master 4, two fp32 Adam moments 8; 8-bit moments 2); LoRA adapters train in fp32 (PEFT:
weight 4 + grad 4 + moments 8); QLoRA's NF4 with double quantisation is 4 + 8/64 + 32/(64·256)
bits (Dettmers et al. 2023 §3) on the decoder linears, the rest bf16. ZeRO (Rajbhandari et al.
2020): stage 1 shards the optimizer, 2 also the gradients, 3 also the weights. Activations
(Korthikanti et al. 2023, FlashAttention keeps no s² tensor): per token and layer the bf16 norm
inputs/outputs (4h), q, k, v and the attention output (2q + 2kv), the gated MLP's four i-wide
tensors, and the fp32 log-sum-exp per head; with recomputation only each layer's bf16 input
(article 001's 2·L·b·s·h) plus one layer's tensors while it is recomputed. Logits and loss: 16 B
per token per vocabulary entry (the standard path) or 8 B for one 2,048-token chunk. Buffers:
QLoRA's bf16 dequantised matrix, ZeRO-3's gathered and prefetched layer, DDP's bucket copy of the
gradients or ZeRO-1/2's 5e8-element bf16 buckets. Usable: 85% of the card; the fewest GPUs is the
smallest n whose per-GPU total fits.
"""

from __future__ import annotations

import math

import pytest

from ftcost_gui.core import estimate

from .hand import SHAPES
from .helpers import gpu, make

GIB = 2**30
NF4 = (4 + 8 / 64 + 32 / (64 * 256)) / 8
MB, S, MEM_GIB, OVERHEAD_GIB = 2, 2048, 79.6, 1.0


def _parts(s, method, ckpt, sharding, n, rank=16, loss="standard", offload=False):
    """Every part of the per-GPU memory, written out."""
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
    i_eff = s.i * (s.top_k or 1)
    per_layer = (4 * s.h + 2 * s.q + 2 * s.kvd + 4 * i_eff) * 2 + 4 * s.heads + 8 * s.experts
    if not full:  # PEFT saves each adapted input in fp32 and the rank-r intermediate
        per_layer += 4 * ((s.h + rank) * 3 + (s.q + rank))
    if ckpt == "full":
        saved, working = s.L * tokens * 2 * s.h, tokens * per_layer
    else:
        saved, working = s.L * tokens * per_layer, 0.0
    saved += 2 * tokens * 2 * s.h  # the final norm's input and output
    logits = 16 * tokens * s.V if loss == "standard" else 8 * min(tokens, 2048) * s.V
    grads = total * 2 if full else adapters * 4
    layer = s.attn + s.mlp + 2 * s.h
    largest = max(s.h * s.i, s.h * s.q)
    buffers = 2 * largest if method == "qlora" else 0.0
    if n > 1 and sharding == "zero3":
        buffers += 2 * 2 * layer
    if n > 1:
        buckets = {"none": grads, "zero1": min(grads, 2e9), "zero2": min(grads, 2e9)}
        buffers += buckets.get(sharding, 0.0)
    return {
        "weights": weights / w_div,
        "gradients": total * recipe[1] / g_div,
        "master": on_gpu * total * recipe[2] / o_div,
        "optimizer": on_gpu * total * recipe[3] / o_div,
        "adapters": adapters * 4 / w_div + adapters * 4 / g_div + on_gpu * adapters * 8 / o_div,
        "activations": saved + working,
        "saved": saved,
        "working": working,
        "logits": logits,
        "buffers": buffers,
        "overhead": OVERHEAD_GIB * GIB,
        "state": weights + total * sum(recipe[1:]) + adapters * 16,
        "offloaded": (total * (recipe[2] + recipe[3]) + adapters * 8) if offload else 0.0,
    }


PARTS = ("weights", "gradients", "master", "optimizer", "adapters", "activations", "logits",
         "buffers", "overhead")  # fmt: skip


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
    ("full_amp_adamw", "full", "zero3", 8),
    ("full_amp_adamw", "none", "zero2", 4),
    ("full_adamw_8bit", "full", "zero1", 2),
    ("full_bf16_adamw", "full", "none", 2),
    ("lora", "none", "none", 1),
    ("lora", "full", "none", 2),
    ("qlora", "full", "zero3", 4),
]


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize(("method", "ckpt", "sharding", "n"), CASES)
def test_memory_parts(s, method, ckpt, sharding, n):
    m = _run(s, method, ckpt, sharding, n).memory
    want = _parts(s, method, ckpt, sharding, n)
    for part in PARTS:
        assert getattr(m, f"{part}_bytes") == pytest.approx(want[part], rel=1e-9), part
    assert m.adapters_bytes == pytest.approx(want["adapters"])
    assert m.buffers_bytes == pytest.approx(want["buffers"])
    assert m.overhead_bytes == OVERHEAD_GIB * GIB
    assert m.activations_saved_bytes == pytest.approx(want["saved"])
    assert m.activations_working_bytes == pytest.approx(want["working"])
    total = sum(want[p] for p in PARTS)
    usable = 0.85 * MEM_GIB * GIB
    assert m.total_bytes == pytest.approx(total)
    assert m.capacity_bytes == pytest.approx(MEM_GIB * GIB)
    assert m.usable_bytes == pytest.approx(usable)
    assert m.fits is (total <= usable)
    assert m.headroom_bytes == pytest.approx(usable - total)
    assert m.state_bytes == pytest.approx(want["state"])
    assert m.bytes_per_param == pytest.approx(want["state"] / s.total)
    assert m.cpu_offloaded_bytes == 0
    assert m.reference_bytes == m.critic_bytes == m.rollout_weights_bytes == 0
    assert m.kv_cache_bytes == 0
    # The fewest GPUs that fit with this sharding: the smallest k whose total fits.
    need = next(
        (k for k in range(1, 513)
         if sum(_parts(s, method, ckpt, sharding, k)[p] for p in PARTS) <= usable),
        None,
    )  # fmt: skip
    assert m.gpus_needed == need


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_offloaded_optimizer_leaves_the_gpu(s):
    m = _run(s, "full_amp_adamw", "full", "zero2", 4, training__cpu_offload_optimizer=True).memory
    want = _parts(s, "full_amp_adamw", "full", "zero2", 4, offload=True)
    assert m.master_bytes == m.optimizer_bytes == 0
    assert m.cpu_offloaded_bytes == pytest.approx(want["offloaded"])
    assert m.cpu_offloaded_bytes == pytest.approx(12 * s.total)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_chunked_loss_holds_one_chunk(s):
    m = _run(s, "lora", "full", "none", 1, training__loss="chunked").memory
    assert m.logits_bytes == pytest.approx(8 * 2048 * s.V)  # 2 × 2,048 tokens: one chunk


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_eager_attention_keeps_the_softmax(s):
    """Eager attention adds the fp32 softmax and its bf16 copy: 6 B per head per key position."""
    flash = _run(s, "lora", "none", "none", 1).memory
    eager = _run(s, "lora", "none", "none", 1, training__attention="eager").memory
    extra = s.L * MB * S * 6 * s.heads * S
    assert eager.activations_bytes - flash.activations_bytes == pytest.approx(extra)


def test_gpu_count_is_the_smallest_that_fits():
    """Mixtral full fine-tuning under ZeRO-3: state ÷ n + per-GPU parts ≤ 85% of 79.6 GiB."""
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
    usable = 0.85 * MEM_GIB * GIB
    k = r.memory.gpus_needed
    parts = _parts(s, "full_amp_adamw", "full", "zero3", k)
    fewer = _parts(s, "full_amp_adamw", "full", "zero3", k - 1)
    assert sum(parts[p] for p in PARTS) <= usable < sum(fewer[p] for p in PARTS)
    # Beyond a node whole 8-GPU nodes are rented, and the run trains on all of them.
    assert r.time.num_gpus == r.layout.rented_gpus == math.ceil(k / 8) * 8
    assert math.ceil(16 * s.total / usable) <= k  # more than the article's state-only floor
