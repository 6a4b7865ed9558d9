"""Building inputs for core tests the way a user fills the form: a preset plus a few edits."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

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


def walk(obj: Any, path: str = "") -> Any:
    """(path, value) of every leaf of a result: models, tuples and lists walked through."""
    if isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            yield from walk(getattr(obj, name), f"{path}.{name}")
    elif isinstance(obj, tuple | list):
        for i, v in enumerate(obj):
            yield from walk(v, f"{path}[{i}]")
    else:
        yield path, obj


def hf_llama(config: dict[str, Any], **edits: Any) -> EstimateInputs:
    """Inputs for a Llama-shaped model given as its config.json numbers (the measured records')."""
    return make(
        model__num_layers=config["num_hidden_layers"],
        model__hidden_size=config["hidden_size"],
        model__num_attention_heads=config["num_attention_heads"],
        model__num_kv_heads=config["num_key_value_heads"],
        model__intermediate_size=config["intermediate_size"],
        model__vocab_size=config["vocab_size"],
        model__tied_embeddings=config["tie_word_embeddings"],
        model__head_dim=0,
        **edits,
    )
