"""The JSON documents the CLI prints (``--json``): versioned, finite, one shape per command."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.architecture import count_params
from ..core.catalog import BUILTIN_NAME, EffectiveRow, GpuCatalog, PresetLibrary, merge_catalogs
from ..core.compare import GpuComparison, cheapest_fitting, fastest_fitting
from ..core.inputs import EstimateInputs
from ..core.results import EstimateResult

RESULT_FORMAT = "ftcost-result"
RESULT_VERSION = 1


def finite(value: Any) -> Any:
    """A copy with every non-finite float (inf, nan) replaced by None, so the JSON is valid."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def to_json(doc: Any) -> str:
    return json.dumps(finite(doc), indent=2, allow_nan=False)


def estimate_document(inputs: EstimateInputs, result: EstimateResult) -> dict[str, Any]:
    """``{"format": "ftcost-result", "version": 1, "inputs": ..., "result": ...}`` (docs/cli.md)."""
    return {
        "format": RESULT_FORMAT,
        "version": RESULT_VERSION,
        "inputs": inputs.model_dump(mode="json"),
        "result": result.model_dump(mode="json"),
    }


def rows_of(catalog: GpuCatalog | Sequence[EffectiveRow]) -> list[EffectiveRow]:
    return merge_catalogs(catalog) if isinstance(catalog, GpuCatalog) else list(catalog)


def gpus_document(
    catalog: GpuCatalog | Sequence[EffectiveRow], name: str | None = None
) -> dict[str, Any]:
    """``ftcost gpus --json``: each GPU's fields plus ``origin`` and ``overrides_builtin``."""
    rows = rows_of(catalog)
    if name is None:
        name = catalog.name if isinstance(catalog, GpuCatalog) else BUILTIN_NAME
    return {
        "format": "ftcost-gpus",
        "version": 1,
        "catalog": name,
        "gpus": [
            {
                **r.gpu.model_dump(mode="json"),
                "origin": r.origin,
                "overrides_builtin": r.overrides_builtin,
            }
            for r in rows
        ],
    }


def compare_row_document(row: GpuComparison, rank: int | None) -> dict[str, Any]:
    return {"rank": rank, **row.model_dump(mode="json")}


def compare_document(
    inputs: EstimateInputs, ranked: Sequence[GpuComparison], catalog: str, by: str
) -> dict[str, Any]:
    """``ftcost compare --json`` (docs/catalogs.md): the ranked rows and the picks."""
    cheapest = cheapest_fitting(ranked)
    fastest = fastest_fitting(ranked)
    rows = []
    rank = 0
    for r in ranked:
        if r.fits:
            rank += 1
        rows.append(compare_row_document(r, rank if r.fits else None))
    return {
        "format": "ftcost-compare",
        "version": 1,
        "catalog": catalog,
        "ranked_by": "cost" if by == "cost" else "wall_clock",
        "cheapest_fitting": cheapest.gpu_id if cheapest else None,
        "fastest_fitting": fastest.gpu_id if fastest else None,
        "inputs": inputs.model_dump(mode="json"),
        "rows": rows,
    }


def catalogs_document(
    entries: Sequence[tuple[GpuCatalog, Path]], active: str | None, folder: Path | None
) -> dict[str, Any]:
    """``ftcost catalogs --json``: the folder (None when it cannot be used), the active catalog's
    name and the user catalogs."""
    return {
        "format": "ftcost-catalogs",
        "version": 1,
        "folder": None if folder is None else str(folder),
        "active": active if active is not None else BUILTIN_NAME,
        "catalogs": [
            {"name": c.name, "description": c.description, "gpus": len(c.gpus), "file": str(p)}
            for c, p in entries
        ],
    }


def models_document(presets: PresetLibrary) -> dict[str, Any]:
    models = []
    for p in presets.models:
        counts = count_params(p.spec)
        row = p.model_dump(mode="json")
        row["params_total"] = int(counts.total)
        row["params_active"] = int(counts.total_active)
        models.append(row)
    return {"format": "ftcost-models", "version": 1, "models": models}
