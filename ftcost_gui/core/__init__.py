"""The estimation core: pure functions over pydantic models. Never imports Qt or touches files."""

from .architecture import LORA_TARGETS, ModelSpec, ParamCounts, count_params, effective_counts
from .catalog import CatalogGpu, GpuCatalog, ModelPreset, PresetLibrary
from .estimate import estimate, sweep_mfu
from .fields import FieldSpec, field_spec, field_specs
from .inputs import (
    METHOD_LABELS,
    SECTIONS,
    SHARDING_LABELS,
    DataSpec,
    EfficiencySpec,
    EstimateInputs,
    GpuSpec,
    HardwareSpec,
    OverheadSpec,
    ProjectSpec,
    SpotSpec,
    TrainingSpec,
)
from .results import MEMORY_PART_LABELS, EstimateResult
from .sweep import Sweep, SweepPoint, sweep_columns

__all__ = [
    "LORA_TARGETS",
    "MEMORY_PART_LABELS",
    "METHOD_LABELS",
    "SECTIONS",
    "SHARDING_LABELS",
    "CatalogGpu",
    "DataSpec",
    "EfficiencySpec",
    "EstimateInputs",
    "EstimateResult",
    "FieldSpec",
    "GpuCatalog",
    "GpuSpec",
    "HardwareSpec",
    "ModelPreset",
    "ModelSpec",
    "OverheadSpec",
    "ParamCounts",
    "PresetLibrary",
    "ProjectSpec",
    "SpotSpec",
    "Sweep",
    "SweepPoint",
    "TrainingSpec",
    "count_params",
    "effective_counts",
    "estimate",
    "field_spec",
    "field_specs",
    "sweep_columns",
    "sweep_mfu",
]
