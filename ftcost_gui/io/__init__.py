"""Files and locations: resources, estimate files, user config, model import. Never imports Qt."""

from .hf_cache import CachedModel, hf_cache_dir, scan_hf_cache
from .hf_config import ModelConfigError, load_hf_config, spec_from_hf_config
from .models import resolve_model
from .safetensors_header import SafetensorsCount, SafetensorsError, count_safetensors

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
