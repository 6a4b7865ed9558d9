"""User GPU catalogs: one file per catalog under ``<config dir>/catalogs/`` (docs/catalogs.md).

The file format is ``io/catalog_format.py``; this module keeps the folder: the file name is a slug
of the catalog's name (the name inside the file is what counts, so odd characters in names are
harmless), ``active.json`` names the active catalog (absent or ``null``: the built-in one).

Saves are atomic; a new file is created exclusively (two processes never overwrite each other).
A catalog file that cannot be used (not JSON, not a catalog, invalid rows, duplicate ids, a name
another file already has) is renamed to ``<file>.corrupt-YYYYmmdd-HHMMSS-<microseconds>`` (never
overwritten, never deleted) and reported as a ``CatalogProblem``. A file that cannot be read
(permissions) or that a newer ftcost wrote is left as it is. Reading never writes ``active.json``.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.catalog import BUILTIN_NAME, EffectiveRow, GpuCatalog, merge_catalogs, row_problems
from .atomic import atomic_write_text
from .catalog_files import create_exclusive, move_aside
from .catalog_format import (
    FORMAT,
    MAX_NAME_LEN,
    VERSION,
    CatalogError,
    CatalogTooNewError,
    check_name,
    dumps_catalog,
    loads_catalog,
    peek_name,
)
from .loader import CATALOG, CATALOG_CHOICE, FileReadError, read_bytes
from .paths import config_dir

__all__ = [
    "FORMAT",
    "MAX_NAME_LEN",
    "VERSION",
    "CatalogError",
    "CatalogProblem",
    "CatalogScan",
    "CatalogStore",
    "CatalogTooNewError",
    "check_name",
    "dumps_catalog",
    "loads_catalog",
    "move_aside",
    "slugify",
]

SUFFIX = ".json"
ACTIVE_FILE = "active.json"
ACTIVE_FORMAT = "ftcost-active-catalog"
ACTIVE_VERSION = 1
_SLUG_MAX = 48
# Stems a catalog file may not use: the active-catalog file, and Windows device names.
_RESERVED_STEMS = frozenset(
    {"active", "con", "prn", "aux", "nul"}
    | {f"com{i}" for i in range(10)}
    | {f"lpt{i}" for i in range(10)}
)


@dataclass(frozen=True, slots=True)
class CatalogProblem:
    """A catalog file that was set aside (``moved_to``) or could not be used, in one line."""

    path: Path
    moved_to: Path | None
    message: str

    def __str__(self) -> str:
        return self.message


def catalogs_dir() -> Path:
    return config_dir() / "catalogs"


def slugify(name: str) -> str:
    """A portable file stem for a catalog name: lower-case ASCII letters, digits and '-'."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:_SLUG_MAX].strip("-")
    return slug or "catalog"


@dataclass(frozen=True, slots=True)
class CatalogScan:
    """What one read of the catalogs folder found: a value, nothing is kept for later.

    ``found`` maps each usable catalog's case-folded name to its file and content; ``active``
    is the user catalog in effect (None: the built-in one), ``stored_active`` the name
    ``active.json`` holds (which may name a catalog that cannot be used now: it is kept);
    ``problems`` are the files that could not be used, each with a one-line message.
    """

    found: Mapping[str, tuple[Path, GpuCatalog]]
    stored_active: str | None
    active: str | None
    problems: tuple[CatalogProblem, ...]

    def entries(self) -> list[tuple[GpuCatalog, Path]]:
        """Every usable user catalog with its file, sorted by name (case-insensitive)."""
        return sorted(((c, p) for p, c in self.found.values()), key=lambda e: e[0].name.casefold())

    def catalogs(self) -> list[GpuCatalog]:
        return [c for c, _ in self.entries()]

    def names(self) -> list[str]:
        return [c.name for c, _ in self.entries()]

    def get(self, name: str) -> GpuCatalog | None:
        hit = self.found.get(name.strip().casefold())
        return hit[1] if hit is not None else None

    def not_found(self, name: str) -> CatalogError:
        names = ", ".join(repr(n) for n in self.names()) or "none"
        return CatalogError(f"no user catalog named {name!r} (user catalogs: {names})")

    def user_catalog(self, name: str | None = None) -> GpuCatalog | None:
        """The user catalog ``name`` stands for: None for the active one, "Built-in": none."""
        if name is None:
            return self.get(self.active) if self.active is not None else None
        if name.strip().casefold() == BUILTIN_NAME.casefold():
            return None
        hit = self.get(name)
        if hit is None:
            raise self.not_found(name)
        return hit


class CatalogStore:
    """The user's GPU catalogs in a folder (default ``config_dir()/"catalogs"``).

    Every read scans the folder, so changes made by another ftcost process are seen; nothing is
    remembered between calls. ``scan``, ``load_all`` and ``effective_catalog`` return the
    problems they found as values (the caller tells them; the window tells each once) and set
    aside files that are corrupt. The plain queries (``list``, ``entries``, ``get_active``,
    ``exists``, ``load``) skip unusable files without touching them. Reading never writes
    ``active.json``: only choosing, renaming or deleting a catalog does.
    """

    def __init__(self, root: Path | None = None, builtin: GpuCatalog | None = None) -> None:
        self._root = Path(root) if root is not None else None
        self._builtin = builtin

    # --- Where -----------------------------------------------------------------------------------

    @property
    def root(self) -> Path:
        """The catalogs folder (created by the first save, not by reading)."""
        if self._root is not None:
            return self._root
        try:
            return catalogs_dir()
        except OSError as exc:
            raise CatalogError(f"cannot open the config folder: {exc.strerror or exc}") from None

    @property
    def builtin(self) -> GpuCatalog:
        if self._builtin is None:
            from .resources import builtin_catalog

            self._builtin = builtin_catalog()
        return self._builtin

    @property
    def active_path(self) -> Path:
        return self.root / ACTIVE_FILE

    def path_of(self, name: str) -> Path:
        """The file holding the user catalog ``name``; CatalogError if there is none."""
        return self._entry(name)[0]

    # --- Scanning --------------------------------------------------------------------------------

    def scan(self, set_aside: bool = True) -> CatalogScan:
        """Read the folder: the usable catalogs, the active one, and what could not be used.

        With ``set_aside`` (the default) a corrupt file is renamed aside and its problem says
        where it went; without, it is only skipped. A file that cannot be read (permissions) or
        that a newer ftcost wrote is never renamed: its content may be fine.
        """
        problems: list[CatalogProblem] = []
        found: dict[str, tuple[Path, GpuCatalog]] = {}
        unreadable = False
        newer: set[str] = set()

        def aside(path: Path, why: str) -> None:
            if not set_aside:
                problems.append(CatalogProblem(path, None, f"{why}: skipped"))
                return
            try:
                moved = move_aside(path)
            except OSError as exc:
                problems.append(
                    CatalogProblem(
                        path,
                        None,
                        f"{why}; it could not be set aside ({exc.strerror or exc}): skipped",
                    )
                )
                return
            problems.append(CatalogProblem(path, moved, f"{why}; moved to {moved}"))

        root = self.root
        try:
            entries = sorted(root.iterdir())
        except FileNotFoundError:
            entries = []
        except OSError as exc:
            raise CatalogError(f"cannot read {root}: {exc.strerror or exc}") from None
        for path in entries:
            name = path.name
            if name.startswith(".") or not name.endswith(SUFFIX) or name == ACTIVE_FILE:
                continue
            if path.is_dir():
                continue
            try:
                data = read_bytes(path, CATALOG)
            except FileReadError as exc:
                # Unreadable, not a regular file, too large: the content may be fine (or is not
                # ours to judge); it stays where it is.
                unreadable = True
                problems.append(
                    CatalogProblem(
                        path, None, f"catalog file {name}: {exc} Skipped, left as it is."
                    )
                )
                continue
            try:
                catalog = loads_catalog(data, source=f"catalog file {name}")
            except CatalogTooNewError as exc:
                # Not corrupt: a newer ftcost wrote it. Leave it in place for that version.
                newer.add(peek_name(data).casefold())
                problems.append(CatalogProblem(path, None, f"{exc}: left as it is and not loaded"))
                continue
            except CatalogError as exc:
                aside(path, str(exc))
                continue
            key = catalog.name.casefold()
            if key in found:
                other = found[key][0].name
                aside(path, f"catalog file {name} has the same name as {other} ({catalog.name!r})")
                continue
            found[key] = (path, catalog)

        stored = self._read_active(problems, aside)
        active = None
        if stored is not None:
            hit = found.get(stored.casefold())
            if hit is not None:
                active = hit[1].name
            else:
                if stored.casefold() in newer:
                    why = "was written by a newer ftcost"
                elif unreadable:
                    why = "is not among the catalog files that could be read"
                else:
                    why = "no longer exists"
                problems.append(
                    CatalogProblem(
                        self.active_path,
                        None,
                        f"the active catalog {stored!r} {why}; using the built-in catalog "
                        "(the choice is kept: pick a catalog to change it)",
                    )
                )
        return CatalogScan(found, stored, active, tuple(problems))

    def _read_active(self, problems: list[CatalogProblem], aside: Any) -> str | None:
        """The name stored in active.json (not checked against the catalogs); never writes."""
        path = self.active_path
        if not os.path.lexists(path):
            return None
        try:
            data = read_bytes(path, CATALOG_CHOICE)
        except FileReadError as exc:
            problems.append(
                CatalogProblem(path, None, f"{ACTIVE_FILE}: {exc} Using the built-in catalog.")
            )
            return None
        try:
            doc = json.loads(data)
            ok = isinstance(doc, dict) and doc.get("format") == ACTIVE_FORMAT
            version = doc.get("version") if ok else None
            if not isinstance(version, int) or isinstance(version, bool):
                ok, version = False, 0
            if ok and version > ACTIVE_VERSION:
                problems.append(
                    CatalogProblem(
                        path,
                        None,
                        f"{ACTIVE_FILE} was written by a newer ftcost: left as it "
                        "is; using the built-in catalog",
                    )
                )
                return None
            ok = ok and 1 <= version
            active = doc.get("active") if ok else None
            ok = ok and (active is None or isinstance(active, str))
        except (ValueError, RecursionError):  # JSONDecodeError, bad UTF-8, huge ints, nesting
            ok, active = False, None
        if not ok:
            aside(path, f"{ACTIVE_FILE} is not a valid active-catalog file; using the built-in one")
            return None
        return active

    def _entry(self, name: str) -> tuple[Path, GpuCatalog]:
        scan = self.scan(set_aside=False)
        hit = scan.found.get(name.strip().casefold())
        if hit is None:
            raise scan.not_found(name)
        return hit

    # --- Reading ---------------------------------------------------------------------------------

    def list(self) -> list[str]:
        """The user catalogs' names, sorted case-insensitively (the built-in one is not listed)."""
        return self.scan(set_aside=False).names()

    def entries(self) -> builtins.list[tuple[GpuCatalog, Path]]:
        """Every usable user catalog with its file, sorted by name (case-insensitive)."""
        return self.scan(set_aside=False).entries()

    def exists(self, name: str) -> bool:
        return name.strip().casefold() in self.scan(set_aside=False).found

    def load(self, name: str) -> GpuCatalog:
        """A user catalog by name (any case); ``"Built-in"`` gives the built-in one."""
        if name.strip().casefold() == BUILTIN_NAME.casefold():
            return self.builtin
        return self._entry(name)[1]

    def load_all(self) -> tuple[builtins.list[GpuCatalog], builtins.list[CatalogProblem]]:
        """Every usable user catalog (sorted by name) and the problems found on the way."""
        scan = self.scan()
        return scan.catalogs(), list(scan.problems)

    def get_active(self) -> str | None:
        """The active user catalog's name, or None for the built-in catalog (or none usable)."""
        return self.scan(set_aside=False).active

    # --- Writing ---------------------------------------------------------------------------------

    def _create(self, catalog: GpuCatalog) -> Path:
        """A new file for ``catalog`` named after its slug (``-2``, ``-3``: the first free one)."""
        data = dumps_catalog(catalog).encode("utf-8")
        root = self.root
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CatalogError(f"cannot create {root}: {exc.strerror or exc}") from None
        slug = slugify(catalog.name)
        for i in range(1, 10_000):
            stem = slug if i == 1 else f"{slug}-{i}"
            if stem in _RESERVED_STEMS:
                continue
            path = root / f"{stem}{SUFFIX}"
            try:
                create_exclusive(path, data)
            except FileExistsError:
                continue  # taken, perhaps a moment ago by another ftcost: never overwritten
            except OSError as exc:
                raise CatalogError(f"cannot write {path}: {exc.strerror or exc}") from None
            return path
        raise CatalogError(f"no free file name for catalog {catalog.name!r}")

    def _write(self, path: Path, catalog: GpuCatalog) -> None:
        try:
            atomic_write_text(path, dumps_catalog(catalog))
        except OSError as exc:
            raise CatalogError(f"cannot write {path}: {exc.strerror or exc}") from None

    @staticmethod
    def _checked(catalog: GpuCatalog) -> GpuCatalog:
        name = check_name(catalog.name)
        problems = row_problems(catalog.gpus)
        if problems:
            raise CatalogError(f"catalog {name!r} cannot be saved: {'; '.join(problems)}")
        if name != catalog.name:
            catalog = catalog.model_copy(update={"name": name})
        return catalog

    def save(self, catalog: GpuCatalog) -> Path:
        """Write (create or replace) the user catalog of this name, atomically; returns its file."""
        catalog = self._checked(catalog)
        hit = self.scan(set_aside=False).found.get(catalog.name.casefold())
        if hit is None:
            return self._create(catalog)
        self._write(hit[0], catalog)
        return hit[0]

    def create(self, name: str, from_catalog: GpuCatalog | None = None) -> GpuCatalog:
        """A new user catalog, empty or with the rows (and description) of ``from_catalog``."""
        name = check_name(name)
        if self.exists(name):
            raise CatalogError(f"a catalog named {name!r} already exists")
        src = from_catalog
        catalog = GpuCatalog(
            name=name,
            description=src.description if src is not None else "",
            gpus=src.gpus if src is not None else (),
        )
        self._create(self._checked(catalog))
        return catalog

    def duplicate(self, src_name: str, new_name: str) -> GpuCatalog:
        """A copy of a user catalog, or of the built-in one (``"Built-in"``), under a new name."""
        return self.create(new_name, from_catalog=self.load(src_name))

    def rename(self, old: str, new: str) -> GpuCatalog:
        """Rename a user catalog (and its file); the active catalog follows the rename."""
        new = check_name(new)
        scan = self.scan(set_aside=False)
        hit = scan.found.get(old.strip().casefold())
        if hit is None:
            raise scan.not_found(old)
        path, catalog = hit
        if new.casefold() != catalog.name.casefold() and new.casefold() in scan.found:
            raise CatalogError(f"cannot rename {catalog.name!r}: {new!r} already exists")
        renamed = catalog.model_copy(update={"name": new})
        if slugify(new) == slugify(catalog.name):
            self._write(path, renamed)
        else:
            self._create(renamed)  # the new file first: a crash leaves both, never neither
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        stored = scan.stored_active
        if stored is not None and stored.casefold() == catalog.name.casefold():
            self.set_active(new)
        return renamed

    def delete(self, name: str) -> None:
        """Delete a user catalog's file; if it was active, the built-in one becomes active."""
        scan = self.scan(set_aside=False)
        hit = scan.found.get(name.strip().casefold())
        if hit is None:
            raise scan.not_found(name)
        path, catalog = hit
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise CatalogError(f"cannot delete {path}: {exc.strerror or exc}") from None
        stored = scan.stored_active
        if stored is not None and stored.casefold() == catalog.name.casefold():
            self.set_active(None)

    def set_active(self, name: str | None) -> None:
        """Make a user catalog active (None or ``"Built-in"``: the built-in one), atomically."""
        if name is not None and name.strip().casefold() == BUILTIN_NAME.casefold():
            name = None
        if name is not None:
            name = self._entry(name)[1].name
        doc = {"format": ACTIVE_FORMAT, "version": ACTIVE_VERSION, "active": name}
        try:
            atomic_write_text(self.active_path, json.dumps(doc, indent=2) + "\n")
        except OSError as exc:
            raise CatalogError(f"cannot write {self.active_path}: {exc.strerror or exc}") from None

    # --- The effective catalog -------------------------------------------------------------------

    def effective_catalog(
        self, name: str | None = None
    ) -> tuple[builtins.list[EffectiveRow], builtins.list[CatalogProblem]]:
        """Built-in rows overridden by a user catalog's: the active one, or ``name`` if given.

        ``name`` ``"Built-in"`` gives the built-in rows alone; an unknown name is a CatalogError.
        Problems found on the way (files set aside, an active catalog that cannot be used) are
        returned with the rows.
        """
        scan = self.scan()
        return merge_catalogs(self.builtin, scan.user_catalog(name)), list(scan.problems)

    def effective_name(self, name: str | None = None) -> str:
        """The name of the catalog ``effective_catalog(name)`` uses."""
        user = self.scan(set_aside=False).user_catalog(name)
        return user.name if user is not None else BUILTIN_NAME
