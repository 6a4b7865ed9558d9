"""User GPU catalogs: one versioned JSON file per catalog under ``<config dir>/catalogs/``.

``{"format": "ftcost-gpu-catalog", "version": 1, "app": "ftcost 0.1.0", "name": ..., "description":
..., "gpus": [...]}``; the file name is a slug of the catalog's name (the name inside the file is
what counts, so odd characters in names are harmless). ``active.json`` in the same folder names the
active catalog (absent or ``null``: the built-in one).

Saves are atomic. A catalog file that cannot be used (unreadable, not JSON, not a catalog, written
by a newer ftcost, invalid rows, duplicate ids, a name another file already has) is renamed to
``<file>.corrupt-YYYYmmdd-HHMMSS-<microseconds>`` (never overwritten, never deleted) and reported
once as a ``CatalogProblem``; everything else keeps working. See docs/catalogs.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .. import __version__
from ..core.catalog import (
    BUILTIN_NAME,
    EffectiveRow,
    GpuCatalog,
    merge_catalogs,
    row_problems,
)
from ..core.errors import first_error
from .atomic import atomic_write_text
from .paths import config_dir

FORMAT = "ftcost-gpu-catalog"
VERSION = 1
SUFFIX = ".json"
ACTIVE_FILE = "active.json"
ACTIVE_FORMAT = "ftcost-active-catalog"
CORRUPT_TAG = ".corrupt-"
MAX_NAME_LEN = 80
_SLUG_MAX = 48
# Stems a catalog file may not use: the active-catalog file, and Windows device names.
_RESERVED_STEMS = frozenset(
    {"active", "con", "prn", "aux", "nul"}
    | {f"com{i}" for i in range(10)}
    | {f"lpt{i}" for i in range(10)}
)


class CatalogError(Exception):
    """A catalog operation that cannot be done; the message says why, in one line."""


class CatalogTooNewError(CatalogError):
    """A catalog written by a newer ftcost: skipped, never moved aside."""


@dataclass(frozen=True, slots=True)
class CatalogProblem:
    """A catalog file that was set aside (``moved_to``) or could not be used; told once."""

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


def check_name(name: str) -> str:
    """The name, stripped, if a user catalog may have it; else CatalogError saying why."""
    if not isinstance(name, str):
        raise CatalogError("a catalog name must be text")
    n = name.strip()
    if not n:
        raise CatalogError("a catalog name must not be empty")
    if len(n) > MAX_NAME_LEN:
        raise CatalogError(f"a catalog name must be at most {MAX_NAME_LEN} characters")
    if any(unicodedata.category(c).startswith("C") for c in n):
        raise CatalogError("a catalog name must not contain control characters")
    if n.casefold() == BUILTIN_NAME.casefold():
        raise CatalogError(f"{BUILTIN_NAME!r} is the built-in catalog's name; choose another")
    return n


def dumps_catalog(catalog: GpuCatalog) -> str:
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "app": f"ftcost {__version__}",
        "name": catalog.name,
        "description": catalog.description,
        "gpus": [g.model_dump(mode="json") for g in catalog.gpus],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _no_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def loads_catalog(text: str | bytes, source: str = "the file") -> GpuCatalog:
    """Parse and validate a catalog document; CatalogError names what is wrong (one line)."""
    try:
        doc: Any = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, bad UTF-8, huge ints, nesting
        raise CatalogError(f"{source} is not valid JSON (corrupt or truncated): {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CatalogError(f"{source} is not an ftcost GPU catalog (no 'format': '{FORMAT}')")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CatalogError(f"{source} has no valid format version")
    if version > VERSION:
        raise CatalogTooNewError(
            f"{source} was written by a newer ftcost (format version {version}; this one reads up "
            f"to {VERSION})"
        )
    if not isinstance(doc.get("name"), str):
        raise CatalogError(f"{source} has no catalog name")
    try:
        catalog = GpuCatalog.model_validate(doc)
    except ValidationError as exc:
        raise CatalogError(f"{source} has an invalid value: {first_error(exc)}") from None
    try:
        check_name(catalog.name)
    except CatalogError as exc:
        raise CatalogError(f"{source}: {exc}") from None
    problems = row_problems(catalog.gpus)
    if problems:
        raise CatalogError(f"{source}: {'; '.join(problems)}")
    return catalog


def _timestamp() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-%f")


def move_aside(path: Path) -> Path:
    """Rename ``path`` to ``<path>.corrupt-<timestamp>``, never replacing an existing file."""
    base = path.with_name(f"{path.name}{CORRUPT_TAG}{_timestamp()}")
    for i in range(1000):
        target = base if i == 0 else base.with_name(f"{base.name}-{i}")
        try:
            os.link(path, target)  # fails if target exists: nothing is overwritten
        except FileExistsError:
            continue
        except OSError:
            # No hard links here (some file systems): check, then rename.
            if target.exists():
                continue
            os.rename(path, target)
            return target
        os.unlink(path)
        return target
    raise OSError(f"no free name to set {path.name} aside")


class CatalogStore:
    """The user's GPU catalogs in a folder (default ``config_dir()/"catalogs"``).

    Every read scans the folder, so changes made by another ftcost process are seen. Problems
    found on the way (files set aside) are collected and handed out once by ``load_all``,
    ``effective_catalog`` or ``take_problems``.
    """

    def __init__(self, root: Path | None = None, builtin: GpuCatalog | None = None) -> None:
        self._root = Path(root) if root is not None else None
        self._builtin = builtin
        self._pending: list[CatalogProblem] = []
        self._told: set[tuple[str, str]] = set()

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

    def path_of(self, name: str) -> Path:
        """The file holding the user catalog ``name``; CatalogError if there is none."""
        return self._entry(name)[0]

    # --- Problems --------------------------------------------------------------------------------

    def _problem(self, path: Path, moved_to: Path | None, message: str) -> None:
        key = (str(path), message)
        if moved_to is None and key in self._told:
            return  # a file that could not be moved aside: tell once per store
        self._told.add(key)
        self._pending.append(CatalogProblem(path, moved_to, message))

    def _set_aside(self, path: Path, why: str) -> None:
        try:
            moved = move_aside(path)
        except OSError as exc:
            self._problem(
                path, None, f"{why}; it could not be set aside ({exc.strerror or exc}): skipped"
            )
            return
        self._problem(path, moved, f"{why}; moved to {moved}")

    def take_problems(self) -> list[CatalogProblem]:
        """Problems found since the last call (each reported once)."""
        out, self._pending = self._pending, []
        return out

    # --- Scanning --------------------------------------------------------------------------------

    def _scan(self) -> dict[str, tuple[Path, GpuCatalog]]:
        """{casefolded name: (file, catalog)} of every usable file; the rest is set aside."""
        found: dict[str, tuple[Path, GpuCatalog]] = {}
        root = self.root
        try:
            entries = sorted(root.iterdir())
        except FileNotFoundError:
            return found
        except OSError as exc:
            raise CatalogError(f"cannot read {root}: {exc.strerror or exc}") from None
        for path in entries:
            name = path.name
            if name.startswith(".") or not name.endswith(SUFFIX) or name == ACTIVE_FILE:
                continue
            if not path.is_file():
                continue
            try:
                data = path.read_bytes()
            except OSError as exc:
                self._set_aside(path, f"catalog file {name} cannot be read ({exc.strerror or exc})")
                continue
            try:
                catalog = loads_catalog(data, source=f"catalog file {name}")
            except CatalogTooNewError as exc:
                # Not corrupt: a newer ftcost wrote it. Leave it in place for that version.
                self._problem(path, None, f"{exc}: left as it is and not loaded")
                continue
            except CatalogError as exc:
                self._set_aside(path, str(exc))
                continue
            key = catalog.name.casefold()
            if key in found:
                other = found[key][0].name
                self._set_aside(
                    path, f"catalog file {name} has the same name as {other} ({catalog.name!r})"
                )
                continue
            found[key] = (path, catalog)
        return found

    @staticmethod
    def _not_found(name: str, found: dict[str, tuple[Path, GpuCatalog]]) -> CatalogError:
        names = ", ".join(repr(c.name) for _, c in found.values()) or "none"
        return CatalogError(f"no user catalog named {name!r} (user catalogs: {names})")

    def _entry(self, name: str) -> tuple[Path, GpuCatalog]:
        found = self._scan()
        hit = found.get(name.strip().casefold())
        if hit is None:
            raise self._not_found(name, found)
        return hit

    # --- Reading ---------------------------------------------------------------------------------

    def list(self) -> list[str]:
        """The user catalogs' names, sorted case-insensitively (the built-in one is not listed)."""
        return sorted((c.name for _, c in self._scan().values()), key=str.casefold)

    def entries(self) -> list[tuple[GpuCatalog, Path]]:
        """Every usable user catalog with its file, sorted by name (case-insensitive)."""
        return sorted(
            ((c, p) for p, c in self._scan().values()), key=lambda e: e[0].name.casefold()
        )

    def exists(self, name: str) -> bool:
        return name.strip().casefold() in self._scan()

    def load(self, name: str) -> GpuCatalog:
        """A user catalog by name (any case); ``"Built-in"`` gives the built-in one."""
        if name.strip().casefold() == BUILTIN_NAME.casefold():
            return self.builtin
        return self._entry(name)[1]

    def load_all(self) -> tuple[list[GpuCatalog], list[CatalogProblem]]:
        """Every usable user catalog (sorted by name) and the problems found (told once)."""
        found = self._scan()
        catalogs = sorted((c for _, c in found.values()), key=lambda c: c.name.casefold())
        self._active_name(found)  # a dangling active name is a problem to tell as well
        return catalogs, self.take_problems()

    # --- Writing ---------------------------------------------------------------------------------

    def _new_path(self, name: str, taken: set[Path]) -> Path:
        slug = slugify(name)
        for i in range(1, 10_000):
            stem = slug if i == 1 else f"{slug}-{i}"
            if stem in _RESERVED_STEMS:
                continue
            path = self.root / f"{stem}{SUFFIX}"
            if path not in taken and not path.exists():
                return path
        raise CatalogError(f"no free file name for catalog {name!r}")

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
        found = self._scan()
        hit = found.get(catalog.name.casefold())
        path = hit[0] if hit else self._new_path(catalog.name, {p for p, _ in found.values()})
        self._write(path, catalog)
        return path

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
        self.save(catalog)
        return catalog

    def duplicate(self, src_name: str, new_name: str) -> GpuCatalog:
        """A copy of a user catalog, or of the built-in one (``"Built-in"``), under a new name."""
        return self.create(new_name, from_catalog=self.load(src_name))

    def rename(self, old: str, new: str) -> GpuCatalog:
        """Rename a user catalog (and its file); the active catalog follows the rename."""
        new = check_name(new)
        found = self._scan()
        hit = found.get(old.strip().casefold())
        if hit is None:
            raise self._not_found(old, found)
        path, catalog = hit
        if new.casefold() != catalog.name.casefold() and new.casefold() in found:
            raise CatalogError(f"cannot rename {catalog.name!r}: {new!r} already exists")
        active = self._read_active()
        renamed = catalog.model_copy(update={"name": new})
        target = path
        if slugify(new) != slugify(catalog.name):
            target = self._new_path(new, {p for p, _ in found.values()})
        self._write(target, renamed)  # the new file first: a crash leaves both, never neither
        if target != path:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        if active is not None and active.casefold() == catalog.name.casefold():
            self.set_active(new)
        return renamed

    def delete(self, name: str) -> None:
        """Delete a user catalog's file; if it was active, the built-in one becomes active."""
        path, catalog = self._entry(name)
        active = self._read_active()
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise CatalogError(f"cannot delete {path}: {exc.strerror or exc}") from None
        if active is not None and active.casefold() == catalog.name.casefold():
            self.set_active(None)

    # --- Active catalog --------------------------------------------------------------------------

    @property
    def active_path(self) -> Path:
        return self.root / ACTIVE_FILE

    def _read_active(self) -> str | None:
        """The name stored in active.json (not checked against the catalogs)."""
        path = self.active_path
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._problem(path, None, f"{ACTIVE_FILE} cannot be read ({exc.strerror or exc})")
            return None
        try:
            doc = json.loads(data)
            ok = isinstance(doc, dict) and doc.get("format") == ACTIVE_FORMAT
            version = doc.get("version") if ok else None
            ok = ok and isinstance(version, int) and not isinstance(version, bool)
            if ok and version > VERSION:
                self._problem(
                    path, None, f"{ACTIVE_FILE} was written by a newer ftcost: left as it is; "
                    "using the built-in catalog",
                )  # fmt: skip
                return None
            ok = ok and 1 <= version
            active = doc.get("active") if ok else None
            ok = ok and (active is None or isinstance(active, str))
        except (ValueError, RecursionError):  # JSONDecodeError, bad UTF-8, huge ints, nesting
            ok, active = False, None
        if not ok:
            self._set_aside(
                path, f"{ACTIVE_FILE} is not a valid active-catalog file; using the built-in one"
            )
            return None
        return active

    def _active_name(self, found: dict[str, tuple[Path, GpuCatalog]] | None = None) -> str | None:
        """The active catalog's name if it exists; a dangling name is reset and told."""
        stored = self._read_active()
        if stored is None:
            return None
        hit = (found if found is not None else self._scan()).get(stored.casefold())
        if hit is None:
            with contextlib.suppress(CatalogError):
                self.set_active(None)
            self._problem(
                self.active_path,
                None,
                f"the active catalog {stored!r} no longer exists; using the built-in catalog",
            )
            return None
        return hit[1].name

    def get_active(self) -> str | None:
        """The active user catalog's name, or None for the built-in catalog."""
        return self._active_name()

    def set_active(self, name: str | None) -> None:
        """Make a user catalog active (None or ``"Built-in"``: the built-in one), atomically."""
        if name is not None and name.strip().casefold() == BUILTIN_NAME.casefold():
            name = None
        if name is not None:
            name = self._entry(name)[1].name
        doc = {"format": ACTIVE_FORMAT, "version": VERSION, "active": name}
        try:
            atomic_write_text(self.active_path, json.dumps(doc, indent=2) + "\n")
        except OSError as exc:
            raise CatalogError(f"cannot write {self.active_path}: {exc.strerror or exc}") from None

    # --- The effective catalog -------------------------------------------------------------------

    def _resolve(self, name: str | None) -> GpuCatalog | None:
        """The user catalog ``effective_catalog(name)`` uses (None: the built-in one alone)."""
        found = self._scan()  # always: a corrupt file is told even when the built-in is active
        if name is None:
            active = self._active_name(found)
            return found[active.casefold()][1] if active is not None else None
        if name.strip().casefold() == BUILTIN_NAME.casefold():
            return None
        hit = found.get(name.strip().casefold())
        if hit is None:
            raise self._not_found(name, found)
        return hit[1]

    def effective_catalog(
        self, name: str | None = None
    ) -> tuple[list[EffectiveRow], list[CatalogProblem]]:
        """Built-in rows overridden by a user catalog's: the active one, or ``name`` if given.

        ``name`` ``"Built-in"`` gives the built-in rows alone; an unknown name is a CatalogError.
        Problems found on the way (files set aside) are returned, each once.
        """
        user = self._resolve(name)
        return merge_catalogs(self.builtin, user), self.take_problems()

    def effective_name(self, name: str | None = None) -> str:
        """The name of the catalog ``effective_catalog(name)`` uses."""
        user = self._resolve(name)
        return user.name if user is not None else BUILTIN_NAME
