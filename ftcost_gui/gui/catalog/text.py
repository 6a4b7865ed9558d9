"""How the catalog views word things (no Qt): origins, prices, problems, the price check."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.catalog import BUILTIN_NAME, TIER_LABELS, USER_ORIGIN_PREFIX, EffectiveRow
from ...core.inputs import GpuSpec
from ...io.catalog_store import CatalogProblem
from ...io.names import plain
from ...present.time_texts import price_word

APP_TITLE = "ftcost"


def origin_label(origin: str) -> str:
    """'built-in' or 'user: NAME' (how the picker and the tables show where a row came from)."""
    if origin.startswith(USER_ORIGIN_PREFIX):
        return f"user: {origin[len(USER_ORIGIN_PREFIX) :]}"
    return origin


def origin_catalog(origin: str) -> str:
    """The catalog name an origin stands for ('Built-in' for built-in rows)."""
    if origin.startswith(USER_ORIGIN_PREFIX):
        return origin[len(USER_ORIGIN_PREFIX) :]
    return BUILTIN_NAME


def fmt_price(value: float | None) -> str:
    return "no spot price" if value is None else f"${value:,.2f}/h"


def tier_label(tier: str) -> str:
    return TIER_LABELS.get(tier, tier)


def problems_text(problems: Sequence[CatalogProblem]) -> str:
    lines = "\n".join(f"• {p.message}" for p in problems)
    return (
        f"Some GPU catalog files could not be used:\n\n{lines}\n\n"
        "ftcost carries on with the other catalogs. Nothing was deleted: a file set aside keeps "
        "its contents under the new name."
    )


def problems_status(problems: Sequence[CatalogProblem]) -> str:
    """One status-bar line for a batch of problems."""
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"GPU catalogs: {problems[0].message}{more}"


def price_message(spec: GpuSpec, row: EffectiveRow) -> str:
    """'This estimate uses $X/h; your catalog 'NAME' says $Y/h (GPU).'"""
    catalog = origin_catalog(row.origin)
    g = row.gpu
    a, b = g.spot_usd_per_hour, spec.spot_usd_per_hour
    spot_differs = (a is None) != (b is None) or (a is not None and b is not None and a != b)
    uses = fmt_price(spec.on_demand_usd_per_hour)
    says = fmt_price(g.on_demand_usd_per_hour)
    tier_differs = g.pricing_tier != spec.pricing_tier
    if spot_differs or tier_differs:
        # The tier words the first price: the same $/h as a 1-year commitment is another bill.
        uses += f" {price_word(spec.pricing_tier)}"
        says += f" {price_word(g.pricing_tier)}"
    if spot_differs:
        uses += f", {fmt_price(b)} spot"
        says += f", {fmt_price(a)} spot"
    if tier_differs:  # a spot tier bills its spot price: say so
        uses += ", billed at spot" if spec.pricing_tier == "spot" else ""
        says += ", billed at spot" if g.pricing_tier == "spot" else ""
    return f"This estimate uses {uses}; your catalog '{catalog}' says {says} ({plain(spec.name)})."
