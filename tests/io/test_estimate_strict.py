"""Format 3: strict reading. A missing field is an error naming it; no lax coercion; migrations
from versions 1 and 2 add exactly the fields listed with their old-behaviour values."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io import estimate_file
from ftcost_gui.io.estimate_file import (
    V3_NEW_FIELDS,
    V3_REMOVED_FIELDS,
    EstimateFileError,
    dumps_estimate,
    load_document,
    loads_document,
)

DATA = Path(__file__).resolve().parents[1] / "data"


def good() -> dict:
    return json.loads(dumps_estimate(EstimateInputs()))


def refused(doc: dict | str) -> str:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    with pytest.raises(EstimateFileError) as info:
        loads_document(text, source="plan.ftcost")
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_model_missing_a_field_is_refused_naming_it():
    doc = good()
    del doc["scenarios"][0]["inputs"]["model"]["num_layers"]
    assert refused(doc) == (
        "plan.ftcost is incomplete: scenarios[0].inputs.model.num_layers is missing."
    )


def test_a_scenario_without_inputs_is_refused():
    doc = good()
    doc["scenarios"].append({"name": "Second"})
    assert refused(doc) == "plan.ftcost is incomplete: scenarios[1].inputs is missing."


def test_every_missing_field_is_counted_and_optional_fields_are_required_too():
    doc = good()
    doc["scenarios"][0]["inputs"]["efficiency"] = {}
    message = refused(doc)
    n = len(EstimateInputs.model_fields["efficiency"].annotation.model_fields)
    assert message.startswith("plan.ftcost is incomplete: scenarios[0].inputs.efficiency.mfu is")
    assert f"(and {n - 1} more)" in message
    doc = good()
    del doc["scenarios"][0]["inputs"]["efficiency"]["comm_overhead"]  # optional: null when unset
    assert "efficiency.comm_overhead is missing" in refused(doc)
    doc = good()
    del doc["scenarios"][0]["inputs"]["hardware"]["gpu"]["spot_usd_per_hour"]
    assert "scenarios[0].inputs.hardware.gpu.spot_usd_per_hour is missing" in refused(doc)
    doc = good()
    del doc["active"]
    assert refused(doc) == "plan.ftcost is incomplete: active is missing."


def test_unknown_fields_are_refused_everywhere():
    doc = good()
    doc["scenarios"][0]["inputs"]["hardware"]["gpu"]["currency"] = "EUR"  # GpuSpec ignores extras
    assert "scenarios[0].inputs.hardware.gpu.currency is not a field ftcost knows" in refused(doc)
    doc = good()
    doc["results"] = {}
    assert "'results', which is not a field" in refused(doc)


@pytest.mark.parametrize(
    ("section", "field", "value", "needle"),
    [
        ("model", "num_layers", True, "model.num_layers: Input should be a valid integer"),
        ("model", "num_layers", 32.0, "model.num_layers: Input should be a valid integer"),
        ("model", "num_layers", "32", "model.num_layers: Input should be a valid integer"),
        ("data", "total_tokens", "1e8", "data.total_tokens: Input should be a valid number"),
        ("data", "padding", 1, "data.padding: Input should be 'longest', 'max_length' or 'pack'"),
        ("data", "padding", True, "data.padding: Input should be 'longest'"),
        ("training", "lora_targets", "q_proj", "training.lora_targets: Input should be a valid"),
        ("model", "name", 7, "model.name: Input should be a valid string"),
    ],
)
def test_no_lax_coercion(section, field, value, needle):
    doc = good()
    doc["scenarios"][0]["inputs"][section][field] = value
    message = refused(doc)
    assert message.startswith("plan.ftcost has an invalid value: scenarios[0].inputs.")
    assert needle in message


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ("NaN", "holds NaN, which is not a number ftcost reads"),
        ("Infinity", "holds Infinity, which is not a number"),
        ("-Infinity", "holds -Infinity, which is not a number"),
        ("1e400", "holds the number 1e400, beyond the range of a float"),
    ],
)
def test_non_finite_numbers_are_refused_while_parsing(raw, needle):
    text = dumps_estimate(EstimateInputs()).replace('"mfu_band": 0.3', f'"mfu_band": {raw}')
    assert raw in text
    assert needle in refused(text)


def test_floats_may_be_written_as_integers():
    doc = good()
    doc["scenarios"][0]["inputs"]["data"]["total_tokens"] = 60000000  # JSON has one number type
    assert loads_document(json.dumps(doc)).current.inputs.data.total_tokens == 6e7


def _field_paths(model: type[BaseModel], prefix: str = "") -> set[str]:
    out: set[str] = set()
    for name, info in model.model_fields.items():
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            out |= _field_paths(ann, f"{prefix}{name}.")
        else:
            out.add(prefix + name)
    return out


def _doc_paths(doc: dict, prefix: str = "") -> set[str]:
    out: set[str] = set()
    for key, value in doc.items():
        if isinstance(value, dict):
            out |= _doc_paths(value, f"{prefix}{key}.")
        else:
            out.add(prefix + key)
    return out


def test_every_input_field_is_written_or_migrated():
    """A field added to the inputs must be listed in V3_NEW_FIELDS with its old-behaviour value,
    or every version-2 file stops opening (see estimate_file's docstring)."""
    v2 = json.loads((DATA / "estimate_v2.ftcost").read_text(encoding="utf-8"))
    assert v2["version"] == 2
    fields = _field_paths(EstimateInputs)
    for scenario in v2["scenarios"]:
        in_v2 = _doc_paths(scenario["inputs"])
        assert in_v2 - V3_REMOVED_FIELDS <= fields, "a version-2 field was removed: migrate it away"
        assert fields - in_v2 == set(V3_NEW_FIELDS), (
            "input fields added since version 2 must be listed in V3_NEW_FIELDS with the value "
            "that reproduces the old behaviour",
            sorted(fields - in_v2),
        )


def test_v2_to_v3_adds_exactly_the_new_fields_with_their_old_values(monkeypatch):
    v2 = json.loads((DATA / "estimate_v2.ftcost").read_text(encoding="utf-8"))
    migrated = estimate_file._migrate_v2_to_v3(copy.deepcopy(v2))
    assert migrated["version"] == 3
    for before, after in zip(v2["scenarios"], migrated["scenarios"], strict=True):
        added = _doc_paths(after["inputs"]) - _doc_paths(before["inputs"])
        assert added == set(V3_NEW_FIELDS)
        # data.padding is rewritten from data.packing (removed), the listed value is the fallback
        packing = before["inputs"]["data"]["packing"]
        assert after["inputs"]["data"]["padding"] == ("pack" if packing else "max_length")
        for path, value in V3_NEW_FIELDS.items():
            if path == "data.padding":
                continue
            node = after["inputs"]
            for part in path.split("."):
                node = node[part]
            assert node == value
    # the mechanism itself, with a field that does not exist yet
    monkeypatch.setitem(V3_NEW_FIELDS, "training.future_knob", "old")
    again = estimate_file._migrate_v2_to_v3(copy.deepcopy(v2))
    assert all(s["inputs"]["training"]["future_knob"] == "old" for s in again["scenarios"])
    partial = copy.deepcopy(v2)
    del partial["scenarios"][0]["inputs"]["training"]
    again = estimate_file._migrate_v2_to_v3(partial)
    assert "training" not in again["scenarios"][0]["inputs"]  # reported missing, never invented


def test_old_files_reopen_with_the_same_figures_as_saved_again(tmp_path):
    for name in ("estimate_v1.ftcost", "estimate_v2.ftcost"):
        old = load_document(DATA / name)
        path = tmp_path / name
        estimate_file.save_document(path, old)
        assert json.loads(path.read_text())["version"] == 3
        new = load_document(path)
        assert new == old
        assert [estimate(s.inputs) for s in new.scenarios] == [
            estimate(s.inputs) for s in old.scenarios
        ]


def test_v2_file_missing_a_field_is_refused_too():
    v2 = json.loads((DATA / "estimate_v2.ftcost").read_text(encoding="utf-8"))
    del v2["scenarios"][2]["inputs"]["model"]["hidden_size"]
    assert "scenarios[2].inputs.model.hidden_size is missing" in refused(v2)


def test_every_example_file_opens():
    examples = Path(__file__).resolve().parents[2] / "resources" / "examples"
    files = sorted(examples.glob("*.ftcost"))
    assert files
    for path in files:
        assert load_document(path).scenarios
