"""One helper to declare a model field with everything the form, file and CLI need."""

from __future__ import annotations

from typing import Any

from pydantic import Field


def fld(
    default: Any,
    title: str,
    help: str,
    unit: str = "",
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    step: float | None = None,
    decimals: int | None = None,
    advanced: bool = False,
    zero_text: str | None = None,
) -> Any:
    """A pydantic Field carrying title, unit, bounds, default and help text.

    The window builds its widgets from these (label, suffix, range, step, tooltip), so the
    unit, step and decimals live in ``json_schema_extra``.
    """
    extra: dict[str, Any] = {"unit": unit}
    if step is not None:
        extra["step"] = step
    if decimals is not None:
        extra["decimals"] = decimals
    if advanced:
        extra["advanced"] = True
    if zero_text is not None:
        extra["zero_text"] = zero_text  # what 0 means, e.g. "auto" (derived from other fields)
    return Field(
        default,
        title=title,
        description=help,
        ge=ge,
        gt=gt,
        le=le,
        lt=lt,
        json_schema_extra=extra,
    )
