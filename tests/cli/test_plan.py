"""`ftcost plan`: flags, durations, the JSON document and the text; the figures are the core's."""

from __future__ import annotations

import json

import pytest

from ftcost_gui.cli import main
from ftcost_gui.cli.plan_cmd import dollars, duration_hours, methods, objective

BASE = ["plan", "--model", "llama-3.1-8b", "--tokens", "2e8", "--micro-batch", "4",
        "--grad-accum", "4", "--gpus", "2"]  # fmt: skip


def run_json(capsys, *flags):
    assert main([*BASE, "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("text", "hours"),
    [("90m", 1.5), ("12h", 12.0), ("2d", 48.0), ("36", 36.0), ("1.5 days", 36.0), ("1w", 168.0),
     ("5400s", 1.5)],
)  # fmt: skip
def test_durations(text, hours):
    assert duration_hours(text) == pytest.approx(hours)


@pytest.mark.parametrize("text", ["", "12x", "-3h", "0", "h", "nan"])
def test_bad_durations(text):
    with pytest.raises(Exception, match="duration"):
        duration_hours(text)


def test_money_methods_and_objective_values():
    assert dollars("$1,200.50") == 1200.5
    assert methods("lora,QLoRA") == ["lora", "qlora"]
    assert methods("all") == ["full_amp_adamw", "full_adamw_8bit", "lora", "qlora"]
    assert objective("cheapest") == 1.0 and objective("fastest") == 0.0
    assert objective("0.25") == 0.25
    with pytest.raises(Exception, match="between 0 and 1"):
        objective("2")


def test_json_front_meets_the_deadline(capsys):
    doc = run_json(capsys, "--methods", "lora,qlora", "--deadline", "24h", "--budget", "$500")
    assert doc["format"] == "ftcost-plan" and doc["version"] == 1
    assert doc["effective_batch"] == 32  # 4 × 4 × 2
    assert doc["constraints"]["deadline_h"] == 24.0 and doc["constraints"]["budget_usd"] == 500
    front = doc["front"]
    assert front and front[0]["rank"] == 1
    for row in front:
        assert row["wall_clock_s"] <= 24 * 3600 and row["cost_usd"] <= 500
        assert row["method"] in ("lora", "qlora")
        assert row["micro_batch"] * row["grad_accum"] * row["num_gpus"] == 32
        assert row["memory_per_gpu_bytes"] <= row["usable_bytes"]
    costs = [r["cost_usd"] for r in front]
    assert costs == sorted(costs)  # cheapest first
    assert doc["recommendation"].startswith(f"Rent {front[0]['num_gpus']} × ")
    assert sum(doc["verdicts"].values()) == doc["candidates"]
    assert len(doc["gpus"]) == 36
    fits = doc["what_fits"]
    assert set(fits["by_seq_len"]) == {"full_amp_adamw", "full_adamw_8bit", "lora", "qlora"}
    assert fits["figures"][0]["gpu_id"] == "h100-sxm"
    assert doc["best_plan_fits"]["num_gpus"] == front[0]["num_gpus"]


def test_memory_margin_flag(capsys):
    """By default every front plan leaves 5% of the GPU's memory free (hand: free ≥ 0.05 ×
    usable); --no-memory-margin lets fuller plans in, and the cheapest can only get cheaper."""
    flags = ("--methods", "lora", "--deadline", "24h")
    kept = run_json(capsys, *flags)
    loose = run_json(capsys, *flags, "--no-memory-margin")
    assert kept["constraints"]["memory_margin"] is True
    assert loose["constraints"]["memory_margin"] is False
    for row in kept["front"]:
        assert row["usable_bytes"] - row["memory_per_gpu_bytes"] >= 0.05 * row["usable_bytes"]
    assert kept["verdicts"]["near_limit"] > 0 and loose["verdicts"]["near_limit"] == 0
    assert loose["front"][0]["cost_usd"] <= kept["front"][0]["cost_usd"]


def test_objective_flag_takes_the_goal_and_the_training_objective(capsys):
    fast = run_json(capsys, "--methods", "lora", "--objective", "fastest")
    walls = [r["wall_clock_s"] for r in fast["front"]]
    assert walls == sorted(walls)
    assert fast["constraints"]["cost_weight"] == 0.0
    dpo = run_json(capsys, "--methods", "lora", "--objective", "dpo", "--objective", "0.5")
    assert dpo["inputs"]["objective"]["objective"] == "dpo"
    assert dpo["constraints"]["cost_weight"] == 0.5


def test_spot_billing_leaves_out_offers_without_a_spot_price(capsys):
    doc = run_json(capsys, "--methods", "lora", "--billing", "spot")
    assert doc["constraints"]["billing"] == "spot"
    no_price = {g["gpu_id"] for g in doc["gpus"] if g["verdict"] == "no_price"}
    assert "l4" in no_price and "h100-sxm" not in no_price
    assert all(r["billing"] == "spot" for r in doc["front"])


def test_nothing_meets_the_constraints(capsys):
    doc = run_json(capsys, "--methods", "lora", "--deadline", "5m")
    assert doc["front"] == []
    assert doc["recommendation"].startswith("No plan meets the constraints")


def test_text_output(capsys):
    assert main([*BASE, "--methods", "lora", "--deadline", "1d", "--top", "3",
                 "--fits-gpu", "a100-80gb-sxm"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "Rent " in out and "Main risk:" in out
    assert "Plans on the front" in out and "more (--top N" in out
    assert "Why each GPU won or lost:" in out and "RTX 4090:" in out
    assert any(line.startswith("A100 80GB SXM  Full") for line in out.splitlines())


@pytest.mark.parametrize(
    ("flags", "message"),
    [(["--price", "3"], "compare prices every GPU"),
     (["--deadline", "soon"], "is not a duration"),
     (["--methods", "sgd"], "unknown method"),
     (["--max-gpus", "0"], "whole number"),
     (["--fits-gpu", "a10", "--fits-gpu", "l4", "--fits-gpu", "t4"], "at most two")],
)  # fmt: skip
def test_bad_flags_are_one_line(capsys, flags, message):
    assert main([*BASE, *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
