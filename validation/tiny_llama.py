"""The tiny Llama the DPO and generation FLOP records use, and what every record carries."""

from __future__ import annotations

import json
import platform
from datetime import date
from pathlib import Path

import torch
import transformers

# Two layers, GQA (4 query heads, 2 KV heads), gated MLP, untied head: every per-token term of the
# core is linear in these widths, so a tiny model tests the same formulas as a full-size one.
CONFIG = {
    "num_hidden_layers": 2,
    "hidden_size": 256,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 512,
    "vocab_size": 512,
    "tie_word_embeddings": False,
}


def write_record(path: Path, record: dict) -> None:
    """The record with the config, versions, machine and date, as indented JSON."""
    full = {
        **record,
        "config": CONFIG,
        "versions": {
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "python": platform.python_version(),
        },
        "machine": platform.machine(),
        "date": date.today().isoformat(),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(full, indent=2) + "\n", encoding="utf-8")
