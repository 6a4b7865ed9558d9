"""What ``--gpu``, ``--model`` and ``--catalog`` name: the catalog in use, a GPU, a model.

Errors are ``CliError`` lines with close matches; a catalog file set aside on the way is one
``ftcost: warning: ...`` line. When the config folder cannot be used (a file in its place, a
read-only parent, no home folder) the user catalogs are unavailable: that is said once and the
built-in catalog is used.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from ..core.catalog import BUILTIN_NAME, EffectiveRow, GpuCatalog, find_row, merge_catalogs
from ..io.catalog_store import CatalogError, CatalogProblem, CatalogScan, CatalogStore
from ..io.hf_config import ModelConfigError
from ..io.models import resolve_model
from ..io.names import for_terminal
from ..io.resources import builtin_catalog, builtin_presets
from .common import CliError, warn
from .values import quoted


def suggest(key: str, names: Iterable[tuple[str, str]]) -> str:
    """'; did you mean ...?' from (alias, display name) pairs, each display name once."""
    by_alias: dict[str, str] = {}
    for alias, display in names:
        by_alias.setdefault(alias.lower(), display)
    close = difflib.get_close_matches(key.strip().lower(), list(by_alias), n=6, cutoff=0.5)
    shown = list(dict.fromkeys(by_alias[c] for c in close))[:3]
    return f"; did you mean {', '.join(quoted(n) for n in shown)}?" if shown else ""


class CatalogView:
    """The effective GPU catalog for one command: loaded on first use, problems told once.

    ``name`` is ``--catalog`` (None: the active catalog).
    """

    def __init__(self, name: str | None, err: TextIO) -> None:
        self.requested = name
        self._err = err
        self._store: CatalogStore | None = None
        self._unavailable: str | None = None
        self._rows: list[EffectiveRow] | None = None
        self._name: str | None = None

    @property
    def store(self) -> CatalogStore:
        if self._store is None:
            self._store = CatalogStore()
            try:
                _ = self._store.root  # the config folder: none of the user's catalogs without it
            except (CatalogError, OSError, RuntimeError) as exc:  # RuntimeError: no home folder
                self._unavailable = str(exc)
                warn(
                    self._err,
                    f"user GPU catalogs are unavailable ({exc}); using the built-in catalog",
                )
        return self._store

    @property
    def available(self) -> bool:
        """False when the config folder cannot be used (told once on stderr)."""
        _ = self.store
        return self._unavailable is None

    @property
    def builtin(self) -> GpuCatalog:
        return self.store.builtin

    def warn(self, problems: Iterable[CatalogProblem]) -> None:
        for p in problems:
            warn(self._err, str(p))

    def _scan(self) -> CatalogScan:
        """One read of the catalogs folder; its problems told on stderr."""
        scan = self.store.scan()
        self.warn(scan.problems)
        return scan

    def _load(self) -> None:
        store = self.store
        req = self.requested
        if not self.available:
            if req is not None and req.strip().casefold() != BUILTIN_NAME.casefold():
                raise CliError(f"unknown catalog {quoted(req)}: user catalogs are unavailable")
            self._rows, self._name = merge_catalogs(store.builtin), BUILTIN_NAME
            return
        scan = self._scan()
        try:
            user = scan.user_catalog(req)
        except CatalogError:
            names = [(n, n) for n in scan.names()]
            raise CliError(
                f"unknown catalog {quoted(req or '')}{suggest(req or '', names)} "
                "(see 'ftcost catalogs')"
            ) from None
        self._rows = merge_catalogs(store.builtin, user)
        self._name = user.name if user is not None else BUILTIN_NAME

    @property
    def rows(self) -> list[EffectiveRow]:
        if self._rows is None:
            self._load()
        assert self._rows is not None
        return self._rows

    @property
    def name(self) -> str:
        if self._name is None:
            self._load()
        assert self._name is not None
        return self._name

    def entries(self) -> tuple[list[tuple[GpuCatalog, Path]], str | None]:
        """The user catalogs with their files, and the active one's name (``ftcost catalogs``)."""
        if not self.available:
            return [], None
        scan = self._scan()
        return scan.entries(), scan.active


def find_gpu_row(key: str, rows: list[EffectiveRow] | None = None) -> EffectiveRow:
    """The catalog row by GPU id or name in ``rows`` (default: built-in)."""
    if rows is None:
        rows = merge_catalogs(builtin_catalog())
    row = find_row(rows, key)
    if row is None:
        names = [(alias, r.gpu.name) for r in rows for alias in (r.gpu.id, r.gpu.name)]
        raise CliError(f"unknown GPU {quoted(key)}{suggest(key, names)} (see 'ftcost gpus')")
    return row


def find_gpu(key: str, rows: list[EffectiveRow] | None = None) -> dict[str, Any]:
    """The GPU spec (with its catalog prices) by id or name in ``rows`` (default: built-in)."""
    return find_gpu_row(key, rows).gpu.to_spec().model_dump()


def _is_path(key: str) -> bool:
    """Whether ``key`` names something on disk; a name the system refuses is not a path."""
    try:
        return Path(key).expanduser().exists()
    except (OSError, ValueError, RuntimeError):  # too long, NUL byte, no home for '~'
        return False


def find_model(key: str) -> dict[str, Any]:
    """A preset id or name, a config.json or model folder, or a repo id in the local HF cache."""
    presets = builtin_presets()
    preset = presets.find(key)
    if preset is not None:
        return preset.spec.model_dump()
    try:
        return resolve_model(key).model_dump()
    except ModelConfigError as exc:
        if _is_path(key) or "/" in key:
            raise CliError(f"model {quoted(key)}: {for_terminal(exc)}") from None
    except (OSError, ValueError, RuntimeError) as exc:  # as a path: too long, NUL, '~nobody'
        reason = getattr(exc, "strerror", None) or exc
        raise CliError(f"model {quoted(key)}: not a preset nor a usable path ({reason})") from None
    names = [(alias, p.id) for p in presets.models for alias in (p.id, p.spec.name)]
    raise CliError(f"unknown model {quoted(key)}{suggest(key, names)} (see 'ftcost models')")
