"""``ftcost``, the headless command line: the same core as the window, flags made from its fields.

Modules: ``commands`` (parser and commands), ``flags`` (input flags from the field metadata),
``values`` (parsing one flag's text), ``lookup`` (GPU, model, catalog), ``estimate_text`` and
``tables`` (text output), ``documents`` (JSON), ``csv_out``, ``report_cmd``, ``outputs`` (checks
on written paths), ``reference`` (docs/cli.md's flag reference). Layers: core, io, present and
report below; never gui.
"""

from __future__ import annotations

from .commands import build_parser, main

__all__ = ["build_parser", "main"]
