"""A document validated after others (core/validated.py reuses the sections it repeats) gives
what validating it with nothing remembered gives: the same inputs, or the same errors."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from ftcost_gui.core import EstimateInputs, validated

from .strategies import examples, input_docs, layout, repair

EDITS = settings(max_examples=examples(0.1, least=200))


def _outcome(doc: dict[str, Any]) -> str:
    """repr of the inputs (values and types, NaN equal to NaN), or the errors' text."""
    try:
        return repr(EstimateInputs.model_validate(doc))
    except ValidationError as e:
        return str(e)


def _cold(doc: dict[str, Any]) -> str:
    validated.VALIDATED_MEMO.clear()
    return _outcome(doc)


def _edited(doc: dict[str, Any], index: int, code: int) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    path, decode = layout()[index]
    node = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = decode(code)
    return doc


@EDITS
@given(input_docs(), st.integers(0, len(layout()) - 1), st.integers(0, 2**32 - 1))
def test_a_document_after_an_edit_validates_as_it_does_alone(doc, index, code):
    edited = _edited(doc, index, code)  # one field drawn anew, repaired or not: errors too
    for after in (edited, repair(copy.deepcopy(edited))):
        _cold(copy.deepcopy(doc))
        warm = _outcome(copy.deepcopy(after))
        assert warm == _cold(after)


@EDITS
@given(input_docs(), input_docs())
def test_a_document_after_any_other_validates_as_it_does_alone(doc, other):
    _cold(doc)
    warm = _outcome(other)
    assert warm == _cold(other)


def test_repeated_sections_are_the_validated_objects():
    doc = EstimateInputs().model_dump(mode="json")
    first = EstimateInputs.model_validate(doc)
    doc["efficiency"]["mfu"] = 0.3
    second = EstimateInputs.model_validate(doc)
    for name in EstimateInputs.model_fields:
        assert (getattr(second, name) is getattr(first, name)) is (name != "efficiency"), name
    # python-mode dumps (tuples, nested sections) are recognized too
    third = EstimateInputs.model_validate(second.model_dump())
    assert all(getattr(third, n) is getattr(second, n) for n in EstimateInputs.model_fields)


@pytest.mark.parametrize(
    ("section", "name", "value", "expected"),
    [
        ("model", "num_layers", 32.0, 32),  # an int field given a whole float
        ("model", "fused_qkv", 0, False),  # a bool field given a number
        ("data", "epochs", 3, 3.0),  # a float field given an int
        ("training", "lora_targets", ["q_proj", "v_proj"], ("q_proj", "v_proj")),
    ],
)
def test_equal_values_of_other_types_validate_alike(section, name, value, expected):
    doc = EstimateInputs().model_dump(mode="json")
    doc[section][name] = expected if not isinstance(expected, tuple) else list(expected)
    first = EstimateInputs.model_validate(doc)
    doc[section][name] = value
    warm = EstimateInputs.model_validate(doc)
    assert repr(warm) == _cold(doc) and getattr(getattr(warm, section), name) == expected
    assert type(getattr(getattr(warm, section), name)) is type(
        getattr(getattr(first, section), name)
    )


def test_a_document_changed_after_validation_is_validated_anew():
    doc = EstimateInputs().model_dump(mode="json")
    EstimateInputs.model_validate(doc)
    doc["hardware"]["gpu"]["memory_gib"] = 40.0  # in place: the remembered copy is not changed
    doc["training"]["lora_targets"].append("up_proj")
    again = EstimateInputs.model_validate(doc)
    assert again.hardware.gpu.memory_gib == 40.0
    assert again.training.lora_targets[-1] == "up_proj"
    doc["data"]["epochs"] = -1.0  # out of range: the error as without any memo
    with pytest.raises(ValidationError) as warm:
        EstimateInputs.model_validate(doc)
    assert str(warm.value) == _cold(doc)
    doc["data"]["epochs"] = 1.0
    doc["spot"]["unknown_field"] = 1  # one field more: validated, refused
    assert "unknown_field" in _outcome(doc)


class _Counting:
    """A section's validator that counts the documents it validates."""

    def __init__(self, validator: Any) -> None:
        self.validator, self.calls = validator, 0

    def validate_python(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.validator.validate_python(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.validator, name)


def test_an_edit_validates_the_section_it_changed_alone(monkeypatch):
    doc = EstimateInputs().model_dump(mode="json")
    classes = {n: f.annotation for n, f in EstimateInputs.model_fields.items()}
    counting = {}
    for name, cls in classes.items():
        counting[name] = _Counting(cls.__pydantic_validator__)
        monkeypatch.setattr(cls, "__pydantic_validator__", counting[name])
    whole = _Counting(EstimateInputs.__pydantic_validator__)
    monkeypatch.setattr(EstimateInputs, "__pydantic_validator__", whole)
    validated.VALIDATED_MEMO.clear()
    first = EstimateInputs.model_validate(doc)
    assert [c.calls for c in counting.values()] == [1] * len(classes) and whole.calls == 0
    for section, edit in (("efficiency", ("mfu", 0.31)), ("hardware", ("gpus_per_node", 4))):
        doc[section][edit[0]] = edit[1]
        before = {n: c.calls for n, c in counting.items()}
        again = EstimateInputs.model_validate(doc)
        assert {n: c.calls - before[n] for n, c in counting.items()} == {
            n: int(n == section) for n in classes
        }
        assert whole.calls == 0 and repr(again) == _cold(doc)
        assert getattr(getattr(again, section), edit[0]) == edit[1]
    assert first.model == again.model


@pytest.mark.parametrize(
    ("section", "name", "value"),
    [
        ("efficiency", "mfu", 1.5),  # a field's bound
        ("hardware", "gpu", {"memory_gib": 0.5}),  # a nested section's field (and missing ones)
        ("model", "num_kv_heads", 7),  # a section's own check (ModelSpec: heads must divide)
        ("model", "position_embeddings", -1),  # the inputs' own check (tied embeddings)
        ("spot", "unknown", 1),  # one field more
    ],
)
def test_an_invalid_edit_gives_the_errors_of_the_whole_document(section, name, value):
    doc = EstimateInputs().model_dump(mode="json")
    if section == "model" and name == "position_embeddings":
        doc["model"]["tied_embeddings"] = True
    EstimateInputs.model_validate(copy.deepcopy(doc))
    doc[section][name] = value
    with pytest.raises(ValidationError) as warm:
        EstimateInputs.model_validate(copy.deepcopy(doc))
    assert str(warm.value) == _cold(doc)


def test_inputs_made_from_sections_are_those_pydantic_makes():
    doc = EstimateInputs().model_dump(mode="json")
    EstimateInputs.model_validate(copy.deepcopy(doc))
    doc["efficiency"]["mfu"] = 0.42
    warm = EstimateInputs.model_validate(doc)
    cold = EstimateInputs.__pydantic_validator__.validate_python(copy.deepcopy(doc))
    assert warm == cold and list(warm.__dict__) == list(cold.__dict__)
    assert warm.model_fields_set == cold.model_fields_set
    assert (warm.__pydantic_extra__, warm.__pydantic_private__) == (None, None)
    assert (cold.__pydantic_extra__, cold.__pydantic_private__) == (None, None)
    # the checks validate() runs itself are all the inputs have: a new one must be seen here
    decorators = EstimateInputs.__pydantic_decorators__
    assert [(n, d.info.mode) for n, d in decorators.model_validators.items()] == [
        ("_check", "after")
    ]
    assert not decorators.field_validators


def test_a_section_validated_with_fields_missing_is_not_taken_for_one_given_whole():
    doc = EstimateInputs().model_dump()  # python mode: tuples, as a window's document
    partial = copy.deepcopy(doc)
    del partial["efficiency"]["mfu_band"]  # its default: the same values, fewer fields set
    EstimateInputs.model_validate(partial)
    warm = EstimateInputs.model_validate(copy.deepcopy(doc))
    validated.VALIDATED_MEMO.clear()
    cold = EstimateInputs.model_validate(copy.deepcopy(doc))
    for name in EstimateInputs.model_fields:
        assert getattr(warm, name).model_fields_set == getattr(cold, name).model_fields_set
