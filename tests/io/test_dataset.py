"""The dataset reader (io/dataset*.py): record shapes, formats, malformed and huge files, cancel."""

from __future__ import annotations

import csv
import gzip
import json
import random
import threading
import tracemalloc
from pathlib import Path

import pytest

from ftcost_gui.io import dataset_stream
from ftcost_gui.io.dataset import DatasetCancelled, DatasetError, measure_dataset
from ftcost_gui.io.dataset_records import RecordError, parse_record
from ftcost_gui.io.dataset_tokens import FAMILIES, approximate_counter

LLAMA3 = FAMILIES["llama3"]
RATIO = LLAMA3.chars_per_token  # 4.1914 characters per token (measured)
APPROX = approximate_counter(LLAMA3)  # + 5 tokens a message, + 1 a sequence


def _jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _approx(*texts: str, messages: int) -> int:
    """One sequence by hand: characters ÷ 4.1914, + 5 per message, + 1 (BOS), rounded."""
    return round(sum(len(t) for t in texts) / RATIO + 5 * messages + 1)


# --- record shapes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "record, shape, sequences",
    [
        (
            {"messages": [{"role": "system", "content": "s" * 40},
                          {"role": "user", "content": "u" * 400},
                          {"role": "assistant", "content": "a" * 1000}]},
            "chat", [_approx("s" * 40, "u" * 400, "a" * 1000, messages=3)],
        ),
        (
            {"conversations": [{"from": "human", "value": "u" * 100},
                               {"from": "gpt", "value": "a" * 300}]},
            "chat", [_approx("u" * 100, "a" * 300, messages=2)],
        ),
        ({"prompt": "p" * 200, "completion": "c" * 800}, "prompt_completion",
         [_approx("p" * 200, "c" * 800, messages=2)]),
        ({"question": "q" * 50, "answer": "a" * 70}, "prompt_completion",
         [_approx("q" * 50, "a" * 70, messages=2)]),
        ({"instruction": "i" * 120, "input": "x" * 30, "output": "o" * 500}, "instruction",
         [_approx("i" * 120, "x" * 30, "o" * 500, messages=2)]),
        ({"instruction": "i" * 120, "input": "", "output": "o" * 500}, "instruction",
         [_approx("i" * 120, "o" * 500, messages=2)]),
        ({"text": "t" * 5000}, "text", [round(5000 / RATIO + 1)]),
        (
            {"prompt": "p" * 300, "chosen": "c" * 600, "rejected": "r" * 90},
            "preference",
            [_approx("p" * 300, "c" * 600, messages=2), _approx("p" * 300, "r" * 90, messages=2)],
        ),
        (
            {"chosen": [{"role": "user", "content": "u" * 80},
                        {"role": "assistant", "content": "g" * 200}],
             "rejected": [{"role": "user", "content": "u" * 80},
                          {"role": "assistant", "content": "b" * 20}]},
            "preference",
            [_approx("u" * 80, "g" * 200, messages=2), _approx("u" * 80, "b" * 20, messages=2)],
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "text", "text": "u" * 64},
                                                       {"type": "image"}]},
                          {"role": "assistant", "content": "a" * 64}]},
            "chat", [_approx("u" * 64, "a" * 64, messages=2)],
        ),
        ({"prompt": "p" * 900}, "prompt", [_approx("p" * 900, messages=1)]),
    ],
    ids=["chat", "sharegpt", "prompt-completion", "qa", "alpaca", "alpaca-no-input", "text",
         "dpo-text", "dpo-chat", "content-parts", "prompt-only"],
)  # fmt: skip
def test_each_record_shape_is_counted_by_hand(tmp_path, record, shape, sequences):
    m = measure_dataset(_jsonl(tmp_path / "d.jsonl", [record] * 3), APPROX)
    assert m.shapes == {shape: 3} and m.malformed == 0
    assert m.records == 3 and m.sequences == 3 * len(sequences)
    assert m.tokens == 3 * sum(sequences)
    assert (m.shortest, m.longest) == (min(sequences), max(sequences))
    assert m.preference == (shape == "preference")


@pytest.mark.parametrize(
    "obj, needle",
    [
        ([1, 2], "a record is an object, not list"),
        ({"foo": 1, "bar": 2}, r"no field ftcost knows \(keys: bar, foo\)"),
        ({"messages": "hi"}, "messages is not a list of messages"),
        ({"messages": [{"role": "user"}]}, r"messages\[0\] has no content"),
        ({"prompt": {"a": 1}, "completion": "x"}, "prompt is not text"),
        ({"instruction": "do"}, "an instruction without output"),
    ],
)
def test_records_ftcost_cannot_read_say_why(obj, needle):
    with pytest.raises(RecordError, match=needle):
        parse_record(obj)


# --- formats -------------------------------------------------------------------------------------


def test_malformed_lines_are_counted_and_never_fatal(tmp_path):
    good = {"prompt": "p" * 40, "completion": "c" * 40}
    path = tmp_path / "mixed.jsonl"
    with path.open("wb") as f:
        f.write(json.dumps(good).encode() + b"\n")
        f.write(b"{not json\n")
        f.write(b"\n   \n")  # blank lines are not records
        f.write(b'{"text": "\xff\xfe"}\n')  # not UTF-8
        f.write(b"[1, 2]\n")
        f.write(b'{"unknown": 1}\n')
        f.write(json.dumps(good).encode() + b"\r\n")  # Windows line ending
        f.write(json.dumps(good).encode())  # no newline at the end
    m = measure_dataset(path, APPROX)
    assert m.records == 3
    assert m.malformed == 4
    assert [n for n, _ in m.malformed_examples] == [2, 5, 6, 7]
    assert "not valid JSON" in m.malformed_examples[0][1]
    assert m.malformed_examples[1][1] == "not UTF-8 text"


def test_a_line_past_the_cap_is_skipped_without_being_held(tmp_path, monkeypatch):
    monkeypatch.setattr(dataset_stream, "MAX_RECORD_BYTES", 1000)
    monkeypatch.setattr(dataset_stream, "CHUNK_BYTES", 64)
    path = _jsonl(tmp_path / "long.jsonl", [{"text": "a"}, {"text": "x" * 5000}, {"text": "b"}])
    m = measure_dataset(path, APPROX)
    assert (m.records, m.malformed) == (2, 1)
    assert m.malformed_examples[0][0] == 2 and "longer than" in m.malformed_examples[0][1]


def test_json_array_and_object_of_arrays(tmp_path):
    recs = [{"prompt": f"p{i}", "completion": "c" * i} for i in range(50)]
    (tmp_path / "a.json").write_text(json.dumps(recs, indent=1), encoding="utf-8")
    m = measure_dataset(tmp_path / "a.json", APPROX)
    assert (m.format, m.records, m.malformed) == ("json", 50, 0)
    split = {"meta": {"x": [1, 2]}, "train": recs[:30], "n": 5, "test": recs[30:]}
    (tmp_path / "b.json").write_text(json.dumps(split), encoding="utf-8")
    m2 = measure_dataset(tmp_path / "b.json", APPROX)
    assert (m2.records, m2.tokens, m2.malformed) == (50, m.tokens, 0)  # meta, n: skipped whole


def test_a_json_array_read_in_tiny_chunks_is_the_same(tmp_path, monkeypatch):
    recs = [{"text": "é" * (i % 17) + "ü"} for i in range(300)]  # multi-byte across chunks
    (tmp_path / "a.json").write_text(json.dumps(recs), encoding="utf-8")
    whole = measure_dataset(tmp_path / "a.json", APPROX)
    monkeypatch.setattr(dataset_stream, "CHUNK_BYTES", 7)
    tiny = measure_dataset(tmp_path / "a.json", APPROX)
    assert (tiny.records, tiny.tokens, tiny.malformed) == (300, whole.tokens, 0)


def test_a_broken_json_array_keeps_what_was_read(tmp_path):
    text = json.dumps([{"text": "a" * 10}] * 5)[:-1] + ', {"text": oops}, {"text": "b"}]'
    (tmp_path / "broken.json").write_text(text, encoding="utf-8")
    m = measure_dataset(tmp_path / "broken.json", APPROX)
    assert m.records == 5 and m.malformed == 1
    assert (
        m.malformed_examples[0][0] == 6
        and "the rest of the file is not read" in (m.malformed_examples[0][1])
    )


def test_csv_rows_and_bad_rows(tmp_path):
    path = tmp_path / "d.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["instruction", "input", "output"])
        w.writerow(["i" * 40, "", "line one\nline two, with a comma"])
        w.writerow(["only", "two"])
        w.writerow(["i" * 40, "x", "o" * 4000])  # past csv's default 131,072? no: a long cell
        w.writerow([])
    m = measure_dataset(path, APPROX)
    assert (m.format, m.records, m.malformed) == ("csv", 2, 1)
    assert m.malformed_examples == [(4, "2 fields; the header has 3")]
    assert m.longest == _approx("i" * 40, "x", "o" * 4000, messages=2)


def test_a_long_csv_cell_is_read(tmp_path):
    path = tmp_path / "d.tsv"
    path.write_text("text\n" + "w" * 500_000 + "\n", encoding="utf-8")
    m = measure_dataset(path, APPROX)
    assert (m.format, m.records, m.malformed) == ("tsv", 1, 0)


def test_plain_text_is_one_example_a_line(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text("first example\n\nsecond one here\n", encoding="utf-8")
    m = measure_dataset(path, APPROX)
    assert (m.format, m.records, m.shapes) == ("text", 2, {"text": 2})
    assert m.tokens == round(13 / RATIO + 1) + round(15 / RATIO + 1)


def test_gzip_and_sniffing(tmp_path):
    recs = [{"prompt": "p" * 10, "completion": "c" * i} for i in range(1, 200)]
    raw = "".join(json.dumps(r) + "\n" for r in recs).encode()
    (tmp_path / "d.jsonl.gz").write_bytes(gzip.compress(raw))
    (tmp_path / "noname").write_bytes(raw)
    a = measure_dataset(tmp_path / "d.jsonl.gz", APPROX)
    b = measure_dataset(tmp_path / "noname", APPROX)
    assert a.compressed and not b.compressed
    assert (a.format, b.format) == ("jsonl", "jsonl")
    assert (a.records, a.tokens) == (b.records, b.tokens) == (199, b.tokens)


def test_a_cut_gzip_file_counts_what_it_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(dataset_stream, "CHUNK_BYTES", 4096)
    rng = random.Random(3)
    raw = "".join(
        json.dumps({"text": f"{rng.getrandbits(120):030x}"}) + "\n" for _ in range(5000)
    ).encode()
    packed = gzip.compress(raw)
    (tmp_path / "cut.jsonl.gz").write_bytes(packed[: len(packed) // 2])
    m = measure_dataset(tmp_path / "cut.jsonl.gz", APPROX)
    assert 0 < m.records < 5000
    assert "could not be read to its end" in m.malformed_examples[-1][1]


@pytest.mark.parametrize("kind", ["folder", "missing", "fifo"])
def test_only_regular_files_are_read(tmp_path, kind):
    import os

    path = tmp_path / "x"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    with pytest.raises(DatasetError, match=r"folder|does not exist|FIFO"):
        measure_dataset(path, APPROX)


def test_empty_file(tmp_path):
    (tmp_path / "e.jsonl").write_bytes(b"")
    m = measure_dataset(tmp_path / "e.jsonl", APPROX)
    assert (m.records, m.sequences, m.malformed) == (0, 0, 0)
    with pytest.raises(ValueError, match="no example"):
        m.histogram()


# --- huge files, progress, cancel ---------------------------------------------------------------


def test_a_huge_sparse_file_is_read_in_constant_memory(tmp_path):
    """Records, a 1 GiB hole (NUL bytes, no newline: one line 16 times the cap, skipped as it
    streams), records. Memory stays within the one-line cap."""
    path = tmp_path / "huge.jsonl"
    head = "".join(json.dumps({"text": "h" * 100}) + "\n" for _ in range(1000)).encode()
    tail = b"\n" + "".join(json.dumps({"text": "t" * 10}) + "\n" for _ in range(7)).encode()
    with path.open("wb") as f:
        f.write(head)
        f.seek(1 << 30, 1)
        f.write(tail)
    seen: list[tuple[int, int]] = []
    tracemalloc.start()
    try:
        m = measure_dataset(path, APPROX, progress=lambda done, total: seen.append((done, total)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (m.records, m.malformed) == (1007, 1)
    assert "longer than 64 MiB" in m.malformed_examples[0][1]
    assert m.bytes_total == path.stat().st_size > 1 << 30
    assert peak < dataset_stream.MAX_RECORD_BYTES + 8e6  # the cap on one line, and no more
    assert seen[-1] == (m.bytes_total, m.bytes_total)


def _big(tmp_path: Path, n: int = 200_000) -> Path:
    line = json.dumps({"prompt": "p" * 20, "completion": "c" * 60}) + "\n"
    path = tmp_path / "big.jsonl"
    path.write_text(line * n, encoding="utf-8")
    return path


def test_cancel_stops_the_read_midway(tmp_path):
    path = _big(tmp_path)
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) >= 3

    done: list[int] = []
    with pytest.raises(DatasetCancelled):
        measure_dataset(path, APPROX, cancelled=cancelled, progress=lambda d, t: done.append(d))
    assert len(calls) == 3  # asked every 256 records; stopped at once
    assert not done or done[-1] < path.stat().st_size


def test_cancel_from_another_thread(tmp_path):
    """The window's Cancel sets an event on the GUI thread while the reader runs on a worker."""
    path = _big(tmp_path, 400_000)
    stop = threading.Event()
    outcome: list[object] = []

    def work() -> None:
        try:
            outcome.append(measure_dataset(path, APPROX, cancelled=stop.is_set))
        except DatasetCancelled as exc:
            outcome.append(exc)

    t = threading.Thread(target=work)
    t.start()
    stop.set()
    t.join(timeout=60)
    assert not t.is_alive()
    assert isinstance(outcome[0], DatasetCancelled)


def test_the_histogram_holds_every_sequence(tmp_path):
    recs = [{"text": "x" * (i * 37 % 4000)} for i in range(1, 2000)]
    m = measure_dataset(_jsonl(tmp_path / "d.jsonl", recs), APPROX)
    h = m.histogram()
    assert h.examples == m.sequences == 1999
    assert h.edges[0] <= m.shortest and h.longest > m.longest
    assert "d.jsonl" in h.source and "approximate" in h.source
    assert h.mean == pytest.approx(m.mean_tokens, rel=0.02)  # within half a bin
