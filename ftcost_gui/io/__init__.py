"""Files and locations: resources, estimate files, user config, model import. Never imports Qt."""

from __future__ import annotations

from importlib import import_module
from typing import Any

# Lazy re-exports: importing one io module (say estimate_file, at window start-up) should not
# load the model-import modules too.
_WHERE = {
    "CachedModel": "hf_cache",
    "hf_cache_dir": "hf_cache",
    "scan_hf_cache": "hf_cache",
    "ModelConfigError": "hf_config",
    "load_hf_config": "hf_config",
    "spec_from_hf_config": "hf_config",
    "resolve_model": "models",
    "SafetensorsCount": "safetensors_header",
    "SafetensorsError": "safetensors_header",
    "count_safetensors": "safetensors_header",
}

__all__ = [
    "CachedModel",
    "ModelConfigError",
    "SafetensorsCount",
    "SafetensorsError",
    "count_safetensors",
    "hf_cache_dir",
    "load_hf_config",
    "resolve_model",
    "scan_hf_cache",
    "spec_from_hf_config",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(name)
