"""Streaming a dataset file record by record, in constant memory, whatever its size.

Formats: JSON Lines (one record a line), JSON (an array of records, or an object whose values
are arrays of records: ``{"train": [...]}``), CSV / TSV (a header row, then one record a row) and
plain text (one example a line); any of them gzip-compressed (``.gz``). The format comes from the
name, else from the first bytes. Memory stays bounded: lines and records longer than
``MAX_RECORD_BYTES`` are skipped as malformed without being held, and a JSON array is parsed one
element at a time.

A malformed line or record is an :class:`Item` with an error, never an exception; what cannot be
read on (bytes that are not UTF-8 inside a JSON array, a broken array) ends the stream with one
such item, and what was read before it still counts.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

CHUNK_BYTES = 1 << 20
MAX_RECORD_BYTES = 64 << 20  # one line or record; longer ones are skipped as malformed
FORMATS = ("jsonl", "json", "csv", "tsv", "text")
_SUFFIXES = {
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv",
    ".txt": "text", ".text": "text", ".md": "text",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Item:
    """One record (``value``) or why it is not one (``error``), at a line (or element) number."""

    where: int
    value: Any = None
    error: str = ""


def is_gzip(path: str | os.PathLike[str], head: bytes) -> bool:
    return head[:2] == b"\x1f\x8b" or os.fspath(path).lower().endswith(".gz")


def detect_format(path: str | os.PathLike[str], head: bytes) -> str:
    """The format from the name (``train.jsonl.gz`` is JSON Lines), else from the first bytes."""
    name = os.fspath(path).lower().removesuffix(".gz")
    for suffix, fmt in _SUFFIXES.items():
        if name.endswith(suffix):
            return fmt
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"["):
        return "json"
    if text.startswith(b"{"):
        first = text.split(b"\n", 1)[0]
        try:
            json.loads(first)
            return "jsonl"
        except ValueError:
            return "json"
    return "text"


def open_stream(raw: BinaryIO, gz: bool) -> BinaryIO:
    """The file's bytes, decompressed when gzip."""
    return gzip.GzipFile(fileobj=raw, mode="rb") if gz else raw  # type: ignore[return-value]


def lines(fh: BinaryIO) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes without the newline), or None for a line over the cap (skipped
    without being held: its chunks are dropped as they come)."""
    number = 0
    parts: list[bytes] = []  # the current line's pieces from earlier chunks
    held = 0
    skipping = False
    while chunk := fh.read(CHUNK_BYTES):
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            number += 1
            if skipping:
                yield number, None
            elif parts:
                yield number, b"".join(parts) + chunk[start:end]
            else:
                yield number, chunk[start:end]
            parts, held, skipping = [], 0, False
            start = end + 1
        rest = chunk[start:]
        if skipping or not rest:
            continue
        held += len(rest)
        if held > MAX_RECORD_BYTES:  # past the cap: drop what is held, skip to the line's end
            parts, held, skipping = [], 0, True
        else:
            parts.append(rest)
    if skipping or parts:
        yield number + 1, None if skipping else b"".join(parts)


def _decode_line(raw: bytes) -> str:
    return raw.decode("utf-8").removeprefix("\ufeff").rstrip("\r")


def jsonl_items(fh: BinaryIO) -> Iterator[Item]:
    loads = json.JSONDecoder().decode  # json.loads without its per-call checks
    for number, raw in lines(fh):
        if raw is None:
            yield Item(number, error=f"longer than {MAX_RECORD_BYTES >> 20} MiB")
            continue
        try:
            yield Item(number, loads(raw.decode()))  # the fast path: UTF-8, valid JSON
            continue
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            pass
        if not raw.strip():
            continue
        try:  # the slow path says why: not UTF-8, a byte-order mark, or not JSON
            yield Item(number, loads(_decode_line(raw)))
        except UnicodeDecodeError:
            yield Item(number, error="not UTF-8 text")
        except (ValueError, RecursionError) as exc:
            yield Item(number, error=f"not valid JSON ({str(exc).split(':')[0]})")


def text_items(fh: BinaryIO) -> Iterator[Item]:
    for number, raw in lines(fh):
        if raw is None:
            yield Item(number, error=f"longer than {MAX_RECORD_BYTES >> 20} MiB")
        elif raw.strip():
            try:
                yield Item(number, {"text": _decode_line(raw)})
            except UnicodeDecodeError:
                yield Item(number, error="not UTF-8 text")


def csv_items(fh: BinaryIO, delimiter: str) -> Iterator[Item]:
    csv.field_size_limit(MAX_RECORD_BYTES)  # the module's default (128 kB) refuses long answers
    text = io.TextIOWrapper(fh, encoding="utf-8-sig", errors="strict", newline="")
    reader = csv.reader(text, delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return
    except (csv.Error, UnicodeDecodeError) as exc:
        yield Item(1, error=f"no header row ({exc})")
        return
    width = len(header)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield Item(reader.line_num, error=f"not a CSV row ({exc})")
            continue
        except UnicodeDecodeError:
            yield Item(reader.line_num, error="not UTF-8 text; the rest of the file is not read")
            return
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != width:
            yield Item(reader.line_num, error=f"{len(row)} fields; the header has {width}")
            continue
        yield Item(reader.line_num, dict(zip(header, row, strict=True)))


class _JsonText:
    """A JSON document's text read ahead in growing chunks, parsed a value at a time."""

    def __init__(self, fh: BinaryIO):
        self.fh = fh
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.json = json.JSONDecoder()

    def more(self, at_least: int = CHUNK_BYTES) -> bool:
        """Read on (dropping what was parsed); False at the end of the file."""
        if self.eof:
            return False
        self.buf, self.pos = self.buf[self.pos :], 0
        chunk = self.fh.read(max(at_least, CHUNK_BYTES))
        self.eof = not chunk
        self.buf += self.decoder.decode(chunk, final=self.eof)
        return not self.eof or bool(self.buf)

    def peek(self) -> str:
        """The next non-blank character ('' at the end)."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in " \t\r\n\ufeff":
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def value(self) -> Any:
        """The next JSON value; ValueError when it is not one (or longer than the cap)."""
        self.peek()
        while True:
            try:
                value, end = self.json.raw_decode(self.buf, self.pos)
                if end < len(self.buf) or self.eof:  # a number at the end may go on
                    self.pos = end
                    return value
            except ValueError:
                if self.eof or len(self.buf) - self.pos > MAX_RECORD_BYTES:
                    raise
            if not self.more(len(self.buf) - self.pos):  # double the look-ahead
                raise ValueError("the file ends inside a value")


def json_items(fh: BinaryIO) -> Iterator[Item]:
    """Records of ``[...]``, or of every array value of a top-level ``{...}``."""
    doc = _JsonText(fh)
    element = 0
    try:
        first = doc.peek()
        if first == "[":
            doc.pos += 1
            for item in _array(doc, element):
                element = item.where
                yield item
            return
        if first != "{":
            yield Item(1, error="not a JSON array or object of records")
            return
        doc.pos += 1
        while (c := doc.peek()) not in ("}", ""):
            if c == ",":
                doc.pos += 1
                continue
            doc.value()  # the key
            if doc.peek() != ":":
                raise ValueError("expected ':' after a key")
            doc.pos += 1
            if doc.peek() == "[":
                doc.pos += 1
                for item in _array(doc, element):
                    element = item.where
                    yield item
            else:
                doc.value()  # a value that is not a list of records: skipped
    except UnicodeDecodeError:
        yield Item(element + 1, error="not UTF-8 text; the rest of the file is not read")
    except (ValueError, RecursionError) as exc:
        yield Item(element + 1, error=f"not valid JSON ({str(exc).split(':')[0]}); the rest of "
                   "the file is not read")  # fmt: skip


def _array(doc: _JsonText, element: int) -> Iterator[Item]:
    """The elements of an array whose '[' was read, numbered on from ``element``."""
    while True:
        c = doc.peek()
        if c == "]":
            doc.pos += 1
            return
        if c == ",":
            doc.pos += 1
            continue
        if c == "":
            raise ValueError("the file ends inside the array")
        element += 1
        yield Item(element, doc.value())


def items(fh: BinaryIO, fmt: str) -> Iterator[Item]:
    if fmt == "jsonl":
        return jsonl_items(fh)
    if fmt == "json":
        return json_items(fh)
    if fmt in ("csv", "tsv"):
        return csv_items(fh, "\t" if fmt == "tsv" else ",")
    return text_items(fh)
