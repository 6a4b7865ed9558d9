"""Rollout GPUs on their own GPUs are rented with the trainer's (issue 11: whole nodes).

The job holds trainer + rollout GPUs; renting rounds the total (core/layout.rented), so spare
rented GPUs host rollouts first and rollouts past a node rent a whole one.
"""

from __future__ import annotations

import pytest

from ftcost_gui.core import estimate
from ftcost_gui.core.layout import Rented, rollout_rented
from ftcost_gui.present.figures import headline_texts

from .helpers import gpu, make

H100 = "H100 SXM"  # 8 per node, rented one GPU at a time


def grpo_separate(trainer_gpus: int, rollout_gpus: int, **edits):
    base = dict(
        hardware__gpu=gpu(H100),
        data__mode="examples",
        data__num_examples=1000,
        training__method="lora",
        training__checkpointing="full",
        training__auto_gpu_count=False,
        training__num_gpus=trainer_gpus,
        objective__objective="grpo",
        objective__rollout_placement="separate",
        objective__rollout_gpus=rollout_gpus,
    )
    base.update(edits)
    return make("llama-3.1-8b", **base)


def test_rollout_rented_by_hand():
    one_node = Rented(gpus=8, nodes=1, node_size=8, rounded=False)
    # 8 trainer + 2 rollout = 10 GPUs > one node: two whole nodes, 16 − 8 = 8 billed for rollouts.
    assert rollout_rented(8, one_node, 2, 1, True) == 8
    # 6 trainer GPUs on a rented 8-GPU machine: the 2 idle ones host the rollouts.
    assert rollout_rented(6, one_node, 2, 8, True) == 0
    # Within one node rented one GPU at a time: 6 + 2 = 8, billed as they are.
    six = Rented(gpus=6, nodes=1, node_size=8, rounded=False)
    assert rollout_rented(6, six, 2, 1, True) == 2
    # Renting exact counts: the rollout GPUs as they are.
    assert rollout_rented(8, one_node, 2, 1, False) == 2
    assert rollout_rented(8, one_node, 0, 1, True) == 0


def test_rollouts_past_a_node_rent_a_whole_node():
    inputs = grpo_separate(8, 2)
    r = estimate(inputs)
    t, lay = r.time, r.layout
    assert r.alignment.rollout_gpus == 2 and t.rented_gpus == 8
    assert lay.rollout_rented_gpus == 8  # 10 GPUs → 2 nodes of 8 = 16 held
    assert r.time.held_gpu_hours == pytest.approx(16 * t.held_wall_s / 3600)
    assert headline_texts(inputs, r)["gpus"][0] == "8 used + 8 rented for 2 rollout"


def test_rollouts_billed_as_they_are_without_whole_units():
    inputs = grpo_separate(8, 2, hardware__rent_whole_units=False)
    r = estimate(inputs)
    assert r.layout.rollout_rented_gpus == 2
    assert r.time.held_gpu_hours == pytest.approx(10 * r.time.held_wall_s / 3600)
    assert headline_texts(inputs, r)["gpus"][0] == "8 used + 2 rollout"


def test_within_one_node_nothing_changes():
    r = estimate(grpo_separate(4, 2))
    assert r.layout.rollout_rented_gpus == 2
    assert r.time.held_gpu_hours == pytest.approx(6 * r.time.held_wall_s / 3600)
