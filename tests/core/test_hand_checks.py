"""SimpleRules, StepCheck and the measured MFU by hand (articles 000, 001, 003, 004).

Token totals are given in 'tokens' mode, so D (tokens processed) is the total itself; the GPU is
an H100 SXM (989 TFLOPS dense BF16, 79.6 GiB) at a pinned MFU.
"""

from __future__ import annotations

import math

import pytest

from ftcost_gui.core import estimate

from .hand import SHAPES
from .helpers import gpu, make

GIB = 2**30
PEAK = 989e12
D = 3e8


def _run(s, method="full_amp_adamw", ckpt="full", **edits):
    return estimate(
        make(
            s.preset,
            data__mode="tokens",
            data__total_tokens=D,
            data__max_seq_len=4096,
            training__method=method,
            training__checkpointing=ckpt,
            training__micro_batch=2,
            hardware__gpu=gpu("H100 SXM"),
            efficiency__mfu=0.35,
            **edits,
        )
    )


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize(
    ("method", "ckpt", "coef", "attn", "bpp"),
    [
        ("full_amp_adamw", "full", 8, 8, 16),  # 6N + 2N recompute; 2+2+4+8 bytes
        ("full_adamw_8bit", "none", 6, 6, 10),  # 2+2+4+2
        ("full_bf16_adamw", "none", 6, 6, 8),  # 2+2+4 (bf16 moments, no master)
        ("lora", "full", 6, 8, 2),  # 4N + 2N; frozen bf16 base
        ("qlora", "none", 4, 6, 4.127 / 8),  # NF4 + double quantisation
    ],
)
def test_simple_rules(s, method, ckpt, coef, attn, bpp):
    r = _run(s, method, ckpt)
    x = r.simple
    n = s.active  # article 000: MoE takes N_active for FLOPs, N for memory
    assert x.flop_coefficient == coef
    assert x.attention_coefficient == attn
    assert x.flops == pytest.approx(coef * n * D)
    assert x.gpu_hours == pytest.approx(coef * n * D / (PEAK * 0.35) / 3600)
    with_attn = (coef * n + attn * s.L * 4096 * s.h) * D
    assert x.flops_with_attention == pytest.approx(with_attn)
    assert x.gpu_hours_with_attention == pytest.approx(with_attn / (PEAK * 0.35) / 3600)
    assert x.bytes_per_param == pytest.approx(bpp, rel=1e-3)
    assert x.state_bytes == pytest.approx(s.total * bpp, rel=1e-3)
    assert x.activations_bytes == 2 * s.L * 2 * 4096 * s.h  # 2·L·b·s·h, b = 2
    usable = 0.85 * 79.6 * GIB  # article 001: 'perhaps 85 percent of nameplate'
    assert x.usable_bytes == pytest.approx(usable)
    assert x.gpus_needed == max(1, math.ceil(s.total * x.bytes_per_param / usable))
    assert x.attention_share == pytest.approx(s.L * 4096 * s.h / n)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize(("gpus", "accum"), [(1, 8), (4, 3)])
def test_step_check_examples_mode(s, gpus, accum):
    """Article 004: effective batch = b × accumulation × GPUs; steps per epoch = ceil(examples ÷
    batch); total = ceil(steps per epoch × epochs); GPU-hours = steps × step time × GPUs."""
    r = estimate(
        make(
            s.preset,
            data__num_examples=12_345,
            data__epochs=2.5,
            data__max_seq_len=2048,
            training__micro_batch=3,
            training__grad_accum=accum,
            training__auto_gpu_count=False,
            training__num_gpus=gpus,
            training__sharding="zero3",
            hardware__gpu=gpu("H100 SXM"),
            efficiency__step_time_s=4.5,
        )
    )
    sc = r.step_check
    assert sc is not None
    batch = 3 * accum * gpus
    per_epoch = math.ceil(12_345 / batch)
    total = math.ceil(per_epoch * 2.5)
    assert (sc.effective_batch, sc.steps_per_epoch, sc.passes) == (batch, per_epoch, 2.5)
    assert sc.total_steps == total
    assert sc.step_time_s == 4.5
    assert sc.wall_s == pytest.approx(total * 4.5)
    assert sc.gpu_hours == pytest.approx(total * 4.5 * gpus / 3600)
    # Implied MFU: a step's tokens (batch × s) × FLOPs per token ÷ (step time × peak × GPUs).
    implied = batch * 2048 * r.flops.per_token / 4.5 / (PEAK * gpus)
    assert sc.implied_mfu == pytest.approx(implied)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_step_check_packed_rows(s):
    """Packed (and token totals): rows per epoch = useful tokens ÷ s; a token total is one pass."""
    r = _run(s, efficiency__step_time_s=2.0, training__grad_accum=4)
    sc = r.step_check
    assert sc is not None
    rows = D / 4096
    batch = 2 * 4 * r.time.num_gpus
    assert r.tokens.sequences_per_epoch == pytest.approx(rows)
    assert sc.passes == 1.0
    assert sc.total_steps == math.ceil(math.ceil(rows / batch) * 1.0)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize("rate", [1500.0, 9000.0])
def test_measured_mfu(s, rate):
    """Article 000: MFU = logged tokens/s per GPU × FLOPs per token ÷ peak."""
    r = _run(s, efficiency__measured_tokens_per_s=rate)
    assert r.measured_mfu == pytest.approx(rate * r.flops.per_token / PEAK)
    warned = any("logged tokens/s imply" in w for w in r.warnings)
    assert warned is (rate * r.flops.per_token / PEAK > 1)


def test_no_measurement_no_check():
    r = _run(SHAPES[0])
    assert r.step_check is None and r.measured_mfu is None
