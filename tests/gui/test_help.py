"""Help that works offline (issue 16): the user guide, "What is …?", shortcuts, the example note."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QDesktopServices, QGuiApplication, QMouseEvent

from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io import guide
from ftcost_gui.io.resources import resource_path
from ftcost_gui.present.glossary import GLOSSARY, glossary_markdown, term

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


@pytest.fixture(autouse=True)
def _never_the_network(monkeypatch):
    def _refuse(url):
        raise AssertionError(f"tried to open {url.toString()}")

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(_refuse))


def _help(window):
    return window.addons["help"]


def test_user_guide_opens_from_the_help_menu_and_every_page_renders(window, qtbot):
    window.action("user_guide").trigger()
    g = _help(window).guide
    assert g is not None and g.isVisible()
    assert g.page == "README.md"
    assert "Quick start" in g.browser.toPlainText()
    for page, _title in guide.PAGES:
        g.show_page(page)
        text = g.browser.toPlainText()
        assert len(text) > 200, page
        markdown = guide.read_page(page, lambda: glossary_markdown(lambda p, h: ""))
        assert [h.anchor for h in guide.headings(markdown)] == g.heading_anchors(), page


def test_every_link_between_guide_pages_lands_on_a_heading(window):
    g = _help(window).show_guide()
    followed = 0
    for page, _title in guide.PAGES:
        g.show_page(page)
        markdown = g.browser.toMarkdown() if page == guide.GLOSSARY_PAGE else guide.read_page(page)
        for href in LINK.findall(markdown):
            target = guide.resolve(page, href)
            if target.kind != "page":
                continue
            g.show_page(page)
            g.follow(href)
            assert g.page == target.page, href
            if target.anchor:
                assert target.anchor in g.heading_anchors(), (page, href)
            followed += 1
    assert followed >= 10


def test_a_link_to_another_site_is_copied_not_opened(window):
    g = _help(window).show_guide()
    g.follow("https://huggingface.co/docs")
    assert g.page == "README.md"
    assert QGuiApplication.clipboard().text() == "https://huggingface.co/docs"
    assert "offline" in g.status.text()
    g.follow("data/peft_method_comparison.json")  # in the repository, not in the guide
    assert "not part of the guide" in g.status.text()


def test_back_forward_and_find(window, qtbot):
    g = _help(window).show_guide()
    g.show_page("docs/model.md")
    g.show_page("docs/catalogs.md", "csv-columns")
    g.back()
    assert g.page == "docs/model.md"
    g.back()
    assert g.page == "README.md"
    g.forward()
    assert g.page == "docs/model.md"
    g.find_field.setText("recomputation")
    assert g.find_next()
    assert g.browser.textCursor().selectedText().lower() == "recomputation"


def test_the_guide_ships_with_the_package():
    """The wheel and the frozen app carry README and docs/ as resources/guide (read offline)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = project["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert include["README.md"] == "ftcost_gui/resources/guide/README.md"
    assert include["docs"] == "ftcost_gui/resources/guide/docs"
    spec = (ROOT / "packaging" / "ftcost.spec").read_text()
    assert "resources/guide" in spec
    for page, _title in guide.PAGES:
        if page != guide.GLOSSARY_PAGE:
            assert (ROOT / page).is_file(), page
    assert guide.guide_root() in (ROOT, resource_path("guide"))


def test_glossary_terms_point_at_real_fields_and_headings():
    inputs = EstimateInputs()
    for t in GLOSSARY:
        assert guide.anchor_for(t.page, t.heading)
        for path in t.fields:
            section, name = path.split(".")
            assert name in type(getattr(inputs, section)).model_fields, path
    for key in ("mfu", "usable_memory", "spot_factor"):
        assert term(key).answer


@pytest.mark.parametrize(
    ("section", "name", "question"),
    [
        ("efficiency", "mfu", "MFU"),
        ("hardware", "usable_memory_fraction", "Usable memory"),
        ("spot", "interruptions_per_node_hour", "Spot factor"),
    ],
)
def test_what_is_answers_are_one_click_from_their_field(window, qtbot, section, name, question):
    helper = _help(window).field_help
    label = next(
        lbl
        for panel in window.form_tabs.panels.values()
        for s, spec, lbl, _editor in panel.field_rows()
        if (s, spec.name) == (section, name)
    )
    assert question in label.toolTip()
    assert label.cursor().shape() == Qt.CursorShape.WhatsThisCursor
    click = QMouseEvent(
        QEvent.Type.MouseButtonRelease,
        QPointF(3, 3),
        label.mapToGlobal(QPointF(3, 3)),
        Qt.MouseButton.LeftButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    assert helper.eventFilter(label, click)
    assert question in helper.shown
    assert "guide:docs/model.md#" in helper.shown  # and one more click into the guide
    href = re.search(r'href="(guide:[^"]+)"', helper.shown).group(1)
    helper.open_guide(href)
    g = _help(window).guide
    assert g.page == "docs/model.md" and g.anchor in g.heading_anchors()


def test_every_form_field_says_what_it_is(window):
    for panel in window.form_tabs.panels.values():
        for _section, spec, label, editor in panel.field_rows():
            assert spec.label in editor.whatsThis(), spec.name
            assert label.whatsThis() == editor.whatsThis()


def test_headline_figures_answer_too(window):
    helper = _help(window).field_help
    cards = window.results.headline.cards
    assert "MFU" in helper.answers[cards["gpu_hours"].caption]
    assert "Spot factor" in helper.answers[cards["cost"].caption]
    assert "Usable memory" in helper.answers[cards["memory"].caption]


def test_shortcut_list_is_generated_from_the_action_table(window):
    window.action("shortcuts").trigger()
    dialog = window.findChild(type(_help(window).show_shortcuts()), "shortcuts")
    rows = dialog.rows()
    listed = {(menu, command) for menu, command, _keys in rows}
    for spec, action in window.action_table.rows():
        if action.shortcuts():
            assert any(cmd == action.text().replace("&", "").rstrip("…") for _m, cmd in listed), (
                spec.id
            )
    keys = {command: k for _menu, command, k in rows}
    assert keys["Quit"] == "Ctrl+Q" and keys["User Guide"] == "F1"


def test_first_window_says_it_is_an_example(window, qtbot):
    banner = _help(window).banner
    assert banner.isVisible()
    text = banner.text.text()
    inputs = window.store.inputs
    assert inputs.model.name in text and inputs.hardware.gpu.name in text
    assert "example" in text.lower() and "File → Open" in text
    # An edit makes it the user's own estimate: the note goes.
    window.form_tabs.panels["training"].editor("training", "micro_batch").setFocus()
    window.store.set_field("training", "micro_batch", inputs.training.micro_batch + 1)
    assert not banner.isVisible()
    window.files.new()
    assert banner.isVisible()
    example = sorted(resource_path("examples").glob("*.ftcost"))[0]
    window.files.open_file(example)  # chosen on purpose from File → Open Example
    assert not banner.isVisible()
    window.files.new()
    assert banner.isVisible()


def test_a_file_of_ones_own_has_no_example_note(window, tmp_path):
    from ftcost_gui.io.estimate_file import save_document

    mine = tmp_path / "mine.ftcost"
    save_document(mine, window.store.document)
    window.files.open_file(mine)
    assert not _help(window).banner.isVisible()
    _help(window).banner.close_button.click()
    window.files.new()
    assert not _help(window).banner.isVisible()  # hidden for the session
