"""The user guide: the README and docs/*.md, shipped with the package and read offline.

A wheel carries them as ``ftcost_gui/resources/guide/`` (README.md, docs/…; hatch force-include);
a source checkout or an editable install reads the repository's own README.md and docs/. Pages
are Markdown; links between them are relative paths with GitHub-style heading anchors
(``model.md#time-and-cost-…``), which ``slug`` reproduces so the window can follow them.
Nothing here opens the network: a link to another site is reported as ``external``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from .loader import RESOURCE, read_bytes
from .resources import resources_root

#: The guide's pages in reading order: (path under the guide root, title in the page list).
PAGES: tuple[tuple[str, str], ...] = (
    ("README.md", "Start here"),
    ("glossary", "What is …?"),
    ("docs/model.md", "The estimation model"),
    ("docs/catalogs.md", "GPU catalogs and prices"),
    ("docs/models.md", "Models: presets and imports"),
    ("docs/estimate-files.md", "Estimate files"),
    ("docs/cli.md", "The command line"),
    ("docs/accuracy.md", "Accuracy against measurements"),
)
GLOSSARY_PAGE = "glossary"  # made from present/glossary.py, not a file
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@cache
def guide_root() -> Path:
    """The folder holding README.md and docs/ (the package's copy, else the checkout's)."""
    shipped = resources_root() / "guide"
    if (shipped / "README.md").is_file():
        return shipped
    checkout = resources_root().parent
    if (checkout / "README.md").is_file() and (checkout / "docs").is_dir():
        return checkout
    raise FileNotFoundError("the user guide is not installed (README.md and docs/ not found)")


def page_titles() -> dict[str, str]:
    return dict(PAGES)


def page_path(page: str) -> Path:
    return guide_root() / PurePosixPath(page)


def read_page(page: str, glossary: Callable[[], str] | None = None) -> str:
    """A page's Markdown. ``glossary`` makes the generated "What is …?" page."""
    if page == GLOSSARY_PAGE:
        return glossary() if glossary is not None else ""
    if page not in page_titles():
        raise KeyError(f"{page} is not a page of the user guide")
    return read_bytes(page_path(page), RESOURCE).decode("utf-8")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    text: str  # as written (Markdown)
    anchor: str  # GitHub's slug, "-1", "-2" … for repeats


def headings(markdown: str) -> list[Heading]:
    """The page's headings with their anchors (headings inside code fences are not headings)."""
    out: list[Heading] = []
    seen: dict[str, int] = {}
    fenced = False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else _HEADING.match(line)
        if not m:
            continue
        text = m.group(2)
        base = slug(re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text).replace("`", ""))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(Heading(len(m.group(1)), text, base if n == 0 else f"{base}-{n}"))
    return out


@cache
def _page_headings(page: str) -> tuple[Heading, ...]:
    # A shipped page does not change while the window runs; every form row with a glossary
    # term asks for an anchor at start-up (65 reads and parses of the same pages otherwise).
    return tuple(headings(read_page(page)))


def anchor_for(page: str, heading_start: str, markdown: str | None = None) -> str:
    """The anchor of the first heading of ``page`` that starts with ``heading_start``."""
    found = _page_headings(page) if markdown is None else headings(markdown)
    for h in found:
        if h.text.startswith(heading_start):
            return h.anchor
    raise KeyError(f"no heading starting {heading_start!r} in {page}")


@dataclass(frozen=True, slots=True)
class Target:
    """Where a link in the guide leads: ``kind`` 'page' (page + anchor), 'external' (another
    site: never opened, ftcost works offline) or 'missing' (a file the guide does not ship)."""

    kind: str
    page: str = ""
    anchor: str = ""
    address: str = ""


def resolve(current: str, href: str) -> Target:
    """Follow ``href`` written on page ``current``."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        if parts.scheme == "guide":  # guide:docs/model.md#anchor (the window's own links)
            return resolve("", parts.path + (f"#{parts.fragment}" if parts.fragment else ""))
        return Target("external", address=href)
    anchor = unquote(parts.fragment)
    if not parts.path:
        return Target("page", current, anchor)
    base = PurePosixPath(current).parent if current and current != GLOSSARY_PAGE else None
    joined = (base / unquote(parts.path)) if base is not None else PurePosixPath(parts.path)
    normal: list[str] = []
    for part in joined.parts:
        if part == "..":
            if not normal:
                return Target("missing", address=href)
            normal.pop()
        elif part != ".":
            normal.append(part)
    path = "/".join(normal)
    if path in page_titles():
        return Target("page", path, anchor)
    return Target("missing", page=path, address=href)
