"""File → Measure Dataset…: read a dataset off the GUI thread and fill it into the scenario.

The dialog picks the file and how tokens are counted, runs the read on a worker thread
(worker.py) with a progress bar and Cancel, shows what the file holds (present/dataset.py) and
its lengths (charts/length_histogram.py), and on "Use in Scenario" replaces the scenario's inputs
once (io/dataset_fill.py): one undo step.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ...charts.length_histogram import LengthHistogramPlot
from ...core.inputs import EstimateInputs
from ...io.dataset import DatasetMeasure
from ...io.dataset_fill import FillError, filled_inputs, fills
from ...io.dataset_tokens import family_for, tokenizers_available
from ...io.names import for_html, path_name
from ...present.dataset import change_rows, summary_rows
from ..store import EstimateStore
from .worker import MeasureJob, MeasureWorker

DATA_FILTER = "Datasets (*.jsonl *.ndjson *.json *.csv *.tsv *.txt *.gz);;All files (*)"
TOKENIZER_FILTER = "Tokenizer (tokenizer.json *.json);;All files (*)"
# (label, what counter_for is given): 'file' asks for a tokenizer.json.
TOKEN_CHOICES = (
    ("Auto: the model's tokenizer.json if it is cached, else approximate", "auto"),
    ("Approximate: characters per token of the model's tokenizer family", "approximate"),
    ("Exact: a tokenizer.json or model folder…", "file"),
)


class MeasureDatasetDialog(QDialog):
    """Measure a dataset file; ``applied`` (EstimateInputs) after it went into the scenario."""

    applied = Signal(object)

    def __init__(self, store: EstimateStore, parent: QWidget | None = None, start_dir: str = ""):
        super().__init__(parent)
        self.setWindowTitle("Measure Dataset")
        self.store = store
        self.start_dir = start_dir
        self.job: MeasureJob | None = None
        self.measure: DatasetMeasure | None = None
        self.tokenizer_path = ""
        self.reader_thread: int | None = None  # the thread ident that read the last file
        self.note = ""
        self._build()
        self._update_model_line()
        self._set_state("idle")

    # --- building --------------------------------------------------------------------------------
    def _build(self) -> None:
        column = QVBoxLayout(self)
        source = QGroupBox("Dataset", self)
        form = QFormLayout(source)
        row = QHBoxLayout()
        self.path_edit = QLineEdit(self)
        self.path_edit.setPlaceholderText("a .jsonl, .json, .csv, .tsv or .txt file (or .gz)")
        self.path_edit.setToolTip(
            "Records of chat messages, prompt/completion, instruction/input/output, text, or "
            "chosen/rejected preference pairs; read once, streaming, whatever the size."
        )
        self.path_edit.textChanged.connect(lambda _t: self._set_state("idle"))
        self.browse_button = QPushButton("&Browse…", self)
        self.browse_button.clicked.connect(self.browse)
        row.addWidget(self.path_edit, 1)
        row.addWidget(self.browse_button)
        file_label = QLabel("&File:", self)
        file_label.setBuddy(self.path_edit)
        form.addRow(file_label, row)
        self.tokens_combo = QComboBox(self)
        for label, key in TOKEN_CHOICES:
            self.tokens_combo.addItem(label, key)
        self.tokens_combo.setToolTip(
            "Exact counts need a tokenizer.json and the 'tokenizers' package; otherwise the "
            "tokens are characters ÷ the family's measured characters per token (labelled "
            "approximate). Nothing is downloaded."
        )
        self.tokens_combo.activated.connect(self._on_tokens_choice)
        tokens_label = QLabel("&Tokens:", self)
        tokens_label.setBuddy(self.tokens_combo)
        form.addRow(tokens_label, self.tokens_combo)
        self.model_line = QLabel(self)
        self.model_line.setTextFormat(Qt.TextFormat.RichText)
        form.addRow("", self.model_line)
        column.addWidget(source)

        run = QHBoxLayout()
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setFormat("%p%")
        self.progress.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.measure_button = QPushButton("&Measure", self)
        self.measure_button.setDefault(True)
        self.measure_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("&Cancel Reading", self)
        self.cancel_button.clicked.connect(self.cancel)
        run.addWidget(self.progress, 1)
        run.addWidget(self.measure_button)
        run.addWidget(self.cancel_button)
        column.addLayout(run)
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # file and model names are data
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.status)

        results = QHBoxLayout()
        self.summary_box = QGroupBox("What the file holds", self)
        self.summary = QGridLayout(self.summary_box)
        self.summary.setColumnStretch(1, 1)
        results.addWidget(self.summary_box, 3)
        self.plot = LengthHistogramPlot(self)
        self.plot.setMinimumSize(320, 220)
        results.addWidget(self.plot, 2)
        column.addLayout(results, 1)

        self.fill_box = QGroupBox("Into the scenario", self)
        fill = QVBoxLayout(self.fill_box)
        self.fill_text = QLabel(self)
        self.fill_text.setWordWrap(True)
        self.fill_text.setTextFormat(Qt.TextFormat.RichText)
        fill.addWidget(self.fill_text)
        self.dpo_check = QCheckBox("Switch the objective to &DPO (the file holds preference pairs)")
        self.dpo_check.setChecked(True)
        self.dpo_check.toggled.connect(lambda _on: self._show_changes())
        fill.addWidget(self.dpo_check)
        column.addWidget(self.fill_box)

        self.buttons = QDialogButtonBox(self)
        self.apply_button = self.buttons.addButton(
            "&Use in Scenario", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.apply_button.setToolTip(
            "Replace the scenario's examples, mean length and length distribution (one undo step)"
        )
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.apply_button.clicked.connect(self.apply)
        self.close_button.clicked.connect(self.reject)
        column.addWidget(self.buttons)
        self.resize(940, 660)

    # --- state -----------------------------------------------------------------------------------
    def _set_state(self, state: str) -> None:
        """idle (nothing measured for this file), running, done."""
        self.state = state
        running = state == "running"
        self.measure_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.browse_button.setEnabled(not running)
        self.path_edit.setReadOnly(running)
        self.tokens_combo.setEnabled(not running)
        self.progress.setVisible(running or state == "done")
        self.apply_button.setEnabled(state == "done" and self._can_fill())
        self.fill_box.setVisible(state == "done")
        if state == "idle":
            self.measure = None
            self._show_summary([])
            self.plot.set_histogram(None)
            self.progress.setValue(0)

    def _can_fill(self) -> bool:
        return self.measure is not None and self.measure.records > 0

    def _update_model_line(self) -> None:
        model = self.store.inputs.model
        family = family_for(model)
        exact = (
            ""
            if tokenizers_available()
            else (" The 'tokenizers' package is not installed: counts will be approximate.")
        )
        self.model_line.setText(
            f"Counted for <b>{for_html(model.name)}</b> ({family.label} tokenizer family).{exact}"
        )

    def _on_tokens_choice(self, index: int) -> None:
        if self.tokens_combo.itemData(index) == "file":
            path, _ = QFileDialog.getOpenFileName(
                self, "Choose a tokenizer.json", self.start_dir, TOKENIZER_FILTER
            )
            if not path:
                self.tokens_combo.setCurrentIndex(0)
                return
            self.tokenizer_path = path
            self.tokens_combo.setItemText(index, f"Exact: {path_name(path)}")
        self._set_state("idle")

    def tokenizer_choice(self) -> str:
        key = self.tokens_combo.currentData()
        return self.tokenizer_path if key == "file" else key

    def browse(self) -> str:
        path, _ = QFileDialog.getOpenFileName(
            self, "Measure a dataset", self.start_dir, DATA_FILTER
        )
        if path:
            self.path_edit.setText(path)
            self.start_dir = str(Path(path).parent)
        return path

    # --- reading ---------------------------------------------------------------------------------
    def start(self, path: str | None = None) -> bool:
        """Read the file on a worker thread; False when there is nothing to read."""
        if path:
            self.path_edit.setText(path)
        text = self.path_edit.text().strip()
        if not text:
            self.status.setText("Choose a dataset file first.")
            return False
        if self.job is not None and self.job.running():
            return False
        worker = MeasureWorker(text, self.store.inputs.model, self.tokenizer_choice())
        worker.progress.connect(self._on_progress)
        worker.note.connect(self._on_note)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)
        self.job = MeasureJob(worker, self)
        self.note = ""
        self._set_state("running")
        self.status.setText(f"Reading {path_name(text)}…")
        self.job.start()
        return True

    def cancel(self) -> None:
        if self.job is not None:
            self.job.worker.cancel()
            self.status.setText("Cancelling…")

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setValue(round(1000 * done / total) if total else 0)

    def _on_note(self, why: str) -> None:
        self.note = why

    def _on_finished(self, m: DatasetMeasure) -> None:
        self.reader_thread = self.job.worker.thread_ident if self.job else None
        self.measure = m
        self.progress.setValue(1000)
        self._set_state("done")
        self._show_summary(summary_rows(m))
        if m.sequences:
            self.plot.set_histogram(m.histogram(), self.store.inputs.data.max_seq_len)
        note = f" Approximate: {self.note}." if self.note else ""
        self.status.setText(f"Read {m.records:,} records in {m.seconds:.1f} s.{note}")
        self._show_changes()

    def _on_failed(self, message: str) -> None:
        self._set_state("idle")
        self.status.setText(f"Could not read it: {message}")

    def _on_cancelled(self) -> None:
        self._set_state("idle")
        self.status.setText("Cancelled: nothing was changed.")

    # --- results ---------------------------------------------------------------------------------
    def _show_summary(self, rows: list[tuple[str, str]]) -> None:
        while self.summary.count():
            item = self.summary.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        for r in range(self.summary.rowCount()):  # the last call's stretch row is a row now
            self.summary.setRowStretch(r, 0)
        for i, (label, value) in enumerate(rows):
            name = QLabel(f"{label}:", self.summary_box)
            name.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
            text = QLabel(value, self.summary_box)
            text.setTextFormat(Qt.TextFormat.PlainText)  # names from the file are data
            text.setWordWrap(True)
            text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.summary.addWidget(name, i, 0)
            self.summary.addWidget(text, i, 1)
        self.summary.setRowStretch(len(rows), 1)

    def summary_texts(self) -> dict[str, str]:
        """label → value as shown (for tests)."""
        out = {}
        for i in range(0, self.summary.count() - 1, 2):
            name = self.summary.itemAt(i).widget().text().rstrip(":")
            out[name] = self.summary.itemAt(i + 1).widget().text()
        return out

    def filled(self) -> EstimateInputs | None:
        """The scenario's inputs with the measurement in, or None (with the reason shown)."""
        if self.measure is None:
            return None
        switch = self.dpo_check.isVisible() and self.dpo_check.isChecked()
        try:
            return filled_inputs(self.store.inputs, self.measure, switch_to_dpo=switch)
        except FillError as exc:
            self.fill_text.setText(for_html(str(exc)))
            return None

    def _show_changes(self) -> None:
        m = self.measure
        if m is None:
            return
        inputs = self.store.inputs
        self.dpo_check.setVisible(m.preference and inputs.objective.objective == "sft")
        new = self.filled()
        self.apply_button.setEnabled(new is not None)
        if new is None:
            return
        rows = change_rows(inputs, new) or [("Nothing changes", "", "")]
        cells = "".join(
            f"<tr><td>{for_html(a)}</td><td>{for_html(b)}</td><td>→ {for_html(c)}</td></tr>"
            if b
            else f"<tr><td colspan=3>{for_html(a)}</td></tr>"
            for a, b, c in rows
        )
        self.fill_text.setText(
            f"Fills {for_html(fills(inputs, m))}:<table cellpadding='2'>{cells}</table>"
        )

    def apply(self) -> bool:
        """One edit of the store (one undo step); the dialog closes."""
        new = self.filled()
        if new is None:
            return False
        name = self.measure.name if self.measure else "dataset"
        self.store.set_inputs(new, description=f"Measure dataset {name}")
        self.applied.emit(new)
        self.accept()
        return True

    # --- closing ---------------------------------------------------------------------------------
    def done(self, result: int) -> None:  # accept, reject, Esc, the window's close button
        if self.job is not None and self.job.running():
            self.job.stop()
        super().done(result)
