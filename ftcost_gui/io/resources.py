"""The one place that finds ``resources/`` (built-in data, icons).

Wheel installs carry it as ``ftcost_gui/resources`` (hatch force-include); a source checkout or an
editable install sees the top-level ``resources/`` folder instead (ecosystem-notes §1.2).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path

from ..core.catalog import GpuCatalog, PresetLibrary
from .loader import RESOURCE, read_bytes


@cache
def resources_root() -> Path:
    pkg = Path(str(files("ftcost_gui"))) / "resources"
    if pkg.is_dir():
        return pkg
    dev = Path(__file__).resolve().parents[2] / "resources"
    if dev.is_dir():
        return dev
    raise FileNotFoundError("ftcost_gui resources folder not found")


def resource_path(*parts: str) -> Path:
    return resources_root().joinpath(*parts)


@cache
def builtin_catalog() -> GpuCatalog:
    """The read-only built-in GPU catalog (resources/gpus.json)."""
    return GpuCatalog.model_validate_json(read_bytes(resource_path("gpus.json"), RESOURCE))


@cache
def builtin_presets() -> PresetLibrary:
    """Model presets (resources/models.json)."""
    return PresetLibrary.model_validate_json(read_bytes(resource_path("models.json"), RESOURCE))
