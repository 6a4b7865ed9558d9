"""GPU catalogs and model presets as data (no file access: io/ loads them)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from ._field import fld
from .architecture import ModelSpec
from .gpu_spec import TIER_LABELS as TIER_LABELS  # re-exported: the catalog names tiers
from .inputs import GpuSpec
from .throughput import MAMF_AS_OF, achievable_rule

CURRENCY = "USD"
"""Every price of a catalog is in US dollars (the file says so: ``"currency": "USD"``)."""


class CatalogGpu(GpuSpec):
    """A catalog row: the spec the estimate uses plus facts shown in the catalog view.

    Every field is a column of the editor and of the CSV files (docs/catalogs.md): adding one
    here, declared with ``fld`` (label, unit, help, bounds), is all a new column needs; its cell
    kind follows from its type (``io/catalog_cells.py``). Files name every field of every row
    (reading is strict); the defaults below are for rows made new in the editor only.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_vendor_gb: float | None = fld(
        None, "Vendor memory", "The vendor's memory label (decimal GB); empty: none.", "GB"
    )
    counting: Literal["per_gpu", "per_gcd"] = fld(
        "per_gpu",
        "Counting",
        "per_gpu: one row is one GPU; per_gcd: one module die (software sees it as one GPU).",
    )
    tdp_w: float | None = fld(None, "TDP", "Board power; empty: none.", "W")
    year: int | None = fld(None, "Year", "Launch year; empty: none.")
    spec_source: str = fld("", "Spec source", "Where the specs come from.")
    notes: str = fld("", "Notes", "Anything else.")
    provider: str = fld(
        "", "Provider", "Who rents it out (a cloud, a neocloud, your own cluster); empty: any."
    )
    region: str = fld("", "Region", "Where it is rented (e.g. us-east-1); empty: any.")

    @field_validator("memory_vendor_gb", "tdp_w")
    @classmethod
    def _positive(cls, v: float | None) -> float | None:
        if v is not None and not (math.isfinite(v) and v > 0):
            raise ValueError("must be a finite number greater than 0")
        return v

    @field_validator("pricing_tier")
    @classmethod
    def _spot_row_has_a_spot_price(cls, v: str, info: ValidationInfo) -> str:
        # pricing_tier (GpuSpec's) comes after spot_usd_per_hour: a valid spot price is in
        # info.data.
        if v == "spot" and info.data.get("spot_usd_per_hour", 0.0) is None:
            raise ValueError("a spot row needs a spot price (spot_usd_per_hour)")
        return v

    def to_spec(self) -> GpuSpec:
        """The part an estimate keeps (and an estimate file snapshots)."""
        return GpuSpec.model_validate(self.model_dump(include=set(GpuSpec.model_fields)))


class GpuCatalog(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    format: Literal["ftcost-gpu-catalog"] = "ftcost-gpu-catalog"
    version: int = 4
    name: str
    description: str = ""
    gpus: tuple[CatalogGpu, ...] = Field(default=())

    def find(self, key: str) -> CatalogGpu | None:
        """By id or display name, case-insensitive."""
        k = key.strip().lower()
        for g in self.gpus:
            if g.id.lower() == k or g.name.lower() == k:
                return g
        return None


class ModelPreset(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    family: str
    size: str
    license: str = ""
    hf_id: str = (
        ""  # the Hugging Face repository the numbers were read from, e.g. "Qwen/Qwen2.5-7B"
    )
    source: str = ""  # where the architecture and expected_total come from
    expected_total: int | None = None  # the published exact parameter count
    spec: ModelSpec


class PresetLibrary(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    format: Literal["ftcost-model-presets"] = "ftcost-model-presets"
    version: int = 1
    models: tuple[ModelPreset, ...]

    def find(self, key: str) -> ModelPreset | None:
        """By id or display name, case-insensitive."""
        k = key.strip().lower()
        for p in self.models:
            if p.id.lower() == k or p.spec.name.lower() == k:
                return p
        return None

    def find_hf_id(self, repo_id: str) -> ModelPreset | None:
        """By Hugging Face repository id ("Qwen/Qwen2.5-7B"), case-insensitive."""
        k = repo_id.strip().lower()
        for p in self.models:
            if p.hf_id and p.hf_id.lower() == k:
                return p
        return None


# --- The time model's columns of a row that predates them -------------------------------------

TIME_COLUMNS: tuple[str, ...] = (
    "gpus_per_node",
    "network",
    "network_gbit_s",
    "rent_unit_gpus",
    "achievable_fraction",
    "achievable_source",
    "achievable_as_of",
)
"""Columns a row of an older catalog or CSV may lack; ``fill_time_columns`` supplies them."""


def fill_time_columns(row: Mapping[str, Any], note: str = "") -> dict[str, Any]:
    """The row with its missing (or None) time-model columns filled.

    The achievable fraction takes the documented rule for the row's vendor and name
    (core/throughput.py, marked 'rule: …'); a node is 8 GPUs rented one by one; a data-centre
    fabric (NVLink, Infinity Fabric, ICI) gets InfiniBand 8 × 400 Gb/s, anything else 100 Gb/s
    Ethernet: typical machines of each kind, to be edited to the provider's.
    """
    out = dict(row)
    vendor, name = out.get("vendor"), out.get("name")
    datacentre = out.get("interconnect") in ("nvlink", "infinity_fabric", "ici")
    typical: dict[str, Any] = {
        "gpus_per_node": 8,
        "network": "infiniband" if datacentre else "ethernet",
        "network_gbit_s": 3200.0 if datacentre else 100.0,
        "rent_unit_gpus": 1,
    }
    for key, value in typical.items():
        if out.get(key) is None:
            out[key] = value
    if out.get("achievable_fraction") is None:
        rule = achievable_rule(vendor if isinstance(vendor, str) else "", str(name or ""))
        out["achievable_fraction"] = round(rule.fraction, 3)
        out["achievable_source"] = out.get("achievable_source") or rule.source + note
        out["achievable_as_of"] = out.get("achievable_as_of") or MAMF_AS_OF
    else:
        out["achievable_source"] = out.get("achievable_source") or "given"
        out.setdefault("achievable_as_of", "")
    return out


# --- Effective catalog: built-in rows overridden by a user catalog ---------------------------

BUILTIN_NAME = "Built-in"
"""The built-in catalog's name; no user catalog may take it (any case)."""
BUILTIN_ORIGIN = "built-in"
USER_ORIGIN_PREFIX = "user:"


def id_key(gpu_id: str) -> str:
    """How ids are matched: ignoring case and surrounding spaces ('H100-SXM' is 'h100-sxm')."""
    return gpu_id.strip().casefold()


def user_origin(catalog_name: str) -> str:
    return f"{USER_ORIGIN_PREFIX}{catalog_name}"


@dataclass(frozen=True, slots=True)
class EffectiveRow:
    """One GPU of the effective catalog and where it came from.

    ``origin`` is ``"built-in"`` or ``"user:<catalog name>"``; ``overrides_builtin`` is true for
    a user row whose id is also a built-in id (``builtin`` is then the row it replaces).
    """

    gpu: CatalogGpu
    origin: str
    overrides_builtin: bool = False
    builtin: CatalogGpu | None = None

    @property
    def is_user(self) -> bool:
        return self.origin.startswith(USER_ORIGIN_PREFIX)


def merge_catalogs(builtin: GpuCatalog, user: GpuCatalog | None = None) -> list[EffectiveRow]:
    """The effective catalog: user rows override built-in rows of the same id (case-insensitive).

    Order: the built-in order (an overridden row keeps its place), then the user-only rows in the
    user catalog's order. Nothing is dropped: every row of both catalogs is either shown or
    replaced by the user row of the same id.
    """
    if user is None:
        return [EffectiveRow(g, BUILTIN_ORIGIN) for g in builtin.gpus]
    origin = user_origin(user.name)
    by_id = {id_key(g.id): g for g in user.gpus}
    rows: list[EffectiveRow] = []
    used: set[str] = set()
    for g in builtin.gpus:
        k = id_key(g.id)
        mine = by_id.get(k)
        if mine is None:
            rows.append(EffectiveRow(g, BUILTIN_ORIGIN))
        else:
            rows.append(EffectiveRow(mine, origin, overrides_builtin=True, builtin=g))
            used.add(k)
    rows += [EffectiveRow(g, origin) for g in user.gpus if id_key(g.id) not in used]
    return rows


def find_row(rows: Iterable[EffectiveRow], key: str) -> EffectiveRow | None:
    """By id or display name, case-insensitive (as GpuCatalog.find)."""
    k = key.strip().casefold()
    for r in rows:
        if id_key(r.gpu.id) == k or r.gpu.name.strip().casefold() == k:
            return r
    return None


def duplicate_ids(gpus: Iterable[GpuSpec]) -> list[str]:
    """Ids that occur more than once (case-insensitive), each once, in first-seen order."""
    seen: set[str] = set()
    dups: dict[str, str] = {}
    for g in gpus:
        k = id_key(g.id)
        if k in seen:
            dups.setdefault(k, g.id)
        seen.add(k)
    return list(dups.values())


def row_problems(gpus: Iterable[GpuSpec]) -> list[str]:
    """What keeps rows from forming one catalog: empty ids and duplicate ids (one line each)."""
    gpus = list(gpus)
    out = [f"row {i + 1} has an empty id" for i, g in enumerate(gpus) if not g.id.strip()]
    out += [f"duplicate id {d!r}" for d in duplicate_ids(g for g in gpus if g.id.strip())]
    return out


# --- Per-cell validation (the editor and the CSV import share it) -----------------------------

CATALOG_FIELDS: tuple[str, ...] = tuple(CatalogGpu.model_fields)
"""Every field of a catalog row, in the documented CSV column order."""


def validate_row(data: Mapping[str, Any]) -> tuple[CatalogGpu | None, list[tuple[str, str]]]:
    """A row from plain values: (the row, []) or (None, [(field, reason), ...]).

    The reasons are pydantic's messages for the field's bounds (e.g. memory 'Input should be
    greater than 0', a negative price 'Input should be greater than or equal to 0').
    """
    try:
        return CatalogGpu.model_validate(dict(data)), []
    except ValidationError as exc:
        errors = []
        for e in exc.errors():
            field = str(e["loc"][0]) if e["loc"] else ""
            msg = e["msg"].removeprefix("Value error, ")
            errors.append((field, msg))
        return None, errors


def cell_error(row: CatalogGpu, field: str, value: Any) -> str | None:
    """Why ``value`` is refused for ``field`` of ``row`` (pydantic's message), or None if valid."""
    if field not in CatalogGpu.model_fields:
        return f"unknown field {field!r}"
    if field == "id" and isinstance(value, str) and not value.strip():
        return "the id must not be empty"
    _, errors = validate_row({**row.model_dump(), field: value})
    # The field's own error first; else a rule between fields that this value breaks (the row
    # was valid before, so any error is this value's doing).
    mine = [msg for f, msg in errors if f == field] or [msg for _, msg in errors]
    return mine[0] if mine else None


# --- Prices of an estimate vs the catalog ------------------------------------------------------


class PriceUpdate(NamedTuple):
    """The catalog's prices for the estimate's GPU, where they differ from the estimate's."""

    on_demand_usd_per_hour: float
    spot_usd_per_hour: float | None
    pricing_tier: str  # how the catalog bills them: a tier alone changes the bill's wording


def _same_price(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def price_differences(spec: GpuSpec, rows: Iterable[EffectiveRow | GpuSpec]) -> PriceUpdate | None:
    """(on-demand now, spot now, tier now) if the catalog row with the spec's id prices it
    differently.

    None when no row has that id (a custom GPU) or when both prices and the pricing tier are the
    same. A tier alone counts: the same $/h billed as a 1-year commitment is another price (and a
    spot tier bills the spot price). The 'as of' date and source notes are not compared: only
    prices and their tier change the estimate.
    """
    k = id_key(spec.id)
    for r in rows:
        g = r.gpu if isinstance(r, EffectiveRow) else r
        if id_key(g.id) != k:
            continue
        if (
            _same_price(g.on_demand_usd_per_hour, spec.on_demand_usd_per_hour)
            and _same_price(g.spot_usd_per_hour, spec.spot_usd_per_hour)
            and g.pricing_tier == spec.pricing_tier
        ):
            return None
        return PriceUpdate(g.on_demand_usd_per_hour, g.spot_usd_per_hour, g.pricing_tier)
    return None


def with_catalog_prices(spec: GpuSpec, row: GpuSpec) -> GpuSpec:
    """The estimate's spec with the catalog row's prices, their tier, 'as of' date and source."""
    keep = (
        "on_demand_usd_per_hour",
        "spot_usd_per_hour",
        "price_as_of",
        "price_source",
        "pricing_tier",
    )
    return spec.model_copy(update={k: getattr(row, k) for k in keep})
