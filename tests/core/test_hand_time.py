"""TimeBreakdown, CostBreakdown, CheckpointSummary and ProjectSummary by hand.

Article 000: busy time = FLOPs ÷ (peak × MFU) ÷ GPUs. Communication (core/comm.py): ring
collectives, 2(n−1)/n × S for an all-reduce and (n−1)/n × S for a reduce-scatter or all-gather
(Patarasuk & Yuan 2009), ZeRO-2 reduce-scatters every micro-batch and all-gathers once a step
(Rajbhandari et al. 2020 §7.2), over the slowest hop (half the NVLink figure in a node; a GPU's
share of the node's network across nodes); exposed = max(0, comm − overlap × compute) per step.
Article 001: billed for GPUs held (start-up, checkpoint writes, idle); F = 1 + λ(T/2 + R);
resumable checkpoint = fp32 master + two moments (12 B/param). Project (000, 001, 004): runs ×
run + storage + engineering.

The GPU row is written out here: 989 TFLOPS, 0.803 achievable, 900 GB/s NVLink, 8 per node,
400 Gb/s InfiniBand per node, $3.00 on-demand and $2.00 spot.
"""

from __future__ import annotations

import math

import pytest

from ftcost_gui.core import estimate

from .hand import SHAPES
from .helpers import gpu, make

PEAK = 989e12
OD, SPOT = 3.0, 2.0
ROW = {
    "bf16_tflops": 989.0,
    "achievable_fraction": 0.803,
    "interconnect": "nvlink",
    "interconnect_gb_s": 900.0,
    "gpus_per_node": 8,
    "network": "infiniband",
    "network_gbit_s": 400.0,
    "rent_unit_gpus": 1,
    "on_demand_usd_per_hour": OD,
    "spot_usd_per_hour": SPOT,
}
TOKENS, S, MB, GA, MFU = 2e9, 4096, 2, 4, 0.4
OV = dict(prov=7.0, warm=4.0, nccl=2.0, interval=20.0, idle=0.5, write=2.0, dl=0.5)


def _run(s, n, sharding="zero2", method="full_amp_adamw", **edits):
    return estimate(
        make(
            s.preset,
            data__mode="tokens",
            data__total_tokens=TOKENS,
            data__max_seq_len=S,
            training__method=method,
            training__checkpointing="full",
            training__micro_batch=MB,
            training__grad_accum=GA,
            training__auto_gpu_count=False,
            training__num_gpus=n,
            training__sharding=sharding,
            hardware__gpu=gpu("H100 SXM") | ROW,
            hardware__gpus_per_node=0,
            hardware__rent_whole_units=False,
            efficiency__mfu=MFU,
            efficiency__mfu_band=0.25,
            overheads__provisioning_min=OV["prov"],
            overheads__warmup_min=OV["warm"],
            overheads__nccl_init_min=OV["nccl"],
            overheads__checkpoint_interval_min=OV["interval"],
            overheads__checkpoint_write_gb_per_s=OV["write"],
            overheads__download_gb_per_s=OV["dl"],
            overheads__idle_hours_per_run=OV["idle"],
            overheads__eval_passes_per_run=0,
            spot__interruptions_per_node_hour=0.03,
            spot__restart_overhead_min=12,
            project__planned_runs=3,
            project__failed_runs=2,
            project__checkpoints_retained=4,
            project__storage_usd_per_gb_month=0.02,
            project__storage_months=6,
            project__engineering_hours=30,
            project__data_prep_hours=10,
            project__hourly_rate_usd=120,
            **edits,
        )
    )


def _train_wall(flops, n, mfu, comm_s_step, overlap, steps):
    """Busy time plus, per step, the communication the overlap window does not hide."""
    busy = flops / (PEAK * mfu) / n
    exposed = steps * max(0.0, comm_s_step - overlap * busy / steps) if n > 1 else 0.0
    return busy, exposed


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize("n", [4, 16])
def test_zero2_full_fine_tune(s, n):
    r = _run(s, n)
    t, c = r.time, r.cost
    flops, per_token = r.flops.total_flops, r.flops.per_token
    # Steps: tokens ÷ (micro-batch × s × accumulation × GPUs); packed rows hold s tokens.
    steps = TOKENS / (MB * S * GA * n)
    assert t.steps == pytest.approx(steps)
    # ZeRO-2 moves the bf16 gradients of every parameter: GA reduce-scatters + 1 all-gather.
    grads = 2.0 * s.total
    ring = (n - 1) / n
    per_step = grads * ring * GA + grads * ring
    assert t.comm_bytes_per_step == pytest.approx(per_step)
    assert [x.name for x in t.comm_collectives] == [
        "reduce-scatter of the trainable gradients, every micro-batch",
        "all-gather of the updated trainable weights",
    ]
    rs, ag = t.comm_collectives
    assert (rs.payload_bytes, rs.ring_factor, rs.per_step) == (grads, ring, GA)
    assert rs.bytes_per_step == pytest.approx(grads * ring * GA)
    assert (ag.payload_bytes, ag.per_step) == (grads, 1.0)
    # The link: NVLink one way (900/2 GB/s) in a node; 400 Gb/s ÷ 8 bits ÷ 8 GPUs across.
    link = 450.0 if n <= 8 else 400 / 8 / 8
    assert (t.comm_link_gb_s, t.comm_between_nodes) == (link, n > 8)
    assert t.comm_link == ("NVLink/NVSwitch" if n <= 8 else "InfiniBand")
    assert t.comm_s_per_step == pytest.approx(per_step / (link * 1e9))
    # ZeRO-2 hides its reduce-scatters behind every backward: overlap = backward share.
    forward = 2 * s.matmul + 2 * s.L * S * s.q
    overlap = 1 - forward / per_token
    assert t.comm_overlap == pytest.approx(overlap)
    assert t.comm_overlap_given is False
    busy, exposed = _train_wall(flops, n, MFU, per_step / (link * 1e9), overlap, steps)
    assert t.comm_exposed_s == pytest.approx(exposed)
    assert t.train_wall_s == pytest.approx(busy + exposed)
    assert t.comm_overhead == pytest.approx(exposed / busy)
    assert t.communication == "links"
    assert t.slowdown == pytest.approx((busy + exposed) / busy)
    assert (t.qlora_slowdown, t.offload_slowdown) == (1.0, 1.0)
    # Rates.
    wall = busy + exposed
    achieved = flops / (wall * n)
    assert t.peak_flops_per_s == PEAK
    assert t.achieved_flops_per_s == pytest.approx(achieved)
    assert t.effective_mfu == pytest.approx(achieved / PEAK)
    assert t.tokens_per_s_per_gpu == pytest.approx(achieved / per_token)
    assert t.compute_gpu_hours == pytest.approx(wall * n / 3600)
    # Held time (article 001): start-up + training + checkpoint writes + idle.
    download = s.total * 2 / (OV["dl"] * 1e9)
    resumable = 12 * s.total
    write = resumable / (OV["write"] * 1e9)
    writes = math.floor(wall / (OV["interval"] * 60))
    assert t.provisioning_s == OV["prov"] * 60
    assert t.download_s == pytest.approx(download)
    assert t.warmup_s == OV["warm"] * 60
    assert t.nccl_s == OV["nccl"] * 60
    assert t.checkpoint_writes_s == pytest.approx(writes * write)
    assert t.idle_s == OV["idle"] * 3600
    assert (t.eval_s, t.rl_generation_s) == (0.0, 0.0)
    startup = (OV["prov"] + OV["warm"] + OV["nccl"]) * 60 + download
    held = startup + wall + writes * write + OV["idle"] * 3600
    assert t.held_wall_s == pytest.approx(held)
    assert (t.num_gpus, t.rented_gpus, t.nodes) == (n, n, math.ceil(n / 8))
    assert t.held_gpu_hours == pytest.approx(n * held / 3600)
    # The bill by part: every rented GPU, each second, at $3.00.
    per_s = n * OD / 3600
    assert c.on_demand_usd_per_hour == OD and c.spot_usd_per_hour == SPOT
    assert c.compute_only_usd == pytest.approx(wall * n / 3600 * OD)
    assert c.training_usd == pytest.approx(wall * per_s)
    assert c.startup_usd == pytest.approx(startup * per_s)
    assert c.checkpoint_usd == pytest.approx(writes * write * per_s)
    assert c.idle_usd == pytest.approx(OV["idle"] * 3600 * per_s)
    assert (c.evaluation_usd, c.rl_generation_usd) == (0.0, 0.0)
    assert c.on_demand_usd == pytest.approx(held * per_s)
    assert c.usd_per_1e18_flops == pytest.approx(OD / (achieved * 3600) * 1e18)
    # Spot: λ = nodes × 0.03/h; F = 1 + λ(T/2 + R), T = 20 min, R = 12 min.
    nodes = math.ceil(n / 8)
    lam = nodes * 0.03
    f = 1 + lam * (20 / 60 / 2 + 12 / 60)
    assert c.job_interruptions_per_hour == pytest.approx(lam)
    assert c.spot_factor == pytest.approx(f)
    assert c.spot_price_ratio == pytest.approx(SPOT / OD * f)
    assert c.spot_usd == pytest.approx(n * held / 3600 * f * SPOT)
    assert c.take_spot is (SPOT / OD * f < 1)

    # The MFU band: the run at MFU × (1 ± 25%), communication re-exposed at each.
    def held_usd(mfu):
        b, e = _train_wall(flops, n, mfu, per_step / (link * 1e9), overlap, steps)
        writes_at = math.floor((b + e) / (OV["interval"] * 60))
        return (startup + b + e + writes_at * write + OV["idle"] * 3600) * per_s

    assert c.low_usd == pytest.approx(held_usd(MFU * 1.25))
    assert c.high_usd == pytest.approx(held_usd(MFU * 0.75))

    # Checkpoints: fp32 master + two fp32 moments, 12 B/param, four kept.
    k = r.checkpoint
    assert (k.params, k.bytes_per_param) == (s.total, 12)
    assert k.resumable_bytes == pytest.approx(resumable)
    assert k.write_s == pytest.approx(write)
    assert k.writes_per_run == writes
    assert k.storage_bytes == pytest.approx(4 * resumable)
    # Project: (3 planned + 2 failed) runs, storage per GB-month, (30 + 10) h at $120.
    p = r.project
    storage = 4 * resumable / 1e9 * 0.02 * 6
    assert (p.runs, p.run_usd) == (5, pytest.approx(held * per_s))
    assert p.runs_usd == pytest.approx(5 * held * per_s)
    assert p.evaluation_usd == 0.0
    assert p.storage_usd == pytest.approx(storage)
    assert p.engineering_usd == 40 * 120
    assert p.total_usd == pytest.approx(5 * held * per_s + storage + 4800)
    assert p.low_usd == pytest.approx(5 * held_usd(MFU * 1.25) + storage + 4800)
    assert p.high_usd == pytest.approx(5 * held_usd(MFU * 0.75) + storage + 4800)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_single_gpu_has_no_communication_and_no_nccl(s):
    r = _run(s, 1, sharding="none", method="qlora")
    t = r.time
    busy = r.flops.total_flops / (PEAK * MFU)
    assert t.comm_bytes_per_step == 0 and t.comm_collectives == ()
    assert t.comm_exposed_s == 0 and t.nccl_s == 0
    assert t.train_wall_s == pytest.approx(busy)
    assert r.cost.job_interruptions_per_hour == pytest.approx(0.03)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize("sharding", ["none", "zero1", "zero3"])
def test_collectives_by_sharding(s, sharding):
    """DDP: one all-reduce of the gradients; ZeRO-1: reduce-scatter + all-gather once a step;
    ZeRO-3: all-gather of the stored bf16 weights twice per micro-batch + reduce-scatter of the
    gradients every micro-batch. LoRA moves only the adapters' fp32 gradients."""
    n = 8
    r = _run(s, n, sharding=sharding, method="lora", training__lora_rank=32)
    t = r.time
    adapters = r.params.adapter
    grads = 4.0 * adapters  # fp32 adapter gradients
    ring = (n - 1) / n
    if sharding == "none":
        expected = grads * 2 * ring
        overlap = (1 - (2 * s.matmul + 2 * s.L * S * s.q) / r.flops.per_token) / GA
    elif sharding == "zero1":
        expected = 2 * grads * ring
        overlap = (1 - (2 * s.matmul + 2 * s.L * S * s.q) / r.flops.per_token) / GA
    else:
        stored = 2.0 * s.total + 4.0 * adapters  # bf16 base + fp32 adapters
        expected = stored * ring * 2 * GA + grads * ring * GA
        overlap = 1.0  # FSDP prefetches the next all-gather during the whole step
    assert t.comm_bytes_per_step == pytest.approx(expected)
    assert t.comm_overlap == pytest.approx(overlap)
    assert sum(x.bytes_per_step for x in t.comm_collectives) == pytest.approx(expected)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
def test_flat_table_and_given_overheads(s):
    """The articles' flat table (ZeRO-3 on NVLink: +15%, across nodes +10%) and a given
    overhead multiply the busy time; a given QLoRA and offload slowdown multiply on top."""
    table = _run(s, 16, sharding="zero3", efficiency__communication="table")
    busy = table.flops.total_flops / (PEAK * MFU) / 16
    assert table.time.communication == "table"
    assert table.time.train_wall_s == pytest.approx(busy * (1 + 0.15 + 0.10))
    given = _run(
        s,
        2,
        method="qlora",
        training__cpu_offload_optimizer=True,
        efficiency__comm_overhead=0.2,
        efficiency__qlora_slowdown=1.3,
        efficiency__offload_slowdown=1.5,
    )
    busy = given.flops.total_flops / (PEAK * MFU) * 1.3 / 2
    assert given.time.communication == "given"
    assert given.time.train_wall_s == pytest.approx(busy * 1.2 * 1.5)
    assert given.time.slowdown == pytest.approx(1.3 * 1.2 * 1.5)
    assert (given.time.qlora_slowdown, given.time.offload_slowdown) == (1.3, 1.5)


@pytest.mark.parametrize("s", SHAPES, ids=lambda s: s.preset)
@pytest.mark.parametrize(("method", "bpp"), [("full_bf16_adamw", 4 + 2), ("lora", 4 + 8)])
def test_checkpoint_bytes_by_method(s, method, bpp):
    """Pure bf16 AdamW has no fp32 master: the bf16 weights + two bf16 moments (2 + 4); LoRA
    saves the fp32 adapters and their two moments (4 + 8) only."""
    r = _run(s, 1, sharding="none", method=method)
    k = r.checkpoint
    params = s.total if method == "full_bf16_adamw" else r.params.adapter
    assert (k.params, k.bytes_per_param) == (params, bpp)
    assert k.resumable_bytes == pytest.approx(params * bpp)


@pytest.mark.parametrize("billing", ["on_demand", "spot"])
def test_project_billing(billing):
    s = SHAPES[1]
    r = _run(s, 4, project__billing=billing)
    c, p = r.cost, r.project
    run = c.spot_usd if billing == "spot" else c.on_demand_usd
    assert p.run_usd == pytest.approx(run)
    scale = run / c.on_demand_usd
    assert p.low_usd == pytest.approx(5 * c.low_usd * scale + p.storage_usd + p.engineering_usd)
