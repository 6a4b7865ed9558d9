"""The one place that renders a name read from a file (scenario, model, GPU, catalog, file name).

Estimate files and catalogs are meant to be shared, so every name in them is data from a stranger.
Each output gets its own renderer; call the one for where the text goes:

- ``for_terminal``: no escape sequences, control characters or bidi overrides (they can rewrite
  the screen, hide text, or reverse what is shown; CVE-2021-42574 "Trojan Source" for bidi).
- ``for_html``: the terminal-clean text, HTML-escaped (quotes too: safe in attributes).
- ``for_markdown``: the clean text with Markdown's inline markup and raw HTML escaped, so a name
  can neither inject a tag, a link or an image nor break a table cell.
- ``for_csv``: the clean text with spreadsheet formula prefixes neutralised (OWASP "CSV
  Injection": a leading ``=``, ``+``, ``-``, ``@``, tab or CR is prefixed with ``'``).
- ``for_link``: a file name as the target of a relative link (a Markdown image next to the
  report): its bytes percent-encoded (RFC 3986), so it names exactly that file.

All of them first replace lone surrogates (a non-UTF-8 file name decoded with surrogateescape)
by U+FFFD, so writing the result as UTF-8 never raises.
"""

from __future__ import annotations

import functools
import html
import os
import re
import urllib.parse

REPLACEMENT = "\ufffd"

# ECMA-48 sequences, removed whole so "\x1b[31mred" shows "red" (not "[31mred").
_ESCAPES = re.compile(
    r"""
      (?:\x1b\[|\x9b) [0-?]* [ -/]* [@-~]                    # CSI (7-bit and C1 form)
    | (?:\x1b[]PX^_]|[\x90\x98\x9d\x9e\x9f]) .*? (?:\x07|\x1b\\|\x9c|$)  # OSC, DCS, SOS, PM, APC
    | \x1b [ -/]* [0-~]                                       # two-byte and nF escapes
    """,
    re.VERBOSE | re.DOTALL,
)
_SURROGATES = re.compile("[\ud800-\udfff]")
# Line breaks and tabs become one space: a name is one line wherever it is shown.
_BREAKS = re.compile("[\t\n\v\f\r\x85\u2028\u2029]+")
# C0 (but tab/newline, handled above), DEL, C1, and the bidi embedding/override/isolate marks.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

# CommonMark lets any ASCII punctuation be backslash-escaped. Escaped everywhere: what starts
# inline markup (emphasis, code, links, images, table cells, strikethrough, math, headings, and
# the ':' and '@' of autolinks); escaped at the start only: what starts a block (lists, quotes,
# setext underlines). Names stay readable ("Qwen2.5-7B" is unchanged).
_MARKDOWN_INLINE = re.compile(r"([\\`*_{}\[\]()!|~$:#@])")
_MARKDOWN_BLOCK_START = re.compile(r"^(\d*)([-+=.)])")  # ">" becomes &gt; below
_MARKDOWN_WWW = re.compile(r"(www)\.", re.IGNORECASE)
_CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def plain(text: object) -> str:
    """One line of text safe to show anywhere: no escape sequences, controls or bidi marks."""
    s = str(text)
    if s.isascii() and s.isprintable():  # the usual name: no pattern below can match it
        return s
    return _plain(s)


def _plain(s: str) -> str:
    s = _SURROGATES.sub(REPLACEMENT, s)
    s = _ESCAPES.sub("", s)
    s = _BREAKS.sub(" ", s)
    return _CONTROLS.sub("", s)


def storable(text: str) -> str:
    """The text with lone surrogates replaced by U+FFFD and nothing else changed: what a UTF-8
    file can hold (estimate files keep names exactly, and their reader refuses surrogates)."""
    return _SURROGATES.sub(REPLACEMENT, text)


def for_terminal(text: object) -> str:
    """A name for a terminal (CLI tables, messages on stderr)."""
    return plain(text)


def for_html(text: object) -> str:
    """A name for HTML text or a quoted attribute."""
    return _for_html(text if type(text) is str else str(text))


@functools.lru_cache(maxsize=8192)
def _for_html(s: str) -> str:
    # A report renders the same few hundred texts (labels, units, names) tens of thousands of
    # times: ~40,000 calls at 200 scenarios (issue 17). Each distinct text is escaped once.
    return html.escape(plain(s), quote=True)


def for_markdown(text: object) -> str:
    """A name for Markdown text or a table cell: inline markup and HTML are shown, not applied."""
    s = _MARKDOWN_INLINE.sub(r"\\\1", plain(text).strip(" "))
    s = _MARKDOWN_BLOCK_START.sub(r"\1\\\2", s)
    s = _MARKDOWN_WWW.sub(r"\1\\.", s)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def for_link(file_name: str | os.PathLike[str]) -> str:
    """A file name as a relative link target (Markdown ``![alt](…)``, HTML ``src``).

    The name's bytes as the file system holds them, percent-encoded (RFC 3986 §2.1): a space,
    a parenthesis or a non-UTF-8 byte can neither break the link nor make the text unwritable
    as UTF-8, and the link still opens that very file.
    """
    return urllib.parse.quote(os.fsencode(file_name), safe="")


def _csv_flagged(text: str) -> bool:
    """A formula trigger once leading quotes and spaces are set aside.

    Leading quotes count so that a text that itself starts with ``'=`` is quoted once more,
    which keeps ``from_csv`` an exact inverse.
    """
    return text.lstrip("'").lstrip(" ").startswith(_CSV_FORMULA_START)


def for_csv(text: object, *, keep_text: bool = False) -> str:
    """A text cell for a CSV file opened in a spreadsheet: never read as a formula.

    The text is cleaned (``plain``) unless ``keep_text`` (a lossless export, e.g. a catalog's
    notes with line breaks); either way ``from_csv(for_csv(t, keep_text=True)) == t``.
    """
    s = str(text) if keep_text else plain(text)
    return "'" + s if _csv_flagged(s) else s


def from_csv(cell: str) -> str:
    """Undo ``for_csv``'s quote for a cell read back: the exact inverse."""
    if cell.startswith("'") and _csv_flagged(cell[1:]):
        return cell[1:]
    return cell


def path_name(path: str | os.PathLike[str]) -> str:
    """A file's name (no folder) as clean text, whatever bytes the file system holds."""
    return plain(os.path.basename(os.fsdecode(path)))
