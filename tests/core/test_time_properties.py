"""Properties of the time model (issue 11) over its own inputs: more GPUs never slower before
communication dominates; faster links never slower; a higher achievable fraction never costlier.

The draws cover every time-model field within its declared bounds (bounds included) on real
architectures, methods, shardings, GPUs and data shapes; the example count follows the active
hypothesis profile (the CI profile runs the most).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.core.fields import field_spec
from ftcost_gui.core.inputs import DataSpec, EfficiencySpec, GpuSpec
from ftcost_gui.io.resources import builtin_catalog, builtin_presets

PRESETS = ("qwen2.5-0.5b", "qwen2.5-7b", "llama-3.1-8b", "llama-2-70b", "mixtral-8x7b")
GPUS = tuple(g.id for g in builtin_catalog().gpus)


def _bounded(model, name):
    s = field_spec(model, name)
    lo, hi = s.minimum, s.maximum
    lo = lo if not s.exclusive_min else lo + 1e-9  # the smallest value the field accepts
    return st.one_of(st.sampled_from([lo, hi]), st.floats(lo, hi, allow_nan=False))


jobs = st.fixed_dictionaries(
    {
        "preset": st.sampled_from(PRESETS),
        "gpu": st.sampled_from(GPUS),
        "method": st.sampled_from(
            ["full_amp_adamw", "full_adamw_8bit", "full_bf16_adamw", "lora", "qlora"]
        ),
        "sharding": st.sampled_from(["none", "zero1", "zero2", "zero3"]),
        "checkpointing": st.sampled_from(["auto", "none", "full"]),
        "micro_batch": st.integers(1, 64),
        "grad_accum": st.integers(1, 64),
        "padding": st.sampled_from(["longest", "max_length", "pack"]),
        "length_cv": _bounded(DataSpec, "length_cv"),
        "mean": st.floats(16, 20000),
        "seq": st.sampled_from([256, 2048, 8192, 32768]),
        "achievable": _bounded(GpuSpec, "achievable_fraction"),
        "overlap": st.one_of(st.none(), _bounded(EfficiencySpec, "comm_overlap")),
        "stack": st.one_of(st.none(), _bounded(EfficiencySpec, "stack_efficiency")),
        "node": st.sampled_from([0, 1, 2, 4, 8]),
        "gpus": st.integers(1, 64),
    }
)
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _inputs(job, **over) -> EstimateInputs:
    g = builtin_catalog().find(job["gpu"]).to_spec().model_dump()
    g["achievable_fraction"] = job["achievable"]
    g.update(over.pop("gpu", {}))
    doc = {
        "model": builtin_presets().find(job["preset"]).spec.model_dump(),
        "data": {
            "mean_tokens_per_example": job["mean"],
            "max_seq_len": job["seq"],
            "padding": job["padding"],
            "length_cv": job["length_cv"],
        },
        "training": {
            "method": job["method"],
            "sharding": job["sharding"],
            "checkpointing": job["checkpointing"],
            "micro_batch": job["micro_batch"],
            "grad_accum": job["grad_accum"],
            "auto_gpu_count": False,
            "num_gpus": job["gpus"],
        },
        "hardware": {"gpu": g, "gpus_per_node": job["node"], "rent_whole_units": False},
        "efficiency": {"comm_overlap": job["overlap"], "stack_efficiency": job["stack"]},
    }
    for key, value in over.items():
        section, name = key.split("__")
        doc[section][name] = value
    return EstimateInputs.model_validate(doc)


@SETTINGS
@given(jobs)
def test_more_gpus_never_slower_before_communication_dominates(job):
    """Doubling the data-parallel GPUs halves each GPU's compute; the training wall-clock can
    only grow by communication the overlap window does not hide."""
    ckpt = "none" if job["checkpointing"] == "auto" else job["checkpointing"]
    fewer = estimate(_inputs(job, training__checkpointing=ckpt))
    more = estimate(_inputs(job, training__checkpointing=ckpt, training__num_gpus=job["gpus"] * 2))

    def busy_s(r):  # the compute part of the training wall: (busy + exposed comm) × offload
        return r.time.train_wall_s / r.time.offload_slowdown - r.time.comm_exposed_s

    # The same FLOPs at the same MFU on twice the GPUs: each GPU's compute halves exactly ...
    assert more.time.mfu == fewer.time.mfu
    assert busy_s(more) == pytest.approx(busy_s(fewer) / 2, rel=1e-9)
    # ... so the wall-clock grows only by the communication left exposed.
    exposed = more.time.comm_exposed_s * more.time.offload_slowdown
    assert more.time.train_wall_s <= fewer.time.train_wall_s + exposed * (1 + 1e-9)


@SETTINGS
@given(jobs, st.floats(1.0, 100.0))
def test_faster_links_never_slower(job, factor):
    gpu = builtin_catalog().find(job["gpu"])
    slow = estimate(_inputs(job))
    fast = estimate(
        _inputs(
            job,
            gpu={
                "interconnect_gb_s": min(gpu.interconnect_gb_s * factor, 1e6),
                "network_gbit_s": min(gpu.network_gbit_s * factor, 1e6),
            },
        )
    )
    assert fast.time.train_wall_s <= slow.time.train_wall_s * (1 + 1e-9)
    assert fast.cost.on_demand_usd <= slow.cost.on_demand_usd * (1 + 1e-9)


@SETTINGS
@given(jobs, st.floats(1.0, 3.0))
def test_higher_achievable_fraction_never_costlier(job, factor):
    low = estimate(_inputs(job))
    higher = min(job["achievable"] * factor, 1.5)
    high = estimate(_inputs(job, gpu={"achievable_fraction": higher}))
    assert high.cost.on_demand_usd <= low.cost.on_demand_usd * (1 + 1e-9)
    assert high.time.mfu >= low.time.mfu * (1 - 1e-9)
