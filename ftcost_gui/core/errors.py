"""Pydantic validation errors as the one line a file reader or form shows."""

from __future__ import annotations

from pydantic import ValidationError


def first_error(err: ValidationError) -> str:
    """The first failing field by its dotted path and pydantic's message ('loc: msg')."""
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    msg = str(first["msg"]).removeprefix("Value error, ")
    return f"{where}: {msg}" if where else msg
