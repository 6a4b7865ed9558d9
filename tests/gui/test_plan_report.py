"""The report's recommendation: first in the report, the plan section's words, the plan and
what-fits plots; ftcost report's flags; the window's export uses the Plan tab's constraints."""

from __future__ import annotations

from pathlib import Path

from ftcost_gui.cli import main
from ftcost_gui.present.blocks import inline_markdown
from ftcost_gui.present.plan_texts import recommendation

ROOT = Path(__file__).resolve().parents[2]
V2 = ROOT / "tests" / "data" / "estimate_v2.ftcost"


def test_cli_report_opens_with_the_recommendation(tmp_path, capsys):
    out = tmp_path / "r.md"
    assert main(["report", str(V2), "--md", str(out), "--deadline", "24h",
                 "--methods", "lora"]) == 0  # fmt: skip
    text = out.read_text(encoding="utf-8")
    first = text.index("## ")
    assert text[first:].startswith("## Recommendation")
    assert "Rent " in text and "Main risk:" in text
    for name in ("plan", "fits_seq", "fits_batch", "cost", "memory"):
        assert (tmp_path / f"r-{name}.png").stat().st_size > 1000
    assert "![Plans: cost per run vs wall-clock](r-plan.png)" in text


def test_cli_report_without_the_plan(tmp_path):
    out = tmp_path / "r.md"
    assert main(["report", str(V2), "--md", str(out), "--no-plan"]) == 0
    assert "Recommendation" not in out.read_text(encoding="utf-8")
    assert not (tmp_path / "r-plan.png").exists()


def test_window_export_uses_the_plan_tabs_constraints(window, tmp_path, qtbot):
    from ftcost_gui.core.plan_space import PlanConstraints

    tab = window.addons["plan"].plan
    tab.set_constraints(PlanConstraints(methods=("lora",), deadline_h=12.0))
    out = tmp_path / "w.md"
    assert window.exports.export_report(str(out))
    text = out.read_text(encoding="utf-8")
    section = tab.report_plan()
    assert section is not None and section.search.constraints.deadline_h == 12.0
    assert inline_markdown(recommendation(section.search, section.best_fits)) in text
