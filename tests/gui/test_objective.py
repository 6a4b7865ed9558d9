"""The objective in the window: GRPO shows its rows, its memory parts and its arithmetic."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QComboBox

from ftcost_gui.core import estimate
from ftcost_gui.core.units import GIB
from ftcost_gui.core.variants import variant_inputs


def choose(combo: QComboBox, value: str) -> None:
    combo.setCurrentIndex(combo.findData(value))


def test_grpo_colocated_shows_rollout_rows_parts_and_explanation(window, qtbot):
    training = window.form_tabs.panels["training"]
    rollouts = training.editor("objective", "prompts_per_step").parentWidget()
    assert rollouts.isHidden()  # SFT: no rollout rows
    choose(training.editor("objective", "objective"), "grpo")
    qtbot.waitUntil(lambda: window.store.inputs.objective.objective == "grpo")
    assert not rollouts.isHidden()
    assert not training.editor("objective", "rollout_memory_share").isHidden()
    assert training.editor("objective", "rollout_gpus").isHidden()
    assert training.editor("objective", "dpo_reference").isHidden()
    data = window.form_tabs.panels["data"]
    assert data._labels[("data", "num_examples")].text().startswith("Prompts")

    qtbot.waitUntil(lambda: window.store.result.alignment.objective == "grpo")
    result = window.store.result
    share = window.store.inputs.objective.rollout_memory_share
    capacity = window.store.inputs.hardware.gpu.memory_gib
    assert result.memory.rollout_weights_bytes + result.memory.kv_cache_bytes == pytest.approx(
        share * capacity * GIB
    )
    # The memory plot stacks the new parts for every method, and lists them in its legend.
    plot = window.charts.memory_plot
    qtbot.waitUntil(lambda: plot.heights_gib["kv_cache"][0] > 0)
    for i, method in enumerate(plot.methods):
        inputs = window.store.inputs
        r = (
            result
            if method == inputs.training.method
            else estimate(variant_inputs(inputs, result, method))
        )
        assert plot.heights_gib["rollout_weights"][i] == pytest.approx(
            r.memory.rollout_weights_bytes / GIB
        )
    assert {"rollout_weights", "kv_cache"} <= set(plot._legend_keys)
    assert "reference" not in plot._legend_keys  # β = 0: no reference model
    # Cards split generation and training; the explanation has the RL step and generation.
    wall = window.results.headline.cards["wall"]
    assert "training" in wall.detail.text() and "rollouts" in wall.detail.text()
    window.results.tabs.setCurrentWidget(window.results.explain)
    qtbot.waitUntil(lambda: "Generation" in window.results.explain.toPlainText())
    html = window.results.explain.toPlainText()
    assert "GRPO" in html and "tokens/s per GPU" in html and "SFT step" in html


def test_back_to_sft_hides_everything_again(window, qtbot):
    training = window.form_tabs.panels["training"]
    choose(training.editor("objective", "objective"), "dpo")
    qtbot.waitUntil(lambda: window.store.inputs.objective.objective == "dpo")
    assert not training.editor("objective", "dpo_reference").isHidden()
    data = window.form_tabs.panels["data"]
    assert data._labels[("data", "num_examples")].text().startswith("Preference pairs")
    choose(training.editor("objective", "objective"), "sft")
    qtbot.waitUntil(lambda: window.store.inputs.objective.objective == "sft")
    assert training.editor("objective", "dpo_reference").isHidden()
    assert data._labels[("data", "num_examples")].text().startswith("Examples")
    assert "kv_cache" not in window.charts.memory_plot._legend_keys


def test_the_project_example_adds_up_its_stages_in_compare(window, qtbot):
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "resources" / "examples"
    window.files.load_path(str(example / "article-000-8b-project.ftcost"))
    window.results.show_tab(window.results.compare)
    stages = window.results.compare.stages
    qtbot.waitUntil(lambda: "GPU-h held" in stages.text())
    # The article's $54–$108 less its +2N recompute over-count (measured: tests/core/
    # test_project_example.py holds the figures to the article's within 5–8%).
    assert "25.2 GPU-h held" in stages.text()
    assert "$50.47–$101" in stages.text() and "22.1%" in stages.text()


def test_breakdown_lists_objective_parts_only_when_a_run_has_them():
    from ftcost_gui.core.results import MEMORY_PART_LABELS
    from ftcost_gui.present.figures import breakdown_rows

    from ..core.helpers import make

    def memory_items(**edits):
        inputs = make("llama-3.1-8b", **edits)
        return {item for group, item, _ in breakdown_rows(inputs, estimate(inputs))
                if group == "Memory per GPU"}  # fmt: skip

    sft = memory_items()
    assert MEMORY_PART_LABELS["kv_cache"] not in sft and MEMORY_PART_LABELS["reference"] not in sft
    grpo = memory_items(objective__objective="grpo")
    assert MEMORY_PART_LABELS["kv_cache"] in grpo and MEMORY_PART_LABELS["rollout_weights"] in grpo
