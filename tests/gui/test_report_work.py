"""Work of a report of many scenarios (issue 17): counted, never timed."""

from __future__ import annotations

import argparse

import pytest

from ftcost_gui.cli.report_cmd import add_report_parser, run_report
from ftcost_gui.core import EstimateInputs
from ftcost_gui.core.document import EstimateDocument, Scenario
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.series import Outcomes, document_series, own_outcome, scenario_series
from ftcost_gui.io.estimate_file import save_document


def _document(n: int) -> EstimateDocument:
    """n scenarios of different methods and sizes (each its own estimate)."""
    base = EstimateInputs()
    methods = ("full_amp_adamw", "lora", "qlora")
    return EstimateDocument(
        scenarios=tuple(
            Scenario(
                name=f"S{i}",
                inputs=base.edited("training", method=methods[i % 3]).edited(
                    "data", max_seq_len=1024 * (1 + i % 4)
                ),
            )
            for i in range(n)
        ),
        active=1,
    )


def test_own_outcome_is_the_estimate_and_gives_the_same_scenario_series():
    doc = _document(6)
    own = [own_outcome(s.inputs) for s in doc.scenarios]
    assert [o.result for o in own] == [estimate(s.inputs) for s in doc.scenarios]
    names = [s.name for s in doc.scenarios]
    assert scenario_series(names, own, doc.active) == document_series(doc, Outcomes())
    assert all(len(o.memory_by_method.keys) == 1 for o in own)  # no other method's memory


def test_a_report_of_many_scenarios_plans_each_scenario_once(qapp, tmp_path, counted):
    """Its figures and its plots' curves and bars come from one plan per scenario (the results
    and the plots' series each planned every scenario: 2 × n; the memory of the other methods,
    which the all-scenario plots do not show, was computed too)."""
    path = tmp_path / "s.ftcost"
    save_document(path, _document(12))
    parser = argparse.ArgumentParser(prog="ftcost")
    add_report_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["report", str(path), "--html", str(tmp_path / "r.html"), "--no-plan"])
    counted.update(plan=0, memory=0)
    assert run_report(args) == 0
    assert counted == {"plan": 12, "memory": 0}
    assert "S11" in (tmp_path / "r.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("text", ["a<b & 'c'", "plain", "\x1b[31mred\u202e"])
def test_html_renderers_give_the_same_text_every_time(text):
    from html import escape

    from ftcost_gui.io.names import for_html, plain
    from ftcost_gui.present.blocks import inline_html

    assert for_html(text) == for_html(text) == escape(plain(text), quote=True)
    assert inline_html((text,)) == inline_html((text, "")) == escape(text, quote=False)


REPORT_CHILD = r"""
import json, sys
from ftcost_gui.cli import main
rc = main(["report", sys.argv[1], "--html", sys.argv[2], "--no-plan"])
print(json.dumps({"rc": rc, "modules": sorted(sys.modules)}))
"""


def test_a_report_loads_no_exporter_the_window_uses(tmp_path):
    """The report renders its PNGs itself (charts/export.render_png): pyqtgraph's exporters
    (and the parameter tree they load) wait for the window's PNG export."""
    import json
    import os
    import subprocess
    import sys

    path = tmp_path / "s.ftcost"
    save_document(path, _document(3))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FTCOST_CONFIG_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", REPORT_CHILD, str(path), str(tmp_path / "r.html")],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    got = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])
    assert got["rc"] == 0 and "pyqtgraph" in got["modules"]
    loaded = [
        m
        for m in got["modules"]
        if m.startswith(("pyqtgraph.exporters", "pyqtgraph.parametertree"))
    ]
    assert loaded == []
