"""Regenerate the measured records: ``python -m validation.measure [--family NAME ...]``.

Writes one JSON record per architecture family to docs/data/measured/<family>.json and the loss-
path record to docs/data/measured/loss.json. See validation/README.md for the methods and time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

import peft
import torch
import transformers

from . import harness as H
from .families import FAMILIES, Family
from .loss import measure_loss
from .optimizer import measure_optimizer

FORMAT = "ftcost-measured"
VERSION = 1
OUT = Path(__file__).resolve().parents[1] / "docs" / "data" / "measured"
LORA_RANK_COUNTS = 16  # full-size counts and FLOPs
LORA_RANK_SHRUNK = 8  # saved-tensor runs on the shrunk models
FLOP_SHAPES = [(1, 512), (1, 2048), (2, 1024)]
SAVED_SHAPES = [(1, 128), (2, 128), (1, 256)]
ALLOCATOR_SHAPE = (1, 256)  # the allocator timeline (slow under the profiler): one shape
INVENTORY_SHAPE = (1, 128)


def environment() -> dict[str, Any]:
    return {
        "software": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "peft": peft.__version__,
        },
        "machine": f"{platform.system()} {platform.machine()} CPU, {platform.processor() or '?'}",
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
    }


def _lora(family: Family, label: str, rank: int, adapter_dtype: str = "fp32") -> dict[str, Any]:
    return {
        "set": label,
        "rank": rank,
        "adapter_dtype": adapter_dtype,
        "target_modules": family.lora_sets.get(label, []),
        "target_parameters": family.lora_param_sets.get(label, []),
    }


def _all_set(family: Family) -> str:
    return "all" if "all" in family.lora_sets else next(iter(family.lora_param_sets))


def _attn_set(family: Family) -> str:
    return "attn_qv" if "attn_qv" in family.lora_sets else "attn"


def attentions(family: Family) -> list[str]:
    # Gemma 2 has no SDPA path in transformers (attention logit soft-capping): eager only.
    return ["eager"] if family.name == "gemma2" else ["sdpa", "eager"]


def measure_counts(family: Family) -> tuple[dict, list[dict]]:
    cfg = family.full_config()
    attn = attentions(family)[0]
    params = H.param_counts(H.build(cfg, device="meta", attn=attn))
    lora = []
    labels = list(family.lora_sets) + list(family.lora_param_sets)
    for label in labels:
        spec = _lora(family, label, LORA_RANK_COUNTS)
        model = H.build(cfg, device="meta", attn=attn, lora=spec)
        lora.append({**spec, "trainable": H.param_counts(model)["trainable"]})
    return params, lora


def measure_flops(family: Family) -> list[dict]:
    """Full-size configs on the meta device (dense); MoE routing needs values: shrunk, on CPU."""
    moe = bool(family.lora_param_sets)
    size = "shrunk" if moe else "full"
    cfg = family.shrunk_config() if moe else family.full_config()
    device = "cpu" if moe else "meta"
    attn = attentions(family)[0]
    modes: list[tuple[str, dict | None]] = [("full", None)]
    modes += [("lora", _lora(family, _attn_set(family), LORA_RANK_COUNTS))]
    modes += [("lora", _lora(family, _all_set(family), LORA_RANK_COUNTS))]
    shapes = [(1, 256), (2, 128)] if moe else FLOP_SHAPES
    out = []
    for mode, lora in modes:
        for ckpt in (False, True):
            for batch, seq in shapes:
                model = H.build(cfg, device=device, attn=attn, ckpt=ckpt, lora=lora)
                flops = H.count_flops(model, batch, seq, cfg["vocab_size"], device)
                out.append(_case(size, mode, lora, attn, ckpt, batch, seq) | flops)
    if len(attentions(family)) > 1:  # eager: the attention matmuls counted as plain bmm
        model = H.build(cfg, device=device, attn="eager")
        batch, seq = shapes[0]
        flops = H.count_flops(model, batch, seq, cfg["vocab_size"], device)
        out.append(_case(size, "full", None, "eager", False, batch, seq) | flops)
    return out


def _case(size, mode, lora, attn, ckpt, batch, seq) -> dict[str, Any]:
    return {
        "config": size,
        "mode": mode,
        "lora": None if lora is None else {k: lora[k] for k in ("set", "rank", "adapter_dtype")},
        "attention": attn,
        "checkpointing": ckpt,
        "batch": batch,
        "seq": seq,
    }


def measure_saved(family: Family) -> list[dict]:
    cfg = family.shrunk_config()
    vocab = cfg["vocab_size"]
    r = LORA_RANK_SHRUNK
    plain: list[tuple[str, dict | None]] = [
        ("full", None),
        ("lora", _lora(family, _all_set(family), r)),
        ("lora", _lora(family, _all_set(family), r, "bf16")),
        ("lora", _lora(family, _attn_set(family), r)),
    ]
    cases = [(m, lo, a, False) for m, lo in plain for a in attentions(family)]
    cases += [(m, lo, attentions(family)[0], True) for m, lo in plain[:2]]
    out = []
    for mode, lora, attn, ckpt in cases:
        for batch, seq in SAVED_SHAPES:
            model = H.build(cfg, device="cpu", attn=attn, ckpt=ckpt, lora=lora)
            inv = H.saved_inventory(model, batch, seq, vocab)
            alloc = None
            if ckpt or (batch, seq) == ALLOCATOR_SHAPE:
                alloc = H.step_memory(model, batch, seq, vocab)
            layers = [inv["by_region"].get(f"layer{i}", 0) for i in range(_layers(cfg))]
            rec = _case("shrunk", mode, lora, attn, ckpt, batch, seq) | {
                "per_layer_bytes": layers,
                "outside_bytes": inv["by_region"].get("outside", 0),
                "total_bytes": sum(inv["by_region"].values()),
                "allocator": alloc,
            }
            if (batch, seq) == INVENTORY_SHAPE:
                last = f"layer{_layers(cfg) - 1}"
                rec["inventory"] = [t for t in inv["tensors"] if t["region"] in (last, "outside")]
            out.append(rec)
    return out


def _layers(cfg: dict) -> int:
    return cfg.get("num_hidden_layers") or cfg["n_layer"]


def write(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    tmp.replace(path)


def measure_family(family: Family) -> dict[str, Any]:
    t0 = time.perf_counter()
    params, lora = measure_counts(family)
    flops = measure_flops(family)
    saved = measure_saved(family)
    return {
        "format": FORMAT,
        "version": VERSION,
        "family": family.name,
        "checkpoint": family.checkpoint,
        **environment(),
        "config": family.full_config(),
        "shrunk_config": family.shrunk_config(),
        "params": params,
        "lora_params": lora,
        "flops": flops,
        "saved": saved,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m validation.measure", description=__doc__)
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES), help="only these")
    ap.add_argument(
        "--no-loss", action="store_true", help="skip the loss-path and optimizer records"
    )
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)  # a shared 2-core machine; the records do not depend on it
    t0 = time.perf_counter()
    for name in args.family or sorted(FAMILIES):
        doc = measure_family(FAMILIES[name])
        write(args.out / f"{name}.json", doc)
        print(f"{name}: {doc['seconds']} s", flush=True)
    if not args.no_loss:
        doc = {"format": FORMAT, "version": VERSION, **environment(), **measure_loss()}
        write(args.out / "loss.json", doc)
        doc = {"format": FORMAT, "version": VERSION, **environment(), **measure_optimizer()}
        write(args.out / "optimizer.json", doc)
        print("loss, optimizer: done", flush=True)
    print(f"total: {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
