"""Every editable field carries what the form and the CLI need: title, unit, bounds, help."""

from __future__ import annotations

import pytest

from ftcost_gui.core import SECTIONS, EstimateInputs, field_spec, field_specs


def _section_models():
    return [(s, EstimateInputs.model_fields[s].annotation) for s in SECTIONS]


@pytest.mark.parametrize(("section", "model"), _section_models())
def test_every_field_has_title_help_and_bounds(section, model):
    for spec in field_specs(model):
        if spec.kind == "other":
            continue
        assert spec.label and spec.label != spec.name, (section, spec.name)
        assert len(spec.tooltip) > 10, (section, spec.name)
        if spec.kind in ("int", "float"):
            assert spec.minimum is not None and spec.maximum is not None, (section, spec.name)
            assert spec.minimum < spec.maximum


def test_field_spec_reads_units_steps_and_choices():
    from ftcost_gui.core.inputs import EfficiencySpec, TrainingSpec

    mfu = field_spec(EfficiencySpec, "mfu")
    assert (mfu.kind, mfu.minimum, mfu.maximum, mfu.exclusive_min) == ("float", 0.001, 1, False)
    assert mfu.step == 0.01 and mfu.decimals == 3
    assert "35–55%" in mfu.tooltip
    method = field_spec(TrainingSpec, "method")
    assert method.kind == "choice" and "qlora" in method.choices
    comm = field_spec(EfficiencySpec, "comm_overhead")
    assert comm.optional and comm.default is None


def test_zero_meaning_derived_is_named():
    from ftcost_gui.core import ModelSpec

    assert field_spec(ModelSpec, "head_dim").zero_text == "auto (hidden ÷ heads)"
    assert field_spec(ModelSpec, "num_layers").zero_text is None
