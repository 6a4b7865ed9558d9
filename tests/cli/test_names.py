"""Names from files (model, scenario, GPU, catalog, file names) never reach the terminal raw."""

from __future__ import annotations

import json
import re

import pytest

from ftcost_gui.cli import main
from ftcost_gui.core.catalog import GpuCatalog
from ftcost_gui.core.document import EstimateDocument
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.io.catalog_store import CatalogStore
from ftcost_gui.io.estimate_file import save_document
from ftcost_gui.io.resources import builtin_catalog

# An OSC title change, clear screen, a CSI colour in its C1 form, a bidi override, a bell, a
# line break that would forge a table row. (A lone surrogate is refused by the file readers.)
HOSTILE = "\x1b]0;pwned\x07\x1b[2JEvil\x9b31m\u202eNAME\u202c\x07\nforged row"
# Characters that must never be printed: C0 but newline, DEL, C1, bidi controls, surrogates.
FORBIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _clean(text: str) -> None:
    assert not FORBIDDEN.search(text), repr(FORBIDDEN.search(text).group())
    assert not re.search("[\ud800-\udfff]", text)
    text.encode("utf-8")  # writable as UTF-8


def _hostile_file(tmp_path) -> str:
    inputs = EstimateInputs()
    model = inputs.model.model_copy(update={"name": HOSTILE})
    gpu = inputs.hardware.gpu.model_copy(update={"name": HOSTILE, "id": "x\x1b[31m"})
    inputs = inputs.model_copy(
        update={"model": model, "hardware": inputs.hardware.model_copy(update={"gpu": gpu})}
    )
    doc = EstimateDocument.single(inputs, name=HOSTILE.replace("\n", " "))
    path = tmp_path / "evil.ftcost"
    save_document(path, doc)
    return str(path)


def _hostile_catalog() -> None:
    builtin = builtin_catalog()
    evil = builtin.find("l4").model_copy(update={"name": HOSTILE, "price_as_of": HOSTILE})
    box = builtin.find("t4").model_copy(update={"id": "evil-\u202ebox", "name": "T4\x1b[5m"})
    store = CatalogStore()
    store.save(GpuCatalog(name="Lab", description=HOSTILE, gpus=(evil, box)))
    store.set_active("Lab")


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "{file}"],
        ["estimate", "{file}", "--gpus", "1", "--model", "llama-2-70b"],  # warnings name the GPU
        ["compare", "{file}"],
        ["gpus"],
        ["catalogs"],
        ["estimate", "--gpu", "l4"],
        ["estimate", "--gpu", "l4", "--gpus", "1", "--model", "llama-2-70b"],
        ["compare", "--model", "llama-2-7b", "--method", "qlora"],
    ],
    ids=lambda a: " ".join(a),
)
def test_tables_show_names_clean(tmp_path, capsys, argv):
    _hostile_catalog()
    file = _hostile_file(tmp_path)
    assert main([a.replace("{file}", file) for a in argv]) == 0
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    if argv[0] != "catalogs":  # the name is shown, cleaned: escapes and controls gone
        assert "EvilNAME forged row" in out
    for line in out.splitlines():
        assert not line.startswith("forged row")  # a name's line break does not make a line


@pytest.mark.parametrize("command", [["estimate", "--json"], ["gpus", "--json"]])
def test_json_escapes_names(tmp_path, capsys, command):
    _hostile_catalog()
    file = _hostile_file(tmp_path)
    argv = [command[0], file, "--json"] if command[0] == "estimate" else command
    assert main(argv) == 0
    out = capsys.readouterr().out
    _clean(out)
    doc = json.loads(out)
    names = (
        [doc["inputs"]["model"]["name"]]
        if command[0] == "estimate"
        else [g["name"] for g in doc["gpus"]]
    )
    assert HOSTILE in names  # the data itself is kept exact (JSON escapes it)


def test_error_lines_show_names_clean(tmp_path, capsys):
    cases = [
        ["estimate", str(tmp_path / "\x1b[2Jmissing\u202e.ftcost")],
        ["estimate", "--gpu", "\x1b[2J\u202eH100"],
        ["estimate", "--model", "\x9b2J\u202eqwen"],
        ["gpus", "--catalog", "\x1b]0;x\x07Lab"],
        ["estimate", "\x1b[31m", "extra\x1b[0m"],  # argparse's own messages
        ["nope\x1b[2J"],
    ]
    for argv in cases:
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err.startswith("ftcost: error: ") and err.count("\n") == 1
        _clean(err)


def test_catalog_file_names_are_shown_clean(tmp_path, capsys):
    folder = tmp_path / "config" / "catalogs"
    folder.mkdir(parents=True)
    (folder / "\x1b[2Jbroken\u202e.json").write_bytes(b"{")
    assert main(["gpus"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("ftcost: warning: catalog file ") and err.count("\n") == 1
    _clean(err)
    _clean(out)


def test_a_file_with_a_non_utf8_name(tmp_path, capsys):
    path = tmp_path / "caf\udce9.ftcost"  # b"caf\xe9" on disk: not UTF-8
    assert main(["estimate", "--save", str(path)]) == 0
    out, _ = capsys.readouterr()
    assert path.exists()
    assert main(["estimate", str(path), "--csv", "-"]) == 0
    out, err = capsys.readouterr()
    _clean(out)
    assert err == ""
