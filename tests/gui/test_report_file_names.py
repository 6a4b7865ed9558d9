"""Reports to a file whose name is not UTF-8 (issue 12): every format is written under exactly that
name, Markdown links its images by their bytes, and nothing is left behind."""

from __future__ import annotations

import os
import sys

import pytest

from ftcost_gui.core import estimate
from ftcost_gui.core.document import EstimateDocument
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io.names import for_link
from ftcost_gui.report.content import Report

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names are bytes")


def test_a_link_names_the_file_by_its_bytes():
    assert for_link("plan-memory.png") == "plan-memory.png"
    assert for_link("my plan (v2)-cost.png") == "my%20plan%20%28v2%29-cost.png"
    assert for_link(os.fsdecode(b"rep\xff-memory.png")) == "rep%FF-memory.png"
    assert for_link("café.png") == "caf%C3%A9.png"  # UTF-8 bytes, as a browser resolves them


def test_pdf_html_and_markdown_to_a_non_utf8_file_name(tmp_path):
    pytest.importorskip("PySide6")
    from ftcost_gui.report.render import ensure_qapp, export_report

    ensure_qapp()
    inputs = EstimateInputs()
    report = Report(
        document=EstimateDocument.single(inputs), results=[estimate(inputs)], title="plan"
    )
    folder = os.fsencode(tmp_path)
    targets = {e: os.fsdecode(folder + b"/rep\xff." + e.encode()) for e in ("pdf", "html", "md")}
    written = export_report(report, **targets)
    on_disk = sorted(os.listdir(folder))
    assert on_disk == sorted(
        [b"rep\xff.pdf", b"rep\xff.html", b"rep\xff.md", b"rep\xff-memory.png", b"rep\xff-cost.png"]
    ), on_disk  # no temp file left, nothing under another name
    assert len(written) == 5
    with open(folder + b"/rep\xff.pdf", "rb") as f:
        assert f.read(5) == b"%PDF-"
    with open(folder + b"/rep\xff.md", "rb") as f:
        text = f.read().decode("utf-8")  # the report is UTF-8 whatever its file is called
    assert "](rep%FF-memory.png)" in text and "](rep%FF-cost.png)" in text
