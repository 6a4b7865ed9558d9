"""The dataset read off the GUI thread: a QThread runs ``measure_dataset`` and reports back.

Signals cross to the GUI thread queued, so the window keeps painting and answering while a file
of many gigabytes streams by. ``cancel()`` sets a flag the reader looks at every 256 records;
the thread then ends with ``cancelled``.
"""

from __future__ import annotations

import os
import threading

from PySide6.QtCore import QObject, QThread, Signal, Slot

from ...core.architecture import ModelSpec
from ...io.dataset import DatasetCancelled, DatasetError, measure_dataset
from ...io.dataset_tokens import TokenizerError, counter_for


class MeasureWorker(QObject):
    """Loads the tokenizer and reads the file, on whatever thread it was moved to."""

    progress = Signal(int, int)  # bytes read, bytes in the file
    note = Signal(str)  # why the count is approximate when exact was asked for ('' otherwise)
    finished = Signal(object)  # DatasetMeasure
    failed = Signal(str)  # one line
    cancelled = Signal()

    def __init__(
        self, path: str | os.PathLike[str], model: ModelSpec, tokenizer: str | None,
        fmt: str | None = None,
    ):  # fmt: skip
        super().__init__()
        self.path, self.model, self.tokenizer, self.fmt = path, model, tokenizer, fmt
        self._stop = threading.Event()
        self.thread_ident: int | None = None  # the thread that read the file (tests)

    def cancel(self) -> None:
        """Safe from any thread: the reader stops at its next look."""
        self._stop.set()

    @Slot()
    def run(self) -> None:
        self.thread_ident = threading.get_ident()
        try:
            counter, why = counter_for(self.model, self.tokenizer)
            self.note.emit(why)
            if self._stop.is_set():
                raise DatasetCancelled()
            m = measure_dataset(
                self.path, counter, fmt=self.fmt, progress=self.progress.emit,
                cancelled=self._stop.is_set,
            )  # fmt: skip
        except DatasetCancelled:
            self.cancelled.emit()
        except (DatasetError, TokenizerError) as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # never let a reader bug take the window down
            self.failed.emit(f"the dataset could not be read: {type(exc).__name__}: {exc}")
        else:
            self.finished.emit(m)
        finally:
            # From this thread (quit is thread-safe): a GUI thread waiting in stop() cannot run
            # a queued quit.
            QThread.currentThread().quit()


class MeasureJob(QObject):
    """One worker on its own QThread; the thread quits when the worker is done."""

    def __init__(self, worker: MeasureWorker, parent: QObject | None = None):
        super().__init__(parent)
        self.worker = worker
        self.thread = QThread(self)
        self.thread.setObjectName("ftcost dataset reader")
        worker.moveToThread(self.thread)
        self.thread.started.connect(worker.run)

    def start(self) -> None:
        self.thread.start()

    def running(self) -> bool:
        return self.thread.isRunning()

    def stop(self, wait_ms: int = 10_000) -> bool:
        """Cancel and wait for the thread to end (closing the dialog); True when it ended."""
        self.worker.cancel()
        if not self.thread.isRunning():
            return True
        return self.thread.wait(wait_ms)
