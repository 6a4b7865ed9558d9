"""Results as CSV: one row per figure (section, key, value, unit), exactly the result's numbers.

Text cells go through ``names.for_csv``: a scenario named ``=HYPERLINK(…)`` or ``-1+2`` (names come
from shared files) is never a formula in a spreadsheet. Numbers are written as numbers (a
negative headroom stays ``-1.5e9``, which a spreadsheet reads as a number, not a formula).
"""

from __future__ import annotations

import csv
import io
import os

from ..core.results import EstimateResult
from ..core.rows import result_rows
from .atomic import atomic_write_text
from .names import for_csv, from_csv

COLUMNS = ("scenario", "section", "key", "value", "unit")


def results_csv(results: list[tuple[str, EstimateResult]]) -> str:
    """CSV text for one or more named results; floats use repr so they round-trip exactly."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for name, result in results:
        scenario = for_csv(name)
        for row in result_rows(result):
            value = row.value
            if value is None:
                text = ""
            elif isinstance(value, float):
                text = repr(value)
            elif isinstance(value, bool | int):
                text = str(value)
            else:  # text: a warning, a method, a name
                text = for_csv(value)
            # Sections, keys and units are ftcost's own words (core/rows.py), never a file's.
            writer.writerow((scenario, row.section, row.key, text, row.unit))
    return buf.getvalue()


def write_results_csv(
    path: str | os.PathLike[str], results: list[tuple[str, EstimateResult]]
) -> None:
    atomic_write_text(path, results_csv(results))


def read_results_csv(text: str) -> dict[tuple[str, str, str], str]:
    """(scenario, section, key) → value text; the inverse used by tests and scripts. Columns by
    the header's names (a missing one is a KeyError naming it); blank lines are skipped. A plain
    reader, not ``csv.DictReader``: a dict per row made the read 4× slower (~1.2 ms a result)."""
    rows = csv.reader(io.StringIO(text))
    at = {name: i for i, name in enumerate(next(rows, []))}
    scenario, section, key, value = (at[c] for c in ("scenario", "section", "key", "value"))
    return {(from_csv(r[scenario]), r[section], r[key]): r[value] for r in rows if r}
