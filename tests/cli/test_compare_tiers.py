"""`ftcost compare` with committed and spot rows: the header and columns say what the ranking
is by (each row's run cost at its tier), never 'on-demand' for a 1-year rate (issue 16)."""

from __future__ import annotations

import json
import re

from ftcost_gui.cli import main
from ftcost_gui.core.catalog import GpuCatalog
from ftcost_gui.core.units import fmt_usd
from ftcost_gui.io.catalog_store import CatalogStore
from ftcost_gui.io.resources import builtin_catalog

FLAGS = ["--model", "llama-2-7b", "--method", "qlora", "--tokens", "1e8"]


def _tiered_catalog() -> None:
    builtin = builtin_catalog()
    h100 = builtin.find("h100-sxm")
    committed = h100.model_copy(
        update={"id": "h100-1y", "name": "H100 1y", "on_demand_usd_per_hour": 2.1,
                "pricing_tier": "committed_1y"}
    )  # fmt: skip
    spot = h100.model_copy(
        update={"id": "h100-spot", "name": "H100 spot", "on_demand_usd_per_hour": 3.0,
                "spot_usd_per_hour": 1.25, "pricing_tier": "spot"}
    )  # fmt: skip
    store = CatalogStore()
    store.save(GpuCatalog(name="Tiers", gpus=(committed, spot)))
    store.set_active("Tiers")


def _rows(capsys) -> dict[str, dict]:
    assert main(["compare", *FLAGS, "--json"]) == 0
    return {r["gpu_id"]: r for r in json.loads(capsys.readouterr().out)["rows"]}


def test_an_all_on_demand_catalog_reads_as_before(capsys):
    assert main(["compare", *FLAGS]) == 0
    out = capsys.readouterr().out
    assert "Ranked by cost per run (on-demand)" in out
    assert "$ ON-DEMAND" in out and "TIER" not in out and "$ PER RUN" not in out


def test_committed_and_spot_rows_are_ranked_and_worded_at_their_tier(capsys):
    _tiered_catalog()
    rows = _rows(capsys)
    assert main(["compare", *FLAGS]) == 0
    out = capsys.readouterr().out
    assert "Ranked by cost per run at each GPU's pricing tier" in out
    assert "(on-demand)" not in out.splitlines()[1]
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("RANK"))
    assert "TIER" in lines[head] and "$ PER RUN" in lines[head] and "$ ON-DEMAND" not in lines[head]
    body = lines[head + 2 : head + 2 + len(rows)]
    committed = next(line for line in body if "H100 1y" in line)
    spot = next(line for line in body if "H100 spot" in line)
    # Hand: the committed row's run = held GPU-hours × $2.10/h; the spot row's run is its spot
    # cost (interruptions included), its on-demand cost ($3.00/h × hours) is not its price.
    c, s = rows["h100-1y"], rows["h100-spot"]
    assert c["pricing_tier"] == "committed_1y" and s["pricing_tier"] == "spot"
    assert "1-year committed" in committed
    assert fmt_usd(c["held_gpu_hours"] * 2.1) in committed
    assert "spot" in spot.split("H100 spot", 1)[1]
    assert fmt_usd(s["spot_usd"]) in spot
    assert fmt_usd(s["held_gpu_hours"] * 3.0) not in spot
    # The order is by that run cost (the rows that fit first).
    order = [line for line in body if line.split()[0] != "-"]
    costs = {
        r["gpu_name"]: (r["spot_usd"] if r["pricing_tier"] == "spot" else r["on_demand_usd"])
        for r in rows.values()
        if r["fits"]
    }
    names = [next(n for n in costs if f" {n} " in f" {line} ") for line in order]
    assert [costs[n] for n in names] == sorted(costs.values())
    assert "$ PER RUN: at the row's tier" in out


def test_a_long_tier_label_never_runs_into_its_value(capsys):
    assert main(["estimate", "--gpu-pricing-tier", "committed_3y"]) == 0
    out = capsys.readouterr().out
    ranges = out.split("Ranges (low / expected / high)\n", 1)[1].split("\n  - ", 1)[0]
    rows = ranges.splitlines()
    label = "Cost per run (3-year committed)"
    row = next(line for line in rows if line.startswith(f"  {label}"))
    assert row[2 + len(label)] == " "  # was '…committed)$5.18 / …'
    # The section's values in one column (labels are words; values start with a digit or '$').
    columns = {re.match(r"^  (.+?) +([$\d].*)$", line).start(2) for line in rows}
    assert len(columns) == 1, rows
