"""``ftcost report FILE --pdf out.pdf --html out.html --md out.md``: a report without a window.

Headless: without a display it sets ``QT_QPA_PLATFORM=offscreen`` itself (when unset), and it
creates the QApplication the plots and the PDF writer need. Every scenario of FILE is reported.
Errors end with one ``ftcost: error: ...`` line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from ..blas_threads import one_blas_thread
from ..io.names import for_terminal, plain
from .common import EXIT_OK, CliError, fail
from .paths import check_output
from .plan_cmd import add_report_plan_flags, constraints_from_args
from .values import Text, quoted

_QUIET = ("This plugin does not support",)  # offscreen-plugin chatter while plots lay out


def add_report_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "report",
        help="write a PDF, HTML and/or Markdown report of an estimate file",
        description="Write a report of every scenario of FILE: the comparison, both plots, the "
        "inputs, each scenario's figures and arithmetic, the assumptions and the GPU prices used. "
        "HTML is one self-contained file; Markdown writes its plots as PNG files next to it.",
    )
    p.add_argument(
        "file", metavar="FILE", type=Text("a file path"), help="an estimate file (.ftcost)"
    )
    p.add_argument("--pdf", metavar="PATH", help="write a PDF report (A4)")
    p.add_argument("--html", metavar="PATH", help="write a self-contained HTML report")
    p.add_argument("--md", metavar="PATH", help="write a Markdown report (+ PATH-stem-*.png)")
    p.add_argument(
        "--baseline",
        metavar="SCENARIO",
        help="the scenario differences are shown to: its name or number (default: the first)",
    )
    p.add_argument("--title", help="the report title (default: the file name)")
    p.add_argument(
        "--force",
        action="store_true",
        help="with --md: replace existing PATH-stem-memory.png / -cost.png next to the file",
    )
    p.add_argument(
        "--catalog",
        metavar="NAME",
        type=Text("a catalog name"),
        help="GPU catalog the recommendation searches: a user catalog's name or 'Built-in' "
        "(default: the active one)",
    )
    add_report_plan_flags(p)
    return p


class ReportError(Exception):
    """Bad input for the report; one line."""


def _baseline(document: Any, text: str | None) -> int:
    if text is None:
        return 0
    names = [s.name for s in document.scenarios]
    if text in names:
        return names.index(text)
    if text.strip().isdigit() and 1 <= int(text) <= len(names):
        return int(text) - 1
    raise ReportError(
        f"--baseline: no scenario {quoted(text)} in the file (scenarios: "
        + ", ".join(f"{i + 1} {quoted(n)}" for i, n in enumerate(names))
        + ")"
    )


def _check_target(path: str, flag: str) -> None:
    try:
        check_output(path, flag, folder_must_exist=True)
    except CliError as exc:
        raise ReportError(str(exc)) from None


def _quiet_handler(previous: Any):
    def handler(mode, context, message):
        if any(message.startswith(q) for q in _QUIET):
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            sys.stderr.write(message + "\n")

    return handler


def _plan(args: argparse.Namespace, inputs: Any) -> Any:
    """The recommendation's search: the selected scenario over the catalog, the flags' limits."""
    from ..core.compare import offer
    from ..report.content import plan_section
    from .lookup import CatalogView

    catalog = CatalogView(args.catalog, sys.stderr)
    constraints = constraints_from_args(args, inputs.project.billing)
    return plan_section(inputs, [offer(r) for r in catalog.rows], constraints, catalog.name)


def _export(args: argparse.Namespace, report: Any, targets: dict, worker: Any) -> list[Path]:
    previous: list[Any] = []  # Qt's message handler, replaced once this process loads Qt

    def before_qt() -> None:  # where this process draws or writes the PDF
        if previous:
            return
        try:
            from ..report.render import ensure_qapp

            ensure_qapp()
            from PySide6.QtCore import qInstallMessageHandler
        except ImportError as exc:
            raise ReportError(f"the report needs PySide6 and pyqtgraph: {exc}") from None
        previous.append(qInstallMessageHandler(None))
        qInstallMessageHandler(_quiet_handler(previous[0]))

    from ..report.render import export_report

    try:
        return export_report(
            report, **targets, replace_images=getattr(args, "force", False), worker=worker,
            before_qt=before_qt,
        )  # fmt: skip
    except OSError as exc:
        raise ReportError(f"cannot write the report: {exc.strerror or exc}") from None
    except UnicodeError:  # a file name that is not UTF-8, written into the report's links
        raise ReportError("cannot write the report: its file name is not valid UTF-8") from None
    finally:
        if previous:
            from PySide6.QtCore import qInstallMessageHandler

            qInstallMessageHandler(previous[0])


def run_report(args: argparse.Namespace) -> int:
    """Write the formats asked for; 0, or 2 with one error line on stderr."""
    try:
        return _run(args)
    except ReportError as exc:
        return fail(sys.stderr, exc)


def _run(args: argparse.Namespace) -> int:
    from ..core.series import own_outcome, scenario_series
    from ..io.estimate_file import EstimateFileError, load_document

    targets = {k: getattr(args, k, None) for k in ("pdf", "html", "md")}
    targets = {k: v for k, v in targets.items() if v}
    if not targets:
        raise ReportError("report: give at least one of --pdf PATH, --html PATH, --md PATH")
    for fmt, path in targets.items():
        _check_target(path, f"--{fmt}")
    if "md" in targets and not getattr(args, "force", False):
        from ..report.markdown import existing_markdown_images

        clashes = existing_markdown_images(targets["md"])
        if clashes:
            raise ReportError(
                f"--md: {', '.join(c.name for c in clashes)} already exist next to "
                f"{Path(targets['md']).name}; pass --force to replace them"
            )
    try:
        document = load_document(args.file)
    except EstimateFileError as exc:
        raise ReportError(str(exc)) from None
    try:  # one plan per scenario: its figures, and its curve and bar in the all-scenario plots
        # (which draw no range around the curves; one scenario's plot computes its own)
        outcomes = [own_outcome(s.inputs, band=False) for s in document.scenarios]
    except Exception as exc:  # a scenario the model cannot estimate
        raise ReportError(f"cannot estimate {args.file}: {exc}") from None
    results = [o.result for o in outcomes]
    names = [s.name for s in document.scenarios]
    series = scenario_series(names, outcomes, document.active) if len(names) > 1 else None
    baseline = _baseline(document, getattr(args, "baseline", None))

    from ..report import Report
    from ..report.forked import can_fork, start_images
    from ..report.plot_child import send_plan, start_plots, stop_early
    from ..report.render import forked_images, load_qt, plot_images

    one_blas_thread()  # before the plots load numpy (in a child, or here)

    # One clean line: a title is shown in the report, whatever bytes the shell passed.
    title = plain(getattr(args, "title", None) or "").strip() or plain(Path(args.file).stem)
    report = Report(
        document=document, results=results, title=title, baseline=baseline, series=series
    )  # fmt: skip
    # Where a child can be forked, the plots are drawn there while this process searches the
    # plan and builds the text (issue 17): HTML and Markdown need no Qt here, so the child loads
    # it (report/plot_child.py; forked as the process started, where it could be); the PDF is
    # laid out by Qt here, so Qt is loaded before the fork and the child draws the cost plot
    # (and the memory plot where that evens the work out).
    worker = None
    if "pdf" not in targets:
        worker = start_plots(report, plan=not args.no_plan)
    else:
        stop_early()
        if can_fork():
            try:
                load_qt()  # once, before the fork: the child inherits Qt's modules
            except ImportError as exc:
                raise ReportError(f"the report needs PySide6 and pyqtgraph: {exc}") from None
            child_images = forked_images(len(document.scenarios), plan=not args.no_plan)
            worker = start_images(partial(plot_images, report), child_images)
    try:
        if not args.no_plan:
            report = replace(report, plan=_plan(args, document.current.inputs))
            if worker is not None:
                send_plan(worker, report.plan)
        written = _export(args, report, targets, worker)
    finally:
        if worker is not None:
            worker.close()  # nothing to do once its images were taken
    for path in written:
        sys.stdout.write(f"wrote {for_terminal(path)}\n")
    return EXIT_OK
