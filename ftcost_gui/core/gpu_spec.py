"""One accelerator as data (a catalog row's facts and the user's prices): the inputs' GPU.

Split from core/inputs.py (one module, one responsibility); ``core.inputs`` re-exports it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from ._field import fld
from .throughput import MAMF_TFLOPS

Interconnect = Literal["nvlink", "pcie", "infinity_fabric", "ici", "ethernet", "thunderbolt"]
Network = Literal["infiniband", "ethernet", "ici", "thunderbolt"]
PricingTier = Literal["on_demand", "spot", "committed_1y", "committed_3y"]
TIER_LABELS: dict[str, str] = {
    "on_demand": "On-demand",
    "spot": "Spot",
    "committed_1y": "1-year committed",
    "committed_3y": "3-year committed",
}
MAMF_H100 = round(MAMF_TFLOPS["H100"][0] / MAMF_TFLOPS["H100"][1], 3)


class GpuSpec(BaseModel):
    """One accelerator as data: facts plus the user's prices."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str = fld("h100-sxm", "Id", "Catalog id.")
    name: str = fld("H100 SXM", "GPU", "Display name.")
    vendor: str = fld("NVIDIA", "Vendor", "Vendor.")
    memory_gib: float = fld(
        79.6,
        "Memory",
        "Total memory as the driver reports it (GiB).",
        "GiB",
        ge=1,
        le=4096,
        decimals=1,
    )
    bf16_tflops: float = fld(
        989.0,
        "Dense BF16",
        "Dense (not 2:4 sparse) BF16 tensor throughput; FP16 for GPUs without BF16.",
        "TFLOPS",
        ge=0.01,
        le=100_000,
        decimals=1,
    )
    bf16_supported: bool = fld(True, "BF16", "The GPU has BF16 tensor cores.")
    memory_bandwidth_gb_s: float = fld(
        3350.0, "Memory bandwidth", "HBM/GDDR bandwidth.", "GB/s", ge=1, le=10**6
    )
    interconnect: Interconnect = fld("nvlink", "Interconnect", "GPU-to-GPU fabric in a node.")
    interconnect_gb_s: float = fld(
        900.0,
        "Interconnect bandwidth",
        "Per GPU, both directions together (a ring collective uses one direction: half). PCIe "
        "Gen4 x16 64, Gen5 x16 128.",
        "GB/s",
        ge=0.1,
        le=10**6,
    )
    gpus_per_node: int = fld(
        8,
        "GPUs per node",
        "GPUs sharing the interconnect in one machine (an NVLink domain: 72 for GB200 NVL72).",
        "",
        ge=1,
        le=1024,
    )
    network: Network = fld(
        "infiniband", "Node network", "What connects the nodes of a multi-node job."
    )
    network_gbit_s: float = fld(
        3200.0,
        "Network bandwidth",
        "Per node, one direction, as clouds state it (8 × 400 Gb/s InfiniBand NDR = 3,200; "
        "AWS p5 EFA 3,200). Each GPU gets its share.",
        "Gb/s",
        ge=0.1,
        le=10**6,
    )
    rent_unit_gpus: int = fld(
        1,
        "Rented in units of",
        "The fewest GPUs one rental holds within a node: 1 for single GPUs, 8 where only whole "
        "8-GPU machines are rented. A job larger than one node always rents whole nodes; a unit "
        "larger than a node (16: two 8-GPU machines) is rented whole.",
        "GPUs",
        ge=1,
        le=1024,
    )
    achievable_fraction: float = fld(
        MAMF_H100,
        "Achievable matmul",
        "Best sustained dense BF16 matmul ÷ the vendor peak (MAMF): the ceiling no training "
        "stack passes. Measured where a measurement exists (H100 0.80, MI300X 0.51, Gaudi 3 "
        "0.68), else a rule by vendor and generation (reference/gpus.md).",
        "× peak",
        ge=0.01,
        le=1.5,
        step=0.01,
        decimals=3,
    )
    achievable_source: str = fld(
        "MAMF 794 of 989 TFLOPS (stas00/ml-engineering)",
        "Achievable source",
        "Where the achievable fraction comes from: a measurement, or 'rule: …'.",
    )
    achievable_as_of: str = fld(
        "2026-08-22", "Achievable as of", "When the measurement was taken or the rule set."
    )
    on_demand_usd_per_hour: float = fld(
        3.0,
        "On-demand price",
        "Your on-demand price per GPU-hour.",
        "$/GPU-h",
        ge=0,
        le=10_000,
        step=0.1,
        decimals=2,
    )
    spot_usd_per_hour: float | None = fld(
        2.0,
        "Spot price",
        "Your interruptible price per GPU-hour; empty if you have none.",
        "$/GPU-h",
        ge=0,
        le=10_000,
        step=0.1,
        decimals=2,
    )
    on_demand_low_usd_per_hour: float | None = fld(
        None,
        "Cheapest offer",
        "The cheapest on-demand price per GPU-hour seen for this GPU (the low end of the cost "
        "range); empty: no range, your price only.",
        "$/GPU-h",
        ge=0,
        le=10_000,
        step=0.1,
        decimals=2,
    )
    on_demand_high_usd_per_hour: float | None = fld(
        None,
        "Dearest offer",
        "The dearest on-demand price per GPU-hour seen for this GPU (the high end of the cost "
        "range; hyperscaler VMs); empty: no range, your price only.",
        "$/GPU-h",
        ge=0,
        le=10_000,
        step=0.1,
        decimals=2,
    )
    price_as_of: str = fld("", "Prices as of", "When the prices were captured.")
    price_source: str = fld("", "Price source", "Where the prices come from.")
    pricing_tier: PricingTier = fld(
        "on_demand",
        "Pricing tier",
        "How the price is billed. on_demand: the on-demand price, by the hour. committed_1y, "
        "committed_3y: the on-demand price column holds the effective hourly rate of a 1- or "
        "3-year commitment. spot: an interruptible offer; a run is costed at the spot price "
        "(interruptions included), which the row must have.",
    )
