"""The work the form panels do for an edit (issue 17): counted, never timed.

A training check box's edit left the model section the same object, yet the model panel
matched it against every preset and counted its parameters again on each edit.
"""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget

from ftcost_gui.gui.panels import model_panel


@pytest.fixture
def model_work(monkeypatch):
    """Preset matches and parameter summaries the model panel works out."""
    done: Counter = Counter()
    match, summary = model_panel.matching_preset, model_panel.param_summary

    def counting_match(*args, **kwargs):
        done["preset matches"] += 1
        return match(*args, **kwargs)

    def counting_summary(*args, **kwargs):
        done["parameter summaries"] += 1
        return summary(*args, **kwargs)

    monkeypatch.setattr(model_panel, "matching_preset", counting_match)
    monkeypatch.setattr(model_panel, "param_summary", counting_summary)
    return done


def test_a_training_edit_leaves_the_model_panel_alone(window, model_work):
    panel = window.panels["model"]
    shown = (panel.preset_combo.currentText(), panel.params_label.text())
    training = window.form_tabs.panels["training"]
    box = training.editor("training", "cpu_offload_optimizer")
    combo = training.editor("training", "checkpointing")
    for _ in range(3):
        box.setChecked(not box.isChecked())
        combo.setCurrentIndex((combo.currentIndex() + 1) % combo.count())
        QApplication.processEvents()
    assert model_work == Counter()
    assert (panel.preset_combo.currentText(), panel.params_label.text()) == shown


def test_a_model_edit_updates_the_picker_and_counts(window, model_work):
    panel = window.panels["model"]
    before = panel.params_label.text()
    layers = window.store.inputs.model.num_layers
    window.store.set_field("model", "num_layers", layers + 8)
    QApplication.processEvents()
    assert model_work["parameter summaries"] == 1
    assert model_work["preset matches"] >= 1
    assert panel.params_label.text() != before
    assert panel.preset_combo.currentData() == model_panel.CUSTOM  # no preset has that shape
    window.store.set_field("model", "num_layers", layers)
    QApplication.processEvents()
    assert panel.params_label.text() == before
    assert panel.preset_combo.currentData() != model_panel.CUSTOM


def test_a_training_edit_enables_or_disables_no_row_it_leaves_as_it_was(window):
    """The objective's rows follow the objective; a memory saver's edit leaves every row's
    state as it was (the reward-model row was enabled and disabled again on each edit)."""
    training = window.form_tabs.panels["training"]
    changes: Counter = Counter()

    class EnabledChanges(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.EnabledChange:
                changes[obj.objectName() or type(obj).__name__] += 1
            return False

    watch = EnabledChanges()
    for widget in training.findChildren(QWidget):
        widget.installEventFilter(watch)
    box = training.editor("training", "cpu_offload_optimizer")
    reward = training.editor("objective", "reward_model")
    for _ in range(4):
        box.setChecked(not box.isChecked())
        QApplication.processEvents()
    assert changes == Counter()
    assert not reward.isEnabled()  # SFT: hidden, and PPO/GRPO's rule as before
    window.store.set_field("objective", "objective", "grpo", at_once=True)
    QApplication.processEvents()
    assert reward.isVisibleTo(training) and reward.isEnabled()
    window.store.set_field("objective", "objective", "ppo", at_once=True)
    QApplication.processEvents()
    assert reward.isVisibleTo(training) and not reward.isEnabled()
