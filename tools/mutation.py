"""Mutation testing of the Qt-free layers (core, io, present) with mutmut.

    python tools/mutation.py                      # core, io and present, one after another
    python tools/mutation.py core                 # one layer
    python tools/mutation.py ftcost_gui/core/memory.py ftcost_gui/io/names.py   # some modules
    python tools/mutation.py --report             # summarise the last runs (no new run)

Each layer runs in its own scratch copy of the repository (`.mutation/<name>/`, git-ignored), so
the working tree is never touched and a run can be resumed: mutmut keeps the verdicts of unchanged
functions and re-runs only mutants of functions whose source changed.

Why these choices (docs/testing.md has the figures):
- mutmut 3 forks one warm interpreter per mutant and runs only the tests that called the mutated
  function (it records them in one instrumented run of the layer's tests), which makes a run over
  the whole core feasible on two shared cores; cosmic-ray starts a fresh test process per mutant.
- A layer's mutants are checked only by the Qt-free tests of the layers that use it (no pytest-qt
  window in a forked child); `TESTS` below lists them.
- Mutants judged equivalent (no input can tell them from the original) are listed with the reason
  in tools/mutation_equivalent.json and left out of the kill rate; an entry whose diff no longer
  matches the code is reported as stale.

The run is slow (see docs/testing.md for the time on two cores): it is not part of .ci/run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRATCH = ROOT / ".mutation"
EQUIVALENT = ROOT / "tools" / "mutation_equivalent.json"
PACKAGE = "ftcost_gui"

# The tests that may kill a layer's mutants: Qt-free, fast, and every test that exercises the layer
# below a window (the CLI tests word results through present/).
TESTS: dict[str, list[str]] = {
    "core": ["tests/core"],
    "io": ["tests/io"],
    "present": ["tests/present", "tests/cli"],
}
# Copied beside the package: the data the tests read (records, fixtures, resources, docs).
COPIED = ["tests", "resources", "docs", "validation", "pyproject.toml"]
# The verdicts mutmut writes, grouped as docs/testing.md counts them.
KILLED = {"killed", "timeout", "segfault", "caught by type check"}


def layer_of(path: str) -> str:
    parts = Path(path).parts
    if len(parts) < 3 or parts[0] != PACKAGE or parts[1] not in TESTS:
        raise SystemExit(f"mutation: {path} is not a module of {', '.join(TESTS)}")
    return parts[1]


def mutmut_config(layer: str, only: list[str]) -> str:
    """The [tool.mutmut] table of the scratch copy's pyproject.toml."""
    patterns = only or [f"{PACKAGE}/{layer}/*"]
    lines = [
        "[tool.mutmut]",
        f'source_paths = ["{PACKAGE}"]',
        f"only_mutate = {json.dumps(patterns)}",
        # __init__ re-exports and the field metadata plumbing hold no formula.
        f'do_not_mutate = ["{PACKAGE}/*/__init__.py"]',
        f"also_copy = {json.dumps(COPIED[1:-1])}",
        f"pytest_add_cli_args_test_selection = {json.dumps(TESTS[layer])}",
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-W", "ignore"]',
        "timeout_multiplier = 10.0",
        "use_setproctitle = false",
    ]
    return "\n".join(lines) + "\n"


def prepare(layer: str, only: list[str]) -> Path:
    """A scratch copy of the repository for one layer; the mutmut state in it is kept."""
    work = SCRATCH / layer
    work.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in [PACKAGE, *COPIED]:
        src, dst = ROOT / name, work / name
        if dst.is_dir():
            shutil.rmtree(dst)
        elif dst.exists():
            dst.unlink()
        if src.is_dir():
            shutil.copytree(src, dst, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dst)
    pyproject = (work / "pyproject.toml").read_text(encoding="utf-8")
    (work / "pyproject.toml").write_text(
        pyproject + "\n" + mutmut_config(layer, only), encoding="utf-8"
    )
    return work


def run(layer: str, only: list[str], jobs: int) -> float:
    work = prepare(layer, only)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONDONTWRITEBYTECODE="1")
    mutmut = Path(sys.executable).with_name("mutmut")
    cmd = ["nice", "-n", "10", str(mutmut), "run", "--max-children", str(jobs)]
    print(f"mutation: {layer}: {' '.join(cmd[3:])} in {work.relative_to(ROOT)}", flush=True)
    start = time.monotonic()
    log = work / "mutmut.log"
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(cmd, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode:
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise SystemExit(f"mutation: mutmut failed ({done.returncode}); log {log}:\n{tail}")
    return time.monotonic() - start


def verdicts(layer: str) -> dict[str, dict[str, str]]:
    """{module path: {mutant name: status}} from the scratch copy's mutmut state."""
    sys.path.insert(0, str(Path(sys.executable).parent))
    from mutmut.stats import status_by_exit_code

    found: dict[str, dict[str, str]] = {}
    mutants = SCRATCH / layer / "mutants"
    for meta in sorted(mutants.rglob("*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        module = str(meta.relative_to(mutants))[: -len(".meta")]
        found[module] = {k: status_by_exit_code[v] for k, v in data["exit_code_by_key"].items()}
    return found


def diff(layer: str, mutant: str) -> str:
    """The mutant's diff as `mutmut show` prints it (run inside the scratch copy)."""
    out = subprocess.run(
        [str(Path(sys.executable).with_name("mutmut")), "show", mutant],
        cwd=SCRATCH / layer,
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip()


def changed_lines(text: str) -> list[str]:
    return [
        line
        for line in text.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def load_equivalent() -> dict[str, dict[str, str]]:
    if not EQUIVALENT.exists():
        return {}
    return json.loads(EQUIVALENT.read_text(encoding="utf-8"))


def report(layers: list[str], out: Path | None) -> int:
    """Kill rate per module; survivors with their diffs; equivalents left out (stale ones named)."""
    equivalent = load_equivalent()
    rows, survivors, stale = [], [], []
    for layer in layers:
        for module, by_mutant in verdicts(layer).items():
            counts: Counter[str] = Counter()
            for name, status in by_mutant.items():
                if status == "survived" and name in equivalent:
                    if changed_lines(diff(layer, name)) != equivalent[name]["diff"]:
                        stale.append(name)
                        counts["survived"] += 1
                        survivors.append((layer, name))
                    else:
                        counts["equivalent"] += 1
                    continue
                counts["killed" if status in KILLED else status] += 1
                if status in ("survived", "no tests", "suspicious"):
                    survivors.append((layer, name))
            rows.append((module, counts))
    lines = [
        "| module | mutants | killed | survived | no test | equivalent | kill rate |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    totals: dict[str, Counter[str]] = {}
    for module, c in rows:
        layer = Path(module).parts[1]
        totals.setdefault(layer, Counter()).update(c)
        lines.append(row(module, c))
    for layer, c in totals.items():
        lines.append(row(f"**{layer}/**", c))
    text = "\n".join(lines)
    detail = [text, "", "## Surviving mutants", ""]
    for layer, name in survivors:
        detail += [f"### {name}", "", "```diff", diff(layer, name), "```", ""]
    if stale:
        detail += ["## Stale equivalents (the code changed: judge them again)", ""]
        detail += [f"- {name}" for name in stale]
    print(text)
    print(f"\nmutation: {len(survivors)} surviving, {len(stale)} stale equivalents")
    if out:
        out.write_text("\n".join(detail) + "\n", encoding="utf-8")
        print(f"mutation: survivors and diffs written to {out}")
    return 0


def row(module: str, c: Counter[str]) -> str:
    counted = c["killed"] + c["survived"] + c["no tests"] + c["suspicious"]
    rate = f"{100 * c['killed'] / counted:.0f}%" if counted else "-"
    total = counted + c["equivalent"]
    return (
        f"| {module} | {total} | {c['killed']} | {c['survived'] + c['suspicious']} "
        f"| {c['no tests']} | {c['equivalent']} | {rate} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", help="core, io, present, or module paths")
    parser.add_argument("--jobs", type=int, default=2, help="mutants checked at once (default 2)")
    parser.add_argument("--report", action="store_true", help="only summarise the last runs")
    parser.add_argument("--out", type=Path, help="write survivors and their diffs here")
    args = parser.parse_args(argv)
    groups: dict[str, list[str]] = {}
    for target in args.targets or list(TESTS):
        if target in TESTS:
            groups.setdefault(target, [])
        else:
            groups.setdefault(layer_of(target), []).append(target)
    if not args.report:
        for layer, only in groups.items():
            seconds = run(layer, only, args.jobs)
            print(f"mutation: {layer}: {seconds / 60:.1f} min", flush=True)
    return report(list(groups), args.out)


if __name__ == "__main__":
    raise SystemExit(main())
