"""The work of reading an estimate file, counted (issue 17: a 200-scenario file took ~0.2 s to
check before validation, its ~31,000 fields each resolved anew): each model's fields are worked
out once, whatever the number of scenarios, and the strings are walked for lone surrogates only
when the file holds a surrogate escape at all."""

from __future__ import annotations

import json

import pytest

from ftcost_gui.core.document import EstimateDocument, Scenario
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io import estimate_file
from ftcost_gui.io.estimate_file import EstimateFileError, dumps_document, loads_document


def _text(n: int) -> str:
    inputs = EstimateInputs()
    scenarios = tuple(
        Scenario(name=f"S{i}", inputs=inputs.edited("data", total_tokens=10**8 + i))
        for i in range(n)
    )
    return dumps_document(EstimateDocument(scenarios=scenarios))


@pytest.fixture
def walks(monkeypatch):
    """Calls of the lone-surrogate walk (each nested value it visits is one)."""
    calls = [0]
    walk = estimate_file._broken_text

    def counted(value, loc):
        calls[0] += 1
        return walk(value, loc)

    monkeypatch.setattr(estimate_file, "_broken_text", counted)
    return calls


def test_each_model_s_fields_are_worked_out_once(walks):
    estimate_file._fields.cache_clear()
    one = loads_document(_text(1))
    models = estimate_file._fields.cache_info().misses
    assert models >= 10  # the document, a scenario, the inputs and their sections
    many = loads_document(_text(40))
    assert estimate_file._fields.cache_info().misses == models  # none again, 40 scenarios
    assert len(many.scenarios) == 40 and many.scenarios[0].inputs == one.scenarios[0].inputs
    assert walks[0] == 0  # no surrogate escape in either file: no walk


def test_a_lone_surrogate_is_still_found_and_a_pair_is_text(walks):
    doc = json.loads(_text(3))
    doc["scenarios"][2]["name"] = "C\U0001f600"  # a pair in the JSON: a character, not refused
    assert loads_document(json.dumps(doc)).scenarios[2].name == "C\U0001f600"
    assert walks[0] > 0  # the escape made it look
    doc["scenarios"][1]["inputs"]["model"]["name"] = "B\udcff"
    with pytest.raises(EstimateFileError, match=r"scenarios\[1\]\.inputs\.model\.name: a lone"):
        loads_document(json.dumps(doc))
