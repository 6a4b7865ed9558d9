"""Application entry: QApplication, and the main window with its add-ons (the composition root).

``build_window`` is the one place that knows which add-ons the window has; the window itself
knows none, and each add-on sees the window only as ``WindowServices``.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..blas_threads import one_blas_thread

if TYPE_CHECKING:  # Qt is imported when the window starts, not with this module
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from .store import EstimateStore
    from .window.main_window import MainWindow

SMOKE_ENV = "FTCOST_SMOKE_EXIT_AFTER_SHOW"
DESKTOP_ID = "io.github.ftcost.ftcost"


def _exit_after_first_paint(app, window, started: float) -> None:
    """packaging/smoke.sh: print the time to the first painted window, then quit with 0."""
    from PySide6.QtCore import QEvent, QObject, QTimer

    class _FirstPaint(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                window.removeEventFilter(self)
                secs = time.perf_counter() - started
                print(f"ftcost: window shown after {secs:.2f} s", flush=True)
                QTimer.singleShot(0, lambda: app.exit(0))
            return False

    window._smoke_filter = _FirstPaint(window)  # keep a reference for the window's lifetime
    window.installEventFilter(window._smoke_filter)


def open_files_from_the_desktop(app, window):
    """macOS sends a double-clicked or dropped-on-Dock ``.ftcost`` as a QFileOpenEvent to the
    application (Info.plist declares the document type); open it like a dropped file."""
    from PySide6.QtCore import QEvent, QObject

    class _FileOpen(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.FileOpen and event.file():
                window.files.open_file(event.file())
                return True
            return False

    handler = _FileOpen(app)
    app.installEventFilter(handler)
    return handler


def build_window(
    store: EstimateStore | None = None,
    settings: QSettings | None = None,
    *,
    build_plots_now: bool = False,
) -> MainWindow:
    """The main window with its add-ons (``window.addons`` by name), as the application runs it."""
    from .catalog.addon import CatalogUi
    from .dataset.addon import DatasetActions
    from .help.addon import HelpUi
    from .model_import import ModelImportActions
    from .plan.addon import PlanUi
    from .window.main_window import MainWindow

    window = MainWindow(store, settings, build_plots_now=build_plots_now)
    forms = window.form_tabs
    window.addons["model_import"] = ModelImportActions(window, forms.model_panel)
    window.addons["catalogs"] = CatalogUi(window, forms.catalog)
    window.addons["plan"] = PlanUi(window, forms.catalog)
    figures = {key: card.caption for key, card in window.results.headline.cards.items()}
    window.addons["help"] = HelpUi(
        window, forms, figures, window.action_table, window.files.documentReset
    )
    window.addons["dataset"] = DatasetActions(window)
    return window


def _import_qt_free_modules() -> None:
    """The core, pydantic and the texts before PySide6: PySide6 hooks every import made after
    it (signature and enum support), which costs ~20 ms of start-up for these modules alone
    (benchmarks/bench_gui.py); nothing here imports Qt."""
    from ..core import inputs, series  # noqa: F401  (series estimates: core.estimate too)
    from ..present import figures  # noqa: F401


def _skip_pyside_source_scan() -> None:
    """PySide6 reads the whole source of every module imported after it, to find the word
    "PySide6" for its ``__feature__`` switches (snake_case, true_property; ftcost uses none):
    ~0.4 ms per module and the text kept in ``linecache`` (~6 MiB for ~400 modules: ours, numpy,
    pyqtgraph). Without a feature selected anywhere, a module marked "uses no PySide" (-1) runs
    with the same default selection as one marked "uses PySide" (0), so skip the scan."""
    feature = sys.modules.get("shibokensupport.feature")
    if feature is not None and callable(getattr(feature, "_mod_uses_pyside", None)):
        feature._mod_uses_pyside = _uses_no_pyside_feature


def _uses_no_pyside_feature(module: object) -> bool:
    return False


#: After the plots are built, wait this long (their first paint) before the one collection.
GC_SETTLE_MS = 200


#: A window never painted (started minimized) builds no plots: the collector comes back anyway.
GC_FALLBACK_MS = 60_000


def _collect_once_settled() -> None:
    """The collections start-up skipped, as one; what survives it lives as long as the window
    (modules, models, widgets), so later collections leave it out (``gc.freeze``). Once: the
    plots' timer or the fallback, whichever comes first."""
    if gc.isenabled():
        return
    gc.collect()
    gc.freeze()
    gc.enable()


def _no_pydantic_plugins() -> None:
    """pydantic looks for plugins (the "pydantic" entry points of every installed distribution's
    metadata) when it builds its first validator, before the first paint: ~15M instructions of
    ~2,180M (callgrind), ~0.7 %. The window installs none and wants none observing its
    validations. A value the user set is kept (an empty one scans as before)."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


def start(argv: Sequence[str] | None = None) -> tuple[QApplication, MainWindow]:
    """The application and its window, not yet shown (``main``; benchmarks/bench_gui.py)."""
    argv = list(sys.argv if argv is None else argv)
    one_blas_thread()  # before the plots load numpy
    _no_pydantic_plugins()
    # Start-up allocates the window's long-lived objects by the hundred thousand: Python's
    # collector would scan them ~125 times before the first paint (~55-65 ms) and ~210 times
    # until the plots are drawn (~80-100 ms). It waits until the plots are built.
    gc.disable()
    _import_qt_free_modules()
    from PySide6.QtWidgets import QApplication

    _skip_pyside_source_scan()
    from .. import __version__

    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("ftcost")
    app.setApplicationDisplayName("ftcost")
    app.setOrganizationName("FtCostProject")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(DESKTOP_ID)  # matches packaging/linux/*.desktop (taskbar icon)
    from .about import app_icon

    app.setWindowIcon(app_icon())
    window = build_window()
    from PySide6.QtCore import Qt, QTimer

    window.charts.plotsBuilt.connect(
        lambda: QTimer.singleShot(GC_SETTLE_MS, _collect_once_settled),
        type=Qt.ConnectionType.SingleShotConnection,
    )
    QTimer.singleShot(GC_FALLBACK_MS, _collect_once_settled)
    if sys.platform == "darwin":  # only macOS opens files by event (elsewhere: argv); the
        open_files_from_the_desktop(app, window)  # filter sees every event of the application
    files = [a for a in argv[1:] if not a.startswith("-")]
    if files:
        window.files.load_path(files[0])
    return app, window


def main(argv: Sequence[str] | None = None, started: float | None = None) -> int:
    """Start the window; ``argv[1]`` (if given) is an estimate file to open."""
    started = time.perf_counter() if started is None else started
    app, window = start(argv)
    if os.environ.get(SMOKE_ENV) == "1":
        _exit_after_first_paint(app, window, started)
    window.show()
    code = app.exec()
    # Widgets before the application: a dialog still open when the loop ended (the smoke exit
    # during a start-up warning) otherwise outlives QApplication and crashes at interpreter exit.
    from PySide6.QtCore import QEvent

    window.deleteLater()
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    return code
