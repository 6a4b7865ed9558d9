"""Properties of the objective section over its whole declared input space.

Every field of ``ObjectiveSpec`` is drawn from its own metadata (range, bounds included, choices),
so a field added there is covered without editing this file. Properties (issue 15): results stay
finite and non-negative; more completions or longer completions never cost less; a colocated
rollout engine never needs fewer GPUs than the trainer alone.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ftcost_gui.core import estimate

from .helpers import gpu, make
from .strategies import examples, section_docs

SETTINGS = settings(max_examples=examples(0.1))
# Every field of the section from its own metadata, bounds included (strategies.py).
OBJECTIVE = section_docs("objective")
SHAPES = st.sampled_from(["qwen2.5-0.5b", "llama-3.2-1b", "qwen3-30b-a3b"])
METHODS = st.sampled_from(["full_amp_adamw", "lora", "qlora"])
GPUS = st.sampled_from(["H100 SXM", "A100 80GB SXM", "L4"])


def run(preset, method, gpu_name, objective, **edits):
    doc = {f"objective__{k}": v for k, v in objective.items()}
    doc.update(
        hardware__gpu=gpu(gpu_name),
        training__method=method,
        data__mode="examples",
        data__num_examples=256,
        data__epochs=1,
        overheads__eval_passes_per_run=1,
    )
    doc.update(edits)
    return estimate(make(preset, **doc))


def _finite_non_negative(r):
    values = [
        r.flops.total_flops,
        r.time.held_wall_s,
        r.time.held_gpu_hours,
        r.cost.on_demand_usd,
        r.memory.total_bytes,
        *(getattr(r.alignment, f) for f in type(r.alignment).model_fields if f != "objective"),
    ]
    for v in values:
        if isinstance(v, str) or v is None:  # names; None: no GPU count fits
            continue
        assert math.isfinite(v) and v >= 0, v


@SETTINGS
@given(objective=OBJECTIVE, preset=SHAPES, method=METHODS, gpu_name=GPUS)
def test_every_objective_gives_finite_non_negative_results(objective, preset, method, gpu_name):
    _finite_non_negative(run(preset, method, gpu_name, objective))


# The cost properties compare one layout: with the fewest GPUs that fit, a longer run may take
# more trainer GPUs and so hold separate rollout GPUs for less time — cheaper, and right to be.
SAME_GPUS = {
    "training__auto_gpu_count": False,
    "training__num_gpus": 8,
    "training__sharding": "zero3",
    # Like with like: checkpointing 'auto' may switch recomputation off once memory allows,
    # which lowers the compute of the larger run.
    "training__checkpointing": "full",
}


def _rl(objective):
    return {
        **objective,
        "objective": objective["objective"]
        if objective["objective"] in ("grpo", "ppo")
        else "grpo",
    }


@SETTINGS
@given(objective=OBJECTIVE, preset=SHAPES, method=METHODS, gpu_name=GPUS, more=st.integers(1, 8))
def test_more_completions_never_cost_less(objective, preset, method, gpu_name, more):
    ob = _rl(objective)
    a = run(preset, method, gpu_name, ob, **SAME_GPUS)
    ob2 = {**ob, "completions_per_prompt": min(ob["completions_per_prompt"] + more, 4096)}
    b = run(preset, method, gpu_name, ob2, **SAME_GPUS)
    assert b.cost.on_demand_usd >= a.cost.on_demand_usd * (1 - 1e-9)


@SETTINGS
@given(objective=OBJECTIVE, preset=SHAPES, method=METHODS, gpu_name=GPUS, factor=st.floats(1, 4))
def test_longer_completions_never_cost_less(objective, preset, method, gpu_name, factor):
    """Compared at one rollout engine size. A separate engine is as wide (tensor parallel) as
    its weights and one sequence's KV cache need (rollout.rollout_engines): a completion long
    enough to widen it (Qwen3-30B-A3B, 684k → 1M tokens: TP 2 → 4, 2 sequences at once instead
    of 1) decodes each step on more GPUs, and where whole-node renting already holds them the
    longer run is cheaper — right, not a fault; a wider engine the user must rent is dearer."""
    ob = _rl(objective)
    a = run(preset, method, gpu_name, ob, **SAME_GPUS)
    ob2 = {**ob, "mean_completion_tokens": min(ob["mean_completion_tokens"] * factor, 1e6)}
    b = run(preset, method, gpu_name, ob2, **SAME_GPUS)
    if b.alignment.tp == a.alignment.tp:
        assert b.cost.on_demand_usd >= a.cost.on_demand_usd * (1 - 1e-9)
    else:
        assert b.alignment.tp > a.alignment.tp  # longer sequences never narrow the engine


@SETTINGS
@given(objective=OBJECTIVE, preset=SHAPES, method=METHODS, gpu_name=GPUS)
def test_colocated_never_needs_fewer_gpus_than_the_trainer_alone(
    objective, preset, method, gpu_name
):
    ob = _rl(objective)
    # Checkpointing fixed: under 'auto' the trainer alone may drop recomputation (more
    # activations, so more GPUs) where the colocated engine's share keeps it on.
    full = {"training__checkpointing": "full"}
    alone = run(preset, method, gpu_name, {**ob, "rollout_placement": "separate"}, **full)
    colocated = run(preset, method, gpu_name, {**ob, "rollout_placement": "colocated"}, **full)
    need_alone, need_colocated = alone.memory.gpus_needed, colocated.memory.gpus_needed
    if need_alone is None:
        assert need_colocated is None
    elif need_colocated is not None:
        assert need_colocated >= need_alone
