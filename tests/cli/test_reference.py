"""docs/cli.md's flag reference is generated; the committed file must be the current one."""

from __future__ import annotations

from ftcost_gui.cli.flags import input_flags
from ftcost_gui.cli.reference import BEGIN, DOCS, END, main, reference, render


def test_committed_docs_are_in_sync():
    text = DOCS.read_text(encoding="utf-8")
    assert render(text) == text, "docs/cli.md is stale: python -m ftcost_gui.cli.reference --write"
    assert main(["--check"]) == 0


def test_reference_names_every_flag_and_field():
    block = reference()
    assert block.startswith(BEGIN) and block.rstrip().endswith(END)
    for flag in input_flags():
        assert f"`{flag.option}" in block, flag.option
        assert f"`{flag.path}`" in block, flag.path
    for text in ("`--json`", "`--save PATH`", "`--csv [PATH]`", "`--by {cost,time}`",
                 "`--pdf PATH`", "`--catalog NAME`", "`--model ID`", "`--gpu ID`"):  # fmt: skip
        assert text in block, text


def test_a_stale_block_is_found(tmp_path, monkeypatch):
    stale = DOCS.read_text(encoding="utf-8").replace("`--seq-len N`", "`--seq-length N`")
    copy = tmp_path / "cli.md"
    copy.write_text(stale, encoding="utf-8")
    monkeypatch.setattr("ftcost_gui.cli.reference.DOCS", copy)
    assert main(["--check"]) == 1
    assert main(["--write"]) == 0
    assert copy.read_text(encoding="utf-8") == DOCS.read_text(encoding="utf-8")
