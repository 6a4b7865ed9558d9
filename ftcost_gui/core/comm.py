"""Communication of a data-parallel step: bytes moved by sharding and method, over the link.

Bytes per GPU per optimizer step, with ring collectives over n GPUs (each GPU sends and receives
2(n−1)/n × S for an all-reduce of S bytes, (n−1)/n × S for a reduce-scatter or an all-gather:
Patarasuk & Yuan 2009, "Bandwidth optimal all-reduce algorithms"; NCCL reports the same
normalisation as "bus bandwidth", nccl-tests doc/PERFORMANCE.md). What is moved follows the ZeRO
paper (Rajbhandari et al. 2020, §7.2: data parallelism and ZeRO-1/2 move 2Ψ per step, ZeRO-3 3Ψ):

- None / DDP: one all-reduce of the TRAINABLE gradients per step (accumulation runs under
  ``no_sync``): the full model's bf16 gradients, or only the adapters' for LoRA/QLoRA;
- ZeRO-1: a reduce-scatter of the gradients and an all-gather of the updated trainable weights,
  once per step;
- ZeRO-2: the gradients are sharded, so they are reduce-scattered after every micro-batch; the
  updated weights are all-gathered once per step;
- ZeRO-3 / FSDP: every micro-batch all-gathers the weights twice (forward, then backward, which
  also feeds the recomputed forward), IN THEIR STORED DTYPE (bf16; NF4 for QLoRA, as FSDP-QLoRA
  shards the quantised storage), and reduce-scatters the gradients.

The link is the slowest hop of the ring: within a node, the row's interconnect at half its
bidirectional figure (one direction); across nodes, each GPU's share of its node's network
(rail-optimised: one NIC per GPU). Communication overlaps compute only inside its window: DDP's
and ZeRO-1's single all-reduce hides behind the last micro-batch's backward (PyTorch DDP buckets:
Li et al. 2020); ZeRO-2's reduce-scatters behind every backward; ZeRO-3 prefetches the next
all-gather during the whole step (Zhao et al. 2023, PyTorch FSDP). Time exposed per step =
max(0, communication − overlap × compute).
"""

from __future__ import annotations

from typing import NamedTuple

from .units import GB

INTERCONNECT_LABELS = {
    "nvlink": "NVLink/NVSwitch",
    "pcie": "PCIe",
    "infinity_fabric": "Infinity Fabric",
    "ici": "TPU ICI",
    "ethernet": "Ethernet (RoCE)",
    "thunderbolt": "Thunderbolt",
}
NETWORK_LABELS = {
    "infiniband": "InfiniBand",
    "ethernet": "Ethernet",
    "ici": "TPU ICI",
    "thunderbolt": "Thunderbolt",
}


class Collective(NamedTuple):
    name: str  # what is moved, e.g. "all-reduce of the gradients"
    payload_bytes: float  # S: the tensor the collective moves
    ring_factor: float  # 2(n−1)/n (all-reduce) or (n−1)/n (reduce-scatter, all-gather)
    per_step: float  # how many times per optimizer step
    bytes_per_step: float  # per GPU: S × ring factor × times


class Link(NamedTuple):
    kind: str  # "NVLink/NVSwitch", "InfiniBand", ...
    gb_s: float  # per GPU, one direction
    between_nodes: bool


class CommPlan(NamedTuple):
    collectives: tuple[Collective, ...]
    bytes_per_step: float
    link: Link
    seconds_per_step: float  # before overlap
    overlap: float  # share of the step's compute that can hide communication
    overlap_given: bool


NO_COMM = CommPlan((), 0.0, Link("", 0.0, False), 0.0, 0.0, False)


def link_for(
    num_gpus: int,
    gpus_per_node: int,
    interconnect: str,
    interconnect_gb_s: float,
    network: str,
    network_gbit_s: float,
) -> Link:
    """The slowest hop of a ring over ``num_gpus``: the node's fabric, or the network share."""
    intra = Link(INTERCONNECT_LABELS.get(interconnect, interconnect), interconnect_gb_s / 2, False)
    if num_gpus <= gpus_per_node:
        return intra
    per_gpu = network_gbit_s / 8.0 / gpus_per_node  # Gb/s per node → GB/s per GPU
    inter = Link(NETWORK_LABELS.get(network, network), per_gpu, True)
    return inter if per_gpu < intra.gb_s else intra


def collectives(
    sharding: str,
    num_gpus: int,
    grad_bytes: float,
    stored_weight_bytes: float,
    microbatches_per_step: int,
) -> tuple[Collective, ...]:
    """What a step moves per GPU (module docstring); nothing on one GPU."""
    n = num_gpus
    if n <= 1:
        return ()
    ring_ar = 2.0 * (n - 1) / n
    ring = (n - 1) / n
    k = float(microbatches_per_step)

    def c(name: str, payload: float, factor: float, times: float) -> Collective:
        return Collective(name, payload, factor, times, payload * factor * times)

    if sharding == "none":
        return (c("all-reduce of the trainable gradients", grad_bytes, ring_ar, 1.0),)
    if sharding == "zero1":
        return (
            c("reduce-scatter of the trainable gradients", grad_bytes, ring, 1.0),
            c("all-gather of the updated trainable weights", grad_bytes, ring, 1.0),
        )
    if sharding == "zero2":
        return (
            c("reduce-scatter of the trainable gradients, every micro-batch", grad_bytes, ring, k),
            c("all-gather of the updated trainable weights", grad_bytes, ring, 1.0),
        )
    return (
        c("all-gather of the stored weights, forward and backward", stored_weight_bytes, ring,
          2.0 * k),
        c("reduce-scatter of the trainable gradients, every micro-batch", grad_bytes, ring, k),
    )  # fmt: skip


def default_overlap(sharding: str, backward_share: float, microbatches_per_step: int) -> float:
    """Share of a step's compute that can hide its communication (module docstring)."""
    if sharding == "zero3":
        return 1.0
    if sharding == "zero2":
        return backward_share
    return backward_share / microbatches_per_step


def comm_plan(
    sharding: str,
    num_gpus: int,
    link: Link,
    grad_bytes: float,
    stored_weight_bytes: float,
    microbatches_per_step: int,
    overlap: float,
    overlap_given: bool,
) -> CommPlan:
    if num_gpus <= 1:
        return NO_COMM
    cs = collectives(sharding, num_gpus, grad_bytes, stored_weight_bytes, microbatches_per_step)
    total = sum(x.bytes_per_step for x in cs)
    return CommPlan(cs, total, link, total / (link.gb_s * GB), overlap, overlap_given)


def exposed_s(comm_s: float, compute_s: float, overlap: float) -> float:
    """Communication time not hidden behind compute: max(0, comm − overlap × compute)."""
    return max(0.0, comm_s - overlap * compute_s)


# --- The first release's flat table (kept reachable: 'article table' communication) ----------

# Communication overhead as a fraction of compute time. Articles: multi-GPU runs 'add 10–30%'
# (003); on PCIe 'parameter gathering and gradient reduction can halve achieved throughput' of a
# sharded job (001); 'a single-node LoRA run is indifferent to NVLink' (001).
_FAST_FABRICS = frozenset({"nvlink", "infinity_fabric", "ici"})
COMM_OVERHEAD_FAST = {"none": 0.10, "zero1": 0.10, "zero2": 0.10, "zero3": 0.15}
COMM_OVERHEAD_SLOW = {"none": 0.20, "zero1": 0.25, "zero2": 0.30, "zero3": 1.00}
COMM_OVERHEAD_ADAPTERS = 0.02  # only adapter gradients cross the fabric
COMM_OVERHEAD_MULTI_NODE = 0.10  # inter-node network on top


def comm_overhead_table(
    num_gpus: int, gpus_per_node: int, interconnect: str, sharding: str, full: bool
) -> float:
    """The articles' flat overhead for the layout (the table above)."""
    if num_gpus <= 1:
        return 0.0
    if not full and sharding != "zero3":
        overhead = COMM_OVERHEAD_ADAPTERS
    elif interconnect in _FAST_FABRICS:
        overhead = COMM_OVERHEAD_FAST[sharding]
    else:
        overhead = COMM_OVERHEAD_SLOW[sharding]
    if num_gpus > gpus_per_node:
        overhead += COMM_OVERHEAD_MULTI_NODE
    return overhead
