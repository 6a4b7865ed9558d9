"""MemoryModel.gpus_needed against a brute-force scan (issue 12: never a hang).

The search guesses n from A + B/n and bisects (core/memory.py); the scan below tries every count
one by one. They must agree on every memory model the core can build — drawn here part by part,
generation peak and saturated generation batches included — and the search must stay a few dozen
evaluations where the old scan took a million (70 s for one estimate).
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ftcost_gui.core.memory import MemoryModel

from .strategies import examples

GIB = 2.0**30
SCAN_LIMIT = 3000

part = st.one_of(st.just(0.0), st.floats(0.0, 400.0)).map(lambda g: g * GIB)


@st.composite
def models(draw) -> MemoryModel:
    weights = draw(part)
    policy_generates = draw(st.booleans())
    return MemoryModel(
        weights=weights,
        gradients=draw(part),
        master=draw(part),
        optimizer=draw(part),
        adapters_weights=draw(part) / 100,
        adapters_grads=draw(part) / 100,
        adapters_moments=draw(part) / 100,
        activations_saved=draw(part) / 10,
        activations_working=draw(part) / 10,
        logits=draw(part) / 10,
        qlora_buffer=draw(part) / 100,
        layer_gather=draw(part) / 50,
        grad_buckets=draw(part) / 50,
        overhead=draw(st.floats(0.0, 2.0)) * GIB,
        sharding=draw(st.sampled_from(["none", "zero1", "zero2", "zero3"])),
        offload=draw(st.booleans()),
        reference=draw(part),
        reward=draw(part) / 4,
        critic_ratio=draw(st.sampled_from([0.0, 0.01, 1.0, 10.0])),
        rollout_weights=draw(part) / 10,
        rollout_kv=draw(part) / 10,
        # As core/memory_step.py builds it: the policy's own weights gathered for generation.
        gen_gather=weights if policy_generates else 0.0,
        gen_kv_per_seq=draw(part) / 1000 if policy_generates else 0.0,
        gen_seqs=float(draw(st.integers(1, 100_000))) if policy_generates else 0.0,
        gen_max_seqs=float(draw(st.integers(1, 4096))),
        allocator_efficiency=draw(st.floats(0.5, 1.0)),
        optimizer_temporaries=draw(part) / 10,
        accumulating=draw(st.booleans()),
    )


def scan(model: MemoryModel, usable: float, limit: int) -> int | None:
    return next((n for n in range(1, limit + 1) if model.total(n) <= usable), None)


@settings(max_examples=examples(0.05))
@given(models(), st.floats(1.0, 300.0))
def test_the_search_finds_the_fewest_gpus_a_scan_finds(model, usable_gib):
    usable = usable_gib * GIB
    assert model.gpus_needed(usable, max_gpus=SCAN_LIMIT) == scan(model, usable, SCAN_LIMIT)


@settings(max_examples=examples(0.05))
@given(models())
def test_the_device_total_never_grows_with_more_gpus_from_two_on(model):
    """What makes the bisection exact (core/memory.py, MemoryModel._fewest_fitting)."""
    totals = [model.total(n) for n in (2, 3, 4, 7, 8, 64, 1000, 100_000, 1_000_000)]
    assert all(b <= a * (1 + 1e-12) for a, b in itertools.pairwise(totals))


class Counting(MemoryModel):
    calls = 0

    def total(self, n: int) -> float:
        type(self).calls += 1
        return super().total(n)


def test_no_count_fits_in_a_few_dozen_evaluations_not_a_million():
    # A policy generating 2^20 sequences beside 80 GB of weights on 24 GiB: no count fits.
    model = Counting(
        **{
            **{f: 0.0 for f in MemoryModel.__dataclass_fields__},
            "weights": 80e9,
            "sharding": "zero3",
            "offload": False,
            "gen_gather": 80e9,
            "gen_kv_per_seq": 1e9,
            "gen_seqs": 2.0**20,
            "gen_max_seqs": 4096.0,
            "allocator_efficiency": 0.85,
            "accumulating": False,
        }
    )
    Counting.calls = 0
    assert model.gpus_needed(24 * GIB) is None
    assert Counting.calls <= 64, Counting.calls


def test_a_saturated_generation_batch_still_finds_the_fewest():
    # Generation holds min(sequences ÷ n, 64) sequences: flat up to n = 1024, then falling, so
    # the A + B/n guess from n = 2 and 4 says "never"; the bisection finds the count.
    fields = {f: 0.0 for f in MemoryModel.__dataclass_fields__}
    model = MemoryModel(
        **{
            **fields,
            "weights": 10 * GIB,
            "sharding": "zero3",
            "offload": False,
            "gen_gather": 10 * GIB,
            "gen_kv_per_seq": GIB,
            "gen_seqs": 65_536.0,
            "gen_max_seqs": 64.0,
            "allocator_efficiency": 1.0,
            "accumulating": False,
        }
    )
    # total(n) = 10 GiB + min(65,536 / n, 64) GiB  (weights W/n + gathered W(1 − 1/n) = W)
    # ≤ 40 GiB  ⇔  65,536 / n ≤ 30  ⇔  n ≥ 2,184.53…  →  2,185
    assert model.gpus_needed(40 * GIB) == 2185
    assert scan(model, 40 * GIB, 3000) == 2185
