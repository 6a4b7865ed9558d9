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
