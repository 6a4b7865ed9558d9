"""File → Measure Dataset…: the read runs off the GUI thread, can be cancelled, and fills the
scenario as one undoable edit."""

from __future__ import annotations

import json
import threading

import pytest
from PySide6.QtCore import QTimer

from ftcost_gui.io.dataset_tokens import FAMILIES


@pytest.fixture(autouse=True)
def _no_hf_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))


def _sft(tmp_path, n: int = 200):
    path = tmp_path / "train.jsonl"
    lines = [
        json.dumps({"messages": [{"role": "user", "content": "q" * (50 + i)},
                                 {"role": "assistant", "content": "a" * (400 + 7 * i)}]})
        for i in range(n)
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n{broken\n", encoding="utf-8")
    return path


def _open(window):
    window.action("measure_dataset").trigger()
    dialog = window.addons["dataset"].dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


def _measure(qtbot, dialog, path) -> None:
    assert dialog.start(str(path))
    qtbot.waitUntil(lambda: dialog.state != "running", timeout=30_000)
    assert dialog.state == "done", dialog.status.text()


def test_the_action_is_in_the_file_menu(window):
    action = window.action("measure_dataset")
    assert action.text() == "&Measure Dataset…"
    file_menu = window.menuBar().actions()[0].menu()
    assert action in file_menu.actions()


def test_measure_runs_off_the_gui_thread_and_shows_the_file(window, qtbot, tmp_path):
    dialog = _open(window)
    _measure(qtbot, dialog, _sft(tmp_path))
    assert dialog.reader_thread is not None
    assert dialog.reader_thread != threading.get_ident()  # not the GUI thread
    shown = dialog.summary_texts()
    assert shown["Records"] == "200 (chat messages 200)"
    assert "an approximation" in shown["Tokens"]
    assert shown["Malformed"].startswith("1 skipped (line 201: not valid JSON")
    assert dialog.plot.histogram is not None and dialog.plot.histogram.examples == 200
    assert "Approximate: no tokenizer.json" in dialog.status.text()
    assert dialog.apply_button.isEnabled()


def test_use_in_scenario_is_one_undoable_edit(window, qtbot, tmp_path):
    store = window.store
    before = store.inputs
    dialog = _open(window)
    _measure(qtbot, dialog, _sft(tmp_path))
    m = dialog.measure
    assert dialog.apply()
    data = store.inputs.data
    assert data.num_examples == 200 and data.mode == "examples"
    assert data.mean_tokens_per_example == pytest.approx(m.mean_tokens)
    assert data.length_histogram == m.histogram()
    store.recompute_now()
    assert store.result is not None
    window.action("undo").trigger()
    assert store.inputs == before
    window.action("redo").trigger()
    assert store.inputs.data.length_histogram == m.histogram()


def test_the_window_answers_while_a_big_file_is_read(window, qtbot, tmp_path):
    """A GUI-thread timer keeps ticking during the read: the event loop is never blocked."""
    path = tmp_path / "big.jsonl"
    line = json.dumps({"prompt": "p" * 30, "completion": "c" * 200}) + "\n"
    path.write_text(line * 120_000, encoding="utf-8")
    dialog = _open(window)
    ticks: list[int] = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(1) if dialog.state == "running" else None)
    timer.start()
    progress: list[int] = []
    dialog.progress.valueChanged.connect(progress.append)
    _measure(qtbot, dialog, path)
    timer.stop()
    assert len(ticks) >= 3
    assert progress[-1] == 1000 and len(progress) >= 2
    assert dialog.measure.records == 120_000


def test_cancel_stops_the_read_and_changes_nothing(window, qtbot, tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_text((json.dumps({"text": "x" * 300}) + "\n") * 400_000, encoding="utf-8")
    store = window.store
    before = store.inputs
    dialog = _open(window)
    assert dialog.start(str(path))
    assert dialog.cancel_button.isEnabled()
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: dialog.state != "running", timeout=30_000)
    assert dialog.state == "idle"
    assert dialog.status.text() == "Cancelled: nothing was changed."
    assert not dialog.apply_button.isEnabled()
    assert store.inputs == before


def test_closing_the_dialog_while_reading_stops_the_thread(window, qtbot, tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_text((json.dumps({"text": "y" * 300}) + "\n") * 400_000, encoding="utf-8")
    dialog = _open(window)
    assert dialog.start(str(path))
    job = dialog.job
    dialog.reject()
    assert not job.running()


def test_a_folder_is_a_message_not_a_crash(window, qtbot, tmp_path):
    dialog = _open(window)
    assert dialog.start(str(tmp_path))
    qtbot.waitUntil(lambda: dialog.state != "running", timeout=10_000)
    assert dialog.state == "idle"
    assert "is a folder" in dialog.status.text()


def test_preference_pairs_can_switch_the_objective_to_dpo(window, qtbot, tmp_path):
    path = tmp_path / "prefs.jsonl"
    rec = {"prompt": "p" * 100, "chosen": "c" * 300, "rejected": "r" * 50}
    path.write_text((json.dumps(rec) + "\n") * 40, encoding="utf-8")
    dialog = _open(window)
    _measure(qtbot, dialog, path)
    assert dialog.dpo_check.isVisible() and dialog.dpo_check.isChecked()
    assert "Objective" in dialog.fill_text.text() and "dpo" in dialog.fill_text.text()
    dialog.apply()
    inputs = window.store.inputs
    assert inputs.objective.objective == "dpo"
    assert inputs.data.num_examples == 40
    ratio, per_message = FAMILIES["qwen2"].chars_per_token, FAMILIES["qwen2"].per_message
    # article 000's model is Qwen2.5-7B: (100 + 300) ÷ 4.0298 + 5 × 2 and (100 + 50) ÷ … + 10
    chosen = round((100 + 300) / ratio + 2 * per_message)
    rejected = round((100 + 50) / ratio + 2 * per_message)
    assert inputs.data.mean_tokens_per_example == (chosen + rejected) / 2


def test_length_ticks_are_powers_of_two_few_enough_to_read():
    from ftcost_gui.charts.length_histogram import length_ticks

    # 60 to 6,710 tokens: octaves 2^5…2^13 (9), every second one labelled (≤ 7)
    assert [t for _, t in length_ticks(60, 6710)] == ["32", "128", "512", "2k", "8k"]
    assert [t for _, t in length_ticks(10, 21)] == ["8", "16", "32"]
    assert length_ticks(2**19, 2**21)[-1][1] == "2M"


def test_the_plot_and_summary_are_laid_out_to_be_read(window, qtbot, tmp_path):
    dialog = _open(window)
    _measure(qtbot, dialog, _sft(tmp_path))
    axis = dialog.plot.plot_item.getAxis("bottom")
    labels = [t for _, t in axis._tickLevels[0]]
    assert labels and all(t.rstrip("kM").isdigit() for t in labels)  # no crowded 10^x minors
    assert not dialog.plot.legend.isVisible()  # one series: no box over the bars
    # the empty summary's stretch row (row 0) no longer stretches the File row once filled
    assert dialog.summary.rowStretch(0) == 0
    assert dialog.summary.rowStretch(dialog.summary.rowCount() - 1) == 1
    assert (
        dialog.summary_texts()["Chat template"] == "+ 5 tokens a message, 0 a sequence"
    )  # Qwen2.5: ChatML, no BOS


def test_before_a_file_is_measured_the_plot_is_an_empty_frame_with_a_note(window, qtbot, tmp_path):
    # It showed pyqtgraph's range for no data: counts from -400 to 400 "(x0.001)" and log
    # ticks 0.4, 0.5, 0.60.70.80.91 run together.
    from ftcost_gui.charts.length_histogram import EMPTY_NOTE

    dialog = _open(window)
    plot = dialog.plot
    assert plot.histogram is None
    assert plot.empty_note.isVisible() and plot.empty_note.toPlainText() == EMPTY_NOTE
    assert not plot.bars.isVisible()
    bottom = [t for _, t in plot.plot_item.getAxis("bottom")._tickLevels[0]]
    assert bottom == ["16", "64", "256", "1k", "4k"]
    assert plot.plot_item.getAxis("left")._tickLevels == [[], []]  # no counts to read
    assert plot.plot_item.getViewBox().viewRange()[1] == [0.0, 1.0]
    _measure(qtbot, dialog, _sft(tmp_path))  # measured: bars and counts, no note
    assert not plot.empty_note.isVisible() and plot.bars.isVisible()
    assert plot.plot_item.getAxis("left")._tickLevels is None
    low, high = plot.plot_item.getViewBox().viewRange()[1]
    assert low == 0 and high == max(plot.histogram.counts) * 1.25
    plot.set_histogram(None)  # a new file: empty again
    assert plot.empty_note.isVisible() and not plot.bars.isVisible()
