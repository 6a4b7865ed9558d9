"""GPU catalogs and model presets as data (no file access: io/ loads them)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .architecture import ModelSpec
from .inputs import GpuSpec


class CatalogGpu(GpuSpec):
    """A catalog row: the spec the estimate uses plus facts shown in the catalog view."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    memory_vendor_gb: float | None = None
    counting: Literal["per_gpu", "per_gcd"] = "per_gpu"
    tdp_w: float | None = None
    year: int | None = None
    spec_source: str = ""
    notes: str = ""

    def to_spec(self) -> GpuSpec:
        """The part an estimate keeps (and an estimate file snapshots)."""
        return GpuSpec.model_validate(self.model_dump(include=set(GpuSpec.model_fields)))


class GpuCatalog(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    format: Literal["ftcost-gpu-catalog"] = "ftcost-gpu-catalog"
    version: int = 1
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
    source: str = ""
    expected_total: int | None = None
    spec: ModelSpec


class PresetLibrary(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    format: Literal["ftcost-model-presets"] = "ftcost-model-presets"
    version: int = 1
    models: tuple[ModelPreset, ...]

    def find(self, key: str) -> ModelPreset | None:
        k = key.strip().lower()
        for p in self.models:
            if p.id.lower() == k or p.spec.name.lower() == k:
                return p
        return None
