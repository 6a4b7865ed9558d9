"""GPU catalog rows as CSV: one row per GPU, the columns are the catalog fields (docs/catalogs.md).

Export writes every column (UTF-8, comma-separated, a header row). Import reads those columns in
any order; the required ones must be present and non-empty in every row; an empty optional cell
means what ``io/catalog_cells.py`` says for its column (none, empty text, or the documented
default). Cells are read and written by the same column kinds as the catalog editor's cells; text
cells never start a spreadsheet formula (``io/names.py``). Each refused cell is reported as a
``RowError`` naming the line, the column and the reason; the other rows still import. Export then
import gives back exactly the same rows.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.catalog import CatalogGpu, EffectiveRow, fill_time_columns, id_key, validate_row
from .atomic import atomic_write_text
from .catalog_cells import BY_FIELD, CellError
from .catalog_cells import COLUMNS as CELL_COLUMNS
from .catalog_format import CatalogError
from .loader import CSV, FileReadError, read_bytes

COLUMNS: tuple[str, ...] = tuple(c.field for c in CELL_COLUMNS)
"""The documented columns, in export order."""
REQUIRED_COLUMNS: tuple[str, ...] = tuple(c.field for c in CELL_COLUMNS if c.required)
"""Columns every file must have and every row must fill (their defaults would be a guess)."""


@dataclass(frozen=True, slots=True)
class RowError:
    """A refused row: the line (1 = the header), the column and why."""

    line: int
    column: str
    reason: str
    value: str = ""

    def __str__(self) -> str:
        where = f"line {self.line}" + (f", column {self.column}" if self.column else "")
        got = f" (got {self.value!r})" if self.value else ""
        return f"{where}: {self.reason}{got}"


# --- Export --------------------------------------------------------------------------------------


def dumps_csv(rows: Iterable[CatalogGpu | EffectiveRow]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for r in rows:
        g = r.gpu if isinstance(r, EffectiveRow) else r
        writer.writerow([c.to_csv(getattr(g, c.field)) for c in CELL_COLUMNS])
    return buf.getvalue()


def export_csv(rows: Iterable[CatalogGpu | EffectiveRow], path: str | os.PathLike[str]) -> None:
    """Write the rows (catalog rows or effective rows) to ``path`` atomically."""
    text = dumps_csv(rows)
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        raise CatalogError(f"cannot write {path}: {exc.strerror or exc}") from None


# --- Import --------------------------------------------------------------------------------------


def _dialect(text: str) -> str:
    """',' unless the header line has none but has ';' or a tab (spreadsheets in some locales)."""
    head = text.split("\n", 1)[0]
    if "," in head:
        return ","
    for d in (";", "\t"):
        if d in head:
            return d
    return ","


def loads_csv(text: str, source: str = "the file") -> tuple[list[CatalogGpu], list[RowError]]:
    """Rows from CSV text; see ``import_csv``."""
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), delimiter=_dialect(text)))
    except csv.Error as exc:
        raise CatalogError(f"{source} is not valid CSV: {exc}") from None
    # csv.reader loses line numbers of multi-line cells: recount them from the records.
    if not records or not any(c.strip() for c in records[0]):
        raise CatalogError(f"{source} has no header row (the columns are {', '.join(COLUMNS)})")
    header = [h.strip() for h in records[0]]
    known: dict[int, str] = {}
    blank_columns: list[int] = []
    for i, h in enumerate(header):
        if not h:
            blank_columns.append(i)
        elif h not in COLUMNS:
            raise CatalogError(
                f"{source}: unknown column {h!r} (the columns are {', '.join(COLUMNS)})"
            )
        elif h in known.values():
            raise CatalogError(f"{source}: column {h!r} appears twice")
        else:
            known[i] = h
    missing = [c for c in REQUIRED_COLUMNS if c not in known.values()]
    if missing:
        raise CatalogError(f"{source}: missing required column {', '.join(map(repr, missing))}")

    absent_columns = [c for c in COLUMNS if c not in known.values()]
    gpus: list[CatalogGpu] = []
    errors: list[RowError] = []
    first_line: dict[str, int] = {}
    line = 1 + _newlines(records[0])
    for cells in records[1:]:
        line += 1
        start = line
        line += _newlines(cells)
        if not any(c.strip() for c in cells):
            continue  # a blank line
        row_errors: list[RowError] = []
        for i in blank_columns:
            if i < len(cells) and cells[i].strip():
                row_errors.append(RowError(start, "", "a value under a column without a name"))
        extra = [c for c in cells[len(header) :] if c.strip()]
        if extra:
            row_errors.append(RowError(start, "", "more cells than columns", extra[0]))
        data: dict[str, Any] = {}
        raws: dict[str, str] = {}
        for i, column in known.items():
            raw = raws[column] = cells[i] if i < len(cells) else ""
            try:
                data[column] = BY_FIELD[column].from_csv(raw)
            except CellError as exc:
                row_errors.append(RowError(start, column, str(exc), raw.strip()))
        for column in absent_columns:  # a column the file leaves out: as if empty
            data[column] = BY_FIELD[column].blank
        if not row_errors:
            gpu, problems = validate_row(fill_time_columns(data))
            for column, msg in problems:
                row_errors.append(RowError(start, column, msg, raws.get(column, "").strip()))
            if gpu is not None:
                k = id_key(gpu.id)
                if k in first_line:
                    row_errors.append(
                        RowError(
                            start, "id", f"duplicate id (also on line {first_line[k]})", gpu.id
                        )
                    )
                else:
                    first_line[k] = start
                    gpus.append(gpu)
        errors += row_errors
    return gpus, errors


def _newlines(cells: list[str]) -> int:
    """Line breaks inside quoted cells of one record."""
    return sum(c.count("\n") for c in cells)


def import_csv(path: str | os.PathLike[str]) -> tuple[list[CatalogGpu], list[RowError]]:
    """The valid rows of a CSV file (in file order) and a RowError for each refused cell.

    The file's structure is checked first: unreadable, not UTF-8, no header, an unknown or
    repeated column, or a missing required column is a CatalogError naming it.
    """
    p = Path(path)
    try:
        data = read_bytes(p, CSV)
    except FileReadError as exc:
        raise CatalogError(f"cannot read the CSV file: {exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CatalogError(f"{p.name} is not UTF-8 text (byte {exc.start})") from None
    return loads_csv(text, source=p.name)
