"""Mutation testing of the Qt-free layers (core, io, present) with mutmut.

    python tools/mutation.py                      # core, io and present, one after another
    python tools/mutation.py core                 # one layer
    python tools/mutation.py ftcost_gui/core/memory.py ftcost_gui/io/names.py   # some modules
    python tools/mutation.py core --ref 552ce58   # the layer as it was at a commit
    python tools/mutation.py core --recheck       # also re-run the survivors of the last run
    python tools/mutation.py core --sample 20     # 1 mutant in 20 (resumes an interrupted run)
    python tools/mutation.py core --report        # summarise the last run (no new run)
    python tools/mutation.py core --fresh-stats   # map tests to functions again (keeps verdicts)

Each layer runs in its own scratch copy of the repository (`.mutation/<layer>[@ref]/`,
git-ignored), so the working tree is never touched and a run resumes: mutmut keeps the verdicts of
unchanged functions and runs the mutants of new or changed ones. After new tests, ``--recheck``
re-runs the mutants that survived (or had no test) so the kill rate reflects them.
mutmut maps each function to the tests that call it once and afterwards only adds new tests: when
the code changed under an old scratch copy (a rebase, a copy made for another commit), an old test
that now calls a new function is not run against its mutants. ``--fresh-stats`` maps them again
(one instrumented run of the layer's tests) and keeps the verdicts.

Why these choices (docs/testing.md has the figures):
- mutmut 3 forks one warm interpreter per mutant and runs only the tests that called the mutated
  function (it records them in one instrumented run of the layer's tests), which makes a run over
  the whole core feasible on two shared cores; cosmic-ray starts a fresh test process per mutant.
- A layer's mutants are checked only by the Qt-free tests of the layers that use it (no pytest-qt
  window in a forked child); ``TESTS`` below lists them. tools/mutation_plugin.py runs the fast
  tests first (a mutant dies at its first failure) and caps the property tests' examples.
- Mutants judged equivalent (no input can tell them from the original) are listed with the reason
  in tools/mutation_equivalent.json and left out of the kill rate; an entry whose diff no longer
  matches the code is reported as stale.
- mutmut 3 does not mutate decorated functions (``functools.lru_cache``, ``@property``) nor
  module-level constants: those are outside the kill rate (docs/testing.md lists them).

The run is slow (docs/testing.md gives the time on two cores): it is not part of .ci/run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRATCH = ROOT / ".mutation"
EQUIVALENT = ROOT / "tools" / "mutation_equivalent.json"
PLUGIN = ROOT / "tools" / "mutation_plugin.py"
PACKAGE = "ftcost_gui"

# The tests that may kill a layer's mutants: Qt-free, fast, and every test that exercises the layer
# below a window (the CLI tests word results through present/).
TESTS: dict[str, list[str]] = {
    "core": ["tests/core"],
    "io": ["tests/io"],
    "present": ["tests/present", "tests/cli"],
}
# Copied beside the package: what the tests read (fixtures, resources, measured records, docs).
DATA = ["resources", "docs", "validation"]
# Not run in mutation runs: a timed test (fails under the instrumentation on a loaded machine) and
# the tests taking over 10 s each under it (sampling, purity and objective properties that
# compare estimates with each other): a surviving mutant would pay them every time.
DESELECTED = [
    "tests/core/test_compare.py::test_fast_enough_for_the_window",
    "tests/core/test_compare.py::test_compare_is_pure",
    "tests/core/test_time_model.py::test_expected_longest_row_matches_sampling",
    "tests/core/test_objective_properties.py::test_more_completions_never_cost_less",
    "tests/core/test_objective_properties.py::test_longer_completions_never_cost_less",
]
# The verdicts mutmut writes, grouped as docs/testing.md counts them.
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
NOT_KILLED = {"survived", "no tests", "suspicious"}


def layer_of(path: str) -> str:
    parts = Path(path).parts
    if len(parts) < 3 or parts[0] != PACKAGE or parts[1] not in TESTS:
        raise SystemExit(f"mutation: {path} is not a module of {', '.join(TESTS)}")
    return parts[1]


def scratch(layer: str, ref: str | None) -> Path:
    return SCRATCH / (layer if ref is None else f"{layer}@{ref}")


def mutmut_config(layer: str, only: list[str]) -> str:
    """The [tool.mutmut] table of the scratch copy's pyproject.toml."""
    patterns = only or [f"{PACKAGE}/{layer}/*"]
    lines = [
        "[tool.mutmut]",
        f'source_paths = ["{PACKAGE}"]',
        f"only_mutate = {json.dumps(patterns)}",
        # __init__ re-exports hold no formula.
        f'do_not_mutate = ["{PACKAGE}/*/__init__.py"]',
        f"also_copy = {json.dumps([*DATA, PLUGIN.name])}",
        f"pytest_add_cli_args_test_selection = {json.dumps(TESTS[layer])}",
        # Fast tests first, fewer property examples (tools/mutation_plugin.py); no timed tests.
        "pytest_add_cli_args = "
        + json.dumps(
            ["-p", "no:cacheprovider", "-W", "ignore", "-p", "mutation_plugin"]
            + [arg for test in DESELECTED for arg in ("--deselect", test)]
        ),
        "timeout_multiplier = 10.0",
        "use_setproctitle = false",
    ]
    return "\n".join(lines) + "\n"


def source_tree(ref: str | None) -> Path:
    """The working tree, or the tree of a commit (``--ref``: the kill rate before a change)."""
    if ref is None:
        return ROOT
    tree = SCRATCH / "trees" / ref
    if not tree.exists():
        tree.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def prepare(layer: str, only: list[str], ref: str | None) -> Path:
    """The scratch copy for one layer (the mutmut state in it is kept between runs)."""
    work = scratch(layer, ref)
    work.mkdir(parents=True, exist_ok=True)
    root = source_tree(ref)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for item in [PACKAGE, "tests", *DATA, "pyproject.toml"]:
        src, dst = root / item, work / item
        if dst.is_dir():
            shutil.rmtree(dst)
        elif dst.exists():
            dst.unlink()
        if src.is_dir():
            shutil.copytree(src, dst, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dst)
    shutil.copy2(PLUGIN, work / PLUGIN.name)  # today's plugin, also for an older commit
    pyproject = (work / "pyproject.toml").read_text(encoding="utf-8")
    (work / "pyproject.toml").write_text(
        pyproject + "\n" + mutmut_config(layer, only), encoding="utf-8"
    )
    return work


def mutmut(work: Path, args: list[str], jobs: int) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONDONTWRITEBYTECODE="1")
    exe = Path(sys.executable).with_name("mutmut")
    cmd = ["nice", "-n", "10", str(exe), "run", "--max-children", str(jobs), *args]
    log = work / "mutmut.log"
    with log.open("a", encoding="utf-8") as out:
        done = subprocess.run(cmd, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode:
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise SystemExit(f"mutation: mutmut failed ({done.returncode}); log {log}:\n{tail}")


GENERATE = (
    "import os, mutmut.__main__ as m; m.set_mutant_under_test('mutant_generation'); "
    "os.makedirs('mutants', exist_ok=True); m.copy_src_dir(); m.copy_also_copy_files(); "
    "m.setup_source_paths(); m.create_mutants({jobs})"
)


def sampled(names: list[str], every: int) -> list[str]:
    """A fixed share of the mutants: by a hash of the name, so the same mutant of an unchanged
    function is in the sample of every tree (before and after a change)."""
    return sorted(n for n in names if zlib.crc32(n.encode()) % every == 0)


def run(
    layer: str, only: list[str], jobs: int, ref: str | None, recheck: bool, sample: int,
    fresh_stats: bool = False,
) -> float:  # fmt: skip
    work = prepare(layer, only, ref)
    if fresh_stats:
        (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    print(f"mutation: {layer}: mutmut run in {work.relative_to(ROOT)}", flush=True)
    start = time.monotonic()
    if sample > 1:
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        code = GENERATE.format(jobs=jobs)
        subprocess.run([sys.executable, "-c", code], cwd=work, env=env, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        verdict = all_verdicts(work)
        names = sampled(list(verdict), sample)
        # mutmut re-runs every mutant it is given by name: give it those without a verdict (a run
        # resumes) and, with --recheck, the survivors, in one run (one clean-test pass).
        todo = [n for n in names if verdict[n] == "not checked"
                or (recheck and verdict[n] in NOT_KILLED)]  # fmt: skip
        print(f"mutation: {layer}: {len(names)} mutants sampled (1 in {sample}), "
              f"{len(todo)} to run", flush=True)  # fmt: skip
        for i in range(0, len(todo), 400):  # keep the command line short
            mutmut(work, todo[i : i + 400], jobs)
        recheck = False
    else:
        mutmut(work, [], jobs)
    if recheck:
        again = [name for name, status in all_verdicts(work).items() if status in NOT_KILLED]
        print(f"mutation: {layer}: re-running {len(again)} surviving mutants", flush=True)
        for i in range(0, len(again), 400):  # keep the command line short
            mutmut(work, again[i : i + 400], jobs)
    seconds = time.monotonic() - start
    times = work / "run-times.json"
    runs = json.loads(times.read_text(encoding="utf-8")) if times.exists() else []
    runs.append({"seconds": round(seconds), "recheck": recheck, "only": only, "sample": sample})
    times.write_text(json.dumps(runs, indent=1), encoding="utf-8")
    return seconds


def verdicts(work: Path) -> dict[str, dict[str, str]]:
    """{module path: {mutant name: status}} from a scratch copy's mutmut state."""
    from mutmut.stats import status_by_exit_code

    found: dict[str, dict[str, str]] = {}
    mutants = work / "mutants"
    for meta in sorted(mutants.rglob("*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        module = str(meta.relative_to(mutants))[: -len(".meta")]
        found[module] = {k: status_by_exit_code[v] for k, v in data["exit_code_by_key"].items()}
    return found


def all_verdicts(work: Path) -> dict[str, str]:
    return {k: v for by_mutant in verdicts(work).values() for k, v in by_mutant.items()}


def diff(work: Path, mutant: str) -> str:
    """The mutant's diff as `mutmut show` prints it (run inside the scratch copy)."""
    out = subprocess.run(
        [str(Path(sys.executable).with_name("mutmut")), "show", mutant],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip()


def changed_lines(text: str) -> list[str]:
    return [
        line.strip()
        for line in text.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def load_equivalent() -> dict[str, dict[str, object]]:
    if not EQUIVALENT.exists():
        return {}
    return json.loads(EQUIVALENT.read_text(encoding="utf-8"))


def report(works: list[Path], only: list[str], out: Path | None) -> None:
    """Kill rate per module; survivors with their diffs; equivalents left out (stale ones named)."""
    equivalent = load_equivalent()
    rows, survivors, stale = [], [], []
    for work in works:
        for module, by_mutant in verdicts(work).items():
            if only and module not in only:
                continue
            counts: Counter[str] = Counter()
            for name, status in by_mutant.items():
                if status in NOT_KILLED and name in equivalent:
                    if changed_lines(diff(work, name)) == equivalent[name]["diff"]:
                        counts["equivalent"] += 1
                        continue
                    stale.append(name)
                counts["killed" if status in KILLED else status] += 1
                if status in NOT_KILLED:
                    survivors.append((work, name, status))
            if counts:
                rows.append((module, counts))
    lines = [
        "| module | mutants | killed | survived | no test | equivalent | kill rate |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    totals: dict[str, Counter[str]] = {}
    for module, c in rows:
        totals.setdefault(Path(module).parts[1], Counter()).update(c)
        lines.append(row(f"`{module.removeprefix(PACKAGE + '/')}`", c))
    for layer, c in totals.items():
        lines.append(row(f"**{layer}/**", c))
    text = "\n".join(lines)
    print(text)
    print(f"\nmutation: {len(survivors)} not killed, {len(stale)} stale equivalents")
    if out:
        detail = [text, "", "## Not killed", ""]
        for work, name, status in survivors:
            detail += [f"### {name} ({status})", "", "```diff", diff(work, name), "```", ""]
        if stale:
            detail += ["## Stale equivalents (the code changed: judge them again)", ""]
            detail += [f"- {name}" for name in stale]
        out.write_text("\n".join(detail) + "\n", encoding="utf-8")
        print(f"mutation: survivors and their diffs written to {out}")


def row(module: str, c: Counter[str]) -> str:
    survived = c["survived"] + c["suspicious"]
    counted = c["killed"] + survived + c["no tests"]
    rate = f"{100 * c['killed'] / counted:.0f}%" if counted else "-"
    total = counted + c["equivalent"]
    return (
        f"| {module} | {total} | {c['killed']} | {survived} | {c['no tests']} "
        f"| {c['equivalent']} | {rate} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("targets", nargs="*", help="core, io, present, or module paths")
    parser.add_argument("--jobs", type=int, default=2, help="mutants checked at once (default 2)")
    parser.add_argument("--ref", help="mutate the tree of this commit instead of the working tree")
    parser.add_argument("--recheck", action="store_true", help="re-run the last survivors too")
    parser.add_argument("--sample", type=int, default=1, help="run 1 mutant in N (by name hash)")
    parser.add_argument("--report", action="store_true", help="only summarise the last runs")
    parser.add_argument(
        "--fresh-stats", action="store_true", help="map the tests to the functions again"
    )
    parser.add_argument("--out", type=Path, help="write the survivors and their diffs here")
    args = parser.parse_args(argv)
    groups: dict[str, list[str]] = {}
    for target in args.targets or list(TESTS):
        if target in TESTS:
            groups.setdefault(target, [])
        else:
            groups.setdefault(layer_of(target), []).append(target)
    if not args.report:
        for layer, only in groups.items():
            seconds = run(
                layer, only, args.jobs, args.ref, args.recheck, args.sample, args.fresh_stats
            )
            print(f"mutation: {layer}: {seconds / 60:.1f} min", flush=True)
    modules = [m for only in groups.values() for m in only]
    report([scratch(layer, args.ref) for layer in groups], modules, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
