"""``ftcost data FILE``: measure a dataset (examples, tokens, lengths) and optionally fill it into
an estimate file's scenario (``--into``), as File → Measure Dataset… does in the window."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from ..core.catalog import merge_catalogs
from ..core.defaults import new_inputs
from ..core.document import EstimateDocument
from ..core.inputs import EstimateInputs
from ..io.dataset import DatasetCancelled, DatasetError, DatasetMeasure, measure_dataset
from ..io.dataset_fill import FillError, filled_inputs, fills
from ..io.dataset_stream import FORMATS
from ..io.dataset_tokens import TokenizerError, counter_for
from ..io.estimate_file import load_document, save_document
from ..io.names import for_terminal
from ..io.resources import builtin_catalog
from ..present.dataset import change_rows, octave_bars, percentiles, summary_rows
from .common import EXIT_OK, CliError, warn
from .documents import to_json
from .lookup import find_model
from .values import Text


def add_data_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "data",
        help="measure a dataset: examples, tokens and their length distribution",
        description="Read a JSONL / JSON / CSV / plain-text dataset (gzip too) once, streaming, "
        "and count its examples and their lengths in tokens: exact with a tokenizer.json and the "
        "'tokenizers' package, else by the tokenizer family's measured characters per token "
        "(labelled approximate). Malformed records are counted and skipped. With --into, the "
        "examples, mean length and length histogram go into an estimate file's scenario.",
    )
    p.add_argument("file", metavar="FILE", type=Text("a file path"), help="the dataset file")
    p.add_argument(
        "--tokenizer",
        metavar="PATH|auto|approximate",
        default="auto",
        type=Text("a tokenizer"),
        help="a tokenizer.json or a model folder holding one; 'auto' (default): the model's in "
        "the local Hugging Face cache, else the approximation; 'approximate': characters per "
        "token of the model's tokenizer family",
    )
    p.add_argument(
        "--model",
        metavar="ID",
        type=Text("a model"),
        help="the model whose tokenizer counts (a preset, config.json, folder or cached repo "
        "id); default: --into's scenario's model, else the new-estimate model",
    )
    p.add_argument("--format", choices=FORMATS, help="the file's format (default: from its name)")
    p.add_argument("--json", action="store_true", help="print the measurement as JSON")
    p.add_argument(
        "--into",
        metavar="ESTIMATE",
        type=Text("a file path"),
        help="an estimate file (.ftcost) to fill: its selected scenario (or --scenario) gets the "
        "examples, mean tokens and measured lengths; the file is rewritten",
    )
    p.add_argument("--scenario", metavar="NAME", help="with --into: the scenario to fill")
    p.add_argument(
        "--dpo",
        action="store_true",
        help="with --into: a file of preference pairs also switches the objective to DPO",
    )
    return p


def _target(args: argparse.Namespace) -> tuple[EstimateDocument | None, int]:
    if args.into is None:
        if args.scenario is not None or args.dpo:
            raise CliError("--scenario and --dpo go with --into")
        return None, 0
    document = load_document(args.into)
    if args.scenario is None:
        return document, document.active
    names = [s.name for s in document.scenarios]
    if args.scenario not in names:
        raise CliError(f"{args.into} has no scenario {args.scenario!r}")
    return document, names.index(args.scenario)


class _Progress:
    """A one-line progress bar on a terminal's stderr (nothing when stderr is not one)."""

    def __init__(self, err: TextIO):
        self.err = err
        self.on = err.isatty()

    def __call__(self, done: int, total: int) -> None:
        if self.on and total:
            self.err.write(f"\rftcost: reading {100 * done / total:5.1f}% of {total:,} bytes")
            self.err.flush()

    def end(self) -> None:
        if self.on:
            self.err.write("\r" + " " * 60 + "\r")


def run_data(args: argparse.Namespace, out: TextIO) -> int:
    document, index = _target(args)
    if args.model is not None:
        model_doc = find_model(args.model)
        inputs = None
    else:
        model_doc = None
        if document is not None:
            inputs = document.scenarios[index].inputs
        else:
            inputs = new_inputs(merge_catalogs(builtin_catalog()))
    model = (
        inputs.model
        if inputs is not None
        else EstimateInputs.model_validate({"model": model_doc}).model
    )
    try:
        counter, why = counter_for(model, args.tokenizer)
    except TokenizerError as exc:
        raise CliError(str(exc)) from None
    bar = _Progress(sys.stderr)
    try:
        m = measure_dataset(args.file, counter, fmt=args.format, progress=bar)
    except DatasetError as exc:
        raise CliError(str(exc)) from None
    except DatasetCancelled:  # pragma: no cover - the CLI has no cancel but Ctrl-C
        raise KeyboardInterrupt from None
    finally:
        bar.end()
    if why:  # after the read: a file that cannot be read is one error line, nothing else
        warn(sys.stderr, f"tokens are approximate: {why}")
    changes: list[tuple[str, str, str]] = []
    if document is not None:
        old = document.scenarios[index].inputs
        try:
            new = filled_inputs(old, m, switch_to_dpo=args.dpo)
        except FillError as exc:
            raise CliError(str(exc)) from None
        changes = change_rows(old, new)
        updated = document.selected(index).with_inputs(new).selected(document.active)
        try:
            save_document(args.into, updated)
        except OSError as exc:
            raise CliError(f"cannot write {args.into}: {exc.strerror or exc}") from None
        what = fills(old, m)
    if args.json:
        out.write(to_json(data_document(m, changes)) + "\n")
        return EXIT_OK
    out.write(format_data(m))
    if document is not None:
        out.write(f"\nFilled into {for_terminal(args.into)} ({what}):\n")
        for label, before, after in changes or [("(nothing changed)", "", "")]:
            out.write(f"  {label:<20} {before} → {after}\n" if before else f"  {label}\n")
    return EXIT_OK


def format_data(m: DatasetMeasure) -> str:
    lines = [f"{label:<24} {for_terminal(value)}" for label, value in summary_rows(m)]
    if m.sequences:
        lines += ["", "Length (tokens)          sequences"]
        for label, count, bar in octave_bars(m.histogram()):
            lines.append(f"  {label} {count:>12,}  {bar}")
    return "\n".join(lines) + "\n"


def data_document(m: DatasetMeasure, changes: list[tuple[str, str, str]]) -> dict[str, Any]:
    """The measurement as JSON (docs/cli.md, 'ftcost data --json')."""
    h = m.histogram() if m.sequences else None
    return {
        "format": "ftcost-dataset",
        "version": 1,
        "file": m.name,
        "file_format": m.format,
        "compressed": m.compressed,
        "bytes": m.bytes_total,
        "seconds": m.seconds,
        "records": m.records,
        "sequences": m.sequences,
        "shapes": dict(m.shapes),
        "preference_pairs": m.pairs,
        "malformed": {
            "count": m.malformed,
            "first": [{"line": n, "reason": why} for n, why in m.malformed_examples],
        },
        "tokens": {
            "exact": m.exact,
            "counter": m.tokenizer,
            "source": m.tokenizer_source,
            "template_per_message": m.per_message,
            "template_per_sequence": m.per_sequence,
            "total": m.tokens,
            "mean_per_sequence": m.mean_tokens,
            "shortest": m.shortest,
            "longest": m.longest,
            "mean_prompt": m.mean_prompt_tokens,
            "mean_answer": m.mean_answer_tokens,
            "percentiles": {f"p{q * 100:g}": v for q, v in percentiles(m)} if h else {},
        },
        "histogram": None if h is None else {"edges": list(h.edges), "counts": list(h.counts)},
        "filled": [{"field": f, "before": b, "after": a} for f, b, a in changes],
    }
