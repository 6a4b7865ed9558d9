"""Text as blocks (headings, formula lines, notes, tables, lists), rendered to HTML or Markdown.

The explanation and the report are written once as blocks; each output renders them, so there is
no HTML-to-Markdown parsing. Text parts are plain text that the renderers escape; a name read from
a file is a ``Name`` part, rendered by io/names.py for the output it goes to.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Literal

from ..io.names import for_html, for_markdown, plain


@dataclass(frozen=True, slots=True)
class Bold:
    text: str


@dataclass(frozen=True, slots=True)
class Name:
    """A name from a file (model, GPU, scenario): data, escaped for each output."""

    text: str


@dataclass(frozen=True, slots=True)
class Ref:
    """Where a formula comes from: '[article 001 §Memory sets the floor]'."""

    text: str


Part = str | Bold | Name | Ref
Inline = tuple[Part, ...]


@dataclass(frozen=True, slots=True)
class Para:
    """A paragraph: a formula line (monospace), a note (muted) or plain text."""

    kind: Literal["formula", "note", "text"]
    parts: Inline


@dataclass(frozen=True, slots=True)
class Table:
    """Rows of cells; ``header`` (may be empty) and ``align`` ('l'/'r' per column)."""

    rows: tuple[tuple[Inline, ...], ...]
    header: tuple[str, ...] = ()
    align: str = ""


@dataclass(frozen=True, slots=True)
class Items:
    """A bulleted list."""

    items: tuple[Inline, ...]


Block = Para | Table | Items


@dataclass(frozen=True, slots=True)
class Section:
    title: Inline
    blocks: tuple[Block, ...]
    level: int = 3


def formula(*parts: Part) -> Para:
    return Para("formula", parts)


def note(*parts: Part) -> Para:
    return Para("note", parts)


def text(*parts: Part) -> Para:
    return Para("text", parts)


# --- HTML ---------------------------------------------------------------------------------------
def inline_html(parts: Inline) -> str:
    if len(parts) == 1 and type(parts[0]) is str:  # most table cells: one text
        return _text_html(parts[0])
    out = []
    for p in parts:
        if type(p) is str:
            out.append(_text_html(p))
        elif isinstance(p, Bold):
            out.append(f"<b>{_text_html(p.text)}</b>")
        elif isinstance(p, Name):
            out.append(for_html(p.text))
        elif isinstance(p, Ref):
            out.append(f' <span class="ref">[{_text_html(p.text)}]</span>')
        else:
            out.append(_text_html(p))
    return "".join(out)


@functools.lru_cache(maxsize=8192)
def _text_html(s: str) -> str:
    # The same labels and units recur in every scenario's tables: each is escaped once (a
    # 200-scenario report renders ~40,000 parts; issue 17).
    return escape(s, quote=False)


_PARA_HTML = {"formula": '<p class="f">', "note": '<p class="note">', "text": "<p>"}


def _table_html(t: Table, attrs: str) -> str:
    align = t.align or "l" * max((len(r) for r in t.rows), default=0)
    head = "".join(
        f"<th align='left'>{escape(h)}</th>" if i == 0 else f"<th>{escape(h)}</th>"
        for i, h in enumerate(t.header)
    )
    rows = [f"<tr>{head}</tr>"] if t.header else []
    for row in t.rows:
        cells = "".join(
            f"<td align='right'>{inline_html(c)}</td>" if align[i] == "r" else
            f"<td>{inline_html(c)}</td>"
            for i, c in enumerate(row)
        )  # fmt: skip
        rows.append(f"<tr>{cells}</tr>")
    return f"<table{attrs}>{''.join(rows)}</table>"


def block_html(b: Block, table_attrs: str = "") -> str:
    if isinstance(b, Para):
        return f"{_PARA_HTML[b.kind]}{inline_html(b.parts)}</p>"
    if isinstance(b, Table):
        return _table_html(b, table_attrs)
    return "<ul>" + "".join(f"<li>{inline_html(i)}</li>" for i in b.items) + "</ul>"


def to_html(
    sections: Sequence[Section], *, heading_level: int | None = None, table_attrs: str = ""
) -> str:
    """HTML of the sections; ``heading_level`` puts every heading at one level (the report)."""
    out = []
    for s in sections:
        h = heading_level or s.level
        out.append(f"<h{h}>{inline_html(s.title)}</h{h}>")
        out.extend(block_html(b, table_attrs) for b in s.blocks)
    return "".join(out)


# --- Plain text (a terminal) -------------------------------------------------------------------
def inline_text(parts: Inline) -> str:
    """Plain text of the parts: a name cleaned of control characters, a reference in brackets."""
    out = []
    for p in parts:
        if isinstance(p, Bold):
            out.append(p.text)
        elif isinstance(p, Name):
            out.append(plain(p.text))
        elif isinstance(p, Ref):
            out.append(f" [{p.text}]")
        else:
            out.append(p)
    return "".join(out)


# --- Markdown -----------------------------------------------------------------------------------
def inline_markdown(parts: Inline) -> str:
    out = []
    for p in parts:
        if isinstance(p, Bold):
            out.append(f"**{p.text}**")
        elif isinstance(p, Name):
            out.append(for_markdown(p.text))
        elif isinstance(p, Ref):
            out.append(f" [{p.text}]")
        else:
            out.append(p)
    return " ".join("".join(out).split())


def md_cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> str:
    """A pipe table; cells are Markdown already (escape names before)."""
    align = align or "l" * len(header)
    seps = ["---:" if a == "r" else "---" for a in align]
    lines = [
        "| " + " | ".join(md_cell(h) for h in header) + " |",
        "| " + " | ".join(seps) + " |",
    ]
    lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def block_markdown(b: Block) -> str:
    if isinstance(b, Para):
        return inline_markdown(b.parts) + "\n"
    if isinstance(b, Table):
        rows = [[inline_markdown(c) for c in row] for row in b.rows]
        header = list(b.header) if b.header else rows.pop(0)  # Markdown tables need a header
        width = max([len(header), *(len(r) for r in rows)])
        header += [""] * (width - len(header))
        return md_table(header, [r + [""] * (width - len(r)) for r in rows], b.align)
    return "".join(f"- {inline_markdown(i)}\n" for i in b.items)


def to_markdown(sections: Sequence[Section], *, heading_level: int | None = None) -> str:
    out = []
    for s in sections:
        out.append("#" * (heading_level or s.level) + " " + inline_markdown(s.title) + "\n")
        out.extend(block_markdown(b) for b in s.blocks)
    return "\n".join(out)
