"""The headless command line: ``ftcost estimate | compare | plan | gpus | catalogs | models |
report | data``.

Every number comes from ``core``; this module turns flags and files into ``EstimateInputs``
(always through ``model_validate``, so bounds are checked) and prints the result as a table, JSON
or CSV. The input flags are generated from the fields (``cli.flags``). Bad input ends with one
``ftcost: error: ...`` line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

from pydantic import ValidationError

from .. import __version__
from ..core.catalog import EffectiveRow, merge_catalogs
from ..core.compare import compare_gpus, offer, rank_by_cost, rank_by_wall_clock
from ..core.defaults import PRICE_FIELDS, mark_typed_price, new_inputs
from ..core.estimate import estimate
from ..core.inputs import EstimateInputs
from ..io.catalog_store import CatalogError
from ..io.estimate_file import EstimateFileError, load_estimate, save_estimate
from ..io.resources import builtin_catalog, builtin_presets
from ..report.content import plan_section
from .common import EXIT_OK, EXIT_USAGE, CliError, Parser, fail
from .csv_out import CsvOutputError, add_csv_flag, check_csv_args, emit_csv, scenario_name
from .data_cmd import add_data_parser, run_data
from .documents import (
    catalogs_document,
    compare_document,
    estimate_document,
    gpus_document,
    models_document,
    to_json,
)
from .estimate_text import format_estimate
from .flags import (
    GPU_SECTION,
    add_input_flags,
    apply_flags,
    flag_for,
    given_values,
    range_text,
    section_groups,
)
from .lookup import CatalogView, find_gpu_row, find_model
from .paths import check_output
from .plan_cmd import add_plan_flags, constraints_from_args, share_objective_flag
from .plan_out import format_plan, plan_document
from .report_cmd import add_report_parser, run_report
from .tables import format_catalogs, format_compare, format_gpus, format_models
from .values import Text

FILE_HELP = "an estimate file (.ftcost)"
A_FILE = Text("a file path")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ftcost",
        description="Estimate the memory, compute, time and cost of a fine-tuning run (offline).",
    )
    parser.add_argument("--version", action="version", version=f"ftcost {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    est = sub.add_parser(
        "estimate",
        help="estimate one run from an estimate file and/or flags",
        description="Estimate one run. Flags override the values of FILE (or the defaults).",
    )
    est.add_argument("file", nargs="?", metavar="FILE", type=A_FILE, help=FILE_HELP)
    est.add_argument("--json", action="store_true", help="print the inputs and result as JSON")
    est.add_argument("--save", metavar="PATH", help="also write the inputs to an estimate file")
    add_csv_flag(est)
    _add_inputs(est)

    cmp_ = sub.add_parser(
        "compare",
        help="which GPU for this job: the estimate on every GPU of the catalog, ranked",
        description="Run the estimate (FILE and/or flags, as 'ftcost estimate') on every GPU of "
        "the effective catalog at its catalog prices, and rank the GPUs by cost per run (the "
        "ones that fit first) or by wall-clock.",
    )
    cmp_.add_argument("file", nargs="?", metavar="FILE", type=A_FILE, help=FILE_HELP)
    cmp_.add_argument("--json", action="store_true", help="print the ranking as JSON")
    cmp_.add_argument(
        "--by",
        choices=("cost", "time"),
        default="cost",
        help="rank by cost per run at each GPU's pricing tier (default) or by held wall-clock",
    )
    cmp_.add_argument("--save", metavar="PATH", help="also write the inputs to an estimate file")
    _add_inputs(cmp_)

    plan = sub.add_parser(
        "plan",
        help="what to rent and how to run it: the cheapest (or fastest) plan within a deadline "
        "and a budget",
        description="Search every GPU of the effective catalog, the methods allowed, the GPU "
        "counts as rented, the micro-batch and accumulation (keeping the effective batch), "
        "checkpointing and sharding for the scenario (FILE and/or flags, as 'ftcost "
        "estimate'); print the recommended plan, the Pareto front of cost against wall-clock, "
        "why each GPU lost, and what fits.",
    )
    plan.add_argument("file", nargs="?", metavar="FILE", type=A_FILE, help=FILE_HELP)
    plan.add_argument("--json", action="store_true", help="print the plans as JSON")
    add_plan_flags(plan)
    _add_inputs(plan)
    share_objective_flag(plan)

    p = sub.add_parser(
        "gpus",
        help="list the GPUs of the effective catalog",
        description="List the GPUs of the effective catalog (built-in rows, overridden by the "
        "active user catalog's or by --catalog's), with the origin of each row.",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    _add_catalog_flag(p)

    p = sub.add_parser(
        "catalogs",
        help="list the user GPU catalogs and the active one",
        description="List the user GPU catalogs (in the config folder) and which one is active.",
    )
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser(
        "models", help="list the model presets", description="List the model presets."
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    add_report_parser(sub)
    add_data_parser(sub)
    return parser


def _add_catalog_flag(p: Any) -> None:
    p.add_argument(
        "--catalog",
        metavar="NAME",
        type=Text("a catalog name"),
        help="GPU catalog to use: a user catalog's name or 'Built-in' (default: the active one)",
    )


def _add_inputs(p: argparse.ArgumentParser) -> None:
    """The flags that set inputs: the pickers (--model, --gpu, --catalog), then every field."""
    groups = section_groups(p)
    groups["model"].add_argument(
        "--model",
        metavar="ID",
        type=Text("a model"),
        help="the whole architecture: a preset id or name (see 'ftcost models'), a config.json "
        "or model folder, or a repo id in the local Hugging Face cache; clears a bare "
        "parameter count unless --params is given too",
    )
    hw = groups["hardware"]
    hw.add_argument(
        "--gpu",
        metavar="ID",
        type=Text("a GPU"),
        help="the GPU and its prices from the effective catalog: id or name (see 'ftcost gpus')",
    )
    _add_catalog_flag(hw)
    add_input_flags(p, groups)


def inputs_from_args(
    args: argparse.Namespace, catalog: CatalogView | None = None
) -> EstimateInputs:
    """The file's inputs (or the defaults) with the flags given applied, validated.

    ``--model`` and ``--gpu`` replace their section first; the field flags apply on top.
    ``--gpu`` is looked up in ``catalog`` (the effective catalog), else in the built-in one.
    """

    def rows() -> list[EffectiveRow]:  # read only when needed: a file alone reads no catalog
        return catalog.rows if catalog is not None else merge_catalogs(builtin_catalog())

    # A new estimate is the window's: the shared defaults on the active catalog's GPU and prices.
    base = load_estimate(args.file) if args.file else new_inputs(rows())
    doc = base.model_dump()
    if args.model is not None:
        doc["model"] = find_model(args.model)
    if args.gpu is not None:
        row = find_gpu_row(args.gpu, rows())
        doc["hardware"]["gpu"] = row.gpu.to_spec().model_dump()
        doc["hardware"]["price_origin"] = row.origin
    given = given_values(args)
    apply_flags(doc, given)
    if any(path.split(".")[-1] in PRICE_FIELDS for path in given):
        mark_typed_price(doc["hardware"])
    return EstimateInputs.model_validate(doc)


def describe_validation(err: ValidationError) -> str:
    """One line: the first failing field by its dotted path (and flag), pydantic's message, the
    value given and, for a number, the range the field takes."""
    errors = err.errors()
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"])
    flag = flag_for(where)
    if flag is not None:
        where += f" ({flag.option})"
    text = (
        f"invalid value for {where}: {first['msg']}" if where else f"invalid input: {first['msg']}"
    )
    if "input" in first and not isinstance(first["input"], dict | list | tuple):
        text += f" (got {first['input']!r}"
        if flag is not None and flag.kind == "number":
            unit = f" {flag.spec.unit}" if flag.spec.unit else ""
            text += f"; it takes {range_text(flag.spec)}{unit}"
        text += ")"
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more)"
    return text


def _check_outputs(args: argparse.Namespace) -> None:
    """Every path this command will write, checked before anything is written."""
    if getattr(args, "save", None) is not None:
        check_output(args.save, "--save")
    csv = getattr(args, "csv", None)
    if csv is not None and csv != "-":
        check_output(csv, "--csv")


def _save(args: argparse.Namespace, inputs: EstimateInputs) -> None:
    if args.save:
        try:
            save_estimate(args.save, inputs)
        except OSError as exc:
            raise CliError(f"cannot write {args.save}: {exc.strerror or exc}") from None


def _cmd_estimate(args: argparse.Namespace, out: TextIO) -> int:
    check_csv_args(args)
    _check_outputs(args)
    catalog = CatalogView(args.catalog, sys.stderr)
    if args.catalog is not None:
        catalog.rows  # noqa: B018  (an unknown --catalog is an error even without --gpu)
    inputs = inputs_from_args(args, catalog)
    result = estimate(inputs)
    _save(args, inputs)
    if emit_csv(args.csv, [(scenario_name(args), result)], out):
        return EXIT_OK
    if args.json:
        out.write(to_json(estimate_document(inputs, result)) + "\n")
    else:
        out.write(format_estimate(inputs, result))
    return EXIT_OK


def _refuse_gpu_flags(args: argparse.Namespace) -> None:
    """compare prices every GPU from the catalog: flags for one GPU's facts make no sense."""
    given = [p for p in given_values(args) if p.startswith(GPU_SECTION + ".")]
    if not given:
        return
    prices = {f"{GPU_SECTION}.on_demand_usd_per_hour", f"{GPU_SECTION}.spot_usd_per_hour"}
    if prices & set(given):
        raise CliError(
            "--price and --spot-price set one GPU's prices; compare prices every GPU from the "
            "catalog (put your prices in a user catalog, see docs/catalogs.md)"
        )
    flags = ", ".join(f.option for p in given if (f := flag_for(p)) is not None)
    raise CliError(
        f"{flags} describe one GPU; compare runs every GPU of the catalog as the catalog has it "
        "(put your GPU in a user catalog, see docs/catalogs.md)"
    )


def _cmd_compare(args: argparse.Namespace, out: TextIO) -> int:
    _refuse_gpu_flags(args)
    _check_outputs(args)
    catalog = CatalogView(args.catalog, sys.stderr)
    inputs = inputs_from_args(args, catalog)
    rows = compare_gpus(inputs, catalog.rows)
    ranked = rank_by_cost(rows) if args.by == "cost" else rank_by_wall_clock(rows)
    _save(args, inputs)
    if args.json:
        doc = compare_document(inputs, ranked, catalog.name, args.by)
        out.write(to_json(doc) + "\n")
    else:
        out.write(format_compare(inputs, ranked, catalog.name, args.by))
    return EXIT_OK


def _cmd_plan(args: argparse.Namespace, out: TextIO) -> int:
    _refuse_gpu_flags(args)
    catalog = CatalogView(args.catalog, sys.stderr)
    inputs = inputs_from_args(args, catalog)
    constraints = constraints_from_args(args, inputs.project.billing)
    if len(args.fits_gpu) > 2:
        raise CliError("--fits-gpu: at most two more GPUs")
    others = [find_gpu_row(g, catalog.rows).gpu.to_spec() for g in args.fits_gpu]
    offers = [offer(r) for r in catalog.rows]
    p = plan_section(inputs, offers, constraints, catalog.name, others)
    search, fits, best_fits = p.search, p.fits, p.best_fits
    if args.json:
        out.write(to_json(plan_document(search, fits, best_fits, catalog.name)) + "\n")
    else:
        out.write(format_plan(search, fits, best_fits, catalog.name, args.top))
    return EXIT_OK


def _cmd_gpus(args: argparse.Namespace, out: TextIO) -> int:
    catalog = CatalogView(args.catalog, sys.stderr)
    rows, name = catalog.rows, catalog.name
    out.write(to_json(gpus_document(rows, name)) + "\n" if args.json else format_gpus(rows, name))
    return EXIT_OK


def _cmd_catalogs(args: argparse.Namespace, out: TextIO) -> int:
    view = CatalogView(None, sys.stderr)
    entries, active = view.entries()
    folder = view.store.root if view.available else None
    if args.json:
        out.write(to_json(catalogs_document(entries, active, folder)) + "\n")
    else:
        out.write(format_catalogs(entries, active, folder, len(view.builtin.gpus)))
    return EXIT_OK


def _cmd_models(args: argparse.Namespace, out: TextIO) -> int:
    presets = builtin_presets()
    out.write(to_json(models_document(presets)) + "\n" if args.json else format_models(presets))
    return EXIT_OK


COMMANDS: dict[str, Callable[[argparse.Namespace, TextIO], int]] = {
    "estimate": _cmd_estimate,
    "compare": _cmd_compare,
    "plan": _cmd_plan,
    "gpus": _cmd_gpus,
    "catalogs": _cmd_catalogs,
    "models": _cmd_models,
    "report": lambda args, out: run_report(args),
    "data": run_data,
}
# Errors whose message is one line the user can act on.
_USER_ERRORS = (CliError, EstimateFileError, CatalogError, CsvOutputError)


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """One parser per process: parsing does not change it, and building it is most of a
    failed command's time."""
    return build_parser()


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 bad input). Without ``argv`` it is the
    process's entry (``ftcost``, ``python -m ftcost_gui.cli``), which ends when it returns: its
    objects are then frozen out of the cycle collector, so that exiting frees what reference
    counts free and leaves the rest to the OS. Python's exit collects every cycle it finds
    (every module, class and Qt wrapper): ~0.2-0.3 s of CPU after a 200-scenario report, ~0.1 s
    after the report's imports alone (issue 17). Nothing needs a finalizer then: files are
    written and closed before a command returns; atexit handlers and stdout flushing still run."""
    if argv is not None:
        return _main(list(argv))
    try:
        return _main(sys.argv[1:])
    finally:
        gc.freeze()


def _main(argv: list[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    try:
        return COMMANDS[args.command](args, sys.stdout)
    except _USER_ERRORS as exc:
        return fail(sys.stderr, exc)
    except ValidationError as exc:
        return fail(sys.stderr, describe_validation(exc))
    except BrokenPipeError:  # e.g. `ftcost gpus | head`: stop quietly, as cat does
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        return 130  # 128 + SIGINT, as shells report it; no traceback for a Ctrl-C
