"""Safetensors headers: exact counts from files the tests build; only SafetensorsError on junk."""

from __future__ import annotations

import contextlib
import json
import random
import struct
import time
from pathlib import Path

import pytest

from ftcost_gui.io import loader
from ftcost_gui.io.safetensors_header import (
    SafetensorsError,
    count_safetensors,
    read_safetensors_header,
)

ITEMSIZE = {"BF16": 2, "F16": 2, "F32": 4, "I64": 8, "U8": 1, "F8_E4M3": 1}


def header_for(tensors: dict[str, tuple[str, list[int]]], metadata: dict | None = None) -> dict:
    header: dict = {}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        size = ITEMSIZE[dtype]
        for d in shape:
            size *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    if metadata is not None:
        header["__metadata__"] = metadata
    return header


def write_st(path: Path, header: dict | bytes, data_bytes: int | None = None) -> Path:
    """8-byte little-endian length + JSON header + (sparse) data region."""
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    if data_bytes is None:
        ends = [v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"]
        data_bytes = max(ends, default=0)
    with path.open("wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw)
        f.truncate(8 + len(raw) + data_bytes)
    return path


TENSORS = {
    "model.embed_tokens.weight": ("BF16", [32000, 4096]),
    "model.layers.0.self_attn.q_proj.weight": ("BF16", [4096, 4096]),
    "model.layers.0.input_layernorm.weight": ("F32", [4096]),
    "scale": ("F32", []),  # a scalar is one element
    "empty": ("F16", [0, 7]),  # and an empty tensor none
}
N_BF16 = 32000 * 4096 + 4096 * 4096
N_F32 = 4096 + 1


def test_counts_one_file_exactly(tmp_path):
    path = write_st(tmp_path / "model.safetensors", header_for(TENSORS, {"format": "pt"}))
    header = read_safetensors_header(path)
    assert header["__metadata__"] == {"format": "pt"}
    c = count_safetensors(path)
    assert c.total_params == N_BF16 + N_F32
    assert c.dtypes == {"BF16": N_BF16, "F16": 0, "F32": N_F32}
    assert c.total_bytes == 2 * N_BF16 + 4 * N_F32
    assert c.tensors == 5
    assert c.files == (path,)


def test_counts_shards_via_the_index_without_double_counting(tmp_path):
    a = {k: TENSORS[k] for k in list(TENSORS)[:2]}
    b = {k: TENSORS[k] for k in list(TENSORS)[2:]}
    write_st(tmp_path / "model-00001-of-00002.safetensors", header_for(a))
    write_st(tmp_path / "model-00002-of-00002.safetensors", header_for(b))
    write_st(tmp_path / "consolidated.safetensors", header_for(TENSORS))  # same weights again
    index = {"metadata": {"total_size": 0}, "weight_map": {
        **dict.fromkeys(a, "model-00001-of-00002.safetensors"),
        **dict.fromkeys(b, "model-00002-of-00002.safetensors"),
    }}  # fmt: skip
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    c = count_safetensors(tmp_path)
    assert c.total_params == N_BF16 + N_F32
    assert [p.name for p in c.files] == [
        "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
    ]  # fmt: skip
    # Without an index every file counts.
    (tmp_path / "model.safetensors.index.json").unlink()
    assert count_safetensors(tmp_path).total_params == 2 * (N_BF16 + N_F32)


def test_index_problems(tmp_path):
    write_st(tmp_path / "model-00001-of-00002.safetensors", header_for(TENSORS))
    index = tmp_path / "model.safetensors.index.json"
    index.write_text(json.dumps({"weight_map": {"x": "model-00002-of-00002.safetensors"}}))
    with pytest.raises(SafetensorsError, match="not downloaded"):
        count_safetensors(tmp_path)
    index.write_text(json.dumps({"weight_map": {"x": "../evil.safetensors"}}))
    with pytest.raises(SafetensorsError, match="outside"):
        count_safetensors(tmp_path)
    index.write_text("{not json")
    with pytest.raises(SafetensorsError, match="not valid JSON"):
        count_safetensors(tmp_path)
    index.write_text("[]")
    with pytest.raises(SafetensorsError, match="weight_map"):
        count_safetensors(tmp_path)


def test_reads_only_the_header_of_a_huge_file(tmp_path, monkeypatch):
    header = header_for({"w": ("BF16", [1 << 20, 1 << 14])})  # 32 GiB of data, sparse
    path = write_st(tmp_path / "big.safetensors", header)
    n_header = path.stat().st_size - header["w"]["data_offsets"][1] - 8
    read = []
    real_fdopen = loader.os.fdopen

    class Counting:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def fileno(self):
            return self.f.fileno()

        def read(self, n=-1):
            assert n >= 0, "unbounded read"
            out = self.f.read(n)
            read.append(len(out))
            return out

    monkeypatch.setattr(loader.os, "fdopen", lambda *a, **k: Counting(real_fdopen(*a, **k)))
    start = time.monotonic()
    c = count_safetensors(path)
    assert time.monotonic() - start < 2
    assert c.total_params == 1 << 34
    assert c.total_bytes == 1 << 35
    assert sum(read) == 8 + n_header


@pytest.mark.parametrize(
    ("content", "word"),
    [
        (b"", "too short"),
        (b"\x05\x00\x00", "too short"),
        (struct.pack("<Q", 10**9) + b"{}", "over the"),  # over the 100 MB bound
        (struct.pack("<Q", 2**64 - 1) + b"{}", "over the"),
        (struct.pack("<Q", 500) + b'{"a": 1}', "only"),  # longer than the file
        (struct.pack("<Q", 9) + b"not json!", "not valid JSON"),
        (struct.pack("<Q", 4) + b"\xff\xfe\xfd\xfc", "not valid JSON"),
        (struct.pack("<Q", 2) + b"[]", "not a JSON object"),
        (struct.pack("<Q", 3) + b'"x"', "not a JSON object"),
        (struct.pack("<Q", 10) + b'{"a": [1]}', "not described by an object"),
        (struct.pack("<Q", 0), "not valid JSON"),
    ],
)
def test_bad_files_raise_safetensors_error(tmp_path, content, word):
    path = tmp_path / "x.safetensors"
    path.write_bytes(content)
    with pytest.raises(SafetensorsError, match=word):
        count_safetensors(path)


def test_truncated_data_region(tmp_path):
    header = header_for(TENSORS)
    path = write_st(tmp_path / "m.safetensors", header)
    size = path.stat().st_size
    with path.open("r+b") as f:
        f.truncate(size - 1)  # an interrupted download
    with pytest.raises(SafetensorsError, match="truncated"):
        count_safetensors(path)
    assert read_safetensors_header(path) == header  # the header itself is intact


def test_header_bound_is_configurable(tmp_path):
    path = write_st(tmp_path / "m.safetensors", header_for(TENSORS))
    with pytest.raises(SafetensorsError, match="limit"):
        read_safetensors_header(path, max_header_bytes=16)
    assert read_safetensors_header(path, max_header_bytes=10_000)


@pytest.mark.parametrize(
    "entry",
    [
        {"shape": [2], "data_offsets": [0, 4]},
        {"dtype": "F16", "shape": [-1], "data_offsets": [0, 4]},
        {"dtype": "F16", "shape": [2.5], "data_offsets": [0, 4]},
        {"dtype": "F16", "shape": "2", "data_offsets": [0, 4]},
        {"dtype": "F16", "shape": [2], "data_offsets": [4, 0]},
        {"dtype": "F16", "shape": [2], "data_offsets": [0]},
        {"dtype": "F16", "shape": [True], "data_offsets": [0, 4]},
    ],
)
def test_malformed_tensor_entries(tmp_path, entry):
    path = write_st(tmp_path / "m.safetensors", {"t": entry}, data_bytes=4)
    with pytest.raises(SafetensorsError, match="'t'"):
        count_safetensors(path)


def test_missing_paths(tmp_path):
    with pytest.raises(SafetensorsError, match=r"no \.safetensors"):
        count_safetensors(tmp_path)
    with pytest.raises(SafetensorsError, match="does not exist"):
        count_safetensors(tmp_path / "nope")
    with pytest.raises(SafetensorsError, match="is a folder"):
        read_safetensors_header(tmp_path)  # a folder is not a file


def test_random_bytes_only_ever_raise_safetensors_error(tmp_path):
    rng = random.Random(1234)
    path = tmp_path / "fuzz.safetensors"
    good = json.dumps(header_for(TENSORS)).encode()
    for i in range(300):
        if i % 3 == 0:  # pure noise
            blob = rng.randbytes(rng.randrange(0, 64))
        else:  # a valid prefix and header with bytes flipped or cut
            blob = bytearray(struct.pack("<Q", len(good)) + good)
            for _ in range(rng.randrange(1, 4)):
                blob[rng.randrange(len(blob))] = rng.randrange(256)
            blob = bytes(blob[: rng.randrange(len(blob) + 1)])
        path.write_bytes(blob)
        with contextlib.suppress(SafetensorsError):  # anything else fails the test
            count_safetensors(path)


def test_header_claims_are_checked_against_the_bytes(tmp_path):
    """Issue 12: a 32-byte file claiming 10^36 parameters is refused, not counted."""
    huge = {"w": {"dtype": "BF16", "shape": [10**18, 10**18], "data_offsets": [0, 32]}}
    path = write_st(tmp_path / "liar.safetensors", huge)
    with pytest.raises(
        SafetensorsError, match=r"claims about 10\^36 elements of BF16 but holds 32"
    ):
        count_safetensors(path)
    # the same with no bytes at all, and with an unknown dtype (at least one bit per element)
    for entry in (
        {"dtype": "BF16", "shape": [10**18, 10**18], "data_offsets": [0, 0]},
        {"dtype": "NEW8", "shape": [257], "data_offsets": [0, 32]},
        {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]},  # 16 bytes needed, 8 given
    ):
        path = write_st(tmp_path / "liar.safetensors", {"w": entry})
        with pytest.raises(SafetensorsError, match="the header is corrupt"):
            count_safetensors(path)
    ok = write_st(
        tmp_path / "ok.safetensors",
        {"w": {"dtype": "NEW8", "shape": [32], "data_offsets": [0, 32]}},
    )
    assert count_safetensors(ok).total_params == 32


def test_overlapping_tensors_are_refused(tmp_path):
    """Two tensors over the same bytes would count the parameters twice."""
    header = {
        "a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
        "b": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]},
    }
    with pytest.raises(SafetensorsError, match="'a' and 'b' share bytes"):
        count_safetensors(write_st(tmp_path / "x.safetensors", header))
    header["b"]["data_offsets"] = [16, 32]
    assert count_safetensors(write_st(tmp_path / "x.safetensors", header)).total_params == 8
