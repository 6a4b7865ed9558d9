"""One set of defaults for a new estimate, everywhere (window, CLI, files), and price origins.

A new estimate is ``EstimateInputs()`` (its MFU left to ``throughput.default_mfu``) on the
default GPU of the ACTIVE catalog, with that catalog's prices and where they came from: the
window's first estimate, File → New and the CLI without a file all start here, so they agree.
A price typed over a catalog's is the user's own: it is no longer credited to the catalog's
sheet or date.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .catalog import EffectiveRow, find_row
from .inputs import EstimateInputs, GpuSpec

DEFAULT_GPU_ID = "h100-sxm"
TYPED_BY_HAND = "typed by hand"
# A tier chosen by hand is part of the user's price (a 1-year rate they negotiated), as a price is.
PRICE_FIELDS = frozenset({"on_demand_usd_per_hour", "spot_usd_per_hour", "pricing_tier"})


def new_inputs(rows: Iterable[EffectiveRow], gpu_id: str = DEFAULT_GPU_ID) -> EstimateInputs:
    """The inputs of a new estimate: the defaults on ``gpu_id`` of the effective catalog.

    Without that row (a catalog that lacks it), the first row; without any row, the built-in
    spec defaults, credited to nobody.
    """
    rows = list(rows)
    row = find_row(rows, gpu_id) or (rows[0] if rows else None)
    if row is None:
        return EstimateInputs()
    return with_gpu_row(EstimateInputs(), row)


def with_gpu_row(inputs: EstimateInputs, row: EffectiveRow) -> EstimateInputs:
    """The inputs on a catalog row's GPU, at its prices, crediting its catalog."""
    spec = row.gpu.to_spec()
    hardware = inputs.hardware.model_copy(update={"gpu": spec, "price_origin": row.origin})
    return inputs.model_copy(update={"hardware": hardware})


def with_spec(inputs: EstimateInputs, spec: GpuSpec, origin: str | None) -> EstimateInputs:
    """The inputs on ``spec`` (validated where it was read); ``origin`` None: the GPU's own
    prices with no catalog to credit (a custom GPU)."""
    update: dict[str, Any] = {"gpu": spec, "price_origin": origin or ""}
    hardware = inputs.hardware.model_copy(update=update)
    return inputs.model_copy(update={"hardware": hardware})


def mark_typed_price(hardware: dict[str, Any]) -> None:
    """A price typed by hand (a dumped ``hardware`` section, changed in place): credit the
    user, not the sheet the GPU came from, and drop the sheet's date and source."""
    hardware["price_origin"] = TYPED_BY_HAND
    gpu = hardware.get("gpu")
    if isinstance(gpu, dict):
        gpu["price_as_of"] = ""
        gpu["price_source"] = ""
