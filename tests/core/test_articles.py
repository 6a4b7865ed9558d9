"""Every worked figure of the reference articles (shared/seeds), one test each.

Letters follow the acceptance list of the core issue. Tolerances are the articles' own rounding.
"""

from __future__ import annotations

import math

import pytest

from ftcost_gui.core import calibration as cal
from ftcost_gui.core import estimate
from ftcost_gui.core.flops import attention_share_simple, simple_coefficient
from ftcost_gui.core.memory import NF4_DQ_BYTES, RECIPES, SIMPLE_BYTES_PER_PARAM_003
from ftcost_gui.core.units import GB, GIB

from .helpers import gpu, make

H100 = "H100 SXM"


def article_000(preset: str, n_params: float):
    """Full FT + checkpointing, 60M tokens, seq 2,048, H100 SXM at 40% MFU (article 000 table)."""
    return make(
        preset,
        model__param_count_override=n_params,
        data__mode="tokens",
        data__total_tokens=6e7,
        data__max_seq_len=2048,
        training__method="full_amp_adamw",
        training__checkpointing="full",
        hardware__gpu=gpu(H100),
        efficiency__mfu=0.4,
    )


def test_a_000_qwen7b_gpu_hours_and_cost():
    r = estimate(article_000("qwen2.5-7b", 7.62e9))
    # The article's table: (8N + 8·L·s·h) × D at 40% of 989 TFLOPS → "about 2.6 GPU-hours".
    assert r.simple.flop_coefficient == 8
    assert round(r.simple.gpu_hours_with_attention, 1) == 2.6
    assert round(r.simple.gpu_hours_with_attention * 2, 1) == 5.3  # "$5.3"
    assert round(r.simple.gpu_hours_with_attention * 4) == 11  # "$11"
    # 8N alone (article 001's skeleton) is 2.57 h.
    assert r.simple.gpu_hours == pytest.approx(8 * 7.62e9 * 6e7 / (989e12 * 0.4) / 3600)
    # The detailed model counts only matmul parameters (embedding lookups are free, article 000
    # 'Assumptions') and recomputes what transformers' checkpointing reruns (the decoder layers
    # without their last matmul; not the head: measured records), so it lands lower:
    # documented in docs/model.md. By hand, Qwen2.5-7B (L 28, h 3584, i 18944, V 152064):
    scale = 7.62e9 / 7_615_616_512  # the article's N over the exact count
    n_mm = 7_070_285_824 * scale  # 28 × 233,046,016 layer linears + 544,997,376 head
    decoder = 6_525_288_448 * scale
    down = 28 * 3584 * 18944 * scale  # never recomputed
    per_token = 6 * n_mm + 2 * (decoder - down) + 8 * 28 * 2048 * 3584
    assert r.flops.per_token == pytest.approx(per_token)
    pure_compute_h = r.flops.total_flops / (989e12 * 0.4) / 3600
    assert pure_compute_h == pytest.approx(per_token * 6e7 / (989e12 * 0.4) / 3600)
    assert 2.2 < pure_compute_h < 2.3  # the article's rule: 2.6
    # It needs two GPUs (114 GiB of state), so ZeRO-3 traffic adds its overhead on top.
    assert r.time.compute_gpu_hours == pytest.approx(pure_compute_h * (1 + r.time.comm_overhead))


def test_b_000_full_ft_state_114_gib():
    r = estimate(article_000("qwen2.5-7b", 7.62e9))
    assert round(r.simple.state_bytes / GIB) == 114
    m = r.memory
    state = m.weights_bytes + m.gradients_bytes + m.master_bytes + m.optimizer_bytes
    assert m.bytes_per_param == 16
    assert r.time.num_gpus >= 2  # "runs on at least two GPUs"
    assert state * r.time.num_gpus / GIB == pytest.approx(113.55, abs=0.1)  # ZeRO-3 shards it


def test_c_000_tokens_per_s_and_mfu_from_log():
    flops_per_token = 8 * 7.62e9
    assert round(cal.tokens_per_s_at_mfu(0.4, flops_per_token, 989e12), -1) == 6490
    assert round(cal.mfu_from_tokens_per_s(3.1e3, flops_per_token, 989e12), 3) == 0.191


def test_d_000_qwen72b_cost_range():
    r = estimate(article_000("qwen2.5-72b", 72.7e9))
    hours = r.simple.gpu_hours_with_attention
    # (8N + 8·L·s·h)·D at 40% of 989 TFLOPS; Qwen2.5-72B: 80 layers, hidden 8,192.
    by_hand = (8 * 72.7e9 + 8 * 80 * 2048 * 8192) * 6e7 / (989e12 * 0.4) / 3600
    assert hours == pytest.approx(by_hand, rel=1e-9)
    # "$50–$100" at $2–$4, to the dollar ($49.9 and $99.8) ...
    assert round(hours * 2) == 50
    assert round(hours * 4) == 100
    # ... which the 8N rule alone does not reach ($49.0 and $98.0): the table includes attention.
    assert round(r.simple.gpu_hours * 2) == 49
    assert round(r.simple.gpu_hours * 4) == 98


def test_e_001_6nd_flop_bill():
    """C = 6 × 7e9 × 1.2e8 = 5.04e18 FLOPs; at 400 TFLOP/s achieved 12,600 s = 3.5 GPU-hours,
    under nine dollars at $2.50."""
    assert simple_coefficient(full=True, checkpointing=False) == 6
    r = estimate(
        make(
            model__param_count_override=7e9,
            data__mode="tokens",
            data__total_tokens=1.2e8,
            training__checkpointing="none",
            hardware__gpu=gpu(H100),
            efficiency__mfu=400 / 989,
        )
    )
    assert r.simple.flops == pytest.approx(5.04e18)
    assert r.simple.gpu_hours * 3600 == pytest.approx(12_600)
    assert r.simple.gpu_hours == pytest.approx(3.5)
    assert r.simple.gpu_hours * 2.50 < 9


@pytest.mark.parametrize(("seq", "share"), [(4096, 0.08), (16384, 0.31), (32768, 0.61)])
def test_f_001_attention_share(seq, share):
    assert round(attention_share_simple(32, seq, 4096, 7e9), 2) == share


def test_g_001_bytes_per_param():
    assert RECIPES["full_amp_adamw"].bytes_per_param == 16
    assert RECIPES["full_adamw_8bit"].bytes_per_param == 10
    assert RECIPES["lora"].weights == 2
    assert round(NF4_DQ_BYTES, 2) == 0.52
    assert NF4_DQ_BYTES * 8 == pytest.approx(4.127, abs=5e-4)


def test_h_001_activations_with_recomputation_1gb():
    r = estimate(make("llama-2-7b", training__micro_batch=1, data__max_seq_len=4096))
    assert r.simple.activations_bytes == 2 * 32 * 1 * 4096 * 4096
    assert r.simple.activations_bytes / GIB == pytest.approx(1.0)
    # The detailed saved tensors are the same 2·L·b·s·h plus what is kept outside the layers
    # (activations.py, measured): ids and labels 16 B, rotary cos/sin 2·2·128, the final norm's
    # fp32 copy 4h + rsqrt 4 + normalised 2h, the head's input 2h, the fp32 log-softmax 4V.
    outside = 16 + 2 * 2 * 128 + 4 * 4096 + 4 + 2 * 4096 + 2 * 4096 + 4 * 32000
    assert r.memory.activations_saved_bytes == pytest.approx((64 * 4096 + outside) * 4096)
    # Without recomputation it is roughly an order of magnitude more (article 001).
    r0 = estimate(make("llama-2-7b", data__max_seq_len=4096, training__checkpointing="none"))
    assert 8 < r0.memory.activations_bytes / r.simple.activations_bytes < 25


def test_i_001_7b_full_on_two_80gb_cards():
    r = estimate(make(model__param_count_override=7e9, hardware__gpu=gpu(H100)))
    assert r.simple.state_bytes == pytest.approx(112e9)
    assert r.simple.gpus_needed == 2
    # Article 001's usable memory (85% of 79.6 GiB) is the simple rule's; the detailed model
    # holds the device total (allocated ÷ 0.85 allocator efficiency + CUDA context) to 79.6 GiB.
    assert r.simple.usable_bytes == pytest.approx(0.85 * 79.6 * GIB)
    assert r.memory.usable_bytes == pytest.approx(79.6 * GIB)


def test_i_001_gpu_count_uses_85_percent_of_the_card():
    """ceil(state ÷ (0.85 × HBM)): a 10B full fine-tune (160 GB of state) needs 3 H100s at 85%
    usable (160e9 ÷ 72.7e9 = 2.2), where the whole 79.6 GiB would take 2 (160e9 ÷ 85.5e9 = 1.9)."""
    r = estimate(make(model__param_count_override=10e9, hardware__gpu=gpu(H100)))
    assert r.simple.state_bytes == pytest.approx(16 * 10e9)
    assert r.simple.gpus_needed == 3
    whole = estimate(
        make(
            model__param_count_override=10e9,
            hardware__gpu=gpu(H100),
            hardware__usable_memory_fraction=1.0,
        )
    )
    assert whole.simple.gpus_needed == 2


def test_j_001_lora_throughput_to_mfu():
    # 4 × 7e9 × 1.2e4 = 336 TFLOP/s achieved (MFU against a peak of 1 FLOP/s is the rate).
    assert cal.mfu_from_tokens_per_s(1.2e4, 4 * 7e9, 1.0) == pytest.approx(336e12)
    assert round(cal.mfu_from_tokens_per_s(1.2e4, 4 * 7e9, 989e12), 2) == 0.34


def _lora_7b_at_spot(share: float):
    """Article 001's single-GPU LoRA run: 0.05 interruptions/h, 30-min checkpoints, 9-min
    restart, a spot price of ``share`` × $3.00 on-demand."""
    spec = gpu(H100) | {"on_demand_usd_per_hour": 3.0, "spot_usd_per_hour": 3.0 * share}
    return estimate(
        make(
            "llama-2-7b",
            training__method="lora",
            hardware__gpu=spec,
            overheads__checkpoint_interval_min=30,
            spot__interruptions_per_node_hour=0.05,
            spot__restart_overhead_min=9,
        )
    )


def test_k_001_spot_factor_and_decision():
    f = cal.spot_overhead_factor(0.05, 0.5, 9 / 60)
    assert round(f, 2) == 1.02
    assert cal.spot_overhead_factor(32 * 0.02, 0.5, 18 / 60) == pytest.approx(1.352)
    r = _lora_7b_at_spot(0.35)
    assert r.time.nodes == 1
    assert round(r.cost.spot_factor, 2) == 1.02
    assert round(r.cost.spot_price_ratio, 2) == 0.36
    assert r.cost.take_spot is True
    # 32 nodes: the job's rate is the sum of the nodes' rates.
    r32 = estimate(
        make(
            "llama-2-7b",
            training__auto_gpu_count=False,
            training__num_gpus=256,
            hardware__gpus_per_node=8,
            spot__interruptions_per_node_hour=0.02,
            spot__restart_overhead_min=18,
            overheads__checkpoint_interval_min=30,
        )
    )
    assert r32.time.nodes == 32
    assert r32.cost.job_interruptions_per_hour == pytest.approx(0.64)
    assert round(r32.cost.spot_factor, 2) == 1.35
    # "a kill roughly every 95 minutes": 60 ÷ 0.64 = 94 min.
    assert 90 < 60 / r32.cost.job_interruptions_per_hour < 95


@pytest.mark.parametrize(("spot_share", "take"), [(0.97, True), (0.99, False)])
def test_k_001_take_spot_weighs_the_overhead_factor(spot_share, take):
    """take spot when (spot ÷ on-demand) × F < 1: with F = 1 + 0.05 × (0.5/2 + 0.15) = 1.02, a
    price 3% under on-demand still pays (0.97 × 1.02 = 0.989) and 1% under does not (1.010),
    though both are cheaper per hour."""
    r = _lora_7b_at_spot(spot_share)
    assert r.time.nodes == 1
    f = 1 + 0.05 * (0.5 / 2 + 9 / 60)
    assert r.cost.spot_factor == pytest.approx(f)
    assert r.cost.spot_price_ratio == pytest.approx(spot_share * f)
    assert r.cost.take_spot is take
    assert r.cost.spot_usd == pytest.approx(r.time.held_gpu_hours * f * 3.0 * spot_share)


def test_l_001_checkpoint_sizes():
    full7 = estimate(
        make(model__param_count_override=7e9, project__checkpoints_retained=20)
    ).checkpoint
    assert full7.resumable_bytes == pytest.approx(84 * GB)
    assert full7.storage_bytes == pytest.approx(1.68e12)  # "1.7 TB"
    full70 = estimate(make(model__param_count_override=70e9)).checkpoint
    assert full70.resumable_bytes == pytest.approx(840 * GB)
    assert full70.write_s / 60 == pytest.approx(7.0)  # at 2 GB/s
    lora = estimate(make("llama-2-7b", training__method="lora", training__lora_rank=16))
    assert 100e6 < lora.checkpoint.resumable_bytes < 500e6  # "a few hundred megabytes"


QKVO = ("q_proj", "k_proj", "v_proj", "o_proj")


@pytest.mark.parametrize(("rank", "params"), [(8, 8.4e6), (16, 17e6), (64, 67e6)])
def test_m_001_lora_rank_parameters(rank, params):
    r = estimate(make("llama-2-7b", training__method="lora", training__lora_rank=rank))
    assert r.params.adapter == rank * 32 * 4 * (4096 + 4096)
    assert r.params.adapter == pytest.approx(params, rel=0.02)


def test_m_001_adapter_flops_and_optimizer_memory():
    def run(rank):
        return estimate(
            make(
                "llama-2-7b",
                training__method="lora",
                training__lora_rank=rank,
                training__lora_targets=QKVO,
            )
        )

    r64, r8 = run(64), run(8)
    assert 0.005 < r64.flops.adapter_share < 0.015  # "roughly one percent"
    assert r8.flops.adapter_share < 0.005  # "well under half a percent"
    # Optimizer memory for the adapters: fp32 weights + two moments, 12 B/param.
    assert round(r8.checkpoint.resumable_bytes / 1e6, -1) == 100
    assert round(r64.checkpoint.resumable_bytes / 1e6, -2) == 800


def test_n_001_cost_per_1e18_flops():
    assert round(cal.usd_per_1e18_flops(2.50, 400e12), 2) == 1.74
    assert round(cal.usd_per_1e18_flops(1.10, 130e12), 2) == 2.35


def test_o_001_gpus_held_vs_computing():
    assert cal.held_gpu_hours(32, 4.0) == 128
    # End to end: 32 GPUs, 78 GPU-hours of compute, overheads that make a 4-hour wall clock.
    base = dict(
        model__param_count_override=70e9,
        training__auto_gpu_count=False,
        training__num_gpus=32,
        data__mode="tokens",
        hardware__gpu=gpu(H100),
        overheads__eval_passes_per_run=0,
        overheads__checkpoint_interval_min=10**6,
    )
    probe = estimate(make(**base, data__total_tokens=1e9))
    tokens = 1e9 * 78 / probe.time.compute_gpu_hours
    download_s = 140e9 / 0.5e9  # "a 140 GB weight download per uncached node"
    fixed_min = (4 - 78 / 32) * 60 - download_s / 60
    r = estimate(
        make(
            **base,
            data__total_tokens=tokens,
            overheads__provisioning_min=30,
            overheads__nccl_init_min=5,
            overheads__warmup_min=fixed_min - 35,
        )
    )
    assert r.time.compute_gpu_hours == pytest.approx(78)
    assert r.time.held_wall_s / 3600 == pytest.approx(4.0)
    assert r.time.held_gpu_hours == pytest.approx(128)


def test_p_001_useful_token_fraction():
    assert round(cal.useful_token_fraction(400, 2048), 2) == 0.2
    # The article's rule: every example at the mean length (no spread), padded to the bucket.
    r = estimate(
        make(
            data__mean_tokens_per_example=400,
            data__max_seq_len=2048,
            data__padding="max_length",
            data__length_cv=0.0,
        )
    )
    assert r.tokens.useful_fraction == pytest.approx(400 / 2048)
    assert r.tokens.tokens_processed == pytest.approx(r.tokens.useful_tokens * 2048 / 400)


def _training_memory(preset, method):
    """The 003 calculator's 'training memory': every tensor on one unsharded device — our peak
    allocated (the device total adds the allocator reserve and the CUDA context)."""
    r = estimate(
        make(
            preset,
            training__method=method,
            training__auto_gpu_count=False,
            training__num_gpus=1,
            training__sharding="none",
            hardware__gpu=gpu("A100 80GB SXM"),
        )
    )
    return r.memory.peak_allocated_bytes


def test_q_003_70b_full_and_qlora_memory():
    # Article 003's napkin rule: 16 B/param (full) and 0.75 B/param (QLoRA) × 70e9.
    assert RECIPES["full_amp_adamw"].bytes_per_param * 70e9 == 1120e9  # "~1,120 GB"
    assert round(SIMPLE_BYTES_PER_PARAM_003["qlora"] * 70e9 / 1e9) == 52  # "~52 GB" (52.5)
    assert SIMPLE_BYTES_PER_PARAM_003["lora"] == 2.5
    full = _training_memory("llama-2-70b", "full_amp_adamw")
    qlora = _training_memory("llama-2-70b", "qlora")
    # The detailed full fine-tune holds within the article's rounding (±5%): 16 B × 68.98e9
    # exact parameters, plus activations, logits and the CUDA context.
    assert full == pytest.approx(1120e9, rel=0.05)
    # Detailed QLoRA lands 16% below 003's 0.75 B/param: NF4 is 0.516 B/param on the linears,
    # adapters and activations are counted explicitly (docs/model.md); it does not hold to ±5%.
    assert 0.80 < qlora / 52e9 < 0.88


def test_r_004_step_based_estimate():
    r = estimate(
        make(
            "llama-2-7b",
            data__num_examples=10_000,
            data__epochs=3,
            data__padding="max_length",
            training__method="lora",
            training__micro_batch=16,
            training__grad_accum=4,
            training__auto_gpu_count=False,
            training__num_gpus=1,
            efficiency__step_time_s=1.0,
        )
    )
    sc = r.step_check
    assert sc is not None
    assert sc.effective_batch == 64
    assert sc.steps_per_epoch == math.ceil(10_000 / 64) == 157
    assert sc.total_steps == 471  # the article's text says 469 = ceil(30,000 / 64): docs/model.md
    assert round(sc.gpu_hours, 2) == 0.13


def test_step_check_in_tokens_mode_counts_the_total_once():
    r = estimate(
        make(
            data__mode="tokens",
            data__total_tokens=6e7,
            data__epochs=3,
            data__max_seq_len=2048,
            training__micro_batch=4,
            training__grad_accum=4,
            training__auto_gpu_count=False,
            training__num_gpus=2,
            efficiency__step_time_s=3.0,
        )
    )
    assert r.step_check is not None
    assert r.step_check.total_steps == math.ceil(6e7 / 2048 / 32)


def test_impossible_step_time_warns():
    r = estimate(make(efficiency__step_time_s=1e-3))
    assert any("above the GPU's peak" in w for w in r.warnings)


def test_spot_price_counts_even_when_on_demand_is_free():
    spec = gpu(H100) | {"on_demand_usd_per_hour": 0.0, "spot_usd_per_hour": 1.0}
    r = estimate(make(hardware__gpu=spec, project__billing="spot"))
    assert r.cost.spot_usd == pytest.approx(r.time.held_gpu_hours * r.cost.spot_factor * 1.0)
    assert r.cost.spot_price_ratio is None and r.cost.take_spot is None
    assert r.project.run_usd == r.cost.spot_usd
    assert not any("No spot price" in w for w in r.warnings)
