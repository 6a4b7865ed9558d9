"""Building inputs for core tests the way a user fills the form: a preset plus a few edits."""

from __future__ import annotations

from typing import Any

from ftcost_gui.core import EstimateInputs
from ftcost_gui.io.resources import builtin_catalog, builtin_presets


def gpu(name: str) -> dict[str, Any]:
    found = builtin_catalog().find(name)
    assert found is not None, name
    return found.to_spec().model_dump()


def make(preset: str | None = None, **edits: Any) -> EstimateInputs:
    """edits use section__field keys, e.g. training__method="lora"."""
    doc = EstimateInputs().model_dump()
    if preset:
        found = builtin_presets().find(preset)
        assert found is not None, preset
        doc["model"] = found.spec.model_dump()
    for key, value in edits.items():
        section, field = key.split("__")
        doc[section][field] = value
    return EstimateInputs.model_validate(doc)
