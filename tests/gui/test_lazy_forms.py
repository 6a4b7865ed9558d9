"""Form tabs built when first shown (issue 17: start-up), counted; a tab built late shows exactly
what the same tab built with the window shows (pixels, What's This texts)."""

from __future__ import annotations

from ftcost_gui.gui.panels.form_tabs import TABS
from ftcost_gui.io.resources import resource_path


def _window(qtbot, *, every_tab_now: bool):
    from ftcost_gui.gui.app import build_window

    w = build_window()
    qtbot.addWidget(w)
    if every_tab_now:  # as the window built them before issue 17
        for key, _title, _cls in TABS:
            w.form_tabs.panel(key)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    return w


def _edit(w) -> None:
    """What a session does before it looks at the other tabs: edits, an undo, a file opened."""
    s = w.store
    s.set_field("efficiency", "mfu", 0.33, at_once=True)
    s.set_field("data", "max_seq_len", 4096, at_once=True)
    s.set_field("training", "lora_rank", 32, at_once=True)
    w.undo_stack.undo()
    w.files.load_path(resource_path("examples", "article-001-7b-lora.ftcost"))
    s.set_field("data", "max_seq_len", 8192, at_once=True)
    s.recompute_now()


def test_only_the_tab_on_screen_is_built_with_the_window(qtbot, article_000_first):
    w = _window(qtbot, every_tab_now=False)
    forms = w.form_tabs
    assert [type(p).__name__ for p in forms.built_panels()] == ["ModelPanel"]
    rows_at_start = sum(len(p.bindings) for p in forms.built_panels())
    forms.setCurrentIndex(2)  # the Training tab, as a click or Alt+T brings it
    assert [type(p).__name__ for p in forms.built_panels()] == ["ModelPanel", "TrainingPanel"]
    assert forms.widget(2).isAncestorOf(forms.panels["training"])
    every_row = sum(len(forms.panel(key).bindings) for key, _t, _c in TABS)
    assert len(forms.built_panels()) == 5
    assert rows_at_start * 4 < every_row  # 26 of 115 rows before the first paint


def test_a_tab_built_late_shows_what_it_shows_when_built_with_the_window(qtbot, article_000_first):
    late, early = _window(qtbot, every_tab_now=False), _window(qtbot, every_tab_now=True)
    for w in (late, early):
        _edit(w)
    assert len(late.form_tabs.built_panels()) == 1
    for index, (key, _title, _cls) in enumerate(TABS):
        shots, helps = [], []
        for w in (late, early):
            forms = w.form_tabs
            forms.setCurrentIndex(index)
            qtbot.wait(1)
            shots.append(forms.grab().toImage())
            rows = forms.panels[key].field_rows()
            helps.append(
                [(lb.text(), lb.toolTip(), lb.whatsThis(), ed.toolTip(), ed.whatsThis())
                 for _s, _f, lb, ed in rows]
            )  # fmt: skip
        assert shots[0] == shots[1], key
        assert helps[0] == helps[1], key
        assert all(lb_help and ed_help for *_texts, lb_help, _tip, ed_help in helps[0]), key
