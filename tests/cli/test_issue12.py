"""The CLI items of issue 12: owned hardware, a long --model, odd config folders."""

from __future__ import annotations

import json
import os

import pytest

from ftcost_gui.cli import main
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.core.units import fmt_usd
from ftcost_gui.io.estimate_file import save_estimate


def _one_error_line(err: str) -> None:
    assert err.startswith("ftcost: error: ") and err.endswith("\n")
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_price_zero_owned_hardware_table(capsys):
    """--price 0 (owned GPUs, a spot price still set) prints the table: no spot ratio to give."""
    assert main(["estimate", "--price", "0"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    spot_usd = estimate(EstimateInputs().edited("hardware", gpu={
        **EstimateInputs().hardware.gpu.model_dump(), "on_demand_usd_per_hour": 0.0,
    })).cost.spot_usd  # fmt: skip
    # held GPU-hours × F × $2.00 spot; on-demand is $0.
    line = next(x for x in out.splitlines() if x.strip().startswith("Spot "))
    assert line.split(None, 1)[1].startswith(f"{fmt_usd(spot_usd)} at $2.00/GPU-h, F = ")
    assert "-> stay on-demand: it costs nothing" in line
    on_demand = next(x for x in out.splitlines() if x.strip().startswith("On-demand "))
    assert on_demand.split(None, 1)[1] == "$0.000 at $0.000/GPU-h"


@pytest.mark.parametrize("spot", ["0", "none"])
def test_price_zero_with_any_spot_price(capsys, spot):
    assert main(["estimate", "--price", "0", "--spot-price", spot]) == 0
    assert "Cost per run" in capsys.readouterr().out


@pytest.mark.parametrize(
    "name",
    ["a" * 5000, "x/" * 3000 + "config.json", "b" * 300, "~nosuchuser_ftcost/x", "a\x00b"],
    ids=["name-too-long", "path-too-long", "component-too-long", "unknown-home", "nul"],
)
def test_model_names_the_system_refuses_as_paths(capsys, name):
    assert main(["estimate", "--model", name]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    _one_error_line(err)
    assert "model '" in err
    assert len(err) < 300  # the name is shortened in the message


# --- An unusable config folder: the built-in catalog still works -----------------------------


def _unusable_config(kind: str, tmp_path, monkeypatch) -> None:
    if kind == "file-in-place":
        (tmp_path / "cfg").write_text("not a folder")
        monkeypatch.setenv("FTCOST_CONFIG_DIR", str(tmp_path / "cfg"))
    elif kind == "under-a-file":
        (tmp_path / "cfg").write_text("not a folder")
        monkeypatch.setenv("FTCOST_CONFIG_DIR", str(tmp_path / "cfg" / "ftcost"))
    elif kind == "read-only-parent":
        parent = tmp_path / "ro"
        parent.mkdir()
        parent.chmod(0o500)
        monkeypatch.setenv("FTCOST_CONFIG_DIR", str(parent / "ftcost"))
        if os.access(parent, os.W_OK):  # root writes anywhere
            pytest.skip("the read-only parent is writable to this user (root)")
    elif kind == "read-only-parent-simulated":  # what a non-root user gets, for root too
        import pathlib

        parent = tmp_path / "ro"
        parent.mkdir()
        monkeypatch.setenv("FTCOST_CONFIG_DIR", str(parent / "ftcost"))
        real_mkdir = pathlib.Path.mkdir

        def mkdir(self, *args, **kwargs):
            if parent in (self, *self.parents) and self != parent:
                raise PermissionError(13, "Permission denied", str(self))
            return real_mkdir(self, *args, **kwargs)

        monkeypatch.setattr(pathlib.Path, "mkdir", mkdir)
    elif kind == "no-home":
        import pwd

        monkeypatch.delenv("FTCOST_CONFIG_DIR")
        monkeypatch.delenv("HOME", raising=False)
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
        monkeypatch.chdir(tmp_path)

        def no_entry(uid):
            raise KeyError(f"getpwuid(): uid not found: {uid}")

        monkeypatch.setattr(pwd, "getpwuid", no_entry)


CONFIG_CASES = [
    "file-in-place", "under-a-file", "read-only-parent", "read-only-parent-simulated", "no-home",
]  # fmt: skip


@pytest.mark.parametrize("kind", CONFIG_CASES)
@pytest.mark.parametrize(
    "argv",
    [
        ["gpus", "--json"],
        ["gpus", "--catalog", "Built-in", "--json"],
        ["estimate", "--gpu", "l4", "--json"],
        ["compare", "--model", "llama-2-7b", "--method", "qlora", "--json"],
        ["catalogs", "--json"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_unusable_config_folder_falls_back_to_builtin(tmp_path, monkeypatch, capsys, kind, argv):
    _unusable_config(kind, tmp_path, monkeypatch)
    assert main(argv) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    lines = err.splitlines()
    assert len(lines) == 1, err  # said once
    assert lines[0].startswith("ftcost: warning: user GPU catalogs are unavailable (")
    assert lines[0].endswith("); using the built-in catalog")
    if argv[0] == "gpus":
        assert doc["catalog"] == "Built-in" and {g["origin"] for g in doc["gpus"]} == {"built-in"}
    if argv[0] == "estimate":
        assert doc["inputs"]["hardware"]["gpu"]["id"] == "l4"
    if argv[0] == "catalogs":
        assert doc["folder"] is None and doc["catalogs"] == [] and doc["active"] == "Built-in"
    assert not (tmp_path / "~").exists()  # no config folder made under the current folder


@pytest.mark.parametrize("kind", ["file-in-place", "no-home"])
def test_unusable_config_folder_and_a_user_catalog_name(tmp_path, monkeypatch, capsys, kind):
    _unusable_config(kind, tmp_path, monkeypatch)
    assert main(["gpus", "--catalog", "Lab"]) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) == 2
    assert lines[0].startswith("ftcost: warning: user GPU catalogs are unavailable")
    assert lines[1] == "ftcost: error: unknown catalog 'Lab': user catalogs are unavailable"


def test_unusable_config_folder_catalogs_table(tmp_path, monkeypatch, capsys):
    _unusable_config("file-in-place", tmp_path, monkeypatch)
    assert main(["catalogs"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[2].split()[:2] == ["*", "Built-in"]
    assert "User catalogs are unavailable" in out


def test_estimate_without_gpu_says_nothing_about_catalogs(tmp_path, monkeypatch, capsys):
    plan = tmp_path / "plan.ftcost"
    save_estimate(plan, EstimateInputs())
    _unusable_config("file-in-place", tmp_path, monkeypatch)
    assert main(["estimate", str(plan), "--json"]) == 0
    assert capsys.readouterr().err == ""
