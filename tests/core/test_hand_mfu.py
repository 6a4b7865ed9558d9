"""The default MFU by hand (core/throughput.py): achievable fraction × stack efficiency × the
micro-batch's busy share.

One micro-batch of T tokens at F FLOPs each takes T·F ÷ (peak × achievable × 0.60) in matmuls,
plus 0.07 s of fixed stack time (the Qwen profiling table's intercept), plus — QLoRA — the NF4
dequantisation of every quantised weight in each pass (forward, backward, and the recomputed
forward) as 24 bytes per weight at the GPU's memory bandwidth. The busy share is the matmul part
of that time; MFU = achievable × 0.60 × busy share.
"""

from __future__ import annotations

import pytest

from ftcost_gui.core import estimate

from .hand import SHAPES
from .helpers import gpu, make

PEAK, ACHIEVABLE, BW = 989e12, 0.803, 3350e9


def _run(s, method, ckpt, **edits):
    return estimate(
        make(
            s.preset,
            data__mode="tokens",
            data__total_tokens=1e8,
            data__max_seq_len=2048,
            training__method=method,
            training__checkpointing=ckpt,
            training__micro_batch=2,
            training__auto_gpu_count=False,
            training__num_gpus=2,
            hardware__gpu=gpu("H100 SXM") | {"achievable_fraction": ACHIEVABLE},
            **edits,
        )
    )


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize(
    ("method", "ckpt", "key", "passes"),
    [
        ("full_amp_adamw", "full", "full", 0),
        ("lora", "none", "lora", 0),
        ("qlora", "full", "qlora", 3),
        ("qlora", "none", "qlora", 2),
    ],
)
def test_default_mfu(s, method, ckpt, key, passes):
    r = _run(s, method, ckpt)
    t = r.time
    tokens = 2 * 2048  # micro-batch rows × packed row length
    matmul_s = tokens * r.flops.per_token / (PEAK * ACHIEVABLE * 0.60)
    dequant_s = passes * s.decoder_linear * 24 / BW
    busy = matmul_s / (matmul_s + 0.07 + dequant_s)
    mfu = ACHIEVABLE * 0.60 * busy
    assert (t.stack_method_key, t.stack_method, t.achievable_fraction) == (key, 0.60, ACHIEVABLE)
    assert t.tokens_per_microbatch == tokens
    assert t.matmul_s_per_microbatch == pytest.approx(matmul_s)
    assert t.fixed_s_per_microbatch == 0.07
    assert t.dequant_s_per_microbatch == pytest.approx(dequant_s)
    assert t.shape_factor == pytest.approx(busy)
    assert t.mfu_default == pytest.approx(mfu)
    assert (t.mfu, t.mfu_source) == (pytest.approx(mfu), "default")
    assert t.stack_efficiency == pytest.approx(0.60 * busy)
    # The busy time of the run at that MFU.
    assert t.train_wall_s >= r.flops.total_flops / (PEAK * mfu) / 2 * (1 - 1e-12)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_a_given_stack_efficiency_keeps_the_gpus_achievable_fraction(s):
    r = _run(s, "lora", "full", efficiency__stack_efficiency=0.5)
    t = r.time
    assert (t.mfu, t.mfu_source) == (pytest.approx(ACHIEVABLE * 0.5), "stack")
    assert t.stack_efficiency == pytest.approx(0.5)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_a_given_mfu_is_one_mfu_for_every_gpu(s):
    r = _run(s, "lora", "full", efficiency__mfu=0.33)
    t = r.time
    assert (t.mfu, t.mfu_source) == (0.33, "given")
    assert t.stack_efficiency == pytest.approx(0.33 / ACHIEVABLE)
    assert t.mfu_default != 0.33  # the default is still shown beside it
