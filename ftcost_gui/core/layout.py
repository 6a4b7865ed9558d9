"""The job's layout: GPUs needed, GPUs rented, nodes, and whether to checkpoint.

Renting: GPUs are rented in units (a row's ``rent_unit_gpus``: single GPUs, or only whole 8-GPU
machines), and a job larger than one node rents whole nodes (a multi-node cluster is sold by the
node). So ``needed`` GPUs become ``ceil(needed ÷ unit) × unit`` within a node and
``ceil(needed ÷ node) × node`` beyond; a unit larger than a node is rented whole, in whole nodes
(the count never falls as ``needed`` grows); with the fewest-that-fit count the job trains on all of
them. Article 001: 'you are billed for GPUs held'.

Checkpointing "auto": off when the run fits without it on the GPUs it would rent anyway (no
recomputation: about a third fewer FLOPs for full fine-tuning, article 001 'a self-inflicted third
added to the compute bill'), on when it needs it to fit or to rent fewer GPUs.
"""

from __future__ import annotations

import math
from typing import NamedTuple


class Rented(NamedTuple):
    gpus: int
    nodes: int
    node_size: int
    rounded: bool  # more GPUs rented than needed


def rented(needed: int, node_size: int, unit: int, whole_units: bool) -> Rented:
    """GPUs billed for ``needed`` GPUs (module docstring); ``whole_units`` off bills ``needed``."""
    if not whole_units:
        return Rented(needed, math.ceil(needed / node_size), node_size, False)
    if unit > node_size:  # a rental spans nodes (e.g. 16 = two 8-GPU machines): whole units
        gpus = math.ceil(math.ceil(needed / unit) * unit / node_size) * node_size
    elif needed > node_size:
        gpus = math.ceil(needed / node_size) * node_size
    else:
        gpus = min(math.ceil(needed / unit) * unit, node_size)
    return Rented(gpus, math.ceil(gpus / node_size), node_size, gpus > needed)


def rollout_rented(n_train: int, trainer: Rented, rollout_gpus: int, unit: int, whole: bool) -> int:
    """GPUs billed for rollout engines on their own GPUs, beyond the trainer's rented ones.

    The job holds ``n_train + rollout_gpus`` GPUs; renting rounds that total (``rented``), so a
    rented GPU the trainer leaves idle hosts a rollout engine first, and rollouts that spill past
    a node rent a whole one. Without whole units the rollout GPUs are billed as they are.
    """
    if rollout_gpus == 0 or not whole:
        return rollout_gpus
    total = rented(n_train + rollout_gpus, trainer.node_size, unit, True).gpus
    return max(0, total - trainer.gpus)


class Option(NamedTuple):
    """One way to run: with or without checkpointing."""

    checkpointing: bool
    needed: int | None  # GPUs the memory floor forces (None: no count fits)
    fits: bool
    rented: Rented | None
    near_limit: bool  # fits with less free memory than the near-limit margin


def choose_checkpointing(off: Option, on: Option, auto_count: bool) -> tuple[bool, str]:
    """(checkpoint?, why) for checkpointing "auto" (module docstring). A run that would fit
    without it only within the near-limit margin checkpoints when that leaves room."""
    tight = "on: without it the run fits only within the near-limit margin"
    if auto_count:
        if off.rented is None or off.needed is None:
            return True, "on: without it no count of these GPUs fits"
        if on.rented is not None and off.rented.gpus > on.rented.gpus:
            return True, (
                f"on: without it the run needs {off.needed} GPUs ({off.rented.gpus} rented) "
                f"instead of {on.rented.gpus}"
            )
        if off.near_limit and on.rented is not None and not on.near_limit:
            return True, tight
        return False, "off: the run fits without it on the same GPUs"
    if not off.fits:
        return True, "on: without it the run does not fit on these GPUs"
    if off.near_limit and on.fits and not on.near_limit:
        return True, tight
    return False, "off: the run fits on these GPUs without it"


def memory_status(fits: bool, headroom_bytes: float, capacity_bytes: float, margin: float) -> str:
    """'fits', 'near_limit' (less free memory than ``margin`` of the GPU's) or 'does_not_fit'."""
    if not fits:
        return "does_not_fit"
    if headroom_bytes < margin * capacity_bytes:
        return "near_limit"
    return "fits"
