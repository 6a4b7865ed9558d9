"""Resolve what a user typed for "model" into a ModelSpec, offline.

In order: a built-in preset (id or display name, any case); a path to a config.json or to a model
folder holding one; a repository id ("Qwen/Qwen2.5-7B") found in the local Hugging Face cache; the
preset read from that repository. Anything else is a ModelConfigError suggesting close preset ids.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from ..core.architecture import ModelSpec
from .hf_cache import find_cached
from .hf_config import ModelConfigError, load_hf_config, spec_from_hf_config
from .names import plain
from .resources import builtin_presets

__all__ = [
    "ModelConfigError",
    "load_hf_config",
    "resolve_model",
    "spec_from_hf_config",
    "suggest_presets",
]


def suggest_presets(key: str, n: int = 3) -> list[str]:
    """Preset ids close to key (matched against ids and display names)."""
    by_alias: dict[str, str] = {}
    for p in builtin_presets().models:
        by_alias.setdefault(p.id.lower(), p.id)
        by_alias.setdefault(p.spec.name.lower(), p.id)
    close = difflib.get_close_matches(key.strip().lower(), list(by_alias), n=2 * n, cutoff=0.5)
    return list(dict.fromkeys(by_alias[c] for c in close))[:n]


def _short(text: str, limit: int = 120) -> str:
    """What the user typed, clean and short enough for a one-line message."""
    clean = plain(text)
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def _looks_like_path(key: str) -> bool:
    """A path rather than a repository id ("org/name" has exactly one slash)."""
    return (
        key.startswith(("/", "~", "."))
        or key.endswith(".json")
        or key.count("/") > 1
        or ("\\" in key)
    )


def resolve_model(key: str, cache_root: str | os.PathLike[str] | None = None) -> ModelSpec:
    """A preset id/name, a config.json or model folder, or a cached hub repo id -> ModelSpec.

    ``cache_root`` overrides the Hugging Face cache folder (default: hf_cache.hf_cache_dir()).
    Raises ModelConfigError with a one-line reason (and close preset ids) when nothing matches.
    """
    text = key.strip()
    if not text:
        raise ModelConfigError("No model given; name a preset (see 'ftcost models') or a path.")
    presets = builtin_presets()
    preset = presets.find(text)
    if preset is not None:
        return preset.spec

    try:
        path = Path(text).expanduser()
    except RuntimeError:  # "~" with no home folder
        path = Path(text)
    if os.path.lexists(path):  # never raises: a name too long for the file system is not a path
        return load_hf_config(path)
    if _looks_like_path(text):
        raise ModelConfigError(f"{_short(text)} does not exist.")

    cached = find_cached(text, cache_root)
    if cached is not None:
        if cached.spec is not None:
            return cached.spec
        reason = (cached.error or "it cannot be read").rstrip(".")
        raise ModelConfigError(
            f"{cached.repo_id} is in the Hugging Face cache but {reason}.", cached.partial
        )

    by_repo = presets.find_hf_id(text)
    if by_repo is not None:
        return by_repo.spec

    close = suggest_presets(text)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "."
    raise ModelConfigError(
        f"unknown model {_short(text)!r}: not a preset, a config.json or model folder, nor a "
        f"repository in the local Hugging Face cache{hint}"
    )
