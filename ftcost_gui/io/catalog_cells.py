"""One cell vocabulary for GPU catalog rows: how each field is read from and written to text.

The CSV import and export (``io/catalog_csv.py``) and the catalog editor's table
(``gui/catalog/table_model.py``) both go through ``COLUMNS``, so a value is written the same way
in a file and in a cell, and typed text is read the same way in both. Each column comes from a
field of ``core.catalog.CatalogGpu``: its label, unit and help from the field's metadata, its kind
from the field's type. Adding a field to the row model adds a column everywhere; nothing here
or in the editor needs to change.

Kinds: ``text``; ``number`` (float); ``integer``; ``yes_no``; ``choice`` (a ``Literal``).
An empty cell means ``None`` for an optional field, ``""`` for text, and the field's default for
a yes/no or choice field, except for the ``required`` columns, where a blank would be a guess
(the spec numbers, id, name and interconnect): those must be filled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from ..core.catalog import TIME_COLUMNS, CatalogGpu
from ..core.fields import field_spec
from . import names

Kind = Literal["text", "number", "integer", "yes_no", "choice"]

TRUE_WORDS = frozenset({"true", "yes", "y", "1"})
FALSE_WORDS = frozenset({"false", "no", "n", "0"})
# Text and choice fields whose blank would be a guess (numbers that are not optional are required
# by their kind).
_NO_BLANK = frozenset({"id", "name", "interconnect"})
# The time model's columns (catalog format 3): a blank, or a column an older CSV lacks, is filled
# by core.catalog.fill_time_columns (typical values; the achievable fraction by its vendor rule).
_FILLED = frozenset(TIME_COLUMNS)
# Free text: shown whole in a tooltip, its column width capped.
LONG_TEXT = frozenset({"price_source", "spec_source", "notes", "achievable_source"})


class CellError(ValueError):
    """Typed text that is not a value of the column's kind; the message says why (one line)."""


@dataclass(frozen=True, slots=True)
class Column:
    """One field of a catalog row as a cell: how to show, parse and write it."""

    field: str
    label: str
    unit: str
    help: str
    kind: Kind
    optional: bool  # None is a value ("empty: none")
    required: bool  # a CSV row must fill it; a blank has no meaning
    blank: Any  # what an empty cell means when the column is not required
    choices: tuple[str, ...]
    long_text: bool

    @property
    def numeric(self) -> bool:
        return self.kind in ("number", "integer")

    def header(self) -> str:
        """'Label (unit)' or 'Label'."""
        return f"{self.label} ({self.unit})" if self.unit else self.label

    def format(self, value: Any) -> str:
        """The cell's text: exact, so parsing it gives the value back bit for bit."""
        if value is None:
            return ""
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float):
            if not math.isfinite(value):
                return str(value)
            text = repr(value)
            return text[:-2] if text.endswith(".0") else text
        return str(value)

    def parse(self, text: str) -> Any:
        """The value typed text stands for; CellError if it is not one of this kind.

        Bounds are not checked here (``core.catalog.cell_error`` and row validation do that).
        """
        raw = text.strip()
        if not raw:
            if self.required:
                raise CellError("required, but empty")
            return self.blank
        if self.kind == "yes_no":
            low = raw.lower()
            if low in TRUE_WORDS:
                return True
            if low in FALSE_WORDS:
                return False
            raise CellError("not a yes/no value (true/false, yes/no, 1/0)")
        if self.kind == "number":
            try:
                return float(raw)
            except ValueError:
                raise CellError("not a valid number") from None
        if self.kind == "integer":
            try:
                return int(raw)
            except ValueError:
                pass
            try:
                number = float(raw)
            except ValueError:
                raise CellError("not a valid integer") from None
            if not number.is_integer():
                raise CellError("not a valid integer (a whole number)")
            return int(number)
        if self.kind == "choice":
            if raw not in self.choices:
                raise CellError(f"should be one of {', '.join(map(repr, self.choices))}")
            return raw
        return raw

    # --- CSV ------------------------------------------------------------------------------------
    def to_csv(self, value: Any) -> str:
        """The cell written to a CSV file: text never starts a spreadsheet formula."""
        cell = self.format(value)
        if self.kind != "text":
            return cell  # numbers and fixed words, written by ftcost: never a formula
        # The text kept whole (notes may span lines): import gives back exactly what was exported.
        return names.for_csv(cell, keep_text=True)

    def from_csv(self, cell: str) -> Any:
        """A CSV cell's value (``to_csv`` undone); CellError if it is not one of this kind."""
        return self.parse(names.from_csv(cell) if self.kind == "text" else cell)


def _kind(spec_kind: str) -> Kind:
    return {
        "str": "text",
        "float": "number",
        "int": "integer",
        "bool": "yes_no",
        "choice": "choice",
    }[spec_kind]  # type: ignore[return-value]


def column(field: str, model: type[BaseModel] = CatalogGpu) -> Column:
    """The column of a field of the catalog row model (or of another, for tests)."""
    s = field_spec(model, field)
    kind = _kind(s.kind)
    required = field in _NO_BLANK or (
        kind in ("number", "integer") and not s.optional and field not in _FILLED
    )
    if s.optional or (field in _FILLED and kind != "text"):
        blank: Any = None
    elif kind == "text":
        blank = ""
    else:
        blank = s.default
    return Column(
        field=field,
        label=s.label,
        unit=s.unit,
        help=s.tooltip,
        kind=kind,
        optional=s.optional,
        required=required,
        blank=blank,
        choices=s.choices,
        long_text=field in LONG_TEXT,
    )


COLUMNS: tuple[Column, ...] = tuple(column(f) for f in CatalogGpu.model_fields)
"""Every field of a catalog row, in the row model's order (the CSV column order)."""
BY_FIELD: dict[str, Column] = {c.field: c for c in COLUMNS}
# The editor shows what tells offers apart first; every other column follows in model order.
_FIRST = ("id", "name", "provider", "region", "pricing_tier")
EDITOR_COLUMNS: tuple[Column, ...] = tuple(BY_FIELD[f] for f in _FIRST) + tuple(
    c for c in COLUMNS if c.field not in _FIRST
)
"""The editor's column order."""
