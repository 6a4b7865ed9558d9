"""Every file of tests/data/bad/ through the CLI and the window (issue 12).

For each file: a clear one-line error (the CLI exits 2, the window tells in one message box) or
a sane accepted result (finite figures, names shown clean), the input file untouched, and the
document open in the window untouched by a refused file. The corpus is made by
tests/data/bad/make_bad_files.py; MANIFEST.json says what each file must give.

How each family reaches the two front ends:

- estimate: ``ftcost estimate FILE``; the window's File → Open (``window.files.load_path``).
- config.json: ``ftcost estimate --model FILE``; the window's model import (``import_path``).
- safetensors: copied as ``model.safetensors`` next to a good config.json; ``ftcost estimate
  --model FOLDER`` (the CLI reads no weights: accepted) and the window's model import, which
  counts the headers and shows why it cannot (the architecture still imports).
- catalog: copied into the config folder's catalogs as ``lab.json``; ``ftcost gpus --catalog
  Lab`` and the window's catalog reload (a refused catalog is told, the built-in rows stay).
- csv: ``ftcost estimate FILE`` (not an estimate: one line) and the catalog editor's CSV import.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from ftcost_gui.cli import main as cli_main

BAD = Path(__file__).resolve().parents[1] / "data" / "bad"
MANIFEST: dict[str, dict[str, str]] = json.loads((BAD / "MANIFEST.json").read_text())
GOOD_CONFIG = BAD / "config" / "good.json"
BASE_DOC = BAD.parent / "estimate_v2.ftcost"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def fingerprint(path: Path) -> tuple[bytes, int]:
    st = path.stat()
    return hashlib.sha256(path.read_bytes()).digest(), st.st_mtime_ns


def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def finite(obj) -> list[str]:
    bad = []
    if isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            bad += [f"{name}.{p}" for p in finite(getattr(obj, name))]
    elif isinstance(obj, tuple | list):
        for v in obj:
            bad += finite(v)
    elif isinstance(obj, float) and not math.isfinite(obj):
        bad.append("")
    return bad


# --- the window, built once: opening a file is what is tested, not building the window ---------


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory):
    from PySide6.QtWidgets import QMessageBox

    from ftcost_gui.gui.app import build_window
    from ftcost_gui.gui.catalog.editor import open_catalog_editor

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FTCOST_CONFIG_DIR", str(tmp_path_factory.mktemp("window-config")))
        # No real modal box outside the tests too (building and closing): Discard/No.
        for name in ("question", "warning", "critical", "information"):
            mp.setattr(
                QMessageBox, name, staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard)
            )
        w = build_window()
        w.resize(1200, 800)
        editor = open_catalog_editor(w.form_tabs.hardware_panel.catalog, w)
        mp.setattr(editor, "_ask_name", lambda *a, **k: "CSV import")
        editor.new_catalog()
        w.bad_files_editor = editor
        yield w
        editor.revert()
        editor.close()
        w.store.set_dirty(False)
        w.close()


def _reset(window, dialogs) -> None:
    assert window.files.load_path(BASE_DOC)
    window.undo_stack.clear()
    for calls in dialogs.values():
        calls.clear()


def _told(dialogs) -> list[str]:
    texts = (" ".join(map(str, call)) for call in dialogs["warning"])
    return [html.unescape(re.sub("<[^>]+>", " ", text)) for text in texts]


def _cli_argv(rel: str, family: str, tmp_path: Path) -> list[str]:
    path = BAD / rel
    if family == "config":
        return ["estimate", "--model", str(path)]
    if family == "safetensors":
        folder = tmp_path / "model"
        folder.mkdir(exist_ok=True)
        shutil.copyfile(GOOD_CONFIG, folder / "config.json")
        shutil.copyfile(path, folder / "model.safetensors")
        return ["estimate", "--model", str(folder)]
    if family == "catalog":
        catalogs = Path(os.environ["FTCOST_CONFIG_DIR"]) / "catalogs"
        catalogs.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, catalogs / "lab.json")
        return ["gpus", "--catalog", "Lab"]
    return ["estimate", str(path)]  # estimate files, and CSV given where an estimate is expected


def _check_cli(rel: str, entry: dict[str, str], tmp_path: Path) -> None:
    family = entry["family"]
    code, out, err = cli(_cli_argv(rel, family, tmp_path))
    refused = (entry["outcome"] == "refused" and family != "safetensors") or family == "csv"
    assert "Traceback" not in err
    assert not CONTROL.search(out + err), "names and messages are shown clean"
    if refused:
        assert code == 2, (code, out, err)
        assert out == ""
        lines = err.splitlines()
        if family == "catalog":  # the catalog's own problem is a warning line, then the error
            assert all(line.startswith("ftcost: ") for line in lines) and len(lines) <= 2, err
            assert entry["needle"] in err, err
        else:
            assert len(lines) == 1, err
        assert lines[-1].startswith("ftcost: error: "), err
        if family in ("estimate", "config"):
            assert entry["needle"] in err, err
    else:
        assert code == 0, (code, err)
        assert out
        if family == "estimate":
            code, out, _ = cli(["estimate", str(BAD / rel), "--json"])
            assert code == 0 and "NaN" not in out and "Infinity" not in out
            json.loads(out)


def _check_window(rel: str, entry: dict[str, str], window, dialogs, tmp_path: Path) -> None:
    family, outcome, needle = entry["family"], entry["outcome"], entry["needle"]
    store = window.store
    before, before_path = store.document, store.path
    path = BAD / rel
    if family == "estimate":
        opened = window.files.load_path(path)
        if outcome == "refused":
            assert not opened
            told = _told(dialogs)
            assert len(told) == 1 and needle in told[0], told
        else:
            assert opened and not dialogs["warning"], _told(dialogs)
            assert store.document != before
            assert not finite(store.result)
            assert not CONTROL.search(window.windowTitle())
            return
    elif family in ("config", "safetensors"):
        importer = window.addons["model_import"]
        if family == "safetensors":
            folder = tmp_path / "model"
            folder.mkdir(exist_ok=True)
            shutil.copyfile(GOOD_CONFIG, folder / "config.json")
            shutil.copyfile(path, folder / "model.safetensors")
            assert importer.import_path(folder)  # the architecture imports either way
            error = importer.last.checkpoint_error or ""
            if outcome == "refused":
                assert needle in error and "\n" not in error, error
            else:
                assert not error and importer.last.checkpoint.total_params == 16
            assert not finite(store.result)
            return
        imported = importer.import_path(path)
        if outcome == "accepted":
            assert imported and not dialogs["warning"], _told(dialogs)
            assert not CONTROL.search(store.inputs.model.name)
            assert not finite(store.result)
            return
        assert not imported
        told = _told(dialogs)
        assert len(told) == 1 and needle in told[0], told
        if store.document != before:  # a partial import: told, and one undo gives it back
            assert "only partly imported" in told[0]
            window.undo_stack.undo()
    elif family == "catalog":
        service = window.form_tabs.hardware_panel.catalog
        catalogs = Path(os.environ["FTCOST_CONFIG_DIR"]) / "catalogs"
        catalogs.mkdir(parents=True, exist_ok=True)
        copy = catalogs / "lab.json"
        shutil.copyfile(path, copy)
        problems = service.reload()
        if outcome == "refused":
            assert len(problems) == 1 and "\n" not in problems[0].message, problems
            assert needle in problems[0].message, problems
            assert service.rows  # the built-in rows stay
            kept = [p for p in catalogs.iterdir() if p.read_bytes() == path.read_bytes()]
            assert kept, "a refused catalog's content is kept (set aside at worst)"
        else:
            assert not problems and "Lab" in service.user_names
            assert all(not CONTROL.search(r.gpu.name) for r in service.rows if r.gpu.name)
        shutil.rmtree(catalogs)
        service.reload()
    elif family == "csv":
        editor = window.bad_files_editor
        result = editor.import_csv(str(path))
        if outcome == "refused":
            assert result is None or result[0] == 0, result
            assert editor.import_errors.count() >= 1
        else:
            assert result is not None, editor.status.text()
            assert result[0] >= 1 or result == (0, 0), result
            assert all(not CONTROL.search(g.name) for g in editor.model.rows)
        editor.revert()
    assert store.document == before and store.path == before_path, "the open document is kept"


@pytest.mark.parametrize("rel", sorted(MANIFEST))
def test_bad_file(rel, window, dialogs, tmp_path):
    entry = MANIFEST[rel]
    path = BAD / rel
    before = fingerprint(path)
    _check_cli(rel, entry, tmp_path)
    _reset(window, dialogs)
    _check_window(rel, entry, window, dialogs, tmp_path)
    assert fingerprint(path) == before, "the input file is never written"


def test_corpus_is_what_the_script_makes():
    done = subprocess.run(
        [sys.executable, str(BAD / "make_bad_files.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_cli_in_its_own_process_gives_one_line():
    """The real entry point (`python -m ftcost_gui.cli`) on one file of each refusing family."""
    refusing = ("estimate/model-without-num-layers.ftcost", "config/no-layers.json", "csv/good.csv")
    for rel in refusing:
        done = subprocess.run(
            [sys.executable, "-m", "ftcost_gui.cli", "estimate", str(BAD / rel)]
            if not rel.startswith("config")
            else [sys.executable, "-m", "ftcost_gui.cli", "estimate", "--model", str(BAD / rel)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("ftcost: error: ")
