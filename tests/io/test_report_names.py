"""Names from files in HTML and Markdown reports (issue 12): a non-UTF-8 file name as the default
title no longer crashes the export, and HTML in scenario/model/GPU names is shown, not applied."""

from __future__ import annotations

import json
import os

import pytest

from ftcost_gui.core import estimate
from ftcost_gui.core.document import EstimateDocument, Scenario
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io.estimate_file import (
    EstimateFileError,
    dumps_document,
    load_document,
    loads_document,
    save_document,
)
from ftcost_gui.report.content import Report
from ftcost_gui.report.html import report_html, write_html
from ftcost_gui.report.markdown import report_markdown

EVIL = '<img src=x onerror="alert(1)"> [x](http://e.vil) | **b**'


def _report(title: str, name: str = EVIL) -> Report:
    inputs = EstimateInputs.model_validate(
        {"model": {"name": name}, "hardware": {"gpu": {"name": name, "price_source": name}}}
    )
    doc = EstimateDocument(
        scenarios=(Scenario(name=name, inputs=inputs), Scenario(name="B", inputs=inputs)),
        active=0,
    )
    return Report(document=doc, results=[estimate(s.inputs) for s in doc.scenarios], title=title)


def test_non_utf8_file_name_as_the_title(tmp_path):
    stem = os.fsdecode(b"plan-\xff\xfe")  # what Path(...).stem gives for a non-UTF-8 name
    report = _report(stem, name="Plain")
    out = tmp_path / "r.html"
    write_html(out, report, {})
    text = out.read_bytes().decode("utf-8")  # valid UTF-8
    assert "plan-\ufffd\ufffd" in text
    assert "plan-\ufffd\ufffd" in report_markdown(report, {})


def test_lone_surrogates_in_names():
    # A file may carry "\\udcff" (valid JSON, not text): refused, naming the field.
    doc = json.loads(dumps_document(_report("t", name="Plain").document))
    doc["scenarios"][1]["name"] = "B\udcff"
    with pytest.raises(EstimateFileError, match=r"scenarios\[1\]\.name: a lone UTF-16 surrogate"):
        loads_document(json.dumps(doc))


def test_a_name_with_a_lone_surrogate_saves_a_file_that_opens(tmp_path):
    # A model or GPU name built from a non-UTF-8 file name holds lone surrogates; the reader
    # refuses them, so the writer stores U+FFFD in their place (found by the whole-input-space
    # file round trip in tests/core/test_properties.py).
    stem = os.fsdecode(b"model-\xff")
    inputs = EstimateInputs.model_validate(
        {"model": {"name": stem}, "hardware": {"gpu": {"name": stem}}}
    )
    path = tmp_path / "plan.ftcost"
    save_document(path, EstimateDocument.single(inputs))
    back = load_document(path).current.inputs
    assert back.model.name == back.hardware.gpu.name == "model-\ufffd"
    assert back.model_dump(exclude={"model": {"name"}, "hardware": {"gpu": {"name"}}}) == (
        inputs.model_dump(exclude={"model": {"name"}, "hardware": {"gpu": {"name"}}})
    )


def test_a_model_folder_with_a_non_utf8_name_imports(tmp_path):
    from ftcost_gui.io.hf_config import load_hf_config

    from .hf_fixtures import LLAMA_32_1B

    folder = tmp_path / os.fsdecode(b"model-\xff\x1b[31m")
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA_32_1B))
    spec = load_hf_config(folder)
    assert spec.name == "model-\ufffd"
    report = _report(spec.name, name=spec.name)
    assert "model-\ufffd" in report_html(report, {}, "html")


def test_html_in_names_is_shown_not_applied():
    report = _report("<b>title</b>")
    md = report_markdown(report, {})
    assert "<img" not in md and "<b>" not in md
    assert "&lt;img" in md
    assert "](http" not in md  # no live link
    assert "| **b**" not in md  # a name cannot split a table cell nor make bold text
    html = report_html(report, {}, "html")
    assert "<img src=x" not in html and "<b>title" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html


def test_control_characters_in_names_are_stripped():
    report = _report("t", name="\x1b]0;pwned\x07name\u202e")
    for text in (report_markdown(report, {}), report_html(report, {}, "html")):
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
