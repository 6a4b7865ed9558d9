"""The hand-calculation checklist (docs/testing.md) covers every figure the core produces.

Every field of every result model (core/results.py, the plotted series, the project stages, the
Which-GPU rows, the scenario comparison) and every scenario and catalog operation has a row
naming the tests that compute it independently by hand. A new field without a row fails here; so
does a row naming a test that does not exist or that never reads the figure.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import BaseModel

from ftcost_gui.core import catalog, compare, document, results, scenarios, series, stages

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "testing.md"

# Result types whose every field is a figure (dataclasses, pydantic models, named tuples).
RESULT_TYPES: tuple[type, ...] = (
    *(
        c
        for c in vars(results).values()
        if isinstance(c, type)
        and issubclass(c, BaseModel)
        and c is not BaseModel
        and c.__module__ == results.__name__
    ),
    series.MemoryBars,
    series.CostCurve,
    series.CostPoint,
    series.ScenarioSeries,
    stages.Stage,
    stages.StageBudget,
    compare.GpuComparison,
    scenarios.ComparisonRow,
)
# Operations (functions and methods) whose result is checked by hand.
OPERATIONS: tuple[str, ...] = (
    *(
        f"EstimateDocument.{name}"
        for name, value in vars(document.EstimateDocument).items()
        # (mutation runs add trampoline methods named x…__mutmut_N: not operations)
        if not name.startswith("_")
        and callable(value)
        and name != "single"
        and "mutmut" not in name
    ),
    "EstimateDocument.single",
    "compare_methods",
    "StageBudget.generation_share",
    "StageBudget.rl_and_eval_share",
    "StageBudget.usd_at",
    "MemoryBars.totals_gib",
    "MemoryBars.part",
    *(
        name
        for name in (
            "merge_catalogs",
            "find_row",
            "duplicate_ids",
            "row_problems",
            "validate_row",
            "cell_error",
            "price_differences",
            "with_catalog_prices",
            "fill_time_columns",
        )
        if hasattr(catalog, name)
    ),
)
# Containers of other result types: their fields are covered type by type.
_CONTAINERS = (BaseModel, series.MemoryBars, series.CostCurve, series.CostPoint)


def _fields(cls: type) -> dict[str, Any]:
    if issubclass(cls, BaseModel):
        return {k: f.annotation for k, f in cls.model_fields.items()}
    return {f.name: f.type for f in dataclasses.fields(cls)}


def _is_container(annotation: Any) -> bool:
    kinds = [annotation, *get_args(annotation)]
    for kind in kinds:
        for inner in [kind, *get_args(kind)]:
            if isinstance(inner, type) and issubclass(inner, _CONTAINERS):
                return True
    return False


def figures() -> list[str]:
    out = []
    for cls in RESULT_TYPES:
        for name, annotation in _fields(cls).items():
            if cls is compare.GpuComparison and name == "spec":
                continue  # the GPU the row was made for, not a figure
            if not _is_container(annotation):
                out.append(f"{cls.__name__}.{name}")
    return [*out, *OPERATIONS]


def checklist() -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*`([\w.]+)`\s*\|(.*)\|\s*$", line)
        if m:
            rows[m.group(1)] = re.findall(r"`(tests/[\w/]+\.py::\w+)`", m.group(2))
    return rows


def _test_reads(test: str) -> set[str]:
    """Names a test function reads: attributes, names and string keys (getattr by name)."""
    path, func = test.split("::")
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == func:
            seen: set[str] = set()
            for sub in ast.walk(node):
                if isinstance(sub, ast.Attribute):
                    seen.add(sub.attr)
                elif isinstance(sub, ast.Name):
                    seen.add(sub.id)
                elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    seen.update(re.findall(r"\w+", sub.value))
            return seen
    raise AssertionError(f"{test}: no such test function")


def test_every_figure_has_a_hand_calculation():
    rows = checklist()
    missing = [f for f in figures() if not rows.get(f)]
    assert not missing, f"no hand calculation listed in docs/testing.md for: {missing}"


def test_the_checklist_names_no_figure_that_does_not_exist():
    stale = sorted(set(checklist()) - set(figures()))
    assert not stale, f"docs/testing.md lists figures the core no longer has: {stale}"


@pytest.mark.parametrize("figure", figures())
def test_each_listed_test_exists_and_reads_the_figure(figure):
    tests = checklist().get(figure, [])
    name = figure.rsplit(".", 1)[-1]
    for test in tests:
        reads = _test_reads(test)
        # A figure read through a loop over its model's parts (getattr(m, f"{key}_bytes")) names
        # the part list instead.
        assert name in reads or {"MEMORY_PART_LABELS", "parts", "PARTS"} & reads, (
            f"{test} does not read {figure}"
        )
