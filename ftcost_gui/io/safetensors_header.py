"""Count a checkpoint's parameters from its ``.safetensors`` headers, never its weights.

A safetensors file starts with an 8-byte little-endian unsigned header length n, then n bytes of
JSON: ``{"name": {"dtype": "BF16", "shape": [..], "data_offsets": [begin, end]}, ...,
"__metadata__": {...}}``; the tensor data follows. Reading a header is open, read 8, read n: the
data region is never touched, however large the file.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_HEADER_BYTES = 100_000_000
INDEX_NAME = "model.safetensors.index.json"
MAX_INDEX_BYTES = 50_000_000
METADATA_KEY = "__metadata__"


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
        with p.open("rb") as f:
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
        out[key] = (dtype, math.prod(shape), offsets[1] - offsets[0], offsets[1])
    return out


def _checkpoint_files(folder: Path) -> tuple[Path, ...]:
    """The .safetensors files of one checkpoint (the index's shards when an index is present)."""
    index = folder / INDEX_NAME
    if index.is_file():
        try:
            with index.open("rb") as f:
                raw = f.read(MAX_INDEX_BYTES + 1)
            if len(raw) > MAX_INDEX_BYTES:
                raise SafetensorsError(f"{INDEX_NAME} is larger than {MAX_INDEX_BYTES:,} bytes.")
            doc = json.loads(raw)
        except OSError as exc:
            raise SafetensorsError(f"{INDEX_NAME} cannot be read: {exc.strerror or exc}.") from None
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
        missing = [n for n in names if not (folder / n).is_file()]
        if missing:
            raise SafetensorsError(
                f"{INDEX_NAME} lists {len(missing)} shard(s) that are not downloaded, e.g. "
                f"{missing[0]}."
            )
        return tuple(folder / n for n in names)
    return tuple(sorted(p for p in folder.glob("*.safetensors") if p.is_file()))


def count_safetensors(
    path: str | os.PathLike[str], max_header_bytes: int = MAX_HEADER_BYTES
) -> SafetensorsCount:
    """Parameters of the checkpoint in a folder (or one .safetensors file), from headers only.

    A tied output head stored as its own tensor is counted again, as it is stored.
    """
    p = Path(path).expanduser()
    if p.is_dir():
        files = _checkpoint_files(p)
        if not files:
            raise SafetensorsError(f"{p} has no .safetensors files.")
    elif p.is_file():
        files = (p,)
    else:
        raise SafetensorsError(f"{p} does not exist.")
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
