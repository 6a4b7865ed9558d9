"""Every flag of every command, fed hostile values: one clear line and exit 2, or a sane result.

The cases are generated from the parser itself (each argument of each subcommand, classified by
its ``type``, ``choices`` and ``nargs``), so a new flag is covered without touching this file.
Never a traceback, never a hang (an alarm turns a hang into a failure), never a control
character on the terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ftcost_gui.cli import build_parser, main
from ftcost_gui.cli.plan_cmd import PlanValue
from ftcost_gui.cli.values import Choice, Number, Text, TextList

ROOT = Path(__file__).resolve().parents[2]
GOOD_FILE = ROOT / "tests" / "data" / "estimate_v2.ftcost"
HANG_S = 10
# Reports render with Qt (charts, PDF): one value takes ~2 s alone and over 10 s on a loaded
# 2-core machine; a real hang (a loop over a huge value) still trips this.
REPORT_HANG_S = 60
FORBIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

NUMBERS = {
    "nan": "nan", "-nan": "-NaN", "inf": "inf", "-inf": "-Infinity", "1e309": "1e309",
    "-1e309": "-1e309", "huge-int": "9" * 5000, "huge-negative": "-" + "9" * 400,
    "empty": "", "blank": "  ", "non-utf8": "\udcff\udcfe", "half-exponent": "1e",
    "hex": "0x1A", "escape": "\x1b[31m1", "comma": "1,5", "word": "lots",
}  # fmt: skip
TEXTS = {
    "empty": "", "blank": "  ", "escape": "\x1b]0;t\x07\x1b[2Jx", "non-utf8": "\udcff\udcfe",
    "huge": "a" * 5000, "bidi": "\u202eevil", "c1": "\x9b31m", "nan": "nan", "dash": "-1",
}  # fmt: skip
# Paths, made in the test's folder: label -> how (see _make_path).
INPUT_PATHS = (
    "missing", "missing-folder", "folder", "fifo", "dev-null", "under-a-file", "name-too-long",
    "path-too-long", "empty", "non-utf8-missing", "dangling-link", "link-loop", "dev-zero",
)  # fmt: skip
# No device as an output: a regression would replace /dev/null for everyone on the machine.
OUTPUT_PATHS = (
    "folder", "fifo", "under-a-file", "name-too-long", "path-too-long", "empty",
    "link-loop", "missing-folder", "non-utf8-name", "dangling-link",
)  # fmt: skip
# Outputs that are fine to write: the file appears (report outputs need an existing folder).
OUTPUT_OK = {"non-utf8-name", "dangling-link", "missing-folder"}
INPUTS = ("file",)  # argparse dests that name a file to read
OUTPUTS = ("save", "csv", "pdf", "html", "md")  # and files to write
ANY_TEXT = ("title",)  # any text is a fine value (the report's title; empty: the file name)


def _commands() -> dict[str | None, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {None: parser, **sub.choices}


def _kind(action: argparse.Action) -> str:
    if action.dest in INPUTS:
        return "input"
    if action.dest in OUTPUTS:
        return "output"
    if action.dest == "model":
        return "model"
    if action.nargs == 0 or isinstance(action, argparse._VersionAction):
        return "switch"
    if isinstance(action.type, Number):
        return "number"
    if isinstance(action.type, Choice | TextList | PlanValue) or action.choices:
        return "text"
    if action.dest in ANY_TEXT or isinstance(action.type, Text) or action.type is None:
        return "text"
    raise AssertionError(f"{action.option_strings or action.dest}: teach this test its kind")


def _cases() -> list:
    out = []
    for cmd, parser in _commands().items():
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
                continue
            if cmd in ("compare", "plan") and action.dest.startswith("in."):
                continue  # the same generated flags as estimate's, tested there
            name = (action.option_strings or [action.dest.upper()])[-1]
            out.append(pytest.param(cmd, action.dest, id=f"{cmd or 'ftcost'} {name}"))
    return out


def _action(cmd: str | None, dest: str) -> argparse.Action:
    return next(a for a in _commands()[cmd]._actions if a.dest == dest)


def _make_path(label: str, tmp: Path) -> str:
    tmp.mkdir(parents=True, exist_ok=True)
    a_file = tmp / "a-file"
    a_file.write_text("x")
    made = {
        "missing": tmp / "absent.ftcost",
        "missing-folder": tmp / "no" / "such" / "folder" / "x.out",
        "folder": tmp,
        "under-a-file": a_file / "x.out",
        "name-too-long": tmp / ("n" * 300),
        "path-too-long": tmp / ("p/" * 3000 + "x"),
        "non-utf8-missing": tmp / "caf\udce9-absent.ftcost",
        "non-utf8-name": tmp / "caf\udce9.out",
        "dev-null": Path(os.devnull),
        "dev-zero": Path("/dev/zero"),
    }
    if label == "empty":
        return ""
    if label == "fifo":
        path = tmp / "fifo"
        if not path.exists():
            os.mkfifo(path)
        return str(path)
    if label == "dangling-link":
        path = tmp / "dangling"
        if not path.is_symlink():
            path.symlink_to(tmp / "nowhere.out")
        return str(path)
    if label == "link-loop":
        path = tmp / "loop"
        if not path.is_symlink():
            path.symlink_to(path)
        return str(path)
    return str(made[label])


def _values(cmd: str | None, action: argparse.Action, tmp: Path) -> list[tuple[str, str, Any]]:
    """(label, value, expected exit status or statuses) for this argument."""
    kind = _kind(action)
    if kind == "switch":
        return [("explicit-value", "nan", 2)]
    if kind == "number":
        out = [(label, text, 2) for label, text in NUMBERS.items()]
        flag = next((f for f in _input_flags() if f.dest == action.dest), None)
        if flag is not None:
            spec = flag.spec
            zero_ok = (spec.minimum or 0) < 0 or (spec.minimum == 0 and not spec.exclusive_min)
            out.append(("-0", "-0", 0 if zero_ok else 2))
        return out
    if kind == "text":
        if action.dest in ANY_TEXT:  # each is a whole report: the telling few
            return [(label, TEXTS[label], 0) for label in ("empty", "escape", "non-utf8", "huge")]
        return [(label, text, 2) for label, text in TEXTS.items()]
    if kind in ("input", "model"):
        out = [(label, _make_path(label, tmp), 2) for label in INPUT_PATHS]
        if kind == "model":
            out += [(label, text, 2) for label, text in TEXTS.items()]
        return out
    report = cmd == "report"
    out = []
    for label in OUTPUT_PATHS:
        ok = label in OUTPUT_OK and not (report and label == "missing-folder")
        expected = (0,) if ok else (2,)  # a non-UTF-8 name: PDF, HTML and Markdown all written
        out.append((label, _make_path(label, tmp / label), expected))
    return out


def _input_flags():
    from ftcost_gui.cli.flags import input_flags

    return input_flags()


def _argv(cmd: str | None, action: argparse.Action, value: str, tmp: Path) -> list[str]:
    opt = action.option_strings[-1] if action.option_strings else None
    if _kind(action) == "switch":
        return [x for x in (cmd, f"{opt}={value}") if x]
    if cmd is None:
        return [opt, value]
    if cmd == "report":
        base = ["report", str(GOOD_FILE) if opt or action.dest != "file" else value]
        if action.dest not in OUTPUTS:
            base += ["--md", str(tmp / "report" / "r.md"), "--force"]
            (tmp / "report").mkdir(exist_ok=True)
        return base + ([opt, value] if opt else [])
    if opt is None:
        return [cmd, value]
    return [cmd, opt, value]


class Hang(BaseException):
    """Raised by the alarm: a BaseException, so no ``except OSError`` in the code can swallow it
    (TimeoutError is an OSError)."""


@contextlib.contextmanager
def _no_hang(seconds: int):
    def on_alarm(signum, frame):
        raise Hang(f"no answer in {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(("cmd", "dest"), _cases())
def test_hostile_values(cmd, dest, tmp_path, capsys):
    action = _action(cmd, dest)
    problems = []
    for label, value, expected in _values(cmd, action, tmp_path):
        argv = _argv(cmd, action, value, tmp_path)
        try:
            with _no_hang(REPORT_HANG_S if cmd == "report" else HANG_S):
                rc = main(argv)
        except Hang as exc:
            problems.append(f"{label}: {exc}")
            continue
        out, err = capsys.readouterr()
        what = f"{label} ({value[:30]!r}): rc {rc}, out {out[:80]!r}, err {err[:200]!r}"
        clean = not ("Traceback" in err or FORBIDDEN.search(err) or FORBIDDEN.search(out))
        one_line = out == "" and err.startswith("ftcost: error: ") and err.count("\n") == 1
        allowed = expected if isinstance(expected, tuple) else (expected,)
        if not clean or rc not in allowed or (rc == 2 and not one_line):
            problems.append(what)
    assert not problems, "\n".join(problems)


def test_non_utf8_bytes_in_real_arguments(tmp_path):
    """Arguments as bytes from a real shell: surrogate-escaped by Python, never a crash."""
    env = {**os.environ, "FTCOST_CONFIG_DIR": str(tmp_path / "config")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    cli = [sys.executable, "-m", "ftcost_gui.cli"]
    cases = [
        ([b"estimate", b"--gpu", b"\xff\xfe\x1b[2J"], 2),
        ([b"estimate", b"--tokens", b"1\xff"], 2),
        ([b"estimate", b"--model", b"caf\xe9/config.json"], 2),
        ([b"estimate", str(tmp_path).encode() + b"/caf\xe9.ftcost"], 2),
        ([b"estimate", b"--save", str(tmp_path).encode() + b"/caf\xe9.ftcost"], 0),
    ]
    for args, expected in cases:
        proc = subprocess.run(
            [*(c.encode() for c in cli), *args], env=env, capture_output=True, timeout=120
        )
        err = proc.stderr.decode("utf-8")  # what reaches the terminal is UTF-8
        assert proc.returncode == expected, (args, err)
        assert "Traceback" not in err
        assert not FORBIDDEN.search(err), err
        if expected == 2:
            assert err.startswith("ftcost: error: ") and err.count("\n") == 1
    assert (tmp_path / os.fsdecode(b"caf\xe9.ftcost")).is_file()
