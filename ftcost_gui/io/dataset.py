"""Measure a dataset: examples, the length distribution in tokens, malformed records.

``measure_dataset(path, counter)`` streams the file (io/dataset_stream.py: JSON Lines, JSON, CSV,
plain text, gzip) through the record shapes (io/dataset_records.py) and a token counter
(io/dataset_tokens.py: exact with a tokenizer.json, else a measured ratio), in constant memory.
It reports progress as bytes read and stops when ``cancelled()`` says so (``DatasetCancelled``).
Malformed records are counted, the first few kept with their line and reason; they never stop
the count. The file is opened through io/loader.py (regular files only; no size cap: a dataset
is streamed, never held).

A sequence is what one micro-batch row holds: the record's prompt and answer in the chat
template (a preference pair is two sequences, prompt + chosen and prompt + rejected, as DPO
trains them). Its length in tokens is the content tokens plus the template's tokens per message
and per sequence.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.histogram import LengthHistogram, bin_index, from_counts
from .dataset_records import SHAPE_LABELS, Record, RecordError, parse_record
from .dataset_stream import detect_format, is_gzip, items, open_stream
from .dataset_tokens import TokenCounter
from .loader import FileKind, FileReadError, open_regular, shown

DATASET = FileKind("dataset file", 1 << 62)  # streamed: no cap on the size, only on a record
BATCH_RECORDS = 512  # records counted at once (the exact counter encodes them in parallel)
KEEP_MALFORMED = 20
CHECK_EVERY = 256  # records between two looks at the cancel flag
PROGRESS_EVERY_S = 0.1

Progress = Callable[[int, int], None]  # (bytes read, bytes in the file)


class DatasetCancelled(Exception):
    """The measurement was cancelled; nothing is returned."""


class DatasetError(Exception):
    """A dataset that cannot be read at all (one line): not a regular file, cannot open."""


@dataclass(slots=True)
class DatasetMeasure:
    """What a dataset holds, in examples and tokens."""

    name: str  # the file's name, for display (escaped by whoever prints it)
    format: str
    compressed: bool
    bytes_total: int
    tokenizer: str  # the counter's label
    exact: bool
    tokenizer_source: str
    per_message: float
    per_sequence: float
    records: int = 0  # examples (a preference pair is one)
    sequences: int = 0  # rows trained: pairs count twice
    malformed: int = 0
    malformed_examples: list[tuple[int, str]] = field(default_factory=list)
    shapes: dict[str, int] = field(default_factory=dict)
    tokens: float = 0.0  # all sequences
    prompt_tokens: float = 0.0
    answer_tokens: float = 0.0  # chosen and rejected both, for pairs
    shortest: int = 0
    longest: int = 0
    lengths: dict[int, int] = field(default_factory=dict)  # sequences by length in tokens
    seconds: float = 0.0

    def tally(self) -> None:
        """Sequences, tokens, shortest and longest from the lengths counted."""
        lengths = self.lengths
        self.sequences = sum(lengths.values())
        self.tokens = float(sum(k * c for k, c in lengths.items()))
        self.shortest = min(lengths, default=0)
        self.longest = max(lengths, default=0)

    @property
    def bin_counts(self) -> dict[int, int]:
        """Sequences per standard histogram bin (core/histogram.py)."""
        out: dict[int, int] = {}
        for length, count in self.lengths.items():
            b = bin_index(length)
            out[b] = out.get(b, 0) + count
        return out

    def percentile(self, q: float) -> int:
        """The length in tokens of the sequence at share ``q`` (nearest rank: the shortest length
        that at least q of the sequences do not exceed), from the exact lengths counted."""
        if not self.lengths:
            return 0
        rank = max(1, math.ceil(q * self.sequences - 1e-9))
        seen = 0
        for length in sorted(self.lengths):
            seen += self.lengths[length]
            if seen >= rank:
                return length
        return self.longest

    @property
    def mean_tokens(self) -> float:
        """Mean tokens per sequence (what the data section's mean is)."""
        return self.tokens / self.sequences if self.sequences else 0.0

    @property
    def pairs(self) -> int:
        return self.shapes.get("preference", 0)

    @property
    def preference(self) -> bool:
        """Every record is a preference pair: the data of a DPO run."""
        return self.records > 0 and self.pairs == self.records

    @property
    def mean_prompt_tokens(self) -> float:
        return self.prompt_tokens / self.records if self.records else 0.0

    @property
    def mean_answer_tokens(self) -> float:
        answers = self.records + self.pairs  # a pair has two answers
        return self.answer_tokens / answers if answers else 0.0

    @property
    def mb_per_s(self) -> float:
        return self.bytes_total / 1e6 / self.seconds if self.seconds > 0 else 0.0

    def histogram(self) -> LengthHistogram:
        """The sequence lengths as the data section's histogram (ValueError when none)."""
        how = "exact" if self.exact else "approximate"
        source = f"{self.name}: {self.sequences:,} sequences, {how} ({self.tokenizer})"
        return from_counts(self.bin_counts, source[:1000])

    def shape_text(self) -> str:
        return ", ".join(
            f"{SHAPE_LABELS[s]} {n:,}" for s, n in sorted(self.shapes.items(), key=lambda x: -x[1])
        )


def _count(m: DatasetMeasure, batch: list[Record], counter: TokenCounter) -> None:
    """Count a batch of records: their texts at once, then each sequence's length (content +
    the template's tokens per message and per sequence) into ``m.lengths``. The hot loop of a
    read: plain locals, one dict update per sequence."""
    texts: list[str] = []
    for r in batch:
        texts += r.prompt.texts
        texts += r.answer.texts
        if r.rejected is not None:
            texts += r.rejected.texts
    counts = counter.count(texts) if texts else []
    per_message, per_sequence = counter.per_message, counter.per_sequence
    lengths, shapes = m.lengths, m.shapes
    at = 0
    prompts = answers = 0.0
    for r in batch:
        n = len(r.prompt.texts)
        prompt = sum(counts[at : at + n])
        at += n
        prompts += prompt
        shapes[r.shape] = shapes.get(r.shape, 0) + 1
        for a in (r.answer,) if r.rejected is None else (r.answer, r.rejected):
            n = len(a.texts)
            length = round(
                prompt + sum(counts[at : at + n])
                + per_message * (r.prompt.messages + a.messages) + per_sequence
            )  # fmt: skip
            at += n
            lengths[length] = lengths.get(length, 0) + 1
            answers += length - prompt
    m.records += len(batch)
    m.prompt_tokens += prompts
    m.answer_tokens += answers


def measure_dataset(
    path: str | os.PathLike[str],
    counter: TokenCounter,
    *,
    fmt: str | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> DatasetMeasure:
    """Read the whole file once (module docstring); DatasetError, DatasetCancelled."""
    started = time.perf_counter()
    try:
        raw = open_regular(path, DATASET)
    except FileReadError as exc:
        raise DatasetError(str(exc)) from None
    with raw:
        size = os.fstat(raw.fileno()).st_size
        head = raw.read(64 << 10)
        raw.seek(0)
        gz = is_gzip(path, head)
        if gz:  # the format is sniffed from the decompressed start
            try:
                head = open_stream(raw, True).read(64 << 10)
            except (OSError, EOFError) as exc:
                raise DatasetError(f"{shown(path)} is not a gzip file: {exc}") from None
            raw.seek(0)
        stream = open_stream(raw, gz)
        fmt = fmt or detect_format(path, head)
        m = DatasetMeasure(
            os.path.basename(os.fsdecode(path)), fmt, gz, size, counter.label, counter.exact,
            counter.source, counter.per_message, counter.per_sequence,
        )  # fmt: skip
        batch: list[Record] = []
        last = time.perf_counter()
        try:
            for n, item in enumerate(items(stream, fmt), 1):
                if item.error:
                    _malformed(m, item.where, item.error)
                else:
                    try:
                        batch.append(parse_record(item.value))
                    except RecordError as exc:
                        _malformed(m, item.where, str(exc))
                if len(batch) >= BATCH_RECORDS:
                    _count(m, batch, counter)
                    batch = []
                if n % CHECK_EVERY == 0:
                    if cancelled is not None and cancelled():
                        raise DatasetCancelled()
                    if progress is not None and (now := time.perf_counter()) - last >= (
                        PROGRESS_EVERY_S
                    ):
                        last = now
                        progress(min(raw.tell(), size), size)
        except (OSError, EOFError) as exc:  # a gzip stream cut short or corrupt
            _malformed(m, 0, f"the file could not be read to its end: {exc}")
        if cancelled is not None and cancelled():
            raise DatasetCancelled()
        if batch:
            _count(m, batch, counter)
        if progress is not None:
            progress(size, size)
    m.tally()
    m.seconds = time.perf_counter() - started
    return m


def _malformed(m: DatasetMeasure, where: int, why: str) -> None:
    m.malformed += 1
    if len(m.malformed_examples) < KEEP_MALFORMED:
        m.malformed_examples.append((where, why))
