"""What fits: the curves are the estimate's memory, the figures its fewest-GPUs rule's boundary."""

from __future__ import annotations

import pytest

from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.units import GIB
from ftcost_gui.core.what_fits import MICRO_BATCHES, MIN_SEQ_LEN, SEQ_LENS, what_fits
from ftcost_gui.io.resources import builtin_catalog

from .helpers import make

CASES = [
    # (preset, method, GPUs, sharding, micro-batch, attention)
    ("llama-3.1-8b", "lora", 1, "zero3", 4, "flash"),
    ("llama-3.1-8b", "qlora", 1, "zero3", 2, "flash"),
    ("llama-3.1-8b", "full_amp_adamw", 4, "zero3", 1, "flash"),
    ("qwen2.5-1.5b", "full_adamw_8bit", 2, "zero3", 8, "eager"),
]


def scenario(preset, method, n, sharding, mb, attention, gpu="h100-sxm"):
    return make(
        preset,
        training__method=method,
        training__auto_gpu_count=False,
        training__num_gpus=n,
        training__sharding=sharding,
        training__micro_batch=mb,
        training__attention=attention,
        hardware__gpu=builtin_catalog().find(gpu).to_spec().model_dump(),  # type: ignore[union-attr]
    )


def needed(inputs, **training):
    """The estimate's fewest GPUs that fit (None: no count), with its checkpointing pinned."""
    doc = inputs.model_dump()
    doc["training"].update(auto_gpu_count=True, **training)
    return estimate(type(inputs).model_validate(doc)).memory.gpus_needed


def with_len(inputs, seq_len):
    doc = inputs.model_dump()
    doc["data"]["max_seq_len"] = seq_len
    return type(inputs).model_validate(doc)


@pytest.mark.parametrize("case", CASES)
def test_figures_are_the_fewest_gpus_rule_at_the_boundary(case):
    inputs = scenario(*case)
    n = case[2]
    w = what_fits(inputs)
    ckpt = "full" if w.checkpointing else "none"
    found = 0
    for f in w.figures:
        longest, largest = f.longest_seq_len, f.largest_micro_batch
        if longest is None:  # not even the shortest sequence fits on n GPUs
            g = needed(with_len(inputs, MIN_SEQ_LEN), method=f.method, checkpointing=ckpt)
            assert g is None or g > n
            continue
        found += 1
        # the longest sequence fits on n GPUs; one more token needs more than n
        g = needed(with_len(inputs, longest), method=f.method, checkpointing=ckpt)
        assert g is not None and g <= n
        g = needed(with_len(inputs, longest + 1), method=f.method, checkpointing=ckpt)
        assert g is None or g > n
        if largest is None:
            g = needed(inputs, method=f.method, checkpointing=ckpt, micro_batch=1)
            assert g is None or g > n
            continue
        # the largest micro-batch fits; one more sequence does not
        g = needed(inputs, method=f.method, checkpointing=ckpt, micro_batch=largest)
        assert g is not None and g <= n
        g = needed(inputs, method=f.method, checkpointing=ckpt, micro_batch=largest + 1)
        assert g is None or g > n
    assert found >= 2  # the case's own method and one more have a boundary


def test_curves_are_the_estimates_memory():
    inputs = scenario("llama-3.1-8b", "lora", 2, "zero3", 2, "flash")
    w = what_fits(inputs)
    ckpt = "full" if w.checkpointing else "none"
    for curve in w.by_seq_len:
        for x, gib in zip(curve.x, curve.gib, strict=True):
            doc = with_len(inputs, x).model_dump()
            doc["training"].update(method=curve.method, checkpointing=ckpt)
            r = estimate(type(inputs).model_validate(doc))
            assert gib == pytest.approx(r.memory.total_bytes / GIB, rel=1e-12)
    assert w.by_seq_len[0].x == SEQ_LENS
    for curve in w.by_micro_batch:
        assert curve.x == MICRO_BATCHES
        assert list(curve.gib) == sorted(curve.gib)  # memory grows with the micro-batch
    for curve in w.by_seq_len:
        assert list(curve.gib) == sorted(curve.gib)


def test_lines_and_other_gpus():
    cat = builtin_catalog()
    inputs = scenario("llama-3.1-8b", "lora", 1, "zero3", 1, "flash")
    others = [cat.find(g).to_spec() for g in ("a100-80gb-sxm", "rtx-4090", "l4")]  # type: ignore[union-attr]
    w = what_fits(inputs, others)
    assert [g.gpu_id for g in w.gpus] == ["h100-sxm", "a100-80gb-sxm", "rtx-4090"]  # two more
    r = estimate(inputs)
    assert w.gpus[0].total_gib == pytest.approx(r.memory.capacity_bytes / GIB)
    assert w.gpus[0].usable_gib == pytest.approx(r.memory.usable_bytes / GIB)
    # the 24 GB card holds less context than the 80 GB one, for the scenario's method
    small, big = w.figure(gpu_id="rtx-4090"), w.figure(gpu_id="a100-80gb-sxm")
    assert small is not None and big is not None
    assert (small.longest_seq_len or 0) < (big.longest_seq_len or 0)
    assert w.figure(method="full_amp_adamw", gpu_id="rtx-4090") is None  # its method only


def test_nothing_fits():
    inputs = scenario("llama-3.1-70b", "full_amp_adamw", 1, "zero3", 1, "flash")
    f = what_fits(inputs).figure()
    assert f is not None and f.longest_seq_len is None and f.largest_micro_batch is None
