"""Results as CSV: one row per figure (section, key, value, unit), exactly the result's numbers."""

from __future__ import annotations

import csv
import io
import os

from ..core.results import EstimateResult
from ..core.rows import result_rows
from .atomic import atomic_write_text

COLUMNS = ("scenario", "section", "key", "value", "unit")


def results_csv(results: list[tuple[str, EstimateResult]]) -> str:
    """CSV text for one or more named results; floats use repr so they round-trip exactly."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for name, result in results:
        for row in result_rows(result):
            value = row.value
            text = "" if value is None else repr(value) if isinstance(value, float) else str(value)
            writer.writerow((name, row.section, row.key, text, row.unit))
    return buf.getvalue()


def write_results_csv(
    path: str | os.PathLike[str], results: list[tuple[str, EstimateResult]]
) -> None:
    atomic_write_text(path, results_csv(results))


def read_results_csv(text: str) -> dict[tuple[str, str, str], str]:
    """(scenario, section, key) → value text; the inverse used by tests and scripts."""
    reader = csv.DictReader(io.StringIO(text))
    return {(r["scenario"], r["section"], r["key"]): r["value"] for r in reader}
