"""Store (validation, debounce) and binding helpers, without the main window."""

import pytest
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox

from ftcost_gui.core import (
    DataSpec,
    EfficiencySpec,
    EstimateInputs,
    GpuSpec,
    TrainingSpec,
    estimate,
)
from ftcost_gui.core.architecture import ModelSpec
from ftcost_gui.core.fields import field_spec
from ftcost_gui.gui import store as store_mod
from ftcost_gui.gui.binding import FloatEditor, format_number, parse_number, widget_for
from ftcost_gui.gui.store import EstimateStore


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("6e7", 6e7),
        ("60M", 6e7),
        ("1.2B", 1.2e9),
        ("60,000,000", 6e7),
        ("60_000", 6e4),
        ("12k", 12e3),
        ("1e15", 1e15),
        ("  3.5 t ", 3.5e12),
        ("abc", None),
        ("", None),
        ("1e999", None),
    ],
)
def test_parse_number(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("value", [6e7, 6.61e9, 1.2e8, 123.0, 1e15, 7, 2.5e12, 12345])
def test_format_number_round_trips(value):
    assert parse_number(format_number(value)) == pytest.approx(value, rel=1e-6)


def test_widget_for_picks_editor_by_kind(qapp):
    assert isinstance(widget_for(field_spec(TrainingSpec, "micro_batch")), QSpinBox)
    assert isinstance(widget_for(field_spec(EfficiencySpec, "mfu")), QDoubleSpinBox)
    assert isinstance(
        widget_for(field_spec(TrainingSpec, "packing" if False else "auto_gpu_count")), QCheckBox
    )
    assert isinstance(widget_for(field_spec(TrainingSpec, "method")), QComboBox)
    big = widget_for(field_spec(DataSpec, "total_tokens"))
    assert isinstance(big, QLineEdit)
    assert isinstance(widget_for(field_spec(DataSpec, "num_examples")), QLineEdit)  # > int32
    assert isinstance(widget_for(field_spec(ModelSpec, "param_count_override")), QLineEdit)


def test_widget_metadata_comes_from_the_field(qapp):
    spec = field_spec(EfficiencySpec, "mfu")
    w = widget_for(spec)
    assert spec.tooltip in w.toolTip()
    assert w.decimals() == spec.decimals
    assert w.singleStep() == pytest.approx(spec.step)
    assert w.maximum() == pytest.approx(spec.maximum)
    price = widget_for(field_spec(GpuSpec, "on_demand_usd_per_hour"))
    assert price.suffix() == " $/GPU-h"


def test_optional_float_minimum_means_none(qapp):
    w = widget_for(field_spec(EfficiencySpec, "comm_overhead"), special="auto")
    assert isinstance(w, FloatEditor)
    w.set_field_value(None)
    assert w.field_value() is None
    assert w.text() == "auto"
    w.set_field_value(0.2)
    assert w.field_value() == pytest.approx(0.2)
    spot = widget_for(field_spec(GpuSpec, "spot_usd_per_hour"), special="none")
    spot.set_field_value(0.0)  # zero is a real price, distinct from None
    assert spot.field_value() == 0.0
    spot.set_field_value(None)
    assert spot.field_value() is None and spot.text() == "none"


def test_set_field_validates_with_model_validate(qtbot):
    store = EstimateStore(EstimateInputs())
    store.recompute_now()
    before = store.result
    errors = []
    store.fieldError.connect(lambda s, n, m: errors.append((s, n, m)))
    assert store.set_field("model", "num_kv_heads", 5) is False  # does not divide 32 heads
    assert errors and errors[0][:2] == ("model", "num_kv_heads")
    assert "num_kv_heads must divide" in errors[0][2]
    assert store.inputs == EstimateInputs()
    assert store.result is before
    assert store.set_field("efficiency", "mfu", 1.5) is False  # le=1
    assert store.set_field("hardware.gpu", "on_demand_usd_per_hour", 4.5)
    assert store.inputs.hardware.gpu.on_demand_usd_per_hour == 4.5


def test_recompute_is_debounced_and_flushable(qtbot):
    store = EstimateStore(EstimateInputs())
    results = []
    store.resultChanged.connect(results.append)
    for mfu in (0.3, 0.31, 0.32, 0.33):
        store.set_field("efficiency", "mfu", mfu)
    assert store.pending and results == []
    assert store_mod.DEBOUNCE_MS <= 150
    with qtbot.waitSignal(store.resultChanged, timeout=1000):
        pass
    assert len(results) == 1
    assert results[0] == estimate(store.inputs)
    store.set_field("efficiency", "mfu", 0.5)
    store.recompute_now()
    assert not store.pending and len(results) == 2


def test_set_inputs_emits_once_and_records(qtbot):
    store = EstimateStore(EstimateInputs())
    seen, edits = [], []
    store.inputsChanged.connect(seen.append)
    store.editCommitted.connect(lambda o, n, t: edits.append((o, n, t)))
    doc = EstimateInputs().model_dump()
    doc["training"]["method"] = "lora"
    new = EstimateInputs.model_validate(doc)
    store.set_inputs(new, description="x")
    assert seen == [new] and len(edits) == 1
    store.set_inputs(EstimateInputs(), record=False)
    assert len(edits) == 1


def test_zero_that_means_auto_is_shown_as_text(qtbot):
    from ftcost_gui.core import ModelSpec, field_spec
    from ftcost_gui.gui.binding import IntEditor

    editor = IntEditor(field_spec(ModelSpec, "head_dim"))
    qtbot.addWidget(editor)
    editor.setValue(0)
    assert editor.text() == "auto (hidden ÷ heads)"
    editor.setValue(128)
    assert editor.text() == "128"
