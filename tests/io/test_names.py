"""io/names.py: a name from a file rendered for the terminal, HTML, Markdown and CSV."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from ftcost_gui.io.names import (
    for_csv,
    for_html,
    for_markdown,
    for_terminal,
    from_csv,
    path_name,
    plain,
)

HOSTILE = [
    "\x1b[2J\x1b[31mred\x1b[0m",  # clear screen + colour
    "\x1b]0;pwned\x07title",  # OSC: set the terminal title
    "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x9b31mC1 CSI",
    "ok\rovertyped",
    "bell\x07\x00nul",
    "abc\u202edcba",  # right-to-left override
    "\u2066isolate\u2069",
    "line\nbreak\u2028sep",
    "del\x7fete",
    "\udcff\udcfename",  # non-UTF-8 bytes decoded with surrogateescape
]


def test_terminal_strips_sequences_controls_and_bidi():
    assert for_terminal("\x1b[2J\x1b[31mred\x1b[0m") == "red"
    assert for_terminal("\x1b]0;pwned\x07title") == "title"
    assert for_terminal("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\") == "link"
    assert for_terminal("\x9b31mC1 CSI") == "C1 CSI"
    assert for_terminal("ok\rovertyped") == "ok overtyped"
    assert for_terminal("abc\u202edcba") == "abcdcba"
    assert for_terminal("line\nbreak\u2028sep") == "line break sep"
    assert for_terminal("\udcff\udcfename") == "\ufffd\ufffdname"
    assert for_terminal("Llama-3.1 8B · 中文 é") == "Llama-3.1 8B · 中文 é"  # ordinary text kept


def _unsafe_for_terminal(s: str) -> list[str]:
    bidi = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    return [c for c in s if unicodedata.category(c) in ("Cc", "Cs") or c in bidi]


@settings(max_examples=300)
@given(st.text())
def test_no_control_character_survives_any_text(text):
    for render in (for_terminal, for_html, for_markdown, for_csv):
        out = render(text)
        assert not _unsafe_for_terminal(out), (text, out)
        out.encode("utf-8")  # never raises, whatever the input


def test_html_escapes_tags_and_quotes():
    assert for_html('<img src=x onerror="alert(1)">') == (
        "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"
    )
    assert for_html("a & b's") == "a &amp; b&#x27;s"


@settings(max_examples=300)
@given(st.text())
def test_html_output_has_no_markup(text):
    out = for_html(text)
    assert not set("<>\"'") & set(out)
    assert re.sub(r"&(amp|lt|gt|quot|#x27);", "", out).count("&") == 0


def test_markdown_escapes_inline_markup_and_html():
    assert for_markdown("<script>alert(1)</script>") == "&lt;script&gt;alert\\(1\\)&lt;/script&gt;"
    assert for_markdown("![x](http://e.vil/a.png)") == "\\!\\[x\\]\\(http\\://e.vil/a.png\\)"
    assert for_markdown("a|b") == "a\\|b"  # cannot split a table cell
    assert for_markdown("**bold** _it_ `code` ~~s~~") == (
        "\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\~\\~s\\~\\~"
    )
    assert for_markdown("- item") == "\\- item"
    assert for_markdown("1. item") == "1\\. item"
    assert for_markdown("# heading") == "\\# heading"
    assert for_markdown("> quote") == "&gt; quote"
    assert for_markdown("www.evil.com") == "www\\.evil.com"
    assert for_markdown("a & b") == "a &amp; b"
    assert for_markdown("Qwen2.5-7B (LoRA)") == "Qwen2.5-7B \\(LoRA\\)"
    assert for_markdown("Qwen2.5-7B") == "Qwen2.5-7B"  # ordinary names stay readable


@settings(max_examples=300)
@given(st.text())
def test_markdown_output_has_no_live_markup(text):
    out = for_markdown(text)
    assert "<" not in out and ">" not in out
    # every markup character is preceded by an odd run of backslashes (i.e. escaped)
    for m in re.finditer(r"[`*_\[\]()!|~$]", out):
        run = len(out[: m.start()]) - len(out[: m.start()].rstrip("\\"))
        assert run % 2 == 1, (text, out)


def test_csv_neutralises_formula_prefixes():
    for bad in ('=HYPERLINK("http://e.vil")', "+1", "-1+2", "@SUM(A1)", "\t=1", "\r=1", " =1"):
        out = for_csv(bad)
        assert out.startswith("'"), (bad, out)
        assert from_csv(out) == plain(bad)
    assert for_csv("Llama 7B") == "Llama 7B"
    assert from_csv("'quoted by the user") == "'quoted by the user"
    assert for_csv("'=x") == "''=x" and from_csv("''=x") == "'=x"


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from("'= +-@\t\r\nax")) | st.text())
def test_csv_keep_text_is_lossless_and_never_a_formula(text):
    cell = for_csv(text, keep_text=True)
    assert from_csv(cell) == text
    assert cell.startswith("'") or not cell.lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r"))


def test_path_name_of_non_utf8_bytes():
    assert path_name(b"/tmp/\xff\xfeplan.ftcost") == "\ufffd\ufffdplan.ftcost"
    assert path_name("/a/b/\x1b[31mx.ftcost") == "x.ftcost"


def test_every_hostile_name_is_clean_everywhere():
    for text in HOSTILE:
        for render in (for_terminal, for_html, for_markdown, for_csv):
            out = render(text)
            assert "\x1b" not in out and "\x9b" not in out
            assert not _unsafe_for_terminal(out)


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7F)))
def test_plain_skips_its_patterns_only_where_none_can_match(text):
    """names.plain returns printable ASCII as is (issue 17: a report writes 40,000 names):
    exactly what the patterns make of it, and anything else goes through them."""
    from ftcost_gui.io.names import _plain

    assert plain(text) == _plain(text)
