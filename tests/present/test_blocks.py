"""Blocks render to HTML and Markdown from one source; names from files are escaped for each."""

from __future__ import annotations

from ftcost_gui.core import EstimateInputs, estimate
from ftcost_gui.present.blocks import (
    Bold,
    Items,
    Name,
    Ref,
    Section,
    Table,
    formula,
    note,
    text,
    to_html,
    to_markdown,
)
from ftcost_gui.present.explain import explain

SECTIONS = (
    Section(("Title ", Name("<b>x</b>")), (text("N = ", Bold("7")),), level=2),
    Section(
        ("Memory",),
        (
            formula("a < b = ", Bold("3 GiB"), Ref("article 001")),
            note("why"),
            Table(((("Weights",), ("1 GiB",)), ((Bold("Total"),), ("2 | 3",))), align="lr"),
            Items((("one",), ("two",))),
        ),
    ),
)


def test_html():
    assert to_html(SECTIONS) == (
        "<h2>Title &lt;b&gt;x&lt;/b&gt;</h2><p>N = <b>7</b></p>"
        "<h3>Memory</h3>"
        '<p class="f">a &lt; b = <b>3 GiB</b> <span class="ref">[article 001]</span></p>'
        '<p class="note">why</p>'
        "<table><tr><td>Weights</td><td align='right'>1 GiB</td></tr>"
        "<tr><td><b>Total</b></td><td align='right'>2 | 3</td></tr></table>"
        "<ul><li>one</li><li>two</li></ul>"
    )
    assert to_html(SECTIONS[1:], heading_level=4, table_attrs=" class='plain'").startswith(
        "<h4>Memory</h4>"
    )
    assert "<table class='plain'>" in to_html(SECTIONS[1:], table_attrs=" class='plain'")


def test_markdown():
    md = to_markdown(SECTIONS)
    assert md.splitlines() == [
        "## Title &lt;b&gt;x&lt;/b&gt;",
        "",
        "N = **7**",
        "",
        "### Memory",
        "",
        "a < b = **3 GiB** [article 001]",
        "",
        "why",
        "",
        "| Weights | 1 GiB |",
        "| --- | ---: |",
        "| **Total** | 2 \\| 3 |",
        "",
        "- one",
        "- two",
    ]


def test_explanation_escapes_a_hostile_model_name_in_both_outputs():
    doc = EstimateInputs().model_dump()
    doc["model"]["name"] = "<img src=x onerror=alert(1)>[link](http://x)"
    inputs = EstimateInputs.model_validate(doc)
    sections = explain(inputs, estimate(inputs))
    assert "<img" not in to_html(sections)
    md = to_markdown(sections)
    assert "<img" not in md and "](http" not in md
