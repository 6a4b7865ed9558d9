"""The user guide's pages, anchors and links without a window (io/guide.py): GitHub's heading
anchors, repeated and fenced headings, relative links between pages, and the generated glossary.
(tests/gui/test_help.py drives the same guide through the Help window.)"""

from __future__ import annotations

import pytest

from ftcost_gui.io.guide import (
    GLOSSARY_PAGE,
    PAGES,
    Heading,
    Target,
    anchor_for,
    headings,
    page_titles,
    read_page,
    resolve,
    slug,
)


def test_pages_in_reading_order():
    titles = page_titles()
    assert list(titles) == [p for p, _ in PAGES]
    assert titles["README.md"] == "Start here" and titles[GLOSSARY_PAGE] == "What is …?"


def test_the_glossary_page_is_made_not_read():
    assert read_page(GLOSSARY_PAGE) == ""
    assert read_page(GLOSSARY_PAGE, lambda: "# What is MFU?") == "# What is MFU?"
    with pytest.raises(KeyError, match="is not a page of the user guide"):
        read_page("docs/nowhere.md")


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Time and cost: the model (v2)!", "time-and-cost-the-model-v2"),
        ("  Quick start  ", "quick-start"),
        ("GPU-hours & the bill", "gpu-hours--the-bill"),
        ("ZeRO_3 sharding", "zero_3-sharding"),
    ],
)
def test_github_anchors(heading, anchor):
    assert slug(heading) == anchor


def test_repeated_and_fenced_headings():
    """A repeat gets -1, -2 …; a '#' line inside a code fence is code; links and backticks
    leave only their text in the anchor."""
    text = "# A\n```\n# not a heading\n```\n## A\n## [Link](x.md) `code`\n~~~\n# no\n~~~\n# A"
    assert headings(text) == [
        Heading(1, "A", "a"),
        Heading(2, "A", "a-1"),
        Heading(2, "[Link](x.md) `code`", "link-code"),
        Heading(1, "A", "a-2"),
    ]
    assert anchor_for("README.md", "[Link]", text) == "link-code"


@pytest.mark.parametrize(
    ("current", "href", "target"),
    [
        ("docs/model.md", "../README.md#quick-start", Target("page", "README.md", "quick-start")),
        ("docs/model.md", "./cli.md", Target("page", "docs/cli.md")),
        ("docs/model.md", "../../x.md", Target("missing", address="../../x.md")),
        ("docs/model.md", "data/x.md", Target("missing", "docs/data/x.md", "", "data/x.md")),
        (GLOSSARY_PAGE, "docs/cli.md#x", Target("page", "docs/cli.md", "x")),
        ("README.md", "guide:docs/cli.md#top", Target("page", "docs/cli.md", "top")),
        ("README.md", "https://example.org", Target("external", address="https://example.org")),
        ("README.md", "#here", Target("page", "README.md", "here")),
    ],
)
def test_links_between_pages(current, href, target):
    assert resolve(current, href) == target
