"""Results CSV round-trips to the same numbers as the result."""

from __future__ import annotations

import math

from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.core.rows import result_rows
from ftcost_gui.io.export_csv import read_results_csv, results_csv, write_results_csv


def test_csv_round_trips_every_number(tmp_path):
    inputs = EstimateInputs.model_validate({"efficiency": {"step_time_s": 2.0}})
    r = estimate(inputs)
    path = tmp_path / "r.csv"
    write_results_csv(path, [("Base", r)])
    parsed = read_results_csv(path.read_text())
    rows = result_rows(r)
    assert len(parsed) == len(rows) > 80
    for row in rows:
        text = parsed[("Base", row.section, row.key)]
        if isinstance(row.value, bool):
            assert text == str(row.value)
        elif isinstance(row.value, float):
            assert float(text) == row.value or (math.isinf(row.value) and math.isinf(float(text)))
        elif row.value is None:
            assert text == ""
        else:
            assert text == str(row.value)
    assert parsed[("Base", "cost", "on_demand_usd")] == repr(r.cost.on_demand_usd)
    assert parsed[("Base", "step_check", "total_steps")] == str(r.step_check.total_steps)


def test_units_follow_field_names():
    units = {(row.section, row.key): row.unit for row in result_rows(estimate(EstimateInputs()))}
    assert units[("memory", "total_bytes")] == "bytes"
    assert units[("cost", "on_demand_usd")] == "USD"
    assert units[("time", "held_wall_s")] == "s"
    assert units[("time", "compute_gpu_hours")] == "GPU-h"
    assert units[("flops", "total_flops")] == "FLOPs"


def test_several_scenarios_in_one_file():
    a, b = (
        estimate(EstimateInputs()),
        estimate(EstimateInputs.model_validate({"training": {"method": "qlora"}})),
    )
    parsed = read_results_csv(results_csv([("A", a), ("B", b)]))
    assert float(parsed[("A", "memory", "total_bytes")]) == a.memory.total_bytes
    assert float(parsed[("B", "memory", "total_bytes")]) == b.memory.total_bytes


def test_every_numeric_figure_has_a_unit_where_one_applies():
    units = {(row.section, row.key): row.unit for row in result_rows(estimate(EstimateInputs()))}
    assert units[("flops", "per_token")] == "FLOPs/token"
    assert units[("simple", "gpu_hours_with_attention")] == "GPU-h"
    assert units[("simple", "flops_with_attention")] == "FLOPs"


def test_formula_prefixes_in_names_are_neutralised():
    """Issue 12: names from shared files went raw into the results CSV."""
    import csv
    import io

    r = estimate(EstimateInputs())
    names = ['=HYPERLINK("http://e.vil")', "+1", "-2+3", "@SUM(A1)", "\t=1", "plain"]
    text = results_csv([(n, r) for n in names])
    cells = [row[0] for row in csv.reader(io.StringIO(text))][1:]
    for cell in cells:
        assert cell == "plain" or cell.startswith("'"), cell
    parsed = read_results_csv(text)
    assert parsed[('=HYPERLINK("http://e.vil")', "cost", "on_demand_usd")] == repr(
        r.cost.on_demand_usd
    )
    assert ("' =1", "cost", "on_demand_usd") not in parsed  # the tab became a space, then undone
    assert (" =1", "cost", "on_demand_usd") in parsed


def test_negative_numbers_stay_numbers():
    r = estimate(
        EstimateInputs.model_validate(
            {"hardware": {"gpu": {"memory_gib": 8}}, "training": {"auto_gpu_count": False}}
        )
    )
    assert r.memory.headroom_bytes < 0
    parsed = read_results_csv(results_csv([("A", r)]))
    assert float(parsed[("A", "memory", "headroom_bytes")]) == r.memory.headroom_bytes


def test_reading_back_takes_columns_by_name_and_skips_blank_lines():
    import csv
    import io

    import pytest

    r = estimate(EstimateInputs())
    text = results_csv([('a, "quoted"\nname', r), ("=1+2", r)])
    read = read_results_csv(text)
    assert len(read) == 2 * len(result_rows(r))
    assert read[("=1+2", "cost", "on_demand_usd")] == repr(r.cost.on_demand_usd)  # unquoted
    assert read[('a, "quoted" name', "cost", "on_demand_usd")] == repr(r.cost.on_demand_usd)
    # the columns in another order, a blank line after each row: the same mapping
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for cells in csv.reader(io.StringIO(text)):
        writer.writerow([cells[i] for i in (3, 2, 1, 0, 4)])
        writer.writerow([])
    assert read_results_csv(out.getvalue()) == read
    with pytest.raises(KeyError, match="value"):
        read_results_csv("scenario,section,key\nA,cost,x\n")
