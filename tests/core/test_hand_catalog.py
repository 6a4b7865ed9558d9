"""Catalog rows of older files: the time-model columns filled by the documented rule
(core/catalog.fill_time_columns; core/throughput.py's achievable fractions, MAMF measurements of
stas00/ml-engineering: H100 794 of 989, A100 271 of 312, MI300X 668 of 1,307 TFLOPS)."""

from __future__ import annotations

import pytest

from ftcost_gui.core.catalog import fill_time_columns


@pytest.mark.parametrize(
    ("vendor", "name", "interconnect", "fraction", "network", "gbit"),
    [
        ("NVIDIA", "H200 SXM", "nvlink", round(794 / 989, 3), "infiniband", 3200.0),
        ("NVIDIA", "A10G", "pcie", round(271 / 312, 3), "ethernet", 100.0),
        ("NVIDIA", "Some Future Card", "pcie", round(794 / 989, 3), "ethernet", 100.0),
        ("AMD", "MI250X", "infinity_fabric", round(668 / 1307, 3), "infiniband", 3200.0),
    ],
)
def test_missing_columns_take_the_rule(vendor, name, interconnect, fraction, network, gbit):
    row = {"vendor": vendor, "name": name, "interconnect": interconnect, "network": None}
    out = fill_time_columns(row, " (filled)")
    assert out["achievable_fraction"] == fraction
    assert out["achievable_source"].startswith("rule: ") and out["achievable_source"].endswith(
        " (filled)"
    )
    assert out["achievable_as_of"] == "2026-08-22"
    assert (out["gpus_per_node"], out["rent_unit_gpus"]) == (8, 1)
    assert (out["network"], out["network_gbit_s"]) == (network, gbit)
    assert row["network"] is None  # the row given is not changed


def test_given_columns_are_kept():
    row = {
        "vendor": "NVIDIA",
        "name": "H100",
        "interconnect": "nvlink",
        "gpus_per_node": 4,
        "network": "ethernet",
        "network_gbit_s": 400.0,
        "rent_unit_gpus": 4,
        "achievable_fraction": 0.7,
    }
    out = fill_time_columns(row)
    assert {k: out[k] for k in row} == row
    assert (out["achievable_source"], out["achievable_as_of"]) == ("given", "")
