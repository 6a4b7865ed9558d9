"""Models already downloaded into the local Hugging Face cache (offline; never the network).

The cache layout (``huggingface_hub``): ``<cache>/models--<org>--<name>/`` holding ``refs/main``
(the commit hash of the checked-out revision) and ``snapshots/<hash>/`` with the files, usually
symlinks into ``blobs/``. A scan reads directory listings, ``refs/main`` and each snapshot's
``config.json``; it never opens a weight file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.architecture import ModelSpec
from .hf_config import CONFIG_NAME, ModelConfigError, load_hf_config
from .loader import HF_REF, FileReadError, read_bytes

REPO_PREFIX = "models--"
MAX_REF_BYTES = HF_REF.max_bytes


def hf_cache_dir() -> Path:
    """Where huggingface_hub keeps models: HF_HUB_CACHE, else HF_HOME/hub, else the default.

    The default is ``$XDG_CACHE_HOME/huggingface/hub`` when XDG_CACHE_HOME is set, otherwise
    ``~/.cache/huggingface/hub`` (the legacy HUGGINGFACE_HUB_CACHE is honoured after HF_HUB_CACHE).
    """
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        value = os.environ.get(var)
        if value:
            return Path(value).expanduser()
    home = os.environ.get("HF_HOME")
    if home:
        return Path(home).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "huggingface" / "hub"


@dataclass(frozen=True)
class CachedModel:
    """One cached model repository and what its newest snapshot says."""

    repo_id: str  # "Qwen/Qwen2.5-7B"
    repo_path: Path  # <cache>/models--Qwen--Qwen2.5-7B
    snapshot: Path | None  # the snapshot folder used, None if there is none
    revision: str  # the snapshot's commit hash ("" if none)
    config_path: Path | None  # snapshot/config.json when present
    spec: ModelSpec | None  # the imported architecture, or None with error set
    error: str | None  # why there is no spec
    safetensors: tuple[Path, ...] = field(default=())  # weight files present (never read here)
    partial: dict[str, Any] = field(default_factory=dict)  # fields understood when spec is None

    @property
    def ok(self) -> bool:
        return self.spec is not None


def repo_id_from_dirname(name: str) -> str | None:
    """'models--Qwen--Qwen2.5-7B' -> 'Qwen/Qwen2.5-7B'; None for anything else."""
    if not name.startswith(REPO_PREFIX):
        return None
    parts = name[len(REPO_PREFIX) :].split("--")
    if not all(parts):
        return None
    return "/".join(parts)


def _subdirs(path: Path) -> list[Path]:
    try:
        return [p for p in path.iterdir() if p.is_dir()]
    except OSError:
        return []


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def newest_snapshot(repo_path: Path) -> Path | None:
    """The snapshot refs/main points at, else the most recently modified one."""
    snapshots = repo_path / "snapshots"
    ref = repo_path / "refs" / "main"
    try:
        commit = read_bytes(ref, HF_REF).decode("ascii", "replace").strip()
    except FileReadError:
        commit = ""
    if commit and "/" not in commit and commit not in (".", ".."):
        chosen = snapshots / commit
        if chosen.is_dir():
            return chosen
    candidates = _subdirs(snapshots)
    if not candidates:
        return None
    return max(candidates, key=lambda p: (_mtime(p), p.name))


def _safetensors_files(folder: Path) -> tuple[Path, ...]:
    try:
        return tuple(sorted(p for p in folder.iterdir() if p.name.endswith(".safetensors")))
    except OSError:
        return ()


def inspect_cached_repo(repo_path: Path) -> CachedModel | None:
    """One models--org--name folder; None if the name is not a model repository."""
    repo_id = repo_id_from_dirname(repo_path.name)
    if repo_id is None:
        return None
    snapshot = newest_snapshot(repo_path)
    if snapshot is None:
        return CachedModel(repo_id, repo_path, None, "", None, None, "no snapshot downloaded")
    files = _safetensors_files(snapshot)
    config = snapshot / CONFIG_NAME
    if not os.path.lexists(config):  # a FIFO or device in its place is refused by the reader
        return CachedModel(
            repo_id, repo_path, snapshot, snapshot.name, None, None,
            f"the snapshot has no {CONFIG_NAME}", files,
        )  # fmt: skip
    try:
        spec = load_hf_config(config, name=repo_id)
    except ModelConfigError as exc:
        message = str(exc).removeprefix(f"{config}: ")
        return CachedModel(
            repo_id, repo_path, snapshot, snapshot.name, config, None, message, files, exc.partial
        )
    return CachedModel(repo_id, repo_path, snapshot, snapshot.name, config, spec, None, files)


def scan_hf_cache(root: str | os.PathLike[str] | None = None) -> list[CachedModel]:
    """Every cached model repository under root (default: hf_cache_dir()), sorted by repo id.

    Reads listings, refs/main and config.json only; a missing cache folder is an empty list.
    """
    base = Path(root).expanduser() if root is not None else hf_cache_dir()
    found = []
    for repo_path in _subdirs(base):
        model = inspect_cached_repo(repo_path)
        if model is not None:
            found.append(model)
    return sorted(found, key=lambda m: m.repo_id.lower())


def find_cached(repo_id: str, root: str | os.PathLike[str] | None = None) -> CachedModel | None:
    """The cached repository with this id (case-insensitive), without scanning the others."""
    base = Path(root).expanduser() if root is not None else hf_cache_dir()
    parts = [p for p in repo_id.strip().split("/") if p]
    if not parts or any(p in (".", "..") or "--" in p for p in parts):
        return None
    wanted = (REPO_PREFIX + "--".join(parts)).lower()
    direct = base / (REPO_PREFIX + "--".join(parts))
    if os.path.isdir(direct):  # never raises, even for a name too long for the file system
        return inspect_cached_repo(direct)
    for repo_path in _subdirs(base):  # case differs from the folder's
        if repo_path.name.lower() == wanted:
            return inspect_cached_repo(repo_path)
    return None
