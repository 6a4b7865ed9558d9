"""What is live at the backward's peak: ``python -m validation.backward_trace --family llama ...``.

The profiler's allocator timeline (harness.step_memory) gives the peak's size, not what it is made
of. This tool runs one training step (forward + loss + backward) of a shrunk model under a
``TorchDispatchMode`` that registers every storage an op allocates (a ``StorageWeakRef``, its size,
the op, dtype, shape, the phase and the decoder layer it ran in) and, after each op, sums the
storages still alive: the live-bytes timeline of the step, parameters and buffers excluded,
parameter gradients included (as the allocator counts them). At the backward's peak it lists
every live storage, so each one can be named: a tensor the forward saved, a tensor the checkpoint
recomputed, or a gradient temporary of the backward.

Phases: ``forward`` (the step's forward and loss), ``recompute`` (a decoder layer's forward run
again inside the backward by non-reentrant checkpointing: the layer's forward hooks fire in the
backward), ``backward`` (gradient ops; the autograd node running is noted, e.g. ``MmBackward0``).

Ops' internal scratch (freed inside the kernel) is invisible to a dispatch mode; the allocator
peak of the records (``saved[].allocator.backward_peak``) includes it, so the two peaks are
printed side by side. The core's backward-peak terms (core/activations.py ``grad_temporaries``)
are derived from what this tool lists (docs/data/measured/backward_peak.json).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from typing import Any

import torch
import torch.utils.checkpoint as checkpoint_module
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from . import harness as H
from .families import FAMILIES
from .measure import _all_set, _attn_set, _lora, attentions

RECOMPUTING = 0  # > 0 while torch.utils.checkpoint reruns a forward inside the backward
_frame_init = checkpoint_module._CheckpointFrame.__init__


def _marked_frame_init(self, recompute_fn, *args, **kwargs) -> None:
    """Each checkpoint frame's recomputation, wrapped so the ops it runs are told apart."""

    def marked(*a, **k):
        global RECOMPUTING
        RECOMPUTING += 1
        try:
            return recompute_fn(*a, **k)
        finally:
            RECOMPUTING -= 1

    _frame_init(self, marked, *args, **kwargs)


class LiveStorages(TorchDispatchMode):
    """Every storage allocated by an op while the mode is on, and the live total after each op."""

    def __init__(self, excluded: set[int], where: list[str]) -> None:
        super().__init__()
        self.excluded = excluded
        self.where = where  # [phase, region] of the op running now (forward hooks update it)
        self.live: dict[int, tuple[StorageWeakRef, int, dict[str, Any]]] = {}
        self.level = 0
        self.peak = 0
        self.peak_at: dict[str, Any] = {}
        self.peak_live: list[dict[str, Any]] = []
        self.trail: list[tuple[str, str, str, int]] = []  # (phase, region, op, live bytes)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if not func.is_view:
            for t in tree_flatten(out)[0]:
                if isinstance(t, torch.Tensor):
                    self._note(t, func)
        self._prune()
        phase, region = self.phase(), self.where[1]
        node = torch._C._current_autograd_node()
        op = func.overloadpacket.__name__
        label = f"{node.name()}:{op}" if node is not None and phase == "backward" else op
        self.trail.append((phase, region, label, self.level))
        if self.level > self.peak and phase != "forward":
            self.peak = self.level
            self.peak_at = {"phase": phase, "region": region, "op": label}
            self.peak_live = [dict(info, bytes=n) for _, n, info in self.live.values()]
        return out

    def _note(self, t: torch.Tensor, func) -> None:
        st = t.untyped_storage()
        ptr = st.data_ptr()
        if not st.nbytes() or ptr in self.excluded:
            return
        known = self.live.get(ptr)
        if known is not None:
            if not known[0].expired():
                return  # the same storage again (an op returning its input)
            self.level -= self.live.pop(ptr)[1]  # freed, and its address reused already
        phase, region = self.phase(), self.where[1]
        node = torch._C._current_autograd_node()
        info = {
            "phase": phase,
            "region": region,
            "op": func.overloadpacket.__name__,
            "node": node.name() if node is not None else "",
            "dtype": str(t.dtype).removeprefix("torch."),
            "shape": list(t.shape),
        }
        self.live[ptr] = (StorageWeakRef(st), st.nbytes(), info)
        self.level += st.nbytes()

    def phase(self) -> str:
        return "recompute" if RECOMPUTING else self.where[0]

    def _prune(self) -> None:
        gone = [p for p, (ref, _, _) in self.live.items() if ref.expired()]
        for p in gone:
            self.level -= self.live.pop(p)[1]


def trace(family: str, mode: str, ckpt: bool, batch: int, seq: int, adapter: str = "fp32",
          targets: str = "all", attn: str | None = None, warm: bool = False,
          ) -> dict[str, Any]:  # fmt: skip
    """One step of the family's shrunk model; the live storages at the backward's peak.

    ``warm``: run one step first, so parameter gradients exist and the traced backward adds
    into them (gradient accumulation; the records' allocator runs follow an inventory run, so
    their gradients exist too): new gradients are then temporaries, the existing ones excluded.
    """
    fam = FAMILIES[family]
    cfg = fam.shrunk_config()
    lora = None
    if mode == "lora":
        label = _all_set(fam) if targets == "all" else _attn_set(fam)
        lora = _lora(fam, label, 8, adapter)
    attn = attn or attentions(fam)[0]
    model = H.build(cfg, device="cpu", attn=attn, ckpt=ckpt, lora=lora)
    where = ["forward", "outside"]
    handles = []
    for i, layer in enumerate(H.decoder_layers(model)):
        # Checkpointing reruns a layer's forward, not its __call__ (the layer's own hooks stay
        # outside the checkpoint): hooks on its submodules fire in the recomputation too.
        for name, sub in [("", layer), *layer.named_modules()][1:]:

            def enter(m, a, label=f"layer{i}.{name}") -> None:
                where[1] = label

            handles.append(sub.register_forward_pre_hook(enter))
        handles.append(layer.register_forward_pre_hook(lambda m, a, i=i: enter_layer(i)))

    def enter_layer(i: int) -> None:
        where[1] = f"layer{i}"

    ids = H._inputs(batch, seq, cfg["vocab_size"], "cpu")
    if warm:
        model(input_ids=ids, labels=ids, use_cache=False).loss.backward()
    excluded = {p.untyped_storage().data_ptr() for p in model.parameters()}
    excluded |= {p.grad.untyped_storage().data_ptr() for p in model.parameters()
                 if p.grad is not None}  # fmt: skip
    excluded |= {b.untyped_storage().data_ptr() for b in model.buffers()}
    mode_ = LiveStorages(excluded, where)
    checkpoint_module._CheckpointFrame.__init__ = _marked_frame_init  # type: ignore[method-assign]
    try:
        with mode_:
            loss = model(input_ids=ids, labels=ids, use_cache=False).loss
            after_forward = mode_.level
            where[:] = ["backward", "outside"]
            loss.backward()
            del loss
    finally:
        checkpoint_module._CheckpointFrame.__init__ = _frame_init  # type: ignore[method-assign]
        for h in handles:
            h.remove()
    return {
        "family": family, "mode": mode, "adapter_dtype": adapter if lora else None,
        "targets": targets if lora else None, "attention": attn, "checkpointing": ckpt,
        "batch": batch, "seq": seq, "warm": warm, "after_forward": after_forward,
        "backward_peak": mode_.peak,
        "peak_at": mode_.peak_at, "live_at_peak": mode_.peak_live, "trail": mode_.trail,
    }  # fmt: skip


def grouped(live: list[dict[str, Any]]) -> list[tuple[tuple, int, int]]:
    """Live storages at the peak grouped by (phase, region, op or node, dtype, shape)."""
    groups: dict[tuple, list[int]] = defaultdict(list)
    for x in live:
        who = x["node"] or x["op"]
        if x["node"]:
            who = f"{x['node']}:{x['op']}"
        groups[(x["phase"], x["region"], who, x["dtype"], tuple(x["shape"]))].append(x["bytes"])
    return sorted(((k, len(v), sum(v)) for k, v in groups.items()), key=lambda g: -g[2])


# The record: every family's shrunk model, checkpointed, b1 s256 with gradients existing (as
# the records' allocator runs: warm), full and LoRA on every linear in fp32 and bf16; Mixtral's
# full run also at s128, where the experts' weight gradient outweighs the per-token station.
RECORD_RUNS = [
    (f, mode, ad, 256, True)
    for f in sorted(FAMILIES)
    for mode, ad in (("full", "fp32"), ("lora", "fp32"), ("lora", "bf16"))
]
RECORD_RUNS += [("mixtral", "full", "fp32", 128, True)]
# A first micro-batch (no gradients yet, no accumulation): full fine-tuning's gradients are
# made during the backward and stay.
RECORD_RUNS += [(f, "full", "fp32", 256, False) for f in sorted(FAMILIES)]


def record() -> dict[str, Any]:
    """docs/data/measured/backward_peak.json: what is live at each run's backward peak."""
    from .measure import FORMAT, VERSION, environment

    runs = []
    for family, mode, adapter, seq, warm in RECORD_RUNS:
        t = trace(family, mode, True, 1, seq, adapter, warm=warm)
        live = [
            {"phase": k[0], "region": k[1], "op": k[2], "dtype": k[3], "shape": list(k[4]),
             "count": n, "bytes": b}
            for k, n, b in grouped(t["live_at_peak"])
        ]  # fmt: skip
        keys = ("family", "mode", "adapter_dtype", "attention", "batch", "seq", "warm")
        runs.append({k: t[k] for k in (*keys, "backward_peak", "peak_at")} | {"live_at_peak": live})
        print(f"{family} {mode} {adapter} s{seq} warm={warm}: {t['backward_peak']:,} B", flush=True)
    return {"format": FORMAT, "version": VERSION, **environment(), "method": __doc__,
            "runs": runs}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m validation.backward_trace", description=__doc__)
    ap.add_argument("--family", default="llama", choices=sorted(FAMILIES))
    ap.add_argument("--mode", default="lora", choices=("full", "lora"))
    ap.add_argument("--adapter", default="fp32", choices=("fp32", "bf16"))
    ap.add_argument("--targets", default="all", choices=("all", "attn"))
    ap.add_argument("--no-ckpt", action="store_true")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--warm", action="store_true", help="gradients exist (accumulation)")
    ap.add_argument("--trail", action="store_true", help="print live bytes after every op")
    ap.add_argument("--record", action="store_true", help="write backward_peak.json (all runs)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    if args.record:
        from .measure import OUT, write

        write(OUT / "backward_peak.json", record())
        return 0
    t = trace(args.family, args.mode, not args.no_ckpt, args.batch, args.seq, args.adapter,
              args.targets, warm=args.warm)  # fmt: skip
    tokens = args.batch * args.seq
    print(f"after forward {t['after_forward']:,} B; backward peak {t['backward_peak']:,} B at "
          f"{t['peak_at']}")  # fmt: skip
    for (phase, region, who, dtype, shape), n, b in grouped(t["live_at_peak"]):
        print(f"{b:>11,} {b / tokens:>9.1f} B/tok  {n}× {phase:9} {region:7} {who:32} {dtype:9} "
              f"{list(shape)}")  # fmt: skip
    if args.trail:
        for phase, region, op, level in t["trail"]:
            if phase != "forward":
                print(f"{level:>11,} {phase:9} {region:7} {op}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
