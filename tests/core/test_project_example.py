"""Article 000's worked project budget: the built-in example file, SFT → DPO → RL as scenarios.

'A realistic 8B project, assuming 25% MFU for training jobs and 5% for generation-heavy work …
At $2–$4 per GPU-hour that is roughly $54–$108 … evaluation and RL, both generation-heavy,
account for 21% of the total.'
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ftcost_gui.core import estimate
from ftcost_gui.core.architecture import effective_counts
from ftcost_gui.core.stages import stage_budget
from ftcost_gui.gui.defaults import article_000_project
from ftcost_gui.io.estimate_file import dumps_document, load_document

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples"
FILE = EXAMPLE / "article-000-8b-project.ftcost"


def budget():
    doc = load_document(FILE)
    results = [estimate(s.inputs) for s in doc.scenarios]
    return (
        doc,
        results,
        stage_budget([s.name for s in doc.scenarios], results),
    )


def test_the_shipped_file_is_the_builtin_example():
    assert FILE.read_text(encoding="utf-8") == dumps_document(article_000_project())


def test_project_lands_on_the_article_total_and_generation_share():
    doc, _results, b = budget()
    assert [s.objective for s in b.stages] == ["sft", "dpo", "grpo"]
    for s in doc.scenarios:
        assert s.inputs.efficiency.mfu == 0.25  # training jobs
        assert s.inputs.overheads.generation_mfu == 0.05  # generation-heavy work
    # $54–$108 at $2–$4 per GPU-hour ('roughly'). The article counts +2N for checkpointing; what
    # transformers recomputes is less (decoder layers without the down projections, not the
    # head: measured, docs/model.md), so the detailed total lands 5–8% lower.
    assert 0.92 * 54 <= b.usd_at(2.0) <= 0.95 * 54
    assert 0.92 * 108 <= b.usd_at(4.0) <= 0.95 * 108
    assert b.on_demand_usd == pytest.approx(b.usd_at(2.0))  # the file prices at $2
    # Evaluation and RL: 21% of the total in the article, whose SFT carries the +2N recompute;
    # with the measured recompute the SFT stages cost less and the share is 22%.
    assert round(b.rl_and_eval_share * 100) == 22
    assert b.generation_share < b.rl_and_eval_share


def test_stage_sums_by_hand():
    """Each stage: runs × held GPU-hours of one run; generation: runs × held GPUs × (evaluation +
    rollout seconds); the article's share counts whole RL stages and the others' evaluation."""
    doc, results, b = budget()
    assert [stage.name for stage in b.stages] == [s.name for s in doc.scenarios]
    gpu_hours, gen_hours, usd = [], [], []
    for r in results:
        runs = r.project.runs
        gpus = r.time.rented_gpus + r.layout.rollout_rented_gpus  # rollouts rented beside
        gpu_hours.append(runs * gpus * r.time.held_wall_s / 3600)
        gen_hours.append(runs * gpus * (r.time.eval_s + r.time.rl_generation_s) / 3600)
        usd.append(runs * r.cost.on_demand_usd)
    for stage, h, g, u in zip(b.stages, gpu_hours, gen_hours, usd, strict=True):
        assert stage.gpu_hours == pytest.approx(h)
        assert stage.generation_gpu_hours == pytest.approx(g)
        assert stage.on_demand_usd == pytest.approx(u)
    assert b.gpu_hours == pytest.approx(sum(gpu_hours))
    assert b.generation_gpu_hours == pytest.approx(sum(gen_hours))
    assert b.on_demand_usd == pytest.approx(sum(usd))
    assert b.rl_and_eval_gpu_hours == pytest.approx(gpu_hours[2] + gen_hours[0] + gen_hours[1])
    share = (gpu_hours[2] + gen_hours[0] + gen_hours[1]) / sum(gpu_hours)
    assert b.rl_and_eval_share == pytest.approx(share)
    assert b.generation_share == pytest.approx(sum(gen_hours) / sum(gpu_hours))
    assert b.usd_at(3.0) == pytest.approx(3.0 * sum(gpu_hours))


def test_the_rl_stage_by_hand():
    doc, results, b = budget()
    i, r = doc.scenarios[2].inputs, results[2]
    ob = i.objective
    n_mm = effective_counts(i.model).matmul_active
    steps = i.data.num_examples * i.data.epochs / ob.prompts_per_step
    generated = steps * ob.prompts_per_step * ob.completions_per_prompt * ob.mean_completion_tokens
    n = r.time.num_gpus
    sync = r.alignment.sync_s_per_step * steps
    # Article 000's rule: 2N per generated token at 5% of 989 TFLOPS on the run's GPUs.
    assert r.time.rl_generation_s == pytest.approx(
        generated * 2 * n_mm / (989e12 * 0.05 * n) + sync
    )
    stage = b.stages[2]
    assert stage.gpu_hours == pytest.approx(r.project.runs * r.time.held_gpu_hours)
    eval_s = 2000 * 300 * 2 * n_mm / (989e12 * 0.05 * n)
    assert r.time.eval_s == pytest.approx(eval_s)
