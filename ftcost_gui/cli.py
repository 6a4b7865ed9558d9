"""The headless command line: ``ftcost estimate | compare | gpus | catalogs | models``.

Every number comes from ``core.estimate``; this module only turns flags and files into
``EstimateInputs`` (always through ``model_validate``, so bounds are checked) and prints the result
as a table or as JSON (``cli_format``). Bad input ends with one ``ftcost: error: ...`` line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError

from . import __version__
from .cli_csv import CsvOutputError, add_csv_flag, check_csv_args, emit_csv, scenario_name
from .cli_format import (
    catalogs_document,
    compare_document,
    estimate_document,
    format_catalogs,
    format_compare,
    format_estimate,
    format_gpus,
    format_models,
    gpus_document,
    models_document,
    to_json,
)
from .cli_report import add_report_parser, run_report
from .core.catalog import BUILTIN_NAME, EffectiveRow, find_row, merge_catalogs
from .core.compare import compare_gpus, rank_by_cost, rank_by_wall_clock
from .core.estimate import estimate
from .core.inputs import EstimateInputs
from .io.catalog_store import CatalogError, CatalogProblem, CatalogStore
from .io.estimate_file import EstimateFileError, load_estimate, save_estimate
from .io.hf_config import ModelConfigError
from .io.models import resolve_model
from .io.resources import builtin_catalog, builtin_presets

EXIT_OK = 0
EXIT_USAGE = 2

METHOD_FLAGS: dict[str, str] = {
    "full": "full_amp_adamw",
    "full-8bit": "full_adamw_8bit",
    "full-bf16": "full_bf16_adamw",
    "lora": "lora",
    "qlora": "qlora",
}


class CliError(Exception):
    """Bad input the user can fix; the message is one line."""


class _Parser(argparse.ArgumentParser):
    """argparse with its errors in the same one-line form as ours."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"ftcost: error: {message} (see '{self.prog} --help')\n")


# The field each flag sets, so a validation error can name the flag too.
FIELD_FLAGS: dict[str, str] = {
    "model.param_count_override": "--params",
    "data.total_tokens": "--tokens",
    "data.num_examples": "--examples",
    "data.mean_tokens_per_example": "--mean-tokens",
    "data.epochs": "--epochs",
    "data.max_seq_len": "--seq-len",
    "training.lora_rank": "--rank",
    "training.lora_targets": "--targets",
    "training.micro_batch": "--micro-batch",
    "training.grad_accum": "--grad-accum",
    "training.num_gpus": "--gpus",
    "hardware.gpu.on_demand_usd_per_hour": "--price",
    "hardware.gpu.spot_usd_per_hour": "--spot-price",
    "efficiency.mfu": "--mfu",
    "efficiency.step_time_s": "--step-time",
    "project.planned_runs": "--runs",
}


def _spot_price(text: str) -> float | None:
    if text.strip().lower() in ("none", "null", ""):
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a price or 'none': {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
    est.add_argument("file", nargs="?", metavar="FILE", help="an estimate file (.ftcost)")
    est.add_argument("--json", action="store_true", help="print the inputs and result as JSON")
    est.add_argument("--save", metavar="PATH", help="also write the inputs to an estimate file")
    add_csv_flag(est)
    _add_input_flags(est)

    cmp_ = sub.add_parser(
        "compare",
        help="which GPU for this job: the estimate on every GPU of the catalog, ranked",
        description="Run the estimate (FILE and/or flags, as 'ftcost estimate') on every GPU of "
        "the effective catalog at its catalog prices, and rank the GPUs by cost per run (the "
        "ones that fit first) or by wall-clock.",
    )
    cmp_.add_argument("file", nargs="?", metavar="FILE", help="an estimate file (.ftcost)")
    cmp_.add_argument("--json", action="store_true", help="print the ranking as JSON")
    cmp_.add_argument(
        "--by",
        choices=("cost", "time"),
        default="cost",
        help="rank by cost per run on-demand (default) or by held wall-clock",
    )
    cmp_.add_argument("--save", metavar="PATH", help="also write the inputs to an estimate file")
    _add_input_flags(cmp_)

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
    return parser


def _add_catalog_flag(p: Any) -> None:
    p.add_argument(
        "--catalog",
        metavar="NAME",
        help="GPU catalog to use: a user catalog's name or 'Built-in' (default: the active one)",
    )


def _add_input_flags(p: argparse.ArgumentParser) -> None:
    """The flags that set inputs: shared by 'estimate' and 'compare'."""
    g = p.add_argument_group("model")
    g.add_argument("--model", metavar="ID", help="preset id or name (see 'ftcost models')")
    g.add_argument("--params", type=float, metavar="N", help="bare parameter count, e.g. 7.62e9")

    g = p.add_argument_group("data")
    amount = g.add_mutually_exclusive_group()
    amount.add_argument("--tokens", type=float, metavar="N", help="useful tokens, all epochs")
    amount.add_argument("--examples", type=int, metavar="N", help="training examples")
    g.add_argument("--mean-tokens", type=float, metavar="N", help="mean tokens per example")
    g.add_argument("--epochs", type=float, metavar="N", help="passes over the data")
    g.add_argument("--seq-len", type=int, metavar="N", help="max sequence length (tokens)")
    g.add_argument("--packing", action=argparse.BooleanOptionalAction, help="sequence packing")

    g = p.add_argument_group("training")
    g.add_argument("--method", choices=tuple(METHOD_FLAGS), help="training recipe")
    g.add_argument("--rank", type=int, metavar="R", help="LoRA rank")
    g.add_argument("--targets", metavar="LIST", help="LoRA targets, comma-separated")
    g.add_argument(
        "--checkpointing",
        action=argparse.BooleanOptionalAction,
        help="activation checkpointing (full recompute)",
    )
    g.add_argument("--attention", choices=("flash", "eager"), help="attention implementation")
    g.add_argument("--micro-batch", type=int, metavar="N", help="sequences per GPU per pass")
    g.add_argument("--grad-accum", type=int, metavar="N", help="micro-batches per step")
    g.add_argument("--gpus", type=int, metavar="N", help="GPU count (default: fewest that fit)")
    g.add_argument("--sharding", choices=("none", "zero1", "zero2", "zero3"), help="sharding")
    g.add_argument("--offload", action=argparse.BooleanOptionalAction, help="optimizer on the CPU")

    g = p.add_argument_group("hardware and prices")
    g.add_argument("--gpu", metavar="ID", help="catalog GPU id or name (see 'ftcost gpus')")
    _add_catalog_flag(g)
    g.add_argument("--mfu", type=float, metavar="F", help="model FLOPs utilisation, 0-1")
    g.add_argument("--price", type=float, metavar="USD", help="on-demand $/GPU-hour")
    g.add_argument(
        "--spot-price",
        type=_spot_price,
        default=argparse.SUPPRESS,  # absent unless given: 'none' (None) clears the price
        metavar="USD",
        help="spot $/GPU-hour ('none' to clear)",
    )
    g.add_argument("--runs", type=int, metavar="N", help="planned runs in the project")
    g.add_argument("--step-time", type=float, metavar="S", help="measured seconds per step")


def _suggest(key: str, names: Iterable[tuple[str, str]]) -> str:
    """'; did you mean ...?' from (alias, display name) pairs, each display name once."""
    by_alias: dict[str, str] = {}
    for alias, display in names:
        by_alias.setdefault(alias.lower(), display)
    close = difflib.get_close_matches(key.strip().lower(), list(by_alias), n=6, cutoff=0.5)
    shown = list(dict.fromkeys(by_alias[c] for c in close))[:3]
    return f"; did you mean {', '.join(repr(n) for n in shown)}?" if shown else ""


class CatalogView:
    """The effective GPU catalog for one command: loaded on first use, problems told once.

    ``name`` is ``--catalog`` (None: the active catalog). A catalog file set aside on the way is
    reported as one ``ftcost: warning: ...`` line on ``err``; the command goes on without it.
    """

    def __init__(self, name: str | None, err: Any) -> None:
        self.requested = name
        self._err = err
        self._store: CatalogStore | None = None
        self._rows: list[EffectiveRow] | None = None
        self._name: str | None = None

    @property
    def store(self) -> CatalogStore:
        if self._store is None:
            self._store = CatalogStore()
        return self._store

    def warn(self, problems: Iterable[CatalogProblem]) -> None:
        for p in problems:
            self._err.write(f"ftcost: warning: {' '.join(str(p).split())}\n")

    def _load(self) -> None:
        store = self.store
        scan = store.scan()
        self.warn(scan.problems)
        try:
            user = scan.user_catalog(self.requested)
        except CatalogError:
            names = [(n, n) for n in scan.names()]
            raise CliError(
                f"unknown catalog {self.requested!r}{_suggest(self.requested or '', names)} "
                "(see 'ftcost catalogs')"
            ) from None
        self._rows = merge_catalogs(store.builtin, user)
        self._name = user.name if user is not None else BUILTIN_NAME

    @property
    def rows(self) -> list[EffectiveRow]:
        if self._rows is None:
            self._load()
        assert self._rows is not None
        return self._rows

    @property
    def name(self) -> str:
        if self._name is None:
            self._load()
        assert self._name is not None
        return self._name


def find_gpu(key: str, rows: list[EffectiveRow] | None = None) -> dict[str, Any]:
    """The GPU spec (with its catalog prices) by id or name in ``rows`` (default: built-in)."""
    if rows is None:
        rows = merge_catalogs(builtin_catalog())
    row = find_row(rows, key)
    if row is None:
        names = [(alias, r.gpu.name) for r in rows for alias in (r.gpu.id, r.gpu.name)]
        raise CliError(f"unknown GPU {key!r}{_suggest(key, names)} (see 'ftcost gpus')")
    return row.gpu.to_spec().model_dump()


def find_model(key: str) -> dict[str, Any]:
    """A preset id or name, a config.json or model folder, or a repo id in the local HF cache."""
    presets = builtin_presets()
    preset = presets.find(key)
    if preset is not None:
        return preset.spec.model_dump()
    try:
        return resolve_model(key).model_dump()
    except ModelConfigError as exc:
        if Path(key).exists() or "/" in key:
            raise CliError(f"model {key!r}: {exc}") from None
        names = [(alias, p.id) for p in presets.models for alias in (p.id, p.spec.name)]
        raise CliError(
            f"unknown model {key!r}{_suggest(key, names)} (see 'ftcost models')"
        ) from None


def _targets(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise CliError("--targets needs at least one name, e.g. q_proj,v_proj")
    return items


def inputs_from_args(
    args: argparse.Namespace, catalog: CatalogView | None = None
) -> EstimateInputs:
    """The file's inputs (or the defaults) with the flags given applied, validated.

    ``--gpu`` is looked up in ``catalog`` (the effective catalog), else in the built-in one.
    """
    base = load_estimate(args.file) if args.file else EstimateInputs()
    d = base.model_dump()
    model, data, tr = d["model"], d["data"], d["training"]
    hw, eff = d["hardware"], d["efficiency"]

    if args.model is not None:
        model = d["model"] = find_model(args.model)
    if args.params is not None:
        model["param_count_override"] = args.params
    if args.tokens is not None:
        data.update(mode="tokens", total_tokens=args.tokens)
    if args.examples is not None:
        data.update(mode="examples", num_examples=args.examples)
    if args.mean_tokens is not None:
        data.update(mode="examples", mean_tokens_per_example=args.mean_tokens)
    _set(data, "epochs", args.epochs)
    _set(data, "max_seq_len", args.seq_len)
    _set(data, "packing", args.packing)

    if args.method is not None:
        tr["method"] = METHOD_FLAGS[args.method]
    _set(tr, "lora_rank", args.rank)
    if args.targets is not None:
        tr["lora_targets"] = _targets(args.targets)
    if args.checkpointing is not None:
        tr["checkpointing"] = "full" if args.checkpointing else "none"
    _set(tr, "attention", args.attention)
    _set(tr, "micro_batch", args.micro_batch)
    _set(tr, "grad_accum", args.grad_accum)
    if args.gpus is not None:
        tr.update(num_gpus=args.gpus, auto_gpu_count=False)
    _set(tr, "sharding", args.sharding)
    _set(tr, "cpu_offload_optimizer", args.offload)

    if args.gpu is not None:
        hw["gpu"] = find_gpu(args.gpu, catalog.rows if catalog is not None else None)
    _set(hw["gpu"], "on_demand_usd_per_hour", args.price)
    if hasattr(args, "spot_price"):
        hw["gpu"]["spot_usd_per_hour"] = args.spot_price
    _set(eff, "mfu", args.mfu)
    _set(eff, "step_time_s", args.step_time)
    _set(d["project"], "planned_runs", args.runs)
    return EstimateInputs.model_validate(d)


def _set(section: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        section[key] = value


def describe_validation(err: ValidationError) -> str:
    """One line: the first failing field by its dotted path, and pydantic's message."""
    errors = err.errors()
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"])
    flag = next(
        (f for k, f in FIELD_FLAGS.items() if where == k or where.startswith(k + ".")), None
    )
    if flag:
        where += f" ({flag})"
    text = (
        f"invalid value for {where}: {first['msg']}" if where else f"invalid input: {first['msg']}"
    )
    if "input" in first and not isinstance(first["input"], dict | list | tuple):
        text += f" (got {first['input']!r})"
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more)"
    return text


def _save(args: argparse.Namespace, inputs: EstimateInputs) -> None:
    if args.save:
        try:
            save_estimate(args.save, inputs)
        except OSError as exc:
            raise CliError(f"cannot write {args.save}: {exc.strerror or exc}") from None


def _cmd_estimate(args: argparse.Namespace, out: Any) -> int:
    check_csv_args(args)
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


def _cmd_compare(args: argparse.Namespace, out: Any) -> int:
    if args.price is not None or hasattr(args, "spot_price"):
        raise CliError(
            "--price and --spot-price set one GPU's prices; compare prices every GPU from the "
            "catalog (put your prices in a user catalog, see docs/catalogs.md)"
        )
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


def _cmd_gpus(args: argparse.Namespace, out: Any) -> int:
    catalog = CatalogView(args.catalog, sys.stderr)
    rows, name = catalog.rows, catalog.name
    out.write(to_json(gpus_document(rows, name)) + "\n" if args.json else format_gpus(rows, name))
    return EXIT_OK


def _cmd_catalogs(args: argparse.Namespace, out: Any) -> int:
    view = CatalogView(None, sys.stderr)
    store = view.store
    scan = store.scan()
    view.warn(scan.problems)
    entries, active = scan.entries(), scan.active
    if args.json:
        out.write(to_json(catalogs_document(entries, active, store.root)) + "\n")
    else:
        out.write(format_catalogs(entries, active, store.root, len(store.builtin.gpus)))
    return EXIT_OK


def _cmd_models(args: argparse.Namespace, out: Any) -> int:
    presets = builtin_presets()
    out.write(to_json(models_document(presets)) + "\n" if args.json else format_models(presets))
    return EXIT_OK


COMMANDS = {
    "estimate": _cmd_estimate,
    "compare": _cmd_compare,
    "gpus": _cmd_gpus,
    "catalogs": _cmd_catalogs,
    "models": _cmd_models,
    "report": lambda args, out: run_report(args),
}


def _fail(message: str) -> int:
    sys.stderr.write(f"ftcost: error: {' '.join(message.split())}\n")
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 bad input)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    try:
        return COMMANDS[args.command](args, sys.stdout)
    except CliError as exc:
        return _fail(str(exc))
    except EstimateFileError as exc:
        return _fail(str(exc))
    except CatalogError as exc:
        return _fail(str(exc))
    except CsvOutputError as exc:
        return _fail(str(exc))
    except ValidationError as exc:
        return _fail(describe_validation(exc))
    except BrokenPipeError:  # e.g. `ftcost gpus | head`: stop quietly, as cat does
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
