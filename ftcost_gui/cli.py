"""The headless command line: ``ftcost estimate | gpus | models``.

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
from typing import Any, NoReturn

from pydantic import ValidationError

from . import __version__
from .cli_format import (
    estimate_document,
    format_estimate,
    format_gpus,
    format_models,
    gpus_document,
    models_document,
    to_json,
)
from .core.estimate import estimate
from .core.inputs import EstimateInputs
from .io.estimate_file import EstimateFileError, load_estimate, save_estimate
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

    g = est.add_argument_group("model")
    g.add_argument("--model", metavar="ID", help="preset id or name (see 'ftcost models')")
    g.add_argument("--params", type=float, metavar="N", help="bare parameter count, e.g. 7.62e9")

    g = est.add_argument_group("data")
    amount = g.add_mutually_exclusive_group()
    amount.add_argument("--tokens", type=float, metavar="N", help="useful tokens, all epochs")
    amount.add_argument("--examples", type=int, metavar="N", help="training examples")
    g.add_argument("--mean-tokens", type=float, metavar="N", help="mean tokens per example")
    g.add_argument("--epochs", type=float, metavar="N", help="passes over the data")
    g.add_argument("--seq-len", type=int, metavar="N", help="max sequence length (tokens)")
    g.add_argument("--packing", action=argparse.BooleanOptionalAction, help="sequence packing")

    g = est.add_argument_group("training")
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

    g = est.add_argument_group("hardware and prices")
    g.add_argument("--gpu", metavar="ID", help="catalog GPU id or name (see 'ftcost gpus')")
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

    for name, text in (("gpus", "list the built-in GPUs"), ("models", "list the model presets")):
        p = sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        p.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _suggest(key: str, names: Iterable[tuple[str, str]]) -> str:
    """'; did you mean ...?' from (alias, display name) pairs, each display name once."""
    by_alias: dict[str, str] = {}
    for alias, display in names:
        by_alias.setdefault(alias.lower(), display)
    close = difflib.get_close_matches(key.strip().lower(), list(by_alias), n=6, cutoff=0.5)
    shown = list(dict.fromkeys(by_alias[c] for c in close))[:3]
    return f"; did you mean {', '.join(repr(n) for n in shown)}?" if shown else ""


def find_gpu(key: str) -> dict[str, Any]:
    catalog = builtin_catalog()
    gpu = catalog.find(key)
    if gpu is None:
        names = [(alias, g.name) for g in catalog.gpus for alias in (g.id, g.name)]
        raise CliError(f"unknown GPU {key!r}{_suggest(key, names)} (see 'ftcost gpus')")
    return gpu.to_spec().model_dump()


def find_model(key: str) -> dict[str, Any]:
    presets = builtin_presets()
    preset = presets.find(key)
    if preset is None:
        names = [(alias, p.id) for p in presets.models for alias in (p.id, p.spec.name)]
        raise CliError(f"unknown model {key!r}{_suggest(key, names)} (see 'ftcost models')")
    return preset.spec.model_dump()


def _targets(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise CliError("--targets needs at least one name, e.g. q_proj,v_proj")
    return items


def inputs_from_args(args: argparse.Namespace) -> EstimateInputs:
    """The file's inputs (or the defaults) with the flags given applied, validated."""
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
        hw["gpu"] = find_gpu(args.gpu)
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


def _cmd_estimate(args: argparse.Namespace, out: Any) -> int:
    inputs = inputs_from_args(args)
    result = estimate(inputs)
    if args.save:
        try:
            save_estimate(args.save, inputs)
        except OSError as exc:
            raise CliError(f"cannot write {args.save}: {exc.strerror or exc}") from None
    if args.json:
        out.write(to_json(estimate_document(inputs, result)) + "\n")
    else:
        out.write(format_estimate(inputs, result))
    return EXIT_OK


def _cmd_gpus(args: argparse.Namespace, out: Any) -> int:
    catalog = builtin_catalog()
    out.write(to_json(gpus_document(catalog)) + "\n" if args.json else format_gpus(catalog))
    return EXIT_OK


def _cmd_models(args: argparse.Namespace, out: Any) -> int:
    presets = builtin_presets()
    out.write(to_json(models_document(presets)) + "\n" if args.json else format_models(presets))
    return EXIT_OK


COMMANDS = {"estimate": _cmd_estimate, "gpus": _cmd_gpus, "models": _cmd_models}


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
    except ValidationError as exc:
        return _fail(describe_validation(exc))
    except BrokenPipeError:  # e.g. `ftcost gpus | head`: stop quietly, as cat does
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
