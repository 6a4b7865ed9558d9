"""Exports from the window: a plot as PNG or SVG, every scenario's results as CSV, a report.

The dialogs sit behind ``_ask_export_path`` / ``_ask_export_file`` / ``_ask_report_path`` (tests
monkeypatch them). Exports read the store; the plot export draws the plot as it is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMainWindow, QMenu, QMessageBox, QWidget

from ...core.results import EstimateResult
from ...io.names import path_name
from ..rich_text import rich_text
from ..store import EstimateStore

APP_TITLE = "ftcost"
REPORT_FILTERS = {
    "pdf": "PDF report (*.pdf)",
    "html": "HTML report, one self-contained file (*.html)",
    "md": "Markdown report, images next to it (*.md)",
}
PLOTS = (("memory", "Memory plot"), ("cost", "Cost plot"))


class ExportablePlot(Protocol):
    """What a plot offers the exporter: the widget and the item that is drawn."""

    @property
    def plot_widget(self) -> QWidget: ...

    @property
    def export_item(self) -> object: ...


def report_format(path: str | Path) -> str:
    """'html', 'md' or 'pdf', from the suffix (PDF when it says nothing else)."""
    suffix = Path(path).suffix.lower()
    return {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md"}.get(suffix, "pdf")


class Exports(QObject):
    """File → Export …: the plot shown, the results as CSV, the report."""

    def __init__(
        self,
        store: EstimateStore,
        window: QMainWindow,
        visible_plot: Callable[[str], ExportablePlot],
        baseline: Callable[[], int],
    ):
        super().__init__(window)
        self.store, self.window = store, window
        self._visible_plot, self._baseline = visible_plot, baseline
        # The recommendation section (an add-on sets it: gui/plan); None leaves it out.
        self.report_plan: Callable[[], object] | None = None

    def _status(self, message: str) -> None:
        self.window.statusBar().showMessage(message, 4000)

    def _fail(self, what: str, exc: OSError) -> bool:
        message = rich_text(f"Could not export {what}.\n\n{exc}")
        QMessageBox.critical(self.window, APP_TITLE, message)
        return False

    def fill_plot_menu(self, menu: QMenu) -> None:
        """File → Export Plot: each plot as PNG and as SVG."""
        for plot, label in PLOTS:
            for fmt in ("png", "svg"):
                act = menu.addAction(f"{label} as {fmt.upper()}…")
                act.triggered.connect(lambda _=False, p=plot, f=fmt: self.export_plot(p, f))

    # --- dialogs ----------------------------------------------------------------------------------
    def _ask_export_path(self, fmt: str) -> str:
        path, _ = QFileDialog.getSaveFileName(
            self.window,
            f"Export plot as {fmt.upper()}",
            f"ftcost-plot.{fmt}",
            f"{fmt.upper()} (*.{fmt})",
        )
        return path

    def _ask_export_file(self, title: str, suggested: str, file_filter: str) -> str:
        start = str(self.store.path.with_name(suggested)) if self.store.path else suggested
        path, _ = QFileDialog.getSaveFileName(self.window, title, start, file_filter)
        return path

    def _ask_report_path(self) -> str:
        stem = self.store.path.stem if self.store.path else "ftcost-report"
        start = str(self.store.path.with_name(f"{stem}.pdf")) if self.store.path else f"{stem}.pdf"
        path, chosen = QFileDialog.getSaveFileName(
            self.window, "Export report", start, ";;".join(REPORT_FILTERS.values())
        )
        if path and not Path(path).suffix:
            fmt = next((k for k, v in REPORT_FILTERS.items() if v == chosen), "pdf")
            path += f".{fmt}"
        return path

    # --- exports --------------------------------------------------------------------------------
    def export_plot(self, which: str, fmt: str, path: str | None = None) -> bool:
        """Export the plot as shown (the 'All scenarios' overlay when that mode is on)."""
        from ...charts import export_png, export_svg

        plot = self._visible_plot(which)
        path = path or self._ask_export_path(fmt)
        if not path:
            return False
        try:
            if fmt == "png":
                export_png(plot.plot_widget, plot.export_item, path)
            else:
                export_svg(plot.plot_widget, plot.export_item, path, title=f"ftcost {which} plot")
        except OSError as exc:
            return self._fail("the plot", exc)
        self._status(f"Exported {path_name(path)}")
        return True

    def _named_results(self) -> list[tuple[str, EstimateResult]]:
        self.store.recompute_now()
        return [
            (s.name, r)
            for s, r in zip(self.store.document.scenarios, self.store.results, strict=True)
            if r is not None
        ]

    def export_results(self, path: str | None = None) -> bool:
        """Every scenario's results as CSV (scenario, section, key, value, unit)."""
        path = path or self._ask_export_file(
            "Export results as CSV", "ftcost-results.csv", "CSV (*.csv);;All files (*)"
        )
        if not path:
            return False
        from ...io.export_csv import write_results_csv  # with the first export (start-up)

        try:
            write_results_csv(path, self._named_results())
        except OSError as exc:
            return self._fail("the results", exc)
        self._status(f"Exported {path_name(path)}")
        return True

    def export_report(self, path: str | None = None) -> bool:
        """A PDF, HTML or Markdown report of every scenario (the format from the suffix)."""
        from ...report import Report
        from ...report.render import export_report

        path = path or self._ask_report_path()
        if not path:
            return False
        fmt = report_format(path)
        named = self._named_results()
        if len(named) != len(self.store.document.scenarios):
            QMessageBox.warning(
                self.window, APP_TITLE, "A scenario could not be estimated; fix it first."
            )
            return False
        report = Report(
            document=self.store.document,
            results=[r for _, r in named],
            title=self.store.path.stem if self.store.path else "Untitled estimate",
            baseline=self._baseline(),
            plan=self.report_plan() if self.report_plan is not None else None,  # type: ignore[arg-type]
        )
        replace = False
        if fmt == "md":
            from ...report.markdown import existing_markdown_images

            clashes = existing_markdown_images(path)
            if clashes:
                names = ", ".join(path_name(c) for c in clashes)
                answer = QMessageBox.question(
                    self.window,
                    APP_TITLE,
                    rich_text(f"Replace {names} next to {path_name(path)}?"),
                )
                if answer != QMessageBox.StandardButton.Yes:
                    return False
                replace = True
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            export_report(report, **{fmt: path}, replace_images=replace)
        except OSError as exc:
            return self._fail("the report", exc)
        finally:
            QApplication.restoreOverrideCursor()
        self._status(f"Exported {path_name(path)}")
        return True
