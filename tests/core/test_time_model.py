"""The time model (issue 11): each rule pinned to its source by a calculation written out here.

Achievable matmul fraction (reference/gpus.md MAMF), stack efficiency by method and data shape
(QwenLM/Qwen profiling table; article 000), communication from bytes and links (ring all-reduce
2(n−1)/n, ZeRO §7.2), renting whole units, padding from the length distribution (order
statistics), checkpointing "auto" and the near-limit flag. Never by comparing estimate() with
itself: the expected numbers are computed from the formulas, with the sources' numbers.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics

import pytest

from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.core.comm import collectives, default_overlap, exposed_s, link_for
from ftcost_gui.core.layout import Option, choose_checkpointing, rented
from ftcost_gui.core.lengths import LogNormalLengths, padded_rows
from ftcost_gui.core.throughput import (
    DEQUANT_BYTES_PER_WEIGHT,
    FIXED_S_PER_MICROBATCH,
    STACK_EFFICIENCY,
    achievable_rule,
    choose_mfu,
    default_mfu,
)
from ftcost_gui.core.units import GIB
from ftcost_gui.io.resources import builtin_catalog

from .helpers import gpu, make

# --- Achievable fraction: reference/gpus.md, "Measured achievable matmul (MAMF, S1)" ----------

MAMF = {  # catalog id: (measured TFLOPS, dense BF16 spec TFLOPS), as the sheet prints them
    "h100-sxm": (794, 989),
    "b200": (1745, 2250),
    "a100-80gb-sxm": (271, 312),
    "mi300x": (668, 1307),
    "mi325x": (785, 1307),
    "gaudi2": (419, 432),
    "gaudi3": (1243, 1835),
}


@pytest.mark.parametrize("gpu_id", sorted(MAMF))
def test_measured_rows_carry_their_mamf_fraction(gpu_id):
    row = builtin_catalog().find(gpu_id)
    measured, spec = MAMF[gpu_id]
    assert row.bf16_tflops == spec
    assert row.achievable_fraction == round(measured / spec, 3)
    assert row.achievable_source.startswith("MAMF measured")
    assert row.achievable_as_of == "2026-08-22"  # the S1 snapshot


def test_the_sheets_percentages():
    """The sheet's 'H100 80 %, A100 87 %, B200 78 %, MI300X 51 %, Gaudi 3 68 % of spec'."""
    cat = builtin_catalog()
    shown = {"h100-sxm": 80, "a100-80gb-sxm": 87, "b200": 78, "mi300x": 51, "gaudi3": 68}
    for gpu_id, pct in shown.items():
        assert round(cat.find(gpu_id).achievable_fraction * 100) == pct


def test_rows_without_a_measurement_follow_the_documented_rule():
    # The rule: the measured part of the generation; else the vendor's; else the median of 7.
    assert achievable_rule("NVIDIA", "H200 SXM").fraction == 794 / 989
    assert achievable_rule("NVIDIA", "B300").fraction == 1745 / 2250
    assert achievable_rule("NVIDIA", "A100 40GB").fraction == 271 / 312
    assert achievable_rule("NVIDIA", "L40S").fraction == 794 / 989
    assert achievable_rule("AMD", "MI250X (per GCD)").fraction == 668 / 1307
    assert achievable_rule("Intel", "Gaudi 2").fraction == 419 / 432
    fractions = sorted(m / s for m, s in MAMF.values())
    assert achievable_rule("Google", "TPU v6e").fraction == fractions[3] == 1745 / 2250
    for row in builtin_catalog().gpus:
        if row.achievable_source.startswith("rule:"):
            rule = achievable_rule(row.vendor, row.name)
            assert row.achievable_fraction == round(rule.fraction, 3), row.id
            assert row.achievable_source == rule.source
        else:
            assert "measured" in row.achievable_source, row.id


# --- Stack efficiency and the default MFU: one function ---------------------------------------

# QwenLM/Qwen README "Profiling of Memory and Speed": Qwen-7B, one A100-SXM4-80G, micro-batch 1,
# gradient accumulation 8, checkpointing, LoRA r = 64 on every linear. Seconds per iteration.
QWEN_LENGTHS = (256, 512, 1024, 2048, 4096, 8192)
QWEN_LORA_S = (1.2, 1.5, 2.8, 5.2, 10.1, 21.3)
QWEN_QLORA_S = (3.0, 3.0, 3.5, 7.0, 11.6, 22.3)
# Qwen-7B: 32 layers, d 4096, MLP 11008 (w1, w2, c_proj), vocab 151,936 (untied).
QWEN_LINEAR = 32 * (4096 * 3 * 4096 + 4096 * 4096 + 3 * 4096 * 11008)
QWEN_MATMUL = QWEN_LINEAR + 151936 * 4096
QWEN_ADAPTERS = 32 * 64 * ((4096 + 3 * 4096) + (4096 + 4096) + 2 * (4096 + 11008) + (11008 + 4096))


def _qwen_flops_per_token(s: int) -> float:
    """LoRA with checkpointing: 4N + 2N recompute, 8 per adapter parameter, 8·L·s·d attention."""
    return 6 * QWEN_MATMUL + 8 * QWEN_ADAPTERS + 8 * 32 * s * 4096


def _fit(seconds: tuple[float, ...]) -> tuple[float, float]:
    """Least squares of seconds per micro-batch = a + tokens × FLOPs/token ÷ R: (a, R)."""
    xs = [s * _qwen_flops_per_token(s) for s in QWEN_LENGTHS]
    ys = [t / 8 for t in seconds]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )
    return my - slope * mx, 1 / slope


def test_the_stack_constants_come_from_the_qwen_table():
    a_lora, rate_lora = _fit(QWEN_LORA_S)
    a_qlora, rate_qlora = _fit(QWEN_QLORA_S)
    assert a_lora == pytest.approx(0.071, abs=0.002)  # fixed seconds per micro-batch
    assert rate_lora / 312e12 == pytest.approx(0.530, abs=0.002)  # marginal MFU on the A100
    assert rate_qlora / 312e12 == pytest.approx(0.541, abs=0.002)  # QLoRA's matmuls: the same
    # Stack efficiency = marginal MFU ÷ the A100's achievable 271/312: 0.61, taken as 0.60.
    assert rate_lora / 312e12 / (271 / 312) == pytest.approx(0.61, abs=0.01)
    assert STACK_EFFICIENCY["lora"] == 0.60
    assert a_lora == pytest.approx(FIXED_S_PER_MICROBATCH, abs=0.002)
    # Q-LoRA's extra 0.19 s per micro-batch: 3 passes over the 6.48e9 quantised weights, as
    # bytes at 2,039 GB/s: 20 B per weight and pass (14B and 72B give 26 and 28: we take 24).
    extra = a_qlora - a_lora
    assert extra * 2039e9 / (3 * QWEN_LINEAR) == pytest.approx(20, abs=1)
    assert DEQUANT_BYTES_PER_WEIGHT == 24


def test_default_mfu_by_hand_for_lora_on_h100():
    """'default for LoRA on H100': 0.803 × 0.60 × matmul ÷ (matmul + 0.07 s)."""
    f = 4.5e10  # FLOPs per token
    tokens = 2048.0
    d = default_mfu("lora", tokens, f, 989.0, 0.803, 0.0, 3350.0, recomputes=True)
    matmul = tokens * f / (989e12 * 0.803 * 0.60)
    assert d.matmul_s == pytest.approx(matmul)
    assert d.shape == pytest.approx(matmul / (matmul + 0.07))
    assert d.mfu == pytest.approx(0.803 * 0.60 * matmul / (matmul + 0.07))
    assert d.dequant_s == 0


def test_default_mfu_by_hand_for_qlora_dequantisation():
    f, tokens, weights, bw = 2.9e11, 1024.0, 6.5e10, 2039.0
    for recompute, passes in ((True, 3), (False, 2)):
        d = default_mfu("qlora", tokens, f, 312.0, 0.869, weights, bw, recomputes=recompute)
        dq = passes * weights * 24 / (bw * 1e9)
        matmul = tokens * f / (312e12 * 0.869 * 0.60)
        assert d.dequant_s == pytest.approx(dq)
        assert d.mfu == pytest.approx(0.869 * 0.60 * matmul / (matmul + 0.07 + dq))


def test_the_qwen_table_lands_near_our_default():
    """How the published LoRA runs land: measured MFU vs our default on an A100 (0.869)."""
    for s, seconds in zip(QWEN_LENGTHS, QWEN_LORA_S, strict=True):
        measured = 8 * s * _qwen_flops_per_token(s) / seconds / 312e12
        d = default_mfu("lora", s, _qwen_flops_per_token(s), 312.0, 0.869, 0.0, 2039.0, True)
        assert d.mfu == pytest.approx(measured, rel=0.25), s  # 24% at 256 … 52% at 8,192


def test_a_user_value_overrides_the_default_visibly():
    d = default_mfu("full", 2048.0, 6e10, 989.0, 0.803, 0.0, 3350.0, True)
    assert choose_mfu(None, None, d) == (d.mfu, "default", d)
    assert choose_mfu(0.4, 0.9, d) == (0.4, "given", d)  # one MFU for every GPU
    assert choose_mfu(None, 0.5, d) == (0.803 * 0.5, "stack", d)  # the GPU's own × the user's
    r = estimate(make("llama-3.1-8b", training__method="lora", efficiency__mfu=0.31))
    assert (r.time.mfu, r.time.mfu_source) == (0.31, "given")
    assert r.time.mfu_default != 0.31  # still shown beside it


# --- Communication from bytes and links ------------------------------------------------------


def test_ring_collectives_by_sharding():
    """ZeRO §7.2: DP and ZeRO-1/2 move 2Ψ per step, ZeRO-3 3Ψ (all per micro-batch here)."""
    g, w, n, k = 1e9, 3e9, 8, 4
    ring_ar, ring = 2 * (n - 1) / n, (n - 1) / n
    assert sum(c.bytes_per_step for c in collectives("none", n, g, w, k)) == ring_ar * g
    assert sum(c.bytes_per_step for c in collectives("zero1", n, g, w, k)) == 2 * ring * g
    assert sum(c.bytes_per_step for c in collectives("zero2", n, g, w, k)) == (k + 1) * ring * g
    z3 = sum(c.bytes_per_step for c in collectives("zero3", n, g, w, k))
    assert z3 == pytest.approx(k * (2 * ring * w + ring * g))
    assert collectives("zero3", 1, g, w, k) == ()


def test_the_link_is_the_slowest_hop():
    # In a node: half the bidirectional figure. Across nodes: the node's network per GPU.
    assert link_for(8, 8, "nvlink", 900.0, "infiniband", 3200.0).gb_s == 450.0
    across = link_for(16, 8, "nvlink", 900.0, "infiniband", 3200.0)
    assert (across.gb_s, across.between_nodes) == (3200 / 8 / 8, True)  # 50 GB/s
    assert link_for(4, 8, "pcie", 64.0, "ethernet", 100.0).gb_s == 32.0


def test_overlap_windows():
    # DDP: the one all-reduce hides behind the last micro-batch's backward.
    assert default_overlap("none", 0.75, 8) == 0.75 / 8
    assert default_overlap("zero2", 0.75, 8) == 0.75
    assert default_overlap("zero3", 0.75, 8) == 1.0
    assert exposed_s(3.0, 2.0, 1.0) == 1.0 and exposed_s(1.0, 2.0, 0.5) == 0.0


def test_lora_ddp_moves_only_the_adapters_gradients():
    inputs = make(
        "llama-3.1-8b",
        training__method="lora",
        training__auto_gpu_count=False,
        training__num_gpus=4,
        training__sharding="none",
        hardware__gpu=gpu("H100 SXM"),
    )
    r = estimate(inputs)
    grads = r.params.adapter * 4  # fp32 adapter gradients
    assert r.time.comm_bytes_per_step == pytest.approx(2 * 3 / 4 * grads)
    assert r.time.comm_s_per_step == pytest.approx(2 * 3 / 4 * grads / 450e9)
    assert r.time.comm_link == "NVLink/NVSwitch"


def test_qlora_zero3_gathers_nf4():
    """Observation 3: 70B QLoRA on 2 × A6000 over PCIe gathers 4-bit weights, not bf16."""
    inputs = make(
        "llama-3.1-70b",
        training__method="qlora",
        training__auto_gpu_count=False,
        training__num_gpus=2,
        training__sharding="zero3",
        training__grad_accum=4,
        hardware__gpu=gpu("RTX A6000"),
    )
    r = estimate(inputs)
    stored = r.memory.weights_bytes * 2 + r.params.adapter * 4  # sharded over 2: the whole
    grads = r.params.adapter * 4
    per_step = 4 * (2 * 0.5 * stored + 0.5 * grads)
    assert r.time.comm_bytes_per_step == pytest.approx(per_step, rel=1e-9)
    assert stored < 0.3 * 2 * r.params.total  # NF4 + 16-bit embeddings: far under bf16
    assert r.time.comm_link_gb_s == 64 / 2  # PCIe Gen4 x16, one direction


# --- Renting ------------------------------------------------------------------------------------


def test_renting_rounds_up_to_what_can_be_rented():
    assert rented(19, 8, 1, True)[:2] == (24, 3)  # '19 needed → 24 rented (3 × 8)'
    assert rented(3, 8, 1, True)[:2] == (3, 1)  # single GPUs within a node
    assert rented(3, 8, 8, True)[:2] == (8, 1)  # only whole 8-GPU machines
    assert rented(19, 72, 4, True)[:2] == (20, 1)  # GB200 NVL72: 4-GPU slices
    assert rented(19, 8, 1, False)[:2] == (19, 3)  # billed per GPU used
    # A unit larger than a node (16 = two 8-GPU machines) is rented whole, in whole nodes, and
    # the count never falls as the need grows (6 needed must not rent more than 11 needed).
    assert rented(3, 8, 16, True)[:2] == (16, 2)
    assert rented(17, 8, 16, True)[:2] == (32, 4)
    assert rented(6, 9, 1024, True)[:2] == rented(11, 9, 1024, True)[:2] == (1026, 114)


def test_renting_never_falls_as_the_need_grows():
    """Exhaustive over small nodes and units: one more GPU needed never rents fewer, and what is
    rented holds what is needed (a property of whole-unit renting the cost properties rely on)."""
    for node in range(1, 13):
        for unit in range(1, 27):
            counts = [rented(n, node, unit, True).gpus for n in range(1, 40)]
            assert all(a <= b for a, b in itertools.pairwise(counts)), (node, unit, counts)
            assert all(c >= n for n, c in enumerate(counts, start=1))


# --- Padding -----------------------------------------------------------------------------------


def test_expected_longest_row_matches_sampling():
    """E[min(max of b lengths, s)] = ∫ (1 − F^b): checked against 200,000 sampled batches."""
    mean, cv, b, s = 800.0, 0.7, 8, 2048
    sigma = math.sqrt(math.log(1 + cv * cv))
    mu = math.log(mean) - sigma**2 / 2
    rng = random.Random(11)
    rows = [min(max(rng.lognormvariate(mu, sigma) for _ in range(b)), s) for _ in range(200_000)]
    sampled = statistics.fmean(rows)
    sem = statistics.stdev(rows) / math.sqrt(len(rows))
    got = LogNormalLengths(mean, cv).expected_capped_max(b, s)
    assert abs(got - sampled) < 4 * sem
    one = [min(rng.lognormvariate(mu, sigma), s) for _ in range(200_000)]
    assert LogNormalLengths(mean, cv).expected_capped(s) == pytest.approx(
        statistics.fmean(one), rel=0.01
    )


def test_padding_rules():
    d = LogNormalLengths(1000.0, 0.5)
    # Micro-batch 1: the row is the example, nothing padded (issue 11 observation 5).
    assert padded_rows(d, 1, 2048, "longest").fraction == pytest.approx(1.0)
    assert padded_rows(d, 1, 2048, "pack").fraction == 1.0
    # Max length: E[min(X, s)] ÷ s; with no spread the first release's mean ÷ s.
    assert padded_rows(d, 1, 2048, "max_length").fraction == pytest.approx(
        d.expected_capped(2048) / 2048
    )
    assert padded_rows(LogNormalLengths(600.0, 0.0), 4, 2048, "max_length").fraction == (600 / 2048)
    eight = padded_rows(d, 8, 2048, "longest")
    assert eight.fraction == pytest.approx(d.expected_capped(2048) / eight.row_tokens)
    assert 0.5 < eight.fraction < 1.0


# --- Checkpointing "auto" and the memory flag ---------------------------------------------------


def _option(ckpt, needed, gpus, near=False):
    return Option(ckpt, needed, True, rented(needed, 8, 1, True), near)


def test_auto_checkpointing_rule():
    assert choose_checkpointing(_option(False, 1, 1), _option(True, 1, 1), True)[0] is False
    on, why = choose_checkpointing(_option(False, 2, 2), _option(True, 1, 1), True)
    assert on and "needs 2 GPUs" in why
    on, why = choose_checkpointing(_option(False, 1, 1, near=True), _option(True, 1, 1), True)
    assert on and "near-limit" in why


def test_observation_6_lora_8b_on_a100_runs_without_checkpointing():
    inputs = make("llama-3.1-8b", training__method="lora", hardware__gpu=gpu("A100 80GB SXM"))
    r = estimate(inputs)
    lay = r.layout
    assert (lay.checkpointing_mode, lay.checkpointing) == ("auto", False)
    assert lay.alt_rented_gpus == 1 and lay.alt_on_demand_usd > r.cost.on_demand_usd
    # With checkpointing the FLOPs are 6N instead of 4N per token (+50% for LoRA): the run it
    # avoids costs more, by less than 50% since the fixed costs stay.
    assert 1.15 < lay.alt_on_demand_usd / r.cost.on_demand_usd < 1.5
    forced = estimate(inputs.edited("training", checkpointing="full"))
    assert forced.cost.on_demand_usd == pytest.approx(lay.alt_on_demand_usd)


def test_near_limit_is_flagged_amber_with_its_reason():
    """Observation 6: a run at 97.6% of its usable memory is not a plain green 'fits'."""
    base = make(
        "llama-3.1-8b",
        training__method="lora",
        training__checkpointing="full",
        training__auto_gpu_count=False,
        training__num_gpus=1,
        hardware__gpu=gpu("A100 80GB SXM"),
    )
    total = estimate(base).memory.total_bytes
    doc = base.model_dump()
    # The device total (allocator reserve and CUDA context included) must fit the reported
    # memory: choose the memory that puts the run at 97.6% of it.
    doc["hardware"]["gpu"]["memory_gib"] = total / 0.976 / GIB
    r = estimate(EstimateInputs.model_validate(doc))
    assert r.memory.fits
    assert r.memory.total_bytes / r.memory.usable_bytes == pytest.approx(0.976, abs=1e-6)
    assert r.layout.memory_status == "near_limit"
    assert any("Near the memory limit" in w and "2.4%" in w for w in r.warnings)


def test_the_multi_node_worked_example_of_docs_model_md():
    """docs/model.md 'Worked example': Llama-3.1-70B full FT across 3 nodes of H100, by hand."""
    r = estimate(
        make(
            "llama-3.1-70b",
            training__method="full_amp_adamw",
            data__mode="tokens",
            data__total_tokens=6e7,
            data__max_seq_len=4096,
            hardware__gpu=gpu("H100 SXM"),
        )
    )
    lay, t = r.layout, r.time
    # 21 needed: the device total (allocated ÷ 0.85 + context, peak at the optimizer step
    # without activations) against 79.6 GiB (docs/model.md, memory); 24 rented: whole nodes.
    assert (lay.gpus_needed, lay.rented_gpus, lay.nodes, lay.checkpointing) == (21, 24, 3, True)
    f = r.flops.per_token  # FLOPs per token are pinned in tests/core/test_articles.py
    matmul = 4096 * f / (989e12 * 0.803 * 0.60)
    mfu = 0.803 * 0.60 * matmul / (matmul + 0.07)
    assert t.mfu == pytest.approx(mfu) and round(mfu, 3) == 0.475
    n = r.params.total
    bytes_step = 8 * (2 * 23 / 24 * 2 * n + 23 / 24 * 2 * n)
    assert t.comm_bytes_per_step == pytest.approx(bytes_step)
    assert round(bytes_step / 1e9, 1) == 3245.5
    link = 3200 / 8 / 8  # GB/s per GPU, one direction
    comm_step = bytes_step / (link * 1e9)
    busy_step = 8 * (matmul + 0.07)
    steps = 6e7 / (4096 * 8 * 24)
    train = steps * busy_step + steps * max(0.0, comm_step - busy_step)
    assert t.train_wall_s == pytest.approx(train)
    assert t.compute_gpu_hours == pytest.approx(train * 24 / 3600)
    assert r.cost.on_demand_usd == pytest.approx(24 * t.held_wall_s / 3600 * 3.0)
