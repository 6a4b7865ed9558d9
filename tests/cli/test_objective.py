"""`ftcost estimate` with an objective: the RL step and DPO's reference in the text, the rollout
GPUs beside the trainer's; the numbers are result.alignment's (worded by present/objective.py)."""

from __future__ import annotations

from ftcost_gui.cli import main


def test_grpo_on_separate_gpus_prints_the_step_split(capsys):
    code = main(
        ["estimate", "--model", "llama-3.1-8b", "--gpu", "H100 SXM", "--objective", "grpo",
         "--rollout-placement", "separate", "--rollout-gpus", "2"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "+ 2 rollout GPUs" in out
    assert "RL step" in out and "RL ÷ SFT step" in out and "of rollouts" in out
    assert "tokens/s per GPU" in out


def test_dpo_prints_the_reference(capsys):
    assert main(["estimate", "--model", "llama-3.1-8b", "--objective", "dpo"]) == 0
    out = capsys.readouterr().out
    assert "Reference forwards" in out and "Reference model per GPU" in out
