"""Count a checkpoint's parameters from its ``.safetensors`` headers, never its weights.

A safetensors file starts with an 8-byte little-endian unsigned header length n, then n bytes of
JSON: ``{"name": {"dtype": "BF16", "shape": [..], "data_offsets": [begin, end]}, ...,
"__metadata__": {...}}``; the tensor data follows. Reading a header is open, read 8, read n: the
data region is never touched, however large the file.

A header is a claim, checked against the file: every tensor's shape × dtype width must equal its
byte range, ranges must not overlap, and they must fit in the bytes that follow the header (a
32-byte file cannot hold 10^36 parameters). Files are read through the one loader (regular files
only: a FIFO or device named ``*.safetensors`` is refused, never read).
"""

from __future__ import annotations

import itertools
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .loader import SAFETENSORS, SAFETENSORS_INDEX, FileReadError, open_regular, read_bytes, shown

MAX_HEADER_BYTES = 100_000_000
INDEX_NAME = "model.safetensors.index.json"
MAX_INDEX_BYTES = SAFETENSORS_INDEX.max_bytes
METADATA_KEY = "__metadata__"
# Bits per element of the dtypes the safetensors format defines (safetensors/src/tensor.rs,
# Dtype::bitsize). A dtype not listed here is accepted with a weaker check: at least one bit
# per element.
DTYPE_BITS = {
    "BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "E8M0": 8,
    "I16": 16, "U16": 16, "F16": 16, "BF16": 16,
    "I32": 32, "U32": 32, "F32": 32, "C64": 64,
    "F64": 64, "I64": 64, "U64": 64,
    "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
}  # fmt: skip


class SafetensorsError(Exception):
    """A file that is not a readable safetensors checkpoint; the message says why, in one line."""


@dataclass(frozen=True)
class SafetensorsCount:
    """What the headers say: parameters, by dtype, files and bytes of tensor data."""

    total_params: int
    dtypes: dict[str, int] = field(default_factory=dict)  # dtype -> parameters
    files: tuple[Path, ...] = ()
    total_bytes: int = 0  # tensor data, from data_offsets
    tensors: int = 0


def read_safetensors_header(
    path: str | os.PathLike[str], max_header_bytes: int = MAX_HEADER_BYTES
) -> dict[str, Any]:
    """The JSON header of one safetensors file; SafetensorsError if it is not one."""
    return _read_header(Path(path), max_header_bytes)[0]


def _read_header(p: Path, max_header_bytes: int) -> tuple[dict[str, Any], int]:
    """(header, bytes of data after it) of one file: open, read 8, read n; nothing more."""
    try:
        with open_regular(p, SAFETENSORS) as f:
            size = os.fstat(f.fileno()).st_size
            prefix = f.read(8)
            if len(prefix) < 8:
                raise SafetensorsError(
                    f"{p.name} is too short to be a safetensors file ({size} bytes)."
                )
            n = int.from_bytes(prefix, "little", signed=False)
            if n > max_header_bytes:
                raise SafetensorsError(
                    f"{p.name} declares a {n:,}-byte header, over the {max_header_bytes:,}-byte "
                    "limit; it is corrupt or not a safetensors file."
                )
            if 8 + n > size:
                raise SafetensorsError(
                    f"{p.name} declares a {n:,}-byte header but the file has only {size:,} bytes "
                    "(truncated or not a safetensors file)."
                )
            raw = f.read(n)
    except FileReadError as exc:
        raise SafetensorsError(str(exc)) from None
    except OSError as exc:
        raise SafetensorsError(f"{p.name} cannot be read: {exc.strerror or exc}.") from None
    if len(raw) < n:
        raise SafetensorsError(f"{p.name} ended inside its header (truncated while reading).")
    try:
        header = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
        raise SafetensorsError(f"{p.name} has a header that is not valid JSON: {exc}") from None
    if not isinstance(header, dict):
        raise SafetensorsError(f"{p.name} has a header that is not a JSON object.")
    return header, size - 8 - n


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def tensor_entries(
    header: dict[str, Any], name: str = "the file"
) -> dict[str, tuple[str, int, int, int]]:
    """name -> (dtype, elements, data bytes, data end) per tensor; SafetensorsError if malformed."""
    out: dict[str, tuple[str, int, int, int]] = {}
    for key, entry in header.items():
        if key == METADATA_KEY:
            continue
        if not isinstance(entry, dict):
            raise SafetensorsError(f"{name}: tensor '{key}' is not described by an object.")
        dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
        if not isinstance(dtype, str) or not dtype:
            raise SafetensorsError(f"{name}: tensor '{key}' has no dtype.")
        if not isinstance(shape, list) or not all(_is_count(d) for d in shape):
            raise SafetensorsError(f"{name}: tensor '{key}' has an invalid shape {shape!r}.")
        if (
            not isinstance(offsets, list)
            or len(offsets) != 2
            or not all(_is_count(o) for o in offsets)
            or offsets[0] > offsets[1]
        ):
            raise SafetensorsError(f"{name}: tensor '{key}' has invalid data_offsets {offsets!r}.")
        elements, nbytes = math.prod(shape), offsets[1] - offsets[0]
        bits = DTYPE_BITS.get(dtype)
        if (bits is not None and elements * bits != 8 * nbytes) or elements > 8 * nbytes:
            raise SafetensorsError(
                f"{name}: tensor '{shown(key)}' claims {_count(elements)} elements of "
                f"{shown(dtype)} but holds {nbytes:,} bytes; the header is corrupt."
            )
        out[key] = (dtype, elements, nbytes, offsets[1])
    _check_no_overlap(out, name)
    return out


def _count(n: int) -> str:
    """A count for a message: exact when readable, else its order of magnitude."""
    return f"{n:,}" if n < 10**15 else f"about 10^{int(n.bit_length() * math.log10(2))}"


def _check_no_overlap(entries: dict[str, tuple[str, int, int, int]], name: str) -> None:
    """Byte ranges of tensors never share a byte (each parameter is stored once)."""
    ranges = sorted((end - size, end, key) for key, (_, _, size, end) in entries.items() if size)
    for (_, end, first), (begin, _, second) in itertools.pairwise(ranges):
        if begin < end:
            raise SafetensorsError(
                f"{name}: tensors '{shown(first)}' and '{shown(second)}' share bytes; "
                "the header is corrupt."
            )


def _checkpoint_files(folder: Path) -> tuple[Path, ...]:
    """The .safetensors files of one checkpoint (the index's shards when an index is present)."""
    index = folder / INDEX_NAME
    if os.path.lexists(index):
        try:
            doc = json.loads(read_bytes(index, SAFETENSORS_INDEX))
        except FileReadError as exc:
            raise SafetensorsError(str(exc)) from None
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
            raise SafetensorsError(f"{INDEX_NAME} is not valid JSON: {exc}") from None
        weight_map = doc.get("weight_map") if isinstance(doc, dict) else None
        if not isinstance(weight_map, dict) or not all(
            isinstance(v, str) for v in weight_map.values()
        ):
            raise SafetensorsError(f"{INDEX_NAME} has no valid 'weight_map'.")
        names = sorted(set(weight_map.values()))
        if any(Path(n).name != n for n in names):
            raise SafetensorsError(f"{INDEX_NAME} names a shard outside its folder.")
        missing = [n for n in names if not os.path.exists(folder / n)]
        if missing:
            raise SafetensorsError(
                f"{INDEX_NAME} lists {len(missing)} shard(s) that are not downloaded, e.g. "
                f"{missing[0]}."
            )
        return tuple(folder / n for n in names)
    # Anything but a folder is a candidate: the loader refuses a FIFO or device with a clear
    # error instead of it being skipped silently (and the count coming out low).
    found = folder.glob("*.safetensors")
    return tuple(sorted(p for p in found if os.path.exists(p) and not os.path.isdir(p)))


def count_safetensors(
    path: str | os.PathLike[str], max_header_bytes: int = MAX_HEADER_BYTES
) -> SafetensorsCount:
    """Parameters of the checkpoint in a folder (or one .safetensors file), from headers only.

    A tied output head stored as its own tensor is counted again, as it is stored.
    """
    p = Path(path).expanduser()
    if os.path.isdir(p):
        files = _checkpoint_files(p)
        if not files:
            raise SafetensorsError(f"{p} has no .safetensors files.")
    elif os.path.lexists(p):
        files = (p,)
    else:
        raise SafetensorsError(f"{shown(p)} does not exist.")
    total = nbytes = ntensors = 0
    dtypes: dict[str, int] = {}
    for file in files:
        header, data_size = _read_header(file, max_header_bytes)
        entries = tensor_entries(header, file.name)
        end = max((e[3] for e in entries.values()), default=0)
        if end > data_size:
            raise SafetensorsError(
                f"{file.name} is truncated: its tensors need {end:,} bytes of data but only "
                f"{data_size:,} follow the header."
            )
        for dtype, elements, size, _ in entries.values():
            total += elements
            nbytes += size
            ntensors += 1
            dtypes[dtype] = dtypes.get(dtype, 0) + elements
    return SafetensorsCount(total, dict(sorted(dtypes.items())), files, nbytes, ntensors)
